"""What a meta-evaluation returns: typed rows and one :class:`MetaEvaluation`.

Every number of ``gecmetrics meta-eval`` lives in one of the frozen row
dataclasses, and every output is rendered from them: ``to_json()`` of each row
is exactly the object the CLI has always printed (same keys, same order; new
keys only appended, such as ``signature``), :meth:`MetaEvaluation.to_frame` is a
long pandas table of the same values, and :mod:`.report` draws the text tables.

* :class:`MetaResult`: one correlation of a metric (at a beta and level) with
  the human scores of a benchmark's system set, with its bootstrap
  :class:`~.result_rows.Intervals` and cross-validated
  :class:`~.result_rows.CVBeta` when asked for;
* :class:`SentenceAgreement`: pairwise sentence-level agreement;
* :class:`~.sweep.Sweep`: the correlations at every beta of a grid.

The rows are defined in :mod:`.result_rows` (the bottom of the package:
the analyses that make them import them from there) and the row signatures in
:mod:`.selection` (:func:`row_signature`: the metric's own signature
(:mod:`gecmetrics.signature`) extended with what the meta-evaluation adds:
references and how they were read, level, benchmark, system set, corpus, human
scores, and seed and resamples where the analysis draws at random); both are
re-exported here. This module holds the whole result, which keeps the options
(:class:`~.options.MetaEvalOptions`) it was run with: it sits above the options
and the analyses, and nothing below it imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .result_rows import (
    Aggregation,
    CVBeta,
    Intervals,
    MetaResult,
    Row,
    SentenceAgreement,
)
from .selection import Selection, refs_from, row_signature

if TYPE_CHECKING:
    from .options import MetaEvalOptions
    from .sweep import Sweep

__all__ = ["Aggregation", "CVBeta", "Intervals", "MetaEvaluation", "MetaResult", "Row",
           "SentenceAgreement", "refs_from", "row_signature"]


# -- the whole result ---------------------------------------------------------------------


@dataclass(frozen=True)
class MetaEvaluation:
    """Everything one meta-evaluation computed, as typed data.

    ``selections``: per benchmark, the systems and human scores correlated (their
    ``describe()`` is the line printed above tables); ``correlations``: the
    system-level rows (with intervals and CV beta* when asked for; at a sweep,
    one row per beta); ``sentences``, ``sweeps``: the sentence-level rows and the
    beta sweeps (empty otherwise); ``registered``: the rows of each registered
    analysis run (:mod:`.analyses`), by name; ``notes``: what the CLI prints on stderr
    after the results (those about the options are ``options.notes``).
    :meth:`render` gives the command's text output.
    """

    options: MetaEvalOptions
    selections: tuple[Selection, ...]
    correlations: tuple[MetaResult, ...] = ()
    sentences: tuple[SentenceAgreement, ...] = ()
    sweeps: tuple[Sweep, ...] = ()
    notes: tuple[str, ...] = ()
    registered: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)  # by analysis
    # the CLI's renderer (report.render_evaluation), handed in by api.run: the result
    # never imports the modules that render it
    renderer: Callable[[MetaEvaluation, str], tuple[str, list[str]]] | None = field(
        default=None, repr=False, compare=False)

    def render(self, fmt: str = "table") -> tuple[str, list[str]]:
        """The output of ``gecmetrics meta-eval --format fmt`` (table, markdown, latex,
        csv, json) and its lines for stderr (notes; CSV: its preamble)."""
        if self.renderer is None:
            raise ValueError("this MetaEvaluation was built without a renderer; use "
                             "gecmetrics.meta_eval.render.render_evaluation(result, fmt)")
        return self.renderer(self, fmt)

    def analysis_rows(self, name: str) -> tuple[Any, ...]:
        """The rows of registered analysis ``name`` (:mod:`.analyses`; empty if not run)."""
        return tuple(self.registered.get(name, ()))

    # The rows of the analyses that the result has always named (docs/meta-eval.md):
    # views of ``registered``, so a registered analysis needs no field here.
    @property
    def comparisons(self) -> tuple[Any, ...]:
        return self.analysis_rows("compare")

    @property
    def windows(self) -> tuple[Any, ...]:
        return self.analysis_rows("window")

    @property
    def subsets(self) -> tuple[Any, ...]:
        return self.analysis_rows("subsets")

    @property
    def clusters(self) -> tuple[Any, ...]:
        return self.analysis_rows("clusters")

    @property
    def human_intervals(self) -> tuple[Any, ...]:
        return self.analysis_rows("human_intervals")

    @property
    def pools(self) -> tuple[Any, ...]:
        return self.analysis_rows("pool")

    @property
    def benchmarks(self) -> list[str]:
        return [sel.benchmark.name for sel in self.selections]

    def describe(self) -> list[str]:
        """One line per benchmark: human scores, system set, corpus."""
        return [sel.describe() for sel in self.selections]

    def rows(self) -> list[Any]:
        """Every row in the order of the JSON output."""
        registered = [row for rows in self.registered.values() for row in rows]
        if self.options.mode == "sentence":
            return [*self.sentences, *registered]
        return [*self.correlations, *registered]

    def signatures(self) -> list[str]:
        """The distinct signatures of the rows, in order of first appearance."""
        return list(dict.fromkeys(r.signature for r in self.rows()))

    def to_json(self) -> list[dict[str, Any]]:
        """The objects of ``gecmetrics meta-eval --format json``, in its order."""
        return [r.to_json() for r in self.rows()]

    def to_frame(self) -> Any:
        """A long pandas DataFrame: one row per (benchmark, human, system set, corpus,
        metric spec, beta, level, analysis) (and window position), its values as columns.

        ``analysis`` is ``correlation`` (or ``sweep`` at a beta sweep), ``compare``,
        ``window``, ``sentence``, ``subsets``, ``cluster``, ``human_interval`` (its
        system in ``system``, no metric); a two-element interval ``X_ci`` becomes the
        columns ``X_ci_low`` and ``X_ci_high``; a comparison's metric A fills
        ``metric``, ``spec``, ``beta`` and ``pearson`` (B: ``spec_b`` ...).
        Sentence-level rows have level ``sentence``. A row with ``frame_records``
        gives its own frame rows: a comparison the one above, a pooled-leaderboard
        entry (``analysis`` ``pool``) one per column of the leaderboard (its
        benchmark, human, level, ``measure``, ``value``, ``rank`` and ``weight``, and
        the entry's ``mean_rank`` and ``weighted``).
        """
        import pandas as pd

        plain = "sweep" if self.options.mode == "sweep" else "correlation"
        records = []
        for row in self.rows():
            obj = row.to_json()
            rec: dict[str, Any] = {"analysis": obj.get("analysis", plain)}
            for key, value in obj.items():
                if key == "analysis":
                    continue
                if key.endswith("_ci") and isinstance(value, list):
                    rec[f"{key}_low"], rec[f"{key}_high"] = value
                elif isinstance(value, list):
                    rec[key] = tuple(value)
                else:
                    rec[key] = value
            if rec["analysis"] == "sentence":
                rec["level"] = "sentence"
            if hasattr(row, "frame_records"):  # a row that makes its own frame rows
                records += row.frame_records(rec)
                continue
            records.append(rec)
        first = ["benchmark", "human", "systems", "corpus", "metric", "spec", "beta", "level",
                 "analysis", "n_systems", "pearson", "spearman", "kendall"]
        frame = pd.DataFrame.from_records(records)
        for column in first:
            if column not in frame.columns:
                frame[column] = None
        return frame[first + [c for c in frame.columns if c not in first]]
