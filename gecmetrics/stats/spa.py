"""Soft pairwise accuracy (Thompson et al., WMT 2024), adapted to GEC's data.

For every pair of systems (i, j), p_h and p_m are the p-values, from the human
judgments and from the metric, of "i is better than j"; SPA rewards a metric
whose confidence matches the humans' confidence, not only its ordering::

    SPA = 1 / C(S, 2) * sum_{i < j} (1 - |p_h(i, j) - p_m(i, j)|)

(p(j, i) = 1 - p(i, j), so the orientation of a pair does not matter.)

The MT original gets both p-values from permutation tests on *segment scores*
(human and metric scores of every segment of both systems). GEC's human data are
relative rankings of outputs (SEEDA, GJG15), not segment scores, and many metrics'
system scores are not means of sentence scores (M2's F0.5 is computed from
summed counts), so here both p-values come from paired *bootstrap* resampling:

* metric: the test sentences are resampled (the same resamples for every metric and
  every system, :func:`.resampling.resample_indices`) and the system scores
  recomputed from the cached statistics (``stats.corpus_scores(beta, sentences=idx)``);
* humans: the ranking items are resampled and Expected Wins recomputed
  (:mod:`.intervals`); GMEG: its sentences, with the mean segment rating.

On B resamples, p(i, j) = (#{s_i < s_j} + 0.5 #{s_i == s_j}) / B: the share of
resamples in which i is not better than j, a tie counting half (two identical
systems get 0.5, as an exact permutation test gives them). Small p: i is
confidently better; 0.5: no evidence either way. This is the one-sided bootstrap
p-value of Koehn (2004) (:func:`.significance.paired_p_value`), except that a tie
counts half instead of whole.
"""

from __future__ import annotations

import numpy as np

from gecmetrics.validate import arguments, is_array


@arguments(samples=is_array(2))
def p_value_matrix(samples: np.ndarray) -> np.ndarray:
    """(S, S) matrix of p(i better than j) from resampled scores (B, S)."""
    x = np.asarray(samples, dtype=float)
    lower = (x[:, :, None] < x[:, None, :]).mean(axis=0)
    equal = (x[:, :, None] == x[:, None, :]).mean(axis=0)
    return lower + 0.5 * equal


@arguments(samples=is_array(2))
def pair_p_values(samples: np.ndarray) -> np.ndarray:
    """p(i better than j) for every pair i < j (``np.triu_indices`` order)."""
    p = p_value_matrix(samples)
    i, j = np.triu_indices(p.shape[0], k=1)
    return p[i, j]


@arguments(same=("p_human", "p_metric"),
           p_human=is_array(1, 0), p_metric=is_array(1, 0))
def spa_terms(p_human: np.ndarray, p_metric: np.ndarray) -> np.ndarray:
    """1 - |p_h - p_m| of every pair (inputs: per-pair p-values, same pair order)."""
    return 1.0 - np.abs(np.asarray(p_human, dtype=float) - np.asarray(p_metric, dtype=float))


@arguments(same=("p_human", "p_metric"),
           p_human=is_array(1, 0), p_metric=is_array(1, 0))
def soft_pairwise_accuracy(p_human: np.ndarray, p_metric: np.ndarray) -> float:
    """SPA from per-pair p-values (NaN without pairs)."""
    terms = spa_terms(p_human, p_metric)
    return float(terms.mean()) if terms.size else float("nan")
