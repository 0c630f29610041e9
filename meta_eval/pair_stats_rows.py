"""Typed results of the pairwise statistics, metric clusters and human intervals.

* :class:`PairStats`: pairwise accuracy, tie-calibrated accuracy (acc_eq, epsilon)
  and soft pairwise accuracy of one system-level row (``MetaResult.pairs``);
* :class:`SentenceTies`: tie calibration of a sentence-level row
  (``SentenceAgreement.tie_calibration``);
* :class:`ClusterRow`: one metric's place in a significance ranking (``--clusters``);
* :class:`HumanIntervalRow`: one system's human score with its bootstrap interval,
  rank range and cluster (``--human-intervals``).

Kept apart from :mod:`.results` so the rows of these analyses live in one place;
their JSON keys are documented in docs/meta-eval.md. NaN becomes null.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .rows import RowIdentity
from .rows import num as _num


@dataclass(frozen=True)
class PairStats:
    """The pair statistics asked for of one (benchmark, metric, beta, level) row; a
    statistic not asked for is None and its keys are left out of the JSON."""

    n_pairs: int
    pairwise_accuracy: float | None = None
    acc_eq: float | None = None
    epsilon: float | None = None
    spa: float | None = None
    spa_human: str | None = None  # what the human p-values resample: ew / rating
    resamples: int | None = None  # of SPA
    seed: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n_pairs": self.n_pairs}
        if self.pairwise_accuracy is not None:
            out["pairwise_accuracy"] = _num(self.pairwise_accuracy)
        if self.acc_eq is not None:
            out.update(acc_eq=_num(self.acc_eq), epsilon=_num(self.epsilon))
        if self.spa is not None:
            out.update(spa=_num(self.spa), spa_human=self.spa_human,
                       spa_resamples=self.resamples, spa_seed=self.seed)
        return out


@dataclass(frozen=True)
class SentenceTies:
    """Tie calibration over every pair of outputs in the human ranking items (human
    ties included, pooled over items), and the accuracy under each tie policy."""

    acc_eq: float
    epsilon: float
    n_pairs: int  # all pairs of different systems within items, human ties included
    human_ties: int
    metric_ties: int  # pairs with |difference| <= epsilon
    accuracy_by_ties: tuple[tuple[str, float], ...]  # (policy, accuracy) of .pairwise

    def to_json(self) -> dict[str, Any]:
        return {"acc_eq": _num(self.acc_eq), "epsilon": _num(self.epsilon),
                "tie_pairs": self.n_pairs, "human_ties": self.human_ties,
                "metric_ties_at_epsilon": self.metric_ties,
                "accuracy_by_ties": {k: _num(v) for k, v in self.accuracy_by_ties}}


@dataclass(frozen=True)
class ClusterRow(RowIdentity):
    """One metric in the significance ranking of a benchmark (``--clusters STAT``)."""

    stat: str
    value: float
    rank: int
    cluster: int
    cluster_top: str  # spec of the cluster top it was compared with
    p_vs_top: float | None  # p(top not better than this metric); None for the best
    p_values: tuple[tuple[str, float | None], ...]  # vs every metric ranked above
    value_ci: tuple[float, float]
    resamples: int
    seed: int
    signature: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis": "cluster", **self.identity_json(), "stat": self.stat,
            "value": _num(self.value), "rank": self.rank, "cluster": self.cluster,
            "cluster_top": self.cluster_top, "p_vs_top": _num(self.p_vs_top),
            "p_values": {k: _num(v) for k, v in self.p_values},
            "value_ci": [_num(v) for v in self.value_ci],
            "resample": "systems+sentences", "bootstrap": self.resamples, "seed": self.seed,
        }
        if self.signature:
            out["signature"] = self.signature
        return out


@dataclass(frozen=True)
class HumanIntervalRow:
    """One system's human score (``ew``; GMEG ``rating``) on all judgments, its 95%
    bootstrap interval and rank range, and its cluster (``--human-intervals``)."""

    benchmark: str
    human: str  # the score resampled: ew / rating
    systems: str
    corpus: str
    system: str
    score: float
    score_ci: tuple[float, float]
    rank: int
    rank_range: tuple[int, int]
    cluster: int
    resampled: str  # ranking items / sentences
    n_resampled: int  # how many items (sentences) each resample draws
    resamples: int
    seed: int
    signature: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis": "human_interval", "benchmark": self.benchmark, "human": self.human,
            "systems": self.systems, "corpus": self.corpus, "system": self.system,
            "score": _num(self.score), "score_ci": [_num(v) for v in self.score_ci],
            "rank": self.rank, "rank_range": list(self.rank_range), "cluster": self.cluster,
            "resampled": self.resampled, "n_resampled": self.n_resampled,
            "bootstrap": self.resamples, "seed": self.seed,
        }
        if self.signature:
            out["signature"] = self.signature
        return out
