"""Percentile bootstrap intervals: of correlations, and of human scores and ranks.

* :func:`percentile_interval`: the percentile-method interval of resampled values
  (the one used by every interval of gecmetrics).
* :func:`bootstrap_ci`: 95% (by default) intervals of the Pearson, Spearman and
  Kendall (tau-b) correlations between the systems' corpus scores and fixed human
  scores, resampling test sentences with replacement under a fixed, recorded seed.
* Human system scores are estimates too: GJG15's Expected Wins come from about
  fourteen thousand ranking items, SEEDA's from fewer. Resampling the *judgments*
  (ranking items with replacement, :func:`expected_wins_resamples`; GMEG: sentences
  of its segment ratings, :func:`bootstrap_ratings`) and recomputing the scores on
  every resample gives each system's 95% percentile interval and its 95% rank range
  (ranks on every resample, 1 = best, equal scores share the better rank; the range
  drops the 2.5% lowest and highest ranks, as Grundkiewicz et al. 2015 and WMT13
  did), and clusters of systems the humans cannot separate (:func:`rank_clusters`):
  :func:`human_intervals`. The same resamples give the human p-values of soft
  pairwise accuracy (:mod:`.spa`).

The judgment resamples are counts matrices (resample x item: how often each item was
drawn) multiplied by a sparse item x (winner, loser) matrix of the items' pairwise
wins (built from the ranking items by ``gecmetrics.meta_eval.human_bootstrap``), so
1000 resamples of GJG15 are a few sparse products, not loops over comparisons.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gecmetrics.errors import InputError
from gecmetrics.validate import (
    arguments,
    check_size,
    is_array,
    is_count,
    is_fraction,
    is_function,
    is_mapping,
    is_matrix,
    is_optional,
    is_texts,
)

from . import DEFAULT_RESAMPLES, DEFAULT_SEED
from .correlation import CORRELATIONS, correlate_one, correlation_rows
from .resampling import SystemScores, bootstrap_system_scores, resample_counts

# -- correlations ---------------------------------------------------------------------


@arguments(samples=is_array(None, 0), confidence=is_fraction())
def percentile_interval(samples: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The percentile-method interval: the (1-c)/2 and (1+c)/2 quantiles of the
    non-NaN ``samples`` (numpy's default linear interpolation between order
    statistics). NaN if every sample is NaN."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    values = np.asarray(samples, dtype=float)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return (float("nan"), float("nan"))
    alpha = 1.0 - confidence
    low, high = np.quantile(values, [alpha / 2, 1 - alpha / 2])
    return (float(low), float(high))


@dataclass(frozen=True)
class BootstrapCI:
    """Correlations on the full data and their bootstrap percentile intervals."""

    pearson: float
    spearman: float
    kendall: float
    pearson_ci: tuple[float, float]
    spearman_ci: tuple[float, float]
    kendall_ci: tuple[float, float]
    n_resamples: int
    seed: int
    confidence: float
    n_undefined: dict[str, int]  # resamples whose correlation was undefined (constant scores)
    method: str = "percentile"

    def to_json(self) -> dict:
        return {
            "pearson_ci": list(self.pearson_ci),
            "spearman_ci": list(self.spearman_ci),
            "kendall_ci": list(self.kendall_ci),
            "bootstrap": self.n_resamples,
            "seed": self.seed,
            "confidence": self.confidence,
        }


@arguments(system_scores=is_function("a function of sentence indices"), human=is_array(1),
           n_sentences=is_count(), n_resamples=is_count(), seed=is_optional(is_count()),
           confidence=is_fraction())
def bootstrap_ci(
    system_scores: SystemScores,
    human: np.ndarray,
    n_sentences: int,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    confidence: float = 0.95,
) -> BootstrapCI:
    """Bootstrap confidence intervals of the system-level correlations.

    Each resample draws ``n_sentences`` test sentences with replacement, asks
    ``system_scores(indices)`` for every system's corpus score on them and
    correlates those with the (fixed) ``human`` scores. The interval is the
    percentile interval of the resampled correlations (:func:`percentile_interval`).
    ``seed=None`` means :data:`DEFAULT_SEED`; the seed used is in the result.
    """
    seed = DEFAULT_SEED if seed is None else int(seed)
    human = np.asarray(human, dtype=float)
    full = np.asarray(system_scores(np.arange(n_sentences)), dtype=float)
    if full.shape != human.shape:
        raise InputError(
            f"system_scores gave {full.shape[0] if full.ndim else full.shape} scores for "
            f"{human.shape[0]} human scores; give one human score per system"
        )
    boot = bootstrap_system_scores(system_scores, n_sentences, n_resamples, seed)
    values = {name: correlation_rows(boot, human, name) for name in CORRELATIONS}
    point = {name: correlate_one(full, human, name) for name in CORRELATIONS}
    return BootstrapCI(
        pearson=point["pearson"],
        spearman=point["spearman"],
        kendall=point["kendall"],
        pearson_ci=percentile_interval(values["pearson"], confidence),
        spearman_ci=percentile_interval(values["spearman"], confidence),
        kendall_ci=percentile_interval(values["kendall"], confidence),
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        n_undefined={name: int(np.isnan(v).sum()) for name, v in values.items()},
    )


# -- human scores -------------------------------------------------------------------


@arguments(wins=is_array(3))
def expected_wins_rows(wins: np.ndarray) -> np.ndarray:
    """Expected Wins from win counts (B, S, S) (``wins[b, i, j]``: i beat j): (B, S).

    EW(i) = 1/(S-1) sum_{j != i, w_ij + w_ji > 0} w_ij / (w_ij + w_ji), as
    ``gecmetrics.meta_eval.human.expected_wins``.
    """
    total = wins + np.swapaxes(wins, 1, 2)
    share = np.divide(wins, total, out=np.zeros_like(wins, dtype=float), where=total > 0)
    return share.sum(axis=2) / (wins.shape[1] - 1)


@arguments(wins=is_matrix(), n_systems=is_count(), n_resamples=is_count(),
           seed=is_count())
def expected_wins_resamples(wins: Any, n_systems: int, n_resamples: int,
                            seed: int) -> np.ndarray:
    """Expected Wins on ``n_resamples`` resamples of the rows of ``wins``, a (units,
    S*S) matrix (sparse or dense) whose row k counts unit k's wins of system a over
    system b at column a*S+b: (B, S). Each block of :func:`.resampling.resample_counts`
    is one product with the matrix."""
    check_size("wins", wins.shape[1], n_systems * n_systems,
               f"columns, one per pair of the {n_systems} systems (n_systems squared)")
    out = []
    for counts in resample_counts(wins.shape[0], n_resamples, seed):
        summed = np.asarray((wins.T @ counts.T).T, dtype=float)  # (block, S*S)
        out.append(expected_wins_rows(summed.reshape(-1, n_systems, n_systems)))
    return np.vstack(out)


@arguments(segment=is_mapping("a mapping of system names to ratings"), systems=is_texts(),
           n_resamples=is_count(), seed=is_count())
def bootstrap_ratings(segment: Mapping[str, Sequence[float | None]], systems: Sequence[str],
                      n_resamples: int, seed: int) -> np.ndarray:
    """GMEG: mean segment rating of each system on resamples of the sentences (B, S);
    an unrated cell (None) counts in neither the sum nor the count, as in the
    published corpus scores (= the mean of each system's rated sentences)."""
    values = np.array([[np.nan if v is None else float(v) for v in segment[s]]
                       for s in systems]).T  # (sentences, S)
    rated = ~np.isnan(values)
    filled = np.where(rated, values, 0.0)
    out = []
    for counts in resample_counts(values.shape[0], n_resamples, seed):
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append((counts @ filled) / (counts @ rated))
    return np.vstack(out)


@arguments(samples=is_array(2))
def ranks(samples: np.ndarray) -> np.ndarray:
    """Rank of every system on every resample (1 = best; equal scores share the better
    rank): 1 + the number of systems with a strictly higher score."""
    x = np.asarray(samples, dtype=float)
    return 1 + (x[:, None, :] > x[:, :, None]).sum(axis=2)


@arguments(rank_samples=is_array(2), confidence=is_fraction())
def rank_range(rank_samples: np.ndarray, confidence: float = 0.95) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """Per system, the lowest and highest rank left after dropping the (1-c)/2 best and
    worst resampled ranks (WMT13 / GJG15: 1000 resamples, drop 25 at each end)."""
    r = np.sort(rank_samples, axis=0)
    count = r.shape[0]
    cut = min(int(math.ceil((count - count * confidence) / 2.0)), (count - 1) // 2)
    return r[cut], r[count - 1 - cut]


@arguments(same=("order", "low", "high"),
           order=is_array(1, 0, "whole numbers", convert=False), low=is_array(1, 0),
           high=is_array(1, 0))
def rank_clusters(order: Sequence[int], low: np.ndarray, high: np.ndarray) -> list[int]:
    """Cluster number (1 = best) of every system, given ``order`` (best first by point
    score) and 95% rank ranges ``[low, high]``: a new cluster starts after the system
    at position k when its worst rank is better than the best rank of every system
    after it, ``high[k] < min(low[k+1:])`` (the rule of WMT13's and GJG15's
    ``cluster.py -by-rank``)."""
    clusters = [0] * len(order)
    cluster = 1
    for k, index in enumerate(order):
        clusters[index] = cluster
        rest = order[k + 1:]
        if rest and high[index] < min(low[i] for i in rest):
            cluster += 1
    return clusters


@dataclass(frozen=True)
class HumanIntervals:
    """Every system's human score on all the data, its 95% interval and rank range,
    and the clusters the humans cannot separate."""

    systems: tuple[str, ...]
    score: np.ndarray  # on all judgments
    low: np.ndarray
    high: np.ndarray
    rank: np.ndarray  # rank on all judgments
    rank_low: np.ndarray
    rank_high: np.ndarray
    cluster: tuple[int, ...]


@arguments(systems=is_texts(), point=is_array(1), samples=is_array(2), confidence=is_fraction())
def human_intervals(systems: Sequence[str], point: np.ndarray, samples: np.ndarray,
                    confidence: float = 0.95) -> HumanIntervals:
    """Intervals, rank ranges and clusters from the scores on all data (``point``, (S,))
    and on the resamples (``samples``, (B, S))."""
    point = np.asarray(point, dtype=float)
    check_size("point", len(point), len(systems), "values, one per system")
    check_size("samples", samples.shape[1], len(systems), "columns, one per system")
    bounds = [percentile_interval(samples[:, i], confidence) for i in range(len(systems))]
    rank_low, rank_high = rank_range(ranks(samples), confidence)
    order = sorted(range(len(systems)), key=lambda i: (-point[i], i))
    return HumanIntervals(tuple(systems), point, np.array([b[0] for b in bounds]),
                          np.array([b[1] for b in bounds]), ranks(point[None, :])[0],
                          rank_low, rank_high, tuple(rank_clusters(order, rank_low,
                                                                   rank_high)))
