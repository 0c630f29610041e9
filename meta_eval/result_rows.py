"""The typed rows of a meta-evaluation's correlations, and the columns analyses add.

The data layer of :mod:`gecmetrics.meta_eval`: plain frozen dataclasses that
know their JSON (``to_json()``: the objects the CLI has always printed, same
keys, same order) and import nothing above :mod:`.rows`, so every module that
computes or reads a row (selections, sweeps, aggregation, the analyses, the
report) can import them without forming an import circle. They are re-exported
by :mod:`.results`, which holds the whole :class:`~.results.MetaEvaluation`.

* :class:`MetaResult`: one correlation of a metric (at a beta and level) with
  the human scores of a benchmark's system set, with the columns analyses add:
  its bootstrap :class:`Intervals` (``--bootstrap``), cross-validated
  :class:`CVBeta` (``--cv-beta``), :class:`Aggregation` (``--level ew`` /
  ``trueskill``) and :class:`~.pair_stats_rows.PairStats` (``--pairwise`` ...);
* :class:`SentenceAgreement`: pairwise sentence-level agreement;
* :class:`WindowResult`: the correlations within one window of systems (``--window``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from gecmetrics.formatting import finite_or_none as clean

from .pair_stats_rows import PairStats, SentenceTies
from .rows import RowIdentity, num, num_list

# -- the columns analyses add to a correlation row ----------------------------------------


@dataclass(frozen=True)
class Intervals:
    """95% percentile bootstrap intervals over the test sentences of one row."""

    pearson: tuple[float, float]
    spearman: tuple[float, float]
    kendall: tuple[float, float]
    resamples: int
    seed: int

    def to_json(self) -> dict[str, Any]:
        return {"pearson_ci": num_list(self.pearson), "spearman_ci": num_list(self.spearman),
                "kendall_ci": num_list(self.kendall), "bootstrap": self.resamples,
                "seed": self.seed}


@dataclass(frozen=True)
class CVBeta:
    """Cross-validated beta* of one correlation row; all None for a metric without beta."""

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
        out: dict[str, Any] = {"beta_star": num(self.beta_star),
               "beta_star_folds": (None if self.beta_star_folds is None
                                   else list(self.beta_star_folds)),
               "beta_star_std": num(self.beta_star_std),
               "pearson_at_beta_star": num(self.pearson),
               "spearman_at_beta_star": num(self.spearman),
               "kendall_at_beta_star": num(self.kendall),
               "cv_folds": self.folds, "cv_seed": self.seed}
        if self.criterion is not None:
            out["cv_criterion"] = self.criterion
        return out


@dataclass(frozen=True)
class Aggregation:
    """How a ``--level ew``/``trueskill`` row's system scores were made, and their spread.

    ``scores``: the aggregated system scores (selection order; TrueSkill: the mean
    over runs of the final means); ``runs``/``seed``: TrueSkill only (``runs`` 0:
    one run in the data's order); ``*_range``: the lowest and highest correlation
    of a single run's scores; ``mu_sd_max``: the largest standard deviation of a
    system's mean across runs.
    """

    method: str
    items: str
    ties: str
    n_comparisons: int
    n_items: int
    scores: tuple[float, ...]
    runs: int | None = None
    seed: int | None = None
    pearson_range: tuple[float, float] | None = None
    spearman_range: tuple[float, float] | None = None
    kendall_range: tuple[float, float] | None = None
    mu_sd_max: float | None = None

    def signature_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {"items": self.items, "ties": self.ties}
        if self.method == "trueskill":
            fields.update(ts_runs=self.runs, ts_seed=self.seed)
        return fields

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"aggregate_items": self.items, "ties": self.ties,
                               "n_comparisons": self.n_comparisons,
                               "n_items": self.n_items}
        if self.method == "trueskill":
            out.update(trueskill_runs=self.runs, trueskill_seed=self.seed,
                       mu_sd_max=num(self.mu_sd_max))
            for name in ("pearson", "spearman", "kendall"):
                values = getattr(self, f"{name}_range")
                out[f"{name}_runs_range"] = None if values is None else num_list(values)
        return out


@dataclass(frozen=True)
class WindowResult:
    """The correlations within one window of systems (``--window``), as
    :func:`~.analyses.window.window_correlations` gives them and
    :func:`~.plot.window_figure` draws them."""

    window_start: int  # 1-based rank of the first (best) system of the window
    systems_in_window: list[str]  # best first
    pearson: float  # NaN if the metric (or human) scores in the window are constant
    spearman: float

    def to_json(self) -> dict[str, Any]:
        return {
            "window_start": self.window_start,
            "systems_in_window": list(self.systems_in_window),
            "pearson": clean(self.pearson),
            "spearman": clean(self.spearman),
        }


# -- the rows -----------------------------------------------------------------------------------


class Column(Protocol):
    """A value an analysis adds to a correlation row: its JSON keys, appended."""

    def to_json(self) -> dict[str, Any]: ...


C = TypeVar("C", bound=Column)


@dataclass(frozen=True)
class MetaResult(RowIdentity):
    """One (benchmark, metric, beta, level) correlation: a row of the CLI's JSON.

    ``columns``: what the column analyses added (their :class:`Column` values, in
    registry order, one per type): a new analysis adds a column without a field here.
    ``intervals``, ``cv`` and ``pairs`` are views of it, kept for the Python API.
    """

    n_systems: int
    pearson: float
    spearman: float
    kendall: float
    signature: str = ""
    aggregation: Aggregation | None = None  # --level ew / trueskill: how, and the spread
    columns: tuple[Column, ...] = ()

    def column(self, kind: type[C]) -> C | None:
        """The column of type ``kind`` (None: its analysis did not run)."""
        return next((c for c in self.columns if isinstance(c, kind)), None)

    def with_column(self, value: Column) -> MetaResult:
        """This row with ``value`` added (replacing a column of its type)."""
        kept = tuple(c for c in self.columns if type(c) is not type(value))
        return replace(self, columns=(*kept, value))

    @property
    def intervals(self) -> Intervals | None:  # --bootstrap
        return self.column(Intervals)

    @property
    def cv(self) -> CVBeta | None:  # --cv-beta
        return self.column(CVBeta)

    @property
    def pairs(self) -> PairStats | None:  # --pairwise, --tie-calibration, --spa
        return self.column(PairStats)

    def to_json(self) -> dict[str, Any]:
        out = {
            **self.identity_json(), "n_systems": self.n_systems,
            "pearson": num(self.pearson), "spearman": num(self.spearman),
            "kendall": num(self.kendall),
        }
        # An aggregated row has no intervals or CV (refused): its keys come first.
        if self.aggregation is not None:
            out.update(self.aggregation.to_json())
        for value in self.columns:
            out.update(value.to_json())
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
            "ties": self.ties, "accuracy": num(self.accuracy),
            "kendall_like": num(self.kendall_like), "n_pairs": self.n_pairs,
            "concordant": self.concordant, "discordant": self.discordant,
            "metric_ties": self.metric_ties, "n_items": self.n_items,
        }
        if self.tie_calibration is not None:
            out.update(self.tie_calibration.to_json())
        if self.signature:
            out["signature"] = self.signature
        return out


Row = MetaResult | SentenceAgreement
