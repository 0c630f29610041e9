"""What an analysis is: settings, a computation over a run's context, its table and figure.

An analysis is registered like a metric (:mod:`.analyses` lists them, one line
each). Its module holds everything about it:

* a frozen settings dataclass whose fields carry their command-line flag
  (:func:`.flags.option`): ``gecmetrics meta-eval`` offers those flags and
  :func:`gecmetrics.meta_evaluate` takes the fields as keywords; the flags'
  ``requires`` are checked like every option's, and ``check`` adds what needs
  the common options;
* typed, frozen row dataclasses with ``to_json()`` (``"analysis": name`` first)
  and ``signature`` (:class:`SignedRow`; ``row=`` names the type: mypy refuses an
  analysis whose rows lack either, and so does importing the registry);
* ``run(context, settings) -> rows``;
* ``title(settings, rows, options)`` and ``table(rows, fmt) -> str`` of its section
  (none for ``--bootstrap``, whose intervals are columns of the main table) and,
  optionally, ``figure(rows, path) -> path`` (written when the settings field
  named ``plot`` holds a path);
* ``on_load(settings, selection)``, optional: the checks that need a benchmark's
  data, run as each benchmark is read, before anything is scored;
* ``columns(context, settings) -> rows``, for an analysis that adds columns to the
  correlation (or sentence-level) rows instead of rows of its own (``--cv-beta``,
  ``--pairwise``): the run's signed rows with its columns (signed again where they
  enter the signature), in registry order; its section's table then reads those
  rows;
* ``random``: ``(flag, when)`` if it draws at random (``when(settings)``), so
  ``--seed`` accepts it; ``resamples_humans`` likewise for ``--human-unit``;
  ``resamples``: the analysis whose count is the run's number of resamples;
  ``beta``: ``(flag, when)`` of a beta option (refused, with a note, for metrics
  without beta); ``column``: the type of the column it adds to the rows;
* ``help_after``: the flagged field after whose flag ``--help`` lists the
  analysis's flags (the help text is a contract, its order too); None: after the
  common options.

:class:`~.results.MetaEvaluation` keeps the rows per analysis name; its JSON,
frame and the renderers treat them all alike. This module imports nothing
heavy: the registry is read while the CLI builds ``--help``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from gecmetrics.errors import ConfigError

if TYPE_CHECKING:
    from gecmetrics.meta_eval.pair_scoring import Resampling
    from gecmetrics.metric import Metric

    from .run_options import RunOptions
    from .selection import Selection


@dataclass(frozen=True)
class Context:
    """What a registered analysis runs on: the options (as the values
    :class:`~.run_options.RunOptions` names, so analyses need not import
    :mod:`.options`, which imports them), the benchmarks' selections
    (loaded once), the metrics (their statistics cached on the corpora), the rows
    computed before the registered analyses, the notes for stderr, and the resampled
    scores the analyses that draw at random share (same seed, same draws)."""

    options: RunOptions
    selections: tuple[Selection, ...]
    metrics: tuple[Metric, ...]
    rows: tuple[Any, ...] = ()  # the correlation (or sentence-level) rows of the run
    notes: list[str] = field(default_factory=list)  # lines for stderr, appended to
    resampling: Resampling | None = None  # resampled scores shared within the run

    @property
    def betas(self) -> list[float] | None:
        """The betas asked for (None: each metric's own)."""
        return list(self.options.betas) or None


class SignedRow(Protocol):
    """What every analysis row carries: its JSON object and its signature (the JSON
    and the tables' signature lines read both)."""

    @property
    def signature(self) -> str: ...

    def to_json(self) -> dict[str, Any]: ...


S = TypeVar("S")
R = TypeVar("R", bound=SignedRow)
When = tuple[str, Callable[[Any], bool]]  # a flag's text, and whether settings give it


@dataclass(frozen=True)
class Analysis(Generic[S, R]):
    """One registered analysis (see the module's docstring), generic in its settings
    ``S`` and its row type ``R``."""

    name: str
    settings: type[S]
    enabled: Callable[[S], bool]
    run: Callable[[Context, S], Sequence[R]]
    title: Callable[[S, Sequence[R], RunOptions], str] | None = None
    table: Callable[[Sequence[R], str], str] | None = None  # None: no section
    check: Callable[[S, RunOptions], None] | None = None
    figure: Callable[[Sequence[R], str], str] | None = None
    plot: str | None = None  # the settings field holding the figure's path
    help_after: str | None = None  # see the module's docstring
    on_load: Callable[[S, Selection], None] | None = None  # see the module's docstring
    columns: Callable[[Context, S], Sequence[Any]] | None = None  # see the docstring
    row: type[R] | None = None  # checked at import: a dataclass with a signature
    random: When | None = None  # draws at random (then --seed applies)
    resamples_humans: When | None = None  # resamples the human judgments (--human-unit)
    resamples: Callable[[S], int | None] | None = None  # the run's number of resamples
    beta: When | None = None  # a beta option (GLEU has no beta: a note says so)
    column: type | None = None  # the type of the column it adds to the rows

    def __post_init__(self) -> None:
        row = self.row
        if row is None or not is_dataclass(row) or "signature" not in {
                f.name for f in fields(row)} or not callable(getattr(row, "to_json", None)):
            raise ConfigError(f"analysis {self.name!r}: its row type (row=...) must be a "
                              "dataclass with a signature field and to_json()")


def either(words: Sequence[str]) -> str:
    """``a, b or c``: the words of a message that names alternatives."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def refuse_sweep(flag: str, options: RunOptions) -> None:
    """Refuse ``flag`` beside a beta sweep: the analyses that resample, compare or
    group systems work at the betas given, not at every beta of a grid."""
    if options.grid is not None:
        raise ConfigError(f"{flag} works at the given betas; it cannot be combined with "
                          "--sweep-beta/--plot")


def refuse_aggregation(flag: str, options: RunOptions) -> None:
    """Refuse ``flag`` at a human-like aggregation level (``--level ew/trueskill``),
    where every resample or beta would be aggregated again."""
    aggregated = options.aggregation_levels
    if aggregated:
        raise ConfigError(f"{flag} is not available at --level {aggregated[0]} (it would "
                          "re-aggregate every resample or beta); use --level corpus or mean "
                          f"with {flag}, or drop it")
