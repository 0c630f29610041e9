"""System-level correlations between metric scores and human scores.

Knows nothing about metrics or benchmarks: two equal-length score vectors in,
Pearson r, Spearman rho and Kendall tau (tau-b, scipy's default) out.
:func:`correlation_curves` does the same for many metric score vectors at once
(one per beta), vectorised, for sweeps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from gecmetrics.errors import InputError


@dataclass(frozen=True)
class Correlation:
    pearson: float
    spearman: float
    kendall: float
    n: int

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def _check(metric: Sequence[float], human: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(metric, dtype=float)
    y = np.asarray(human, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise InputError(f"metric and human scores differ in shape: {x.shape} vs {y.shape}")
    if len(x) < 3:
        raise InputError(f"a correlation needs at least 3 systems (got {len(x)})")
    return x, y


def correlate(metric: Sequence[float], human: Sequence[float]) -> Correlation:
    """Pearson, Spearman and Kendall between ``metric`` and ``human`` (NaN if constant)."""
    import warnings

    from scipy import stats

    x, y = _check(metric, human)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant input: scipy warns and returns NaN
        return Correlation(
            pearson=float(stats.pearsonr(x, y)[0]),
            spearman=float(stats.spearmanr(x, y)[0]),
            kendall=float(stats.kendalltau(x, y)[0]),
            n=len(x),
        )


def pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of every row of ``x`` (B, n) with ``y`` (n,); NaN for a constant row."""
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean()
    num = xc @ yc
    den = np.sqrt((xc * xc).sum(axis=1) * (yc @ yc))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = num / den
    return np.where(den > 0, np.clip(r, -1.0, 1.0), np.nan)


def correlation_curves(metric: np.ndarray, human: Sequence[float]) -> dict[str, np.ndarray]:
    """Pearson and Spearman of each row of ``metric`` (B, n) with ``human`` (n,)."""
    from scipy.stats import rankdata

    x = np.asarray(metric, dtype=float)
    y = np.asarray(human, dtype=float)
    if x.ndim != 2 or x.shape[1] != len(y):
        raise InputError(f"metric scores {x.shape} do not match {len(y)} human scores")
    return {
        "pearson": pearson_rows(x, y),
        "spearman": pearson_rows(rankdata(x, axis=1), rankdata(y)),
    }


def kendall_rows(x: np.ndarray, y: Sequence[float]) -> np.ndarray:
    """Kendall tau-b of every row of ``x`` (B, n) with ``y`` (n,), over all pairs."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    i, j = np.triu_indices(len(y), k=1)
    dx = np.sign(x[:, i] - x[:, j])
    dy = np.sign(y[i] - y[j])
    den = np.sqrt((dx != 0).sum(axis=1) * float((dy != 0).sum()))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (dx * dy).sum(axis=1) / den
    return np.where(den > 0, tau, np.nan)
