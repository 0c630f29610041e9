"""Pairwise accuracy and tie-calibrated pairwise accuracy (pure numpy, no data reading).

Pairwise accuracy (Kocmi et al., WMT 2021, "To Ship or Not to Ship"): over every
pair of systems, the share the metric orders as the humans do::

    accuracy = #{i < j : sign(m_i - m_j) == sign(h_i - h_j)} / #pairs

A tie agrees only with a tie (sign 0 == sign 0).

Tie calibration (Deutsch, Foster and Freitag, EMNLP 2023, "Ties Matter"):
metrics almost never give two systems (or two outputs) exactly the same score,
so exact ties are rare and human ties are always "missed". With a threshold
epsilon, a metric difference with ``|d| <= epsilon`` counts as a tie, and::

    acc_eq(eps) = (#{agreeing pairs with |d| > eps} + #{human ties with |d| <= eps}) / #pairs

(their ``acc23``: concordant pairs plus pairs tied in both, over all pairs).
epsilon is the value that maximises acc_eq over the candidate thresholds: 0 and
every distinct ``|d|`` (between two consecutive distinct ``|d|`` the statistic
does not change, so these candidates reach the maximum); the smallest maximiser
is taken. The search is one sort and two cumulative sums: O(N log N) for N pairs.

Pairs come as two parallel arrays of differences (metric, human), so the same
functions serve the system level (all pairs of systems) and the sentence level
(every pair of outputs within a human ranking item, human ties included,
pooled over items: ``gecmetrics.meta_eval.human.item_comparisons``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gecmetrics.validate import arguments, is_array, is_number


@arguments(values=is_array((1, 2), 0))
def pair_differences(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """``v_i - v_j`` for every pair ``i < j`` (in ``np.triu_indices`` order); on a
    2-D array, per row: shape (..., n(n-1)/2)."""
    x = np.asarray(values, dtype=float)
    i, j = np.triu_indices(x.shape[-1], k=1)
    return x[..., i] - x[..., j]


@arguments(same=("metric", "human"),
           metric=is_array(1, 0), human=is_array(1, 0))
def pairwise_accuracy(metric: Sequence[float] | np.ndarray,
                      human: Sequence[float] | np.ndarray) -> float:
    """Share of system pairs whose metric difference has the sign of the human one
    (a tie agrees only with a tie); NaN with fewer than two systems."""
    m, h = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
    if m.shape != h.shape or m.ndim != 1:
        raise ValueError(f"{m.shape} metric scores for {h.shape} human scores")
    if m.size < 2:
        return float("nan")
    return float(np.mean(np.sign(pair_differences(m)) == np.sign(pair_differences(h))))


@dataclass(frozen=True)
class TieCalibration:
    """acc_eq at the chosen epsilon, and what it was computed from."""

    acc_eq: float
    epsilon: float
    n_pairs: int
    human_ties: int  # pairs the humans tied
    metric_ties: int  # pairs with |metric difference| <= epsilon


@arguments(same=("metric_diffs", "human_diffs"),
           metric_diffs=is_array(1, 0), human_diffs=is_array(1, 0))
def tie_calibrated_accuracy(metric_diffs: Sequence[float] | np.ndarray,
                            human_diffs: Sequence[float] | np.ndarray) -> TieCalibration:
    """acc_eq maximised over epsilon (Deutsch et al. 2023), from parallel arrays of pair
    differences (only the sign of ``human_diffs`` matters; 0 = a human tie)."""
    d = np.asarray(metric_diffs, dtype=float).ravel()
    h = np.sign(np.asarray(human_diffs, dtype=float).ravel())
    if d.shape != h.shape:
        raise ValueError(f"{d.size} metric differences for {h.size} human differences")
    if d.size == 0:
        return TieCalibration(float("nan"), float("nan"), 0, 0, 0)
    size = np.abs(d)
    order = np.argsort(size, kind="stable")
    size_sorted = size[order]
    tie_ok = (h == 0)[order]  # agrees when the metric ties it
    sign_ok = ((np.sign(d) == h) & (h != 0))[order]  # agrees when the metric does not
    # (asked for an index, numpy 2's unique does not import numpy.ma: 10-20 ms of start-up)
    candidates = np.unique(np.concatenate([[0.0], size_sorted]), return_index=True)[0]
    # how many pairs have |d| <= candidate
    below = np.searchsorted(size_sorted, candidates, side="right")
    tie_cum = np.concatenate([[0], np.cumsum(tie_ok)])
    sign_cum = np.concatenate([[0], np.cumsum(sign_ok)])
    agree = tie_cum[below] + (sign_cum[-1] - sign_cum[below])
    best = int(np.argmax(agree))  # first maximum: the smallest epsilon
    return TieCalibration(float(agree[best] / d.size), float(candidates[best]), int(d.size),
                          int((h == 0).sum()), int(below[best]))


@arguments(same=("metric_diffs", "human_diffs"),
           metric_diffs=is_array(1, 0), human_diffs=is_array(1, 0), epsilon=is_number(0))
def accuracy_at(metric_diffs: Sequence[float] | np.ndarray,
                human_diffs: Sequence[float] | np.ndarray, epsilon: float) -> float:
    """acc_eq at a given epsilon (the definition, pair by pair; an oracle and a probe)."""
    d = np.asarray(metric_diffs, dtype=float).ravel()
    h = np.sign(np.asarray(human_diffs, dtype=float).ravel())
    metric_sign = np.where(np.abs(d) <= epsilon, 0.0, np.sign(d))
    return float(np.mean(metric_sign == h)) if d.size else float("nan")


@arguments(same=("scores", "labels"),
           scores=is_array(1, 0), labels=is_array(1, 0, "booleans"))
def roc_auc(scores: Sequence[float] | np.ndarray, labels: Sequence[bool] | np.ndarray
            ) -> float:
    """The area under the ROC curve of ``scores`` separating the True from the False
    ``labels``: the share of (True, False) pairs the scores order correctly, a tie
    counting one half (the Mann-Whitney U over the product of the two counts),
    computed from average ranks in O(N log N). Raises ValueError when a class is empty.
    """
    x = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=bool)
    pos, neg = int(y.sum()), int((~y).sum())
    if pos == 0 or neg == 0:
        raise ValueError("AUC needs at least one item of each class")
    # average ranks (1-based): tied scores share the mean of their ranks, so a tie counts one half
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    starts = np.cumsum(counts) - counts
    ranks = (starts + (counts + 1) / 2)[inverse]
    return float((ranks[y].sum() - pos * (pos + 1) / 2) / (pos * neg))
