"""Bootstrap of the human judgments: Expected Wins (or GMEG ratings) on resampled data.

Human system scores are estimates too: GJG15's Expected Wins come from about
fourteen thousand ranking items, SEEDA's from fewer. Resampling the *judgments*
(ranking items with replacement; GMEG: sentences of its segment ratings) and
recomputing the scores on every resample gives

* each system's 95% percentile interval and its 95% rank range (ranks on every
  resample, 1 = best, equal scores share the better rank; the range drops the
  2.5% lowest and highest ranks, as Grundkiewicz et al. 2015 and WMT13 did), and
* clusters of systems the humans cannot separate (:func:`rank_clusters`), and
* the human p-values of soft pairwise accuracy (:mod:`.spa`).

The resamples are counts matrices (resample x item: how often each item was
drawn) multiplied by a sparse item x (winner, loser) matrix of the items' pairwise
wins, so 1000 resamples of GJG15 are a few sparse products, not loops over
comparisons. On the full data the vectorised Expected Wins equal
:func:`.human.expected_wins` (the tests check it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .human import RankingItem, rank_pairs

BLOCK = 100  # resamples per counts matrix (memory: BLOCK x items numbers)


def resample_counts(n_items: int, n_resamples: int, seed: int,
                    block: int = BLOCK) -> Iterable[np.ndarray]:
    """Blocks of (resamples, n_items) draw counts: row b counts how often each item
    was drawn in resample b (n_items draws with replacement, ``default_rng(seed)``)."""
    if n_items < 1:
        raise ValueError("need at least one item to resample")
    rng = np.random.default_rng(seed)
    done = 0
    while done < n_resamples:
        size = min(block, n_resamples - done)
        draws = rng.integers(0, n_items, size=(size, n_items))
        offset = draws + (np.arange(size) * n_items)[:, None]
        yield np.bincount(offset.ravel(), minlength=size * n_items).reshape(size, n_items)
        done += size


UNITS = ("items", "comparisons")


def win_matrix(items: Sequence[RankingItem], systems: Sequence[str],
               unit: str = "items") -> Any:
    """Sparse (units, S*S) matrix of pairwise wins: entry (k, a*S+b) counts how often
    unit k ranked system a better than system b (systems outside ``systems`` ignored).

    ``unit="items"``: one row per ranking item (the default: the comparisons of one
    item share an annotator and a sentence, so the item is the independent draw);
    ``unit="comparisons"``: one row per pair of different systems in an item, human
    ties included as empty rows (GJG15's and WMT13's bootstrap, which draws the
    pairwise comparisons themselves; it reproduces GJG15's Table 3b).
    """
    from scipy.sparse import csr_matrix

    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS} (got {unit!r})")
    position = {name: i for i, name in enumerate(systems)}
    size = len(systems)
    rows, cols = [], []
    count = 0
    for item in items:
        if unit == "items":
            for better, worse in rank_pairs(item.groups, position):
                rows.append(count)
                cols.append(position[better] * size + position[worse])
            count += 1
            continue
        ranked = [(int(rank), name) for rank, names in item.groups for name in names
                  if name in position]
        for x in range(len(ranked)):
            for y in range(x + 1, len(ranked)):
                (rank_a, a), (rank_b, b) = ranked[x], ranked[y]
                if a == b:
                    continue
                if rank_a != rank_b:
                    better, worse = (a, b) if rank_a < rank_b else (b, a)
                    rows.append(count)
                    cols.append(position[better] * size + position[worse])
                count += 1
    data = np.ones(len(rows))
    return csr_matrix((data, (rows, cols)), shape=(count, size * size))


def expected_wins_rows(wins: np.ndarray) -> np.ndarray:
    """Expected Wins from win counts (B, S, S) (``wins[b, i, j]``: i beat j): (B, S).

    EW(i) = 1/(S-1) sum_{j != i, w_ij + w_ji > 0} w_ij / (w_ij + w_ji), as
    :func:`.human.expected_wins`.
    """
    total = wins + np.swapaxes(wins, 1, 2)
    share = np.divide(wins, total, out=np.zeros_like(wins, dtype=float), where=total > 0)
    return share.sum(axis=2) / (wins.shape[1] - 1)


def bootstrap_expected_wins(items: Sequence[RankingItem], systems: Sequence[str],
                            n_resamples: int, seed: int, unit: str = "items") -> np.ndarray:
    """Expected Wins of ``systems`` on ``n_resamples`` resamples of the items (or of
    the pairwise comparisons, ``unit="comparisons"``): (B, S)."""
    matrix = win_matrix(items, systems, unit)
    size = len(systems)
    out = []
    for counts in resample_counts(matrix.shape[0], n_resamples, seed):
        wins = np.asarray((matrix.T @ counts.T).T, dtype=float)  # (block, S*S)
        out.append(expected_wins_rows(wins.reshape(-1, size, size)))
    return np.vstack(out)


def full_expected_wins(items: Sequence[RankingItem], systems: Sequence[str]) -> np.ndarray:
    """Expected Wins on all items, by the same vectorised route: (S,)."""
    matrix = win_matrix(items, systems)
    wins = np.asarray(matrix.sum(axis=0), dtype=float).reshape(1, len(systems), len(systems))
    return expected_wins_rows(wins)[0]


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


def ranks(samples: np.ndarray) -> np.ndarray:
    """Rank of every system on every resample (1 = best; equal scores share the better
    rank): 1 + the number of systems with a strictly higher score."""
    x = np.asarray(samples, dtype=float)
    return 1 + (x[:, None, :] > x[:, :, None]).sum(axis=2)


def rank_range(rank_samples: np.ndarray, confidence: float = 0.95) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """Per system, the lowest and highest rank left after dropping the (1-c)/2 best and
    worst resampled ranks (WMT13 / GJG15: 1000 resamples, drop 25 at each end)."""
    import math

    r = np.sort(rank_samples, axis=0)
    count = r.shape[0]
    cut = min(int(math.ceil((count - count * confidence) / 2.0)), (count - 1) // 2)
    return r[cut], r[count - 1 - cut]


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


def human_intervals(systems: Sequence[str], point: np.ndarray, samples: np.ndarray,
                    confidence: float = 0.95) -> HumanIntervals:
    """Intervals, rank ranges and clusters from the scores on all data (``point``, (S,))
    and on the resamples (``samples``, (B, S))."""
    from .significance import percentile_interval

    point = np.asarray(point, dtype=float)
    bounds = [percentile_interval(samples[:, i], confidence) for i in range(len(systems))]
    rank_low, rank_high = rank_range(ranks(samples), confidence)
    order = sorted(range(len(systems)), key=lambda i: (-point[i], i))
    return HumanIntervals(tuple(systems), point, np.array([b[0] for b in bounds]),
                          np.array([b[1] for b in bounds]), ranks(point[None, :])[0],
                          rank_low, rank_high, tuple(rank_clusters(order, rank_low,
                                                                   rank_high)))
