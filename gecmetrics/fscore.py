"""F-score arithmetic, written as each official tool computes it.

Exactness to the last digit means doing the same floating-point operations
as the official implementation, so there are two families here.

N-gram F metrics, as the GREEN tool computes them:

* per-order precision is 1 when nothing was predicted (TP+FP = 0), recall is
  0 when nothing was expected (TP+FN = 0);
* the geometric mean over orders 1..n is ``exp(cumsum(log x) / n)``, which
  is 0 as soon as one ratio is 0;
* ``F = 1 / (alpha / P + (1 - alpha) / R)`` with ``alpha = 1 / (1 + beta^2)``,
  and F = 0 when P or R is 0. This equals (1+b^2)PR / (b^2 P + R).

Edit-based metrics (M2 scorer, ERRANT, CLEME, GoToScorer, PT-M2, I-measure)
from summed counts, one triple at a time (:func:`prf`) or element-wise over
arrays of sums (:func:`f_beta`), with the same floating-point operations so
that both give the same bits:

* P = TP / (TP + FP) and R = TP / (TP + FN), each ``empty`` when its
  denominator is 0: 1 by default (not 0, as for n-grams: a system that leaves
  an error-free sentence alone is right), 0 for GoToScorer's own scorer;
* ``F = (1+b^2) P R / (b^2 P + R)``, 0 when b^2 P + R = 0;
* weighted counts (PT-M2) come as (correct, proposed, gold) totals whose
  proposed and gold are not TP + FP and TP + FN of the same floats:
  :func:`prf_of_totals` and :func:`f_beta_of_totals`, which :func:`prf` and
  :func:`f_beta` call with those sums;
* the M2 scorer's annotator choice compares ``(1+b^2) c / (b^2 g + e)``
  on raw counts instead (:func:`m2_running_f`), which can differ from
  :func:`prf` in the last bits, so both are kept.
"""

from __future__ import annotations

import numpy as np


def alpha_of(beta: float) -> float:
    return 1.0 / (beta**2 + 1.0)


def precision_recall(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray):
    """Element-wise precision and recall with the GREEN tool's edge rules."""
    tp = np.asarray(tp, dtype=np.float64)
    pred = tp + fp
    gold = tp + fn
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(pred > 0, tp / np.where(pred > 0, pred, 1), 1.0)
        r = np.where(gold > 0, tp / np.where(gold > 0, gold, 1), 0.0)
    return p, r


def cumulative_gmean(x: np.ndarray) -> np.ndarray:
    """Geometric means over orders 1..n for every n (the last axis is the order)."""
    with np.errstate(divide="ignore"):
        logs = np.log(x)
    orders = np.arange(1, x.shape[-1] + 1, dtype=np.float64)
    return np.exp(np.cumsum(logs, axis=-1) / orders)


def f_alpha(p: np.ndarray, r: np.ndarray, alpha: float | np.ndarray) -> np.ndarray:
    """F from precision and recall; 0 where either is 0."""
    p = np.asarray(p, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    ok = (p != 0) & (r != 0)
    ps = np.where(ok, p, 1.0)
    rs = np.where(ok, r, 1.0)
    return np.where(ok, 1.0 / (alpha / ps + (1.0 - alpha) / rs), 0.0)


def lexicographic_argmax(f: np.ndarray) -> np.ndarray:
    """Index of the best reference per row of ``f`` (rows, K, N): GREEN's and
    GLEU's choice of a reference by their scores over n-gram orders.

    Compares F over 1..N first, then 1..N-1, and so on; remaining ties go to
    the first reference (exactly like Python's ``max`` over reversed lists).
    """
    rows, K, N = f.shape
    best = np.zeros(rows, dtype=np.int64)
    ar = np.arange(rows)
    for k in range(1, K):
        cur = f[ar, best]  # (rows, N)
        cand = f[:, k]
        better = np.zeros(rows, dtype=bool)
        decided = np.zeros(rows, dtype=bool)
        for n in range(N - 1, -1, -1):
            better |= ~decided & (cand[:, n] > cur[:, n])
            decided |= cand[:, n] != cur[:, n]
        best = np.where(better, k, best)
    return best


def prf(tp: float, fp: float, fn: float, beta: float, empty: float = 1.0
        ) -> tuple[float, float, float]:
    """P, R, F of edit counts, P (R) being ``empty`` with no proposed (gold)
    edit. The M2 scorer and ERRANT compute corpus scores this way."""
    return prf_of_totals(tp, tp + fp, tp + fn, beta, empty)


def prf_of_totals(correct: float, proposed: float, gold: float, beta: float,
                  empty: float = 1.0) -> tuple[float, float, float]:
    """P = correct / proposed, R = correct / gold (``empty`` for a 0
    denominator) and their F_beta; PT-M2's ``comp_p``/``comp_r``/``comp_f1``."""
    p = correct / proposed if proposed else empty
    r = correct / gold if gold else empty
    b2 = beta * beta
    f = (1 + b2) * p * r / (b2 * p + r) if (b2 * p + r) else 0.0
    return p, r, f


def f_beta(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, beta: float,
           empty: float = 1.0) -> np.ndarray:
    """:func:`prf`'s F element-wise, as float64, with the same operations."""
    tp = np.asarray(tp, dtype=np.float64)
    return f_beta_of_totals(tp, tp + fp, tp + fn, beta, empty)


def f_beta_of_totals(correct: np.ndarray, proposed: np.ndarray, gold: np.ndarray,
                     beta: float, empty: float = 1.0) -> np.ndarray:
    """:func:`prf_of_totals`'s F element-wise, with the same operations."""
    b2 = beta * beta
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(proposed != 0, correct / proposed, empty)
        r = np.where(gold != 0, correct / gold, empty)
        den = b2 * p + r
        return np.where(den != 0, (1 + b2) * p * r / den, 0.0)


def m2_running_f(c: float, e: float, g: float, beta: float) -> float:
    """The official M2 scorer's ``comp_f1`` on (correct, proposed, gold):
    (1+b^2) c / (b^2 g + e), and 0/0 -> 1 when nothing is correct."""
    try:
        return (1 + beta * beta) * c / (beta * beta * g + e)
    except ZeroDivisionError:
        return 1.0 if c == 0 else 0.0
