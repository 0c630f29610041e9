"""Correlations between metric scores and human scores: the one place that computes them.

Pearson r, Spearman rho (Pearson r of average ranks, as ``scipy.stats.spearmanr``)
and Kendall tau-b (``scipy.stats.kendalltau``'s default: ties in either vector
shrink the denominator), for

* one metric score vector (:func:`pearson`, :func:`spearman`, :func:`kendall`,
  :func:`correlate_one`, and :func:`correlate` for all three at once),
* every row of a 2-D array of them against one human vector, vectorised
  (:func:`pearson_rows`, :func:`spearman_rows`, :func:`kendall_rows`,
  :func:`correlation_rows`, :func:`correlation_curves`): bootstrap resamples, a
  beta grid, CV folds, and
* every row against its own human row (:func:`paired_rows`: subsets of systems).

All of them run the same two kernels (centred Pearson, blocked tau-b), so a
sweep, a bootstrap interval, a subset and a plain correlation of the same scores
agree to the last bit. Nothing else in gecmetrics computes a correlation. The
pairwise agreement of :mod:`.pairwise_accuracy` is a different statistic (counts
over pairs) and lives there.

A constant vector has no correlation. When every metric score of a row (or
every human score) is the same number, the result is NaN, from every function;
the JSON and table layers render NaN as null / "-". Constant-ness is decided
exactly (``max == min``), not from the variance: centring identical floats on
their floating-point mean leaves rounding residue (``[0.1] * 13`` centres to
values of about 1e-17), and dividing residue by residue gives arbitrary
numbers, not an undefined correlation.

The shape follows the ``Correlation`` object of google-research's
mt-metrics-eval (``stats.py``): one object with the three correlations of a
score vector; the significance tests built on them are in :mod:`.significance`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from gecmetrics.validate import arguments, is_array

from ..errors import ConfigError, InputError

CORRELATIONS = ("pearson", "spearman", "kendall")

# Kendall's pairwise sign matrices hold rows x n(n-1)/2 values; rows are taken in
# blocks of at most this many values so that memory stays bounded for many systems.
_KENDALL_BLOCK = 1 << 18

ArrayLike = Sequence[float] | np.ndarray


# -- input shapes -------------------------------------------------------------------


def known_correlation(value: Any, argument: str) -> None:
    """The check of a ``correlation=`` argument (one of :data:`CORRELATIONS`)."""
    if not isinstance(value, str) or value not in CORRELATIONS:
        raise ConfigError(f"unknown correlation {value!r} ({argument}=); choose from "
                          f"{', '.join(CORRELATIONS)}")


def _rows(scores: ArrayLike, human: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``scores`` as a float (B, n) array (a 1-D vector is one row), ``human`` as (n,)."""
    x = np.asarray(scores, dtype=float)
    y = np.asarray(human, dtype=float)
    shape = x.shape
    if x.ndim == 1:
        x = x[None, :]
    if y.ndim != 1 or x.ndim != 2 or x.shape[1] != y.shape[0]:
        raise InputError(
            f"metric scores of shape {shape} do not match {y.size} human scores; "
            "give one metric score per system, in the order of the human scores"
        )
    if y.size < 2:
        raise InputError(f"a correlation needs at least 2 systems (got {y.size})")
    return x, y


def _vector(scores: ArrayLike) -> ArrayLike:
    if np.ndim(scores) != 1:
        raise InputError(
            f"expected one vector of system scores, got an array of shape {np.shape(scores)}; "
            "use the *_rows functions for several vectors"
        )
    return scores


@arguments(x=is_array((1, 2)))
def constant_rows(x: np.ndarray) -> np.ndarray:
    """True for every row of ``x`` (B, n) whose values are all equal (exactly)."""
    return np.asarray(x.max(axis=-1) == x.min(axis=-1))


# -- rows: many metric score vectors against one human vector --------------------------


def _centred(x: np.ndarray) -> np.ndarray:
    """Rows of ``x`` minus their means, scaled by a power of two to a maximum below 1.

    r does not depend on scale, and a power-of-two scale is exact in binary floating
    point, so the result is bit for bit the unscaled one; it only keeps the squares
    from overflowing for scores beyond ~1e154.
    """
    xc = x - x.mean(axis=-1, keepdims=True)
    _, exponent = np.frexp(np.abs(xc).max(axis=-1, keepdims=True))
    return np.ldexp(xc, -exponent)


def _pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of the rows of ``x`` (B, n) with ``y`` ((n,), or (B, n): row b with
    row b), shapes already checked.

    Sums run along each row (``sum(axis=-1)``, numpy's pairwise summation of one
    contiguous row), so a row's value does not depend on how many rows there are.
    """
    xc, yc = _centred(x), _centred(y)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=1) / np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=-1))
    r = np.clip(r, -1.0, 1.0)  # |r| can exceed 1 by an ulp
    r[constant_rows(x) | constant_rows(y)] = np.nan
    return r


def _tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall tau-b of the rows of ``x`` (B, n) with ``y`` ((n,), or (B, n): row b with
    row b), over all pairs of positions, shapes already checked.

    tau-b = (concordant - discordant) / sqrt((n0 - ties_x) (n0 - ties_y)),
    n0 = n(n-1)/2, ties_x (ties_y) = pairs with equal metric (human) scores. Rows are
    taken in blocks so that the sign matrices stay within :data:`_KENDALL_BLOCK` values.
    """
    i, j = np.triu_indices(x.shape[1], k=1)
    n0 = i.size
    out = np.empty(x.shape[0])
    step = max(1, _KENDALL_BLOCK // n0)
    for start in range(0, x.shape[0], step):
        rows = slice(start, start + step)
        block, human = x[rows], (y if y.ndim == 1 else y[rows])
        sx = np.sign(block[:, i] - block[:, j])  # a - b == 0 exactly when a == b
        sy = np.sign(human[..., i] - human[..., j])
        ties_x, ties_y = (sx == 0).sum(axis=1), (sy == 0).sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[rows] = (sx * sy).sum(axis=1) / np.sqrt((n0 - ties_x) * (n0 - ties_y))
    out[constant_rows(x) | constant_rows(y)] = np.nan
    return out


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """The ranks (1..n) of each row of ``x`` along the last axis, ties getting the
    mean of their ranks, and a row with a NaN all NaN: ``scipy.stats.rankdata(x,
    axis=-1)``, as ``spearmanr`` ranks. Each rank is a whole or half number, exact in
    a float, so any exact way of computing it gives the same bits; this one spares
    the run importing ``scipy.stats`` (about 0.7 s, a sixth of a meta-evaluation).
    tests/test_correlation_core.py compares it with rankdata."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, axis=-1, kind="stable")
    ordered = np.take_along_axis(x, order, axis=-1)
    n = x.shape[-1]
    # ties are runs in sorted order: each value's run runs from `first` to `last`
    new_run = np.ones(x.shape, dtype=bool)
    new_run[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    position = np.broadcast_to(np.arange(n), x.shape)
    first = np.maximum.accumulate(np.where(new_run, position, 0), axis=-1)
    ends = np.ones(x.shape, dtype=bool)
    ends[..., :-1] = new_run[..., 1:]
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, position, n), axis=-1),
                                         axis=-1), axis=-1)
    ranks = np.empty(x.shape)
    np.put_along_axis(ranks, order, (first + last) / 2 + 1, axis=-1)
    ranks[np.isnan(x).any(axis=-1)] = np.nan
    return ranks


@arguments(scores=is_array((1, 2)), human=is_array(1))
def pearson_rows(scores: ArrayLike, human: ArrayLike) -> np.ndarray:
    """Pearson r of every row of ``scores`` ((B, n), or (n,) as one row) with ``human``
    (n,): an array of B values, NaN where a row or the human scores are constant."""
    x, y = _rows(scores, human)
    return _pearson(x, y)


@arguments(scores=is_array((1, 2)), human=is_array(1))
def spearman_rows(scores: ArrayLike, human: ArrayLike) -> np.ndarray:
    """Spearman rho (Pearson r of average ranks) of every row of ``scores`` with ``human``."""
    x, y = _rows(scores, human)
    return _pearson(_average_ranks(x), _average_ranks(y))


@arguments(scores=is_array((1, 2)), human=is_array(1))
def kendall_rows(scores: ArrayLike, human: ArrayLike) -> np.ndarray:
    """Kendall tau-b of every row of ``scores`` with ``human``, over all pairs of systems."""
    x, y = _rows(scores, human)
    return _tau_b(x, y)


ROW_FUNCTIONS: dict[str, Callable[[ArrayLike, ArrayLike], np.ndarray]] = {
    "pearson": pearson_rows, "spearman": spearman_rows, "kendall": kendall_rows,
}


@arguments(scores=is_array((1, 2)), human=is_array(1), correlation=known_correlation)
def correlation_rows(scores: ArrayLike, human: ArrayLike, correlation: str = "pearson"
                     ) -> np.ndarray:
    """The named correlation (``pearson``, ``spearman`` or ``kendall``) of every row."""
    try:
        function = ROW_FUNCTIONS[correlation]
    except KeyError:
        raise ConfigError(
            f"unknown correlation {correlation!r}; choose from {', '.join(CORRELATIONS)}"
        ) from None
    return function(scores, human)


@arguments(scores=is_array(2), human=is_array(1))
def correlation_curves(scores: ArrayLike, human: ArrayLike) -> dict[str, np.ndarray]:
    """All three correlations of every row of ``scores`` (B, n) with ``human`` (n,):
    ``{"pearson": (B,), "spearman": (B,), "kendall": (B,)}`` (a sweep's curves)."""
    if np.ndim(scores) != 2:
        raise InputError(f"expected a 2-D array of score rows, got shape {np.shape(scores)}")
    x, y = _rows(scores, human)
    return {name: function(x, y) for name, function in ROW_FUNCTIONS.items()}


# -- rows against rows: each metric vector with its own human vector ---------------------


@arguments(scores=is_array(2), human=is_array(2), correlation=known_correlation)
def paired_rows(scores: ArrayLike, human: ArrayLike, correlation: str = "pearson"
                ) -> np.ndarray:
    """The named correlation of row b of ``scores`` with row b of ``human`` (both (B, n)):
    for analyses whose rows hold different systems (``--subsets``: one subset a row).

    The same kernels as the ``*_rows`` functions, NaN where a metric or human row is
    constant.
    """
    x = np.asarray(scores, dtype=float)
    y = np.asarray(human, dtype=float)
    if x.ndim != 2 or x.shape != y.shape or x.shape[1] < 2:
        raise InputError(f"paired rows need two (B, n) arrays with n >= 2; got {x.shape} "
                         f"and {y.shape}")
    if correlation not in CORRELATIONS:
        raise ConfigError(
            f"unknown correlation {correlation!r}; choose from {', '.join(CORRELATIONS)}")
    if correlation == "kendall":
        return _tau_b(x, y)
    if correlation == "spearman":
        x, y = _average_ranks(x), _average_ranks(y)
    return _pearson(x, y)


# -- one metric score vector ---------------------------------------------------------------


@arguments(scores=is_array(), human=is_array(1))
def pearson(scores: ArrayLike, human: ArrayLike) -> float:
    """Pearson r of one score vector with ``human`` (NaN if either is constant)."""
    return float(pearson_rows(_vector(scores), human)[0])


@arguments(scores=is_array(), human=is_array(1))
def spearman(scores: ArrayLike, human: ArrayLike) -> float:
    """Spearman rho of one score vector with ``human`` (NaN if either is constant)."""
    return float(spearman_rows(_vector(scores), human)[0])


@arguments(scores=is_array(), human=is_array(1))
def kendall(scores: ArrayLike, human: ArrayLike) -> float:
    """Kendall tau-b of one score vector with ``human`` (NaN if either is constant)."""
    return float(kendall_rows(_vector(scores), human)[0])


@arguments(scores=is_array(), human=is_array(1), correlation=known_correlation)
def correlate_one(scores: ArrayLike, human: ArrayLike, correlation: str = "pearson") -> float:
    """The named correlation of one score vector with ``human``."""
    return float(correlation_rows(_vector(scores), human, correlation)[0])


@dataclass(frozen=True)
class Correlation:
    """Pearson, Spearman and Kendall (tau-b) of one metric's system scores with the
    human scores; NaN where undefined (constant scores)."""

    pearson: float
    spearman: float
    kendall: float
    n: int

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


@arguments(metric=is_array(), human=is_array(1))
def correlate(metric: ArrayLike, human: ArrayLike) -> Correlation:
    """The three correlations of the metric's system scores with the human scores.

    The system-level table needs at least 3 systems (with 2, r and rho are always ±1).
    """
    x, y = _rows(_vector(metric), human)
    if y.size < 3:
        raise InputError(f"a correlation needs at least 3 systems (got {y.size})")
    curves = {name: float(function(x, y)[0]) for name, function in ROW_FUNCTIONS.items()}
    return Correlation(n=int(y.size), **curves)
