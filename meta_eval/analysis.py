"""What an analysis is: settings, a computation over a run's context, its table and figure.

An analysis is registered like a metric (:mod:`.analyses` lists them, one line
each). Its module holds everything about it:

* a frozen settings dataclass whose fields carry their command-line flag
  (:func:`.flags.option`): ``gecmetrics meta-eval`` offers those flags and
  :func:`gecmetrics.meta_evaluate` takes the fields as keywords; the flags'
  ``requires`` are checked like every option's, and ``check`` adds what needs
  the common options;
* typed, frozen row dataclasses with ``to_json()`` (``"analysis": name`` first)
  and ``signature``;
* ``run(context, settings) -> rows``;
* ``title(settings, rows)`` and ``table(rows, fmt) -> str`` of its section and,
  optionally, ``figure(rows, path) -> path`` (written when the settings field
  named ``plot`` holds a path).

:class:`~.results.MetaEvaluation` keeps the rows per analysis name; its JSON,
frame and the renderers treat them all alike. This module imports nothing
heavy: the registry is read while the CLI builds ``--help``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gecmetrics.metric import Metric

    from .options import MetaEvalOptions
    from .selection import Selection


@dataclass(frozen=True)
class Context:
    """What a registered analysis runs on: the options, the benchmarks' selections
    (loaded once), the metrics (their statistics cached on the corpora), the rows
    computed before the registered analyses, and the notes for stderr."""

    options: MetaEvalOptions
    selections: tuple[Selection, ...]
    metrics: tuple[Metric, ...]
    rows: tuple[Any, ...] = ()  # the correlation (or sentence-level) rows of the run
    notes: list[str] = field(default_factory=list)  # lines for stderr, appended to

    @property
    def betas(self) -> list[float] | None:
        """The betas asked for (None: each metric's own)."""
        return list(self.options.betas) or None


@dataclass(frozen=True)
class Analysis:
    """One registered analysis (see the module's docstring)."""

    name: str
    settings: type
    enabled: Callable[[Any], bool]
    run: Callable[[Context, Any], Sequence[Any]]
    title: Callable[[Any, Sequence[Any]], str]
    table: Callable[[Sequence[Any], str], str]
    check: Callable[[Any, MetaEvalOptions], None] | None = None
    figure: Callable[[Sequence[Any], str], str] | None = None
    plot: str | None = None  # the settings field holding the figure's path
