"""Typed results of the pairwise statistics.

* :class:`PairStats`: pairwise accuracy, tie-calibrated accuracy (acc_eq, epsilon)
  and soft pairwise accuracy of one system-level row (``MetaResult.pairs``);
* :class:`SentenceTies`: tie calibration of a sentence-level row
  (``SentenceAgreement.tie_calibration``).

Kept apart from :mod:`.results` so the rows of these analyses live in one place;
their JSON keys are documented in docs/meta-eval.md. NaN becomes null.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
