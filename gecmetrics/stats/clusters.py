"""Significance clusters of metrics, like a WMT metrics-task ranking.

Which metrics are *significantly* better than others on a benchmark? With 12-15
systems a difference of 0.05 in r is often noise. Each metric's statistic (r,
rho, tau, pairwise accuracy or SPA) is recomputed on B resamples that draw
**both** the systems and the test sentences with replacement (the same draws
for every metric, so the test is paired), and for two metrics a, b with
stat(a) >= stat(b) on all data::

    p(a, b) = #{resamples with stat_b(a) <= stat_b(b)} / #{resamples where both are defined}

the one-sided paired bootstrap p-value that a is not better than b.

This is the documented alternative to PERM-BOTH (Deutsch, Dror and Roth, NAACL
2021), which swaps the two metrics' scores of each (system, input) cell: that
presumes system scores that are means of comparable per-input scores, while
GEC metrics such as M2 or GLEU score a corpus from summed counts, and metrics
live on different scales. Resampling systems and inputs together is the
BOOT-BOTH resampling of the same paper, here used as a paired test.

Pair statistics on a system resample (pairwise accuracy, SPA) weight each pair
of *different* systems by how often both were drawn (c_i * c_j), so a system
drawn twice counts twice and a system is never paired with its own copy; on the
full data (every c = 1) they are the plain statistics. SPA's p-values are those
of all the data (a nested resampling per resample would cost B^2 scorings). The
system resamples are :func:`.resampling.system_resamples`, their weights
:func:`pair_weights` of :func:`.resampling.draw_counts`.

Clusters (:func:`greedy_clusters`): metrics sorted by their statistic, best
first; the best opens cluster 1; walking down, a metric joins the current
cluster unless it is significantly worse (p < alpha) than the *top* of the
current cluster, in which case it opens the next cluster and becomes its top.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gecmetrics.validate import arguments, check_broadcast, check_size, is_array, is_fraction

from .significance import paired_p_value

ALPHA = 0.05


@arguments(counts=is_array(2))
def pair_weights(counts: np.ndarray) -> np.ndarray:
    """(B, P) weights c_i * c_j of the pairs i < j (``np.triu_indices`` order)."""
    i, j = np.triu_indices(counts.shape[1], k=1)
    return (counts[:, i] * counts[:, j]).astype(float)


@arguments(values=is_array((1, 2), 0), weights=is_array(2, 0))
def weighted_pair_mean(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per resample, the weighted mean of pair values ((B, P) or (P,)); NaN where no
    two different systems were drawn."""
    check_broadcast("values", values, "weights", weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (values * weights).sum(axis=1) / weights.sum(axis=1)


@arguments(samples=is_array(2), point=is_array(1))
def paired_p_values(samples: np.ndarray, point: np.ndarray) -> np.ndarray:
    """(M, M): ``p[a, b]`` for metrics with point[a] >= point[b], the
    :func:`.significance.paired_p_value` of a against b over the resamples (B, M);
    NaN below that diagonal sense (point[a] < point[b]) and where no resample is
    defined."""
    x = np.asarray(samples, dtype=float)
    m = x.shape[1]
    check_size("point", len(point), m, "values, one per column of samples")
    p = np.full((m, m), np.nan)
    for a in range(m):
        for b in range(m):
            if a != b and point[a] >= point[b]:
                p[a, b] = paired_p_value(x[:, a], x[:, b])
    return p


@dataclass(frozen=True)
class Ranking:
    """The greedy clustering of metrics: position, cluster and the deciding p-value."""

    order: tuple[int, ...]  # metric indices, best first
    rank: tuple[int, ...]  # per metric: 1-based position
    cluster: tuple[int, ...]  # per metric: 1 = the best cluster
    top: tuple[int, ...]  # per metric: index of the cluster top it was compared with
    p_vs_top: tuple[float | None, ...]  # p(top, metric); None for a cluster's first top


@arguments(values=is_array(1, 0), p=is_array(2, 0), alpha=is_fraction())
def greedy_clusters(values: Sequence[float] | np.ndarray, p: np.ndarray,
                    alpha: float = ALPHA) -> Ranking:
    """The WMT-style greedy clustering described in the module docstring.

    ``values``: the statistic per metric (NaN sorts last); ``p[a, b]``: p-value that a
    is not better than b (for a ranked above b). A NaN p-value is never significant.
    """
    v = np.asarray(values, dtype=float)
    key = np.where(np.isnan(v), -np.inf, v)
    order = sorted(range(v.size), key=lambda i: (-key[i], i))
    m = v.size
    rank, cluster, top = [0] * m, [0] * m, [0] * m
    p_top: list[float | None] = [None] * m
    current, head = 1, order[0] if order else 0
    for position, index in enumerate(order):
        if position > 0:
            value = float(p[head, index])
            p_top[index] = None if np.isnan(value) else value
            if not np.isnan(value) and value < alpha:
                current += 1
                head = index
        rank[index], cluster[index], top[index] = position + 1, current, head
    return Ranking(tuple(order), tuple(rank), tuple(cluster), tuple(top), tuple(p_top))
