"""Human ranking judgments as the arrays the statistics of :mod:`gecmetrics.stats` take.

* :func:`win_matrix`: the sparse unit x (winner, loser) matrix of pairwise wins, one
  row per ranking item or per pairwise comparison: the rows the human bootstrap
  resamples (:func:`bootstrap_expected_wins`, via
  :func:`gecmetrics.stats.intervals.expected_wins_resamples`). On the full data the
  vectorised Expected Wins (:func:`full_expected_wins`) equal
  :func:`.human.expected_wins` (the tests check it).
* :func:`item_comparisons`: every pair of outputs ranked in the same item, human ties
  included, for the sentence-level tie calibration
  (:func:`gecmetrics.stats.pairwise_accuracy.tie_calibrated_accuracy`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from gecmetrics.stats.intervals import expected_wins_resamples, expected_wins_rows

from .human import RankingItem, rank_pairs

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


def bootstrap_expected_wins(items: Sequence[RankingItem], systems: Sequence[str],
                            n_resamples: int, seed: int, unit: str = "items") -> np.ndarray:
    """Expected Wins of ``systems`` on ``n_resamples`` resamples of the items (or of
    the pairwise comparisons, ``unit="comparisons"``): (B, S)."""
    return expected_wins_resamples(win_matrix(items, systems, unit), len(systems),
                                   n_resamples, seed)


def full_expected_wins(items: Sequence[RankingItem], systems: Sequence[str]) -> np.ndarray:
    """Expected Wins on all items, by the same vectorised route: (S,)."""
    matrix = win_matrix(items, systems)
    wins = np.asarray(matrix.sum(axis=0), dtype=float).reshape(1, len(systems), len(systems))
    return expected_wins_rows(wins)[0]


def item_comparisons(items: Iterable[Any], systems: Iterable[str] | None = None
                     ) -> tuple[np.ndarray, list[str], list[str], np.ndarray]:
    """Every pair of different systems ranked in the same item, human ties included.

    Returns ``(sentences, a, b, human_sign)``: for pair k, systems ``a[k]`` and ``b[k]``
    on 0-based sentence ``sentences[k]``, ``human_sign[k]`` +1 if the humans ranked
    ``a`` better, 0 if they gave both the same rank (including several systems that
    share one output). ``systems`` drops the others before pairing, as
    :func:`.pairwise.human_pairs` does. Items are the :class:`RankingItem` of
    the benchmarks (``.sentence`` and ``.groups`` of ``(rank, names)``).
    """
    keep = set(systems) if systems is not None else None
    sentences: list[int] = []
    first: list[str] = []
    second: list[str] = []
    signs: list[float] = []
    for item in items:
        ranked = [(int(rank), name) for rank, names in item.groups for name in names
                  if keep is None or name in keep]
        ranked.sort(key=lambda pair: pair[0])  # stable: better rank first
        for x in range(len(ranked)):
            for y in range(x + 1, len(ranked)):
                (rank_a, a), (rank_b, b) = ranked[x], ranked[y]
                if a == b:
                    continue
                sentences.append(int(item.sentence))
                first.append(a)
                second.append(b)
                signs.append(0.0 if rank_a == rank_b else 1.0)
    return np.array(sentences, dtype=int), first, second, np.array(signs)
