"""What a meta-evaluation returns: typed rows and one :class:`MetaEvaluation`.

Every number of ``gecmetrics meta-eval`` lives in one of these frozen
dataclasses, and every output is rendered from them: ``to_json()`` of each row
is exactly the object the CLI has always printed (same keys, same order; new
keys only appended, such as ``signature``), :meth:`MetaEvaluation.to_frame` is a
long pandas table of the same values, and :mod:`.report` draws the text tables.

* :class:`MetaResult`: one correlation of a metric (at a beta and level) with
  the human scores of a benchmark's system set, with its bootstrap
  :class:`Intervals` and cross-validated :class:`CVBeta` when asked for;
* :class:`Comparison`: Williams' test and the paired bootstrap for two metrics;
* :class:`WindowRow`: the correlation within one window of systems;
* :class:`SentenceAgreement`: pairwise sentence-level agreement;
* :class:`~.sweep.Sweep`: the correlations at every beta of a grid.

Each row carries a signature (:func:`row_signature`): the metric's own
signature (:mod:`gecmetrics.signature`) extended with what the meta-evaluation
adds (references and how they were read, level, benchmark, system set, corpus,
human scores, and seed and resamples where the analysis draws at random).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .pair_stats_rows import ClusterRow, HumanIntervalRow, PairStats, SentenceTies
from .rows import RowIdentity, num, num_list

if TYPE_CHECKING:
    from gecmetrics.metric import Metric

    from .aggregate import Aggregation
    from .options import MetaEvalOptions
    from .selection import Selection
    from .subsets import SubsetRow
    from .sweep import Sweep


_num, _pair = num, num_list  # the names this module's rows (and aggregate) use


# -- signatures ---------------------------------------------------------------------------


def refs_from(selection: Selection) -> str:
    """How the benchmark's references were obtained: from its M2 file (the lenient
    reading, :meth:`gecmetrics.m2.M2File.references`) or as text files."""
    return "text" if selection.benchmark.corpus.m2 is None else "m2-lenient"


def row_signature(metric: Metric, selection: Selection, level: str,
                  beta: float | str | None = None, human: str | None = None,
                  **analysis: Any) -> str:
    """The signature of one meta-evaluation row.

    ``beta``: the beta used (a sweep gives its grid text); ``human``: the human
    scores when they are not the selection's system-level kind (sentence-level
    judgments); ``analysis``: fields of the analysis (resamples, seed, window ...).
    """
    from gecmetrics.signature import metric_signature

    sig = metric_signature(metric, selection.benchmark.corpus)
    if beta is not None:
        sig = sig.extend(beta=beta if isinstance(beta, str) else float(beta))
    corpus = selection.benchmark.corpus
    return str(sig.extend(
        refs=0 if selection.benchmark.reference_free else len(corpus.references),
        refs_from=refs_from(selection), level=level,
        benchmark=selection.benchmark.name, systems=selection.system_set,
        corpus=selection.benchmark.corpus_label, human=human or selection.human_kind, **analysis))


# -- rows -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Intervals:
    """95% percentile bootstrap intervals over the test sentences (``--bootstrap``)."""

    pearson: tuple[float, float]
    spearman: tuple[float, float]
    kendall: tuple[float, float]
    resamples: int
    seed: int

    def to_json(self) -> dict[str, Any]:
        return {"pearson_ci": _pair(self.pearson), "spearman_ci": _pair(self.spearman),
                "kendall_ci": _pair(self.kendall), "bootstrap": self.resamples,
                "seed": self.seed}


@dataclass(frozen=True)
class CVBeta:
    """Cross-validated beta* (``--cv-beta``); all None for a metric without beta."""

    folds: int
    seed: int | None
    beta_star: float | None = None
    beta_star_folds: tuple[float, ...] | None = None
    beta_star_std: float | None = None
    pearson: float | None = None  # at beta*, on all sentences
    spearman: float | None = None
    kendall: float | None = None
    criterion: str | None = None  # None: the metric has no beta
    grid: str = ""  # the beta grid as given (START:STOP:STEP), for the signature

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"beta_star": _num(self.beta_star),
               "beta_star_folds": (None if self.beta_star_folds is None
                                   else list(self.beta_star_folds)),
               "beta_star_std": _num(self.beta_star_std),
               "pearson_at_beta_star": _num(self.pearson),
               "spearman_at_beta_star": _num(self.spearman),
               "kendall_at_beta_star": _num(self.kendall),
               "cv_folds": self.folds, "cv_seed": self.seed}
        if self.criterion is not None:
            out["cv_criterion"] = self.criterion
        return out


@dataclass(frozen=True)
class MetaResult(RowIdentity):
    """One (benchmark, metric, beta, level) correlation: a row of the CLI's JSON."""

    n_systems: int
    pearson: float
    spearman: float
    kendall: float
    intervals: Intervals | None = None
    cv: CVBeta | None = None
    signature: str = ""
    aggregation: Aggregation | None = None  # --level ew / trueskill: how, and the spread
    pairs: PairStats | None = None  # --pairwise, --tie-calibration, --spa

    def to_json(self) -> dict[str, Any]:
        out = {
            **self.identity_json(), "n_systems": self.n_systems,
            "pearson": _num(self.pearson), "spearman": _num(self.spearman),
            "kendall": _num(self.kendall),
        }
        if self.intervals is not None:
            out.update(self.intervals.to_json())
        if self.cv is not None:
            out.update(self.cv.to_json())
        if self.aggregation is not None:
            out.update(self.aggregation.to_json())
        if self.pairs is not None:
            out.update(self.pairs.to_json())
        if self.signature:
            out["signature"] = self.signature
        return out


@dataclass(frozen=True)
class Comparison:
    """Two metric configurations on one benchmark (``--compare``); p-values one-sided.

    ``williams_p``: Williams' test for the difference of the two Pearson r, which
    share the human scores; ``bootstrap_p``: share of paired resamples in which
    the metric with the higher r on all sentences does not have the higher r.
    """

    benchmark: str
    human: str
    systems: str
    corpus: str
    level: str
    n_systems: int
    metric_a: str
    spec_a: str
    beta_a: float | None
    metric_b: str
    spec_b: str
    beta_b: float | None
    pearson_a: float
    pearson_b: float
    pearson_ab: float
    williams_t: float
    williams_p: float
    bootstrap_p: float
    delta_ci: tuple[float, float]
    resamples: int
    seed: int
    signature: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis": "compare", "benchmark": self.benchmark, "human": self.human,
            "systems": self.systems, "corpus": self.corpus, "level": self.level,
            "n_systems": self.n_systems,
            "metric_a": self.metric_a, "spec_a": self.spec_a, "beta_a": self.beta_a,
            "metric_b": self.metric_b, "spec_b": self.spec_b, "beta_b": self.beta_b,
            "pearson_a": _num(self.pearson_a), "pearson_b": _num(self.pearson_b),
            "pearson_ab": _num(self.pearson_ab), "williams_t": _num(self.williams_t),
            "williams_p": _num(self.williams_p), "bootstrap_p": _num(self.bootstrap_p),
            "delta_ci": _pair(self.delta_ci), "bootstrap": self.resamples, "seed": self.seed,
            "one_sided": True,
        }
        if self.signature:
            out["signature"] = self.signature
        return out


@dataclass(frozen=True)
class WindowRow(RowIdentity):
    """Pearson and Spearman within one window of systems of similar human score."""

    window: int
    window_start: int  # 1-based human rank of the window's best system
    systems_in_window: tuple[str, ...]  # best first
    pearson: float
    spearman: float
    signature: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis": "window", **self.identity_json(), "window": self.window,
            "window_start": self.window_start, "systems_in_window": list(self.systems_in_window),
            "pearson": _num(self.pearson), "spearman": _num(self.spearman),
        }
        if self.signature:
            out["signature"] = self.signature
        return out


@dataclass(frozen=True)
class SentenceAgreement:
    """Pairwise agreement of a metric's sentence scores with the raw human rankings."""

    benchmark: str
    human: str  # the judgments: sent / edit (SEEDA), gjg15, segment (GMEG)
    systems: str
    corpus: str
    metric: str
    spec: str
    beta: float | None
    n_systems: int
    ties: str
    accuracy: float
    kendall_like: float
    n_pairs: int
    concordant: int
    discordant: int
    metric_ties: int
    n_items: int
    signature: str = ""
    tie_calibration: SentenceTies | None = None  # --tie-calibration

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis": "sentence", "benchmark": self.benchmark, "human": self.human,
            "systems": self.systems, "corpus": self.corpus, "metric": self.metric,
            "spec": self.spec, "beta": self.beta, "n_systems": self.n_systems,
            "ties": self.ties, "accuracy": _num(self.accuracy),
            "kendall_like": _num(self.kendall_like), "n_pairs": self.n_pairs,
            "concordant": self.concordant, "discordant": self.discordant,
            "metric_ties": self.metric_ties, "n_items": self.n_items,
        }
        if self.tie_calibration is not None:
            out.update(self.tie_calibration.to_json())
        if self.signature:
            out["signature"] = self.signature
        return out


Row = MetaResult | Comparison | WindowRow | SentenceAgreement | ClusterRow | HumanIntervalRow


# -- the whole result ---------------------------------------------------------------------


@dataclass(frozen=True)
class MetaEvaluation:
    """Everything one meta-evaluation computed, as typed data.

    ``selections``: per benchmark, the systems and human scores correlated (their
    ``describe()`` is the line printed above tables); ``correlations``: the
    system-level rows (with intervals and CV beta* when asked for; at a sweep,
    one row per beta); ``comparisons``, ``windows``, ``sentences``, ``sweeps``: the
    analyses asked for (empty otherwise); ``notes``: what the CLI prints on stderr
    after the results (those about the options are ``options.notes``).
    """

    options: MetaEvalOptions
    selections: tuple[Selection, ...]
    correlations: tuple[MetaResult, ...] = ()
    comparisons: tuple[Comparison, ...] = ()
    windows: tuple[WindowRow, ...] = ()
    sentences: tuple[SentenceAgreement, ...] = ()
    sweeps: tuple[Sweep, ...] = ()
    notes: tuple[str, ...] = ()
    subsets: tuple[SubsetRow, ...] = ()  # --subsets K (meta_eval/subsets.py)
    clusters: tuple[ClusterRow, ...] = ()  # --clusters STAT
    human_intervals: tuple[HumanIntervalRow, ...] = ()  # --human-intervals
    registered: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)  # by analysis

    def analysis_rows(self, name: str) -> tuple[Any, ...]:
        """The rows of registered analysis ``name`` (:mod:`.analyses`; empty if not run)."""
        return tuple(self.registered.get(name, ()))

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
        return [*self.correlations, *self.comparisons, *self.windows, *self.subsets,
                *self.clusters, *self.human_intervals, *registered]

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
        gives several frame rows: a pooled-leaderboard entry (``analysis`` ``pool``)
        one per column of the leaderboard (its benchmark, human, level, ``measure``,
        ``value``, ``rank`` and ``weight``, and the entry's ``mean_rank`` and
        ``weighted``).
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
            if rec["analysis"] == "compare":
                rec.update(metric=obj["metric_a"], spec=obj["spec_a"], beta=obj["beta_a"],
                           pearson=obj["pearson_a"])
            if rec["analysis"] == "sentence":
                rec["level"] = "sentence"
            if hasattr(row, "frame_records"):  # a row that is several frame rows
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
