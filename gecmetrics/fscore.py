"""F-score arithmetic shared by n-gram F metrics, written as the GREEN tool computes it.

Exactness to the last digit means doing the same floating-point operations
as the official implementation, so these helpers mirror it:

* per-order precision is 1 when nothing was predicted (TP+FP = 0), recall is
  0 when nothing was expected (TP+FN = 0);
* the geometric mean over orders 1..n is ``exp(cumsum(log x) / n)``, which
  is 0 as soon as one ratio is 0;
* ``F = 1 / (alpha / P + (1 - alpha) / R)`` with ``alpha = 1 / (1 + beta^2)``,
  and F = 0 when P or R is 0. This equals (1+b^2)PR / (b^2 P + R).
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
