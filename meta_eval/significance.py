"""Confidence intervals and significance tests for system-level meta-evaluation.

Pure numpy/scipy functions; nothing here reads files or knows about metrics.
The corpus scores of the systems come from a callable
``system_scores(sentence_indices) -> ndarray (n_systems,)``, e.g.
``lambda idx: stats.corpus_scores(beta, idx)`` on gecmetrics
:class:`~gecmetrics.metric.Statistics`, which sums the cached per-sentence
statistics over the (resampled) sentences without rescoring.

* :func:`bootstrap_ci`: 95% (by default) percentile bootstrap intervals of the
  Pearson, Spearman and Kendall (tau-b) correlations between the systems'
  corpus scores and fixed human scores, resampling test sentences with
  replacement under a fixed, recorded seed.
* :func:`williams_test` / :func:`williams_sig_diff`: Williams' test (Williams
  1959, in the form of Steiger 1980 eq. 7, as in WMT and mt-metrics-eval) for
  the difference between two dependent Pearson correlations sharing the human
  scores. One-sided by default.
* :func:`paired_bootstrap_test`: both metrics' correlations recomputed on the
  same sentence resamples; the p-value is the share of resamples in which the
  metric that correlates better on the full data does not.

See docs/significance.md for the methods, their assumptions and their low power
with 12-15 systems.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .correlation import (  # noqa: F401 (re-exported for older callers)
    CORRELATIONS,
    ROW_FUNCTIONS,
    correlate_one,
    correlation_rows,
    kendall_rows,
    pearson,
    pearson_rows,
    spearman_rows,
)

DEFAULT_SEED = 12345
DEFAULT_RESAMPLES = 1000

SystemScores = Callable[[np.ndarray], np.ndarray]


# The correlations themselves live in .correlation; these names stay importable from
# here for callers written before the consolidation (``correlate`` is the rows version).
correlate = correlation_rows


# -- resampling -------------------------------------------------------------------


def resample_indices(n_sentences: int, n_resamples: int, seed: int) -> Iterator[np.ndarray]:
    """The bootstrap resamples: ``n_resamples`` arrays of ``n_sentences`` indices drawn
    with replacement from ``range(n_sentences)`` by ``numpy.random.default_rng(seed)``.

    The same (n_sentences, n_resamples, seed) always gives the same sequence, so two
    metrics can be evaluated on identical resamples.
    """
    if n_sentences < 1:
        raise ValueError("need at least one sentence to resample")
    if n_resamples < 1:
        raise ValueError("the number of resamples must be at least 1")
    rng = np.random.default_rng(seed)
    for _ in range(n_resamples):
        yield rng.integers(0, n_sentences, size=n_sentences)


def bootstrap_system_scores(
    system_scores: SystemScores, n_sentences: int, n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> np.ndarray:
    """Corpus scores of every system on every resample, shape (n_resamples, n_systems)."""
    rows = [np.asarray(system_scores(idx), dtype=float)
            for idx in resample_indices(n_sentences, n_resamples, seed)]
    return np.vstack(rows)


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
        raise ValueError(
            f"system_scores gave {full.shape[0]} scores for {human.shape[0]} human scores"
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


# -- comparing two metrics ---------------------------------------------------------


@dataclass(frozen=True)
class WilliamsResult:
    r_a: float  # Pearson r of metric A with the human scores (r12)
    r_b: float  # of metric B (r13)
    r_ab: float  # between the two metrics (r23)
    t: float
    df: int
    p: float
    one_sided: bool


def williams_test(
    r12: float, r13: float, r23: float, n: int, one_sided: bool = True
) -> tuple[float, float]:
    """Williams' t for H0: rho12 = rho13, given r23, with n - 3 degrees of freedom.

    t = (r12 - r13) * sqrt((n-1)(1+r23)) / sqrt(2 (n-1)/(n-3) |R| + rbar^2 (1-r23)^3),
    |R| = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23, rbar = (r12 + r13)/2.
    Returns ``(t, p)``; one-sided p = P(T_{n-3} >= |t|) (the direction being the
    observed one), two-sided p = 2 * that.
    """
    from scipy.stats import t as student_t

    if n < 4:
        raise ValueError("Williams' test needs at least 4 systems")
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    rbar = (r12 + r13) / 2
    num = (r12 - r13) * np.sqrt((n - 1) * (1 + r23))
    with np.errstate(invalid="ignore"):
        den = np.sqrt(2 * (n - 1) / (n - 3) * det + rbar**2 * (1 - r23) ** 3)
    if num == 0:
        t = 0.0
    elif np.isfinite(den) and den > 0:
        t = float(num / den)
    else:  # a singular correlation matrix (rounding): the statistic is undefined
        return float("nan"), float("nan")
    p = float(student_t.sf(abs(t), n - 3))
    return t, (p if one_sided else min(1.0, 2 * p))


def williams_sig_diff(
    scores_a: np.ndarray, scores_b: np.ndarray, human: np.ndarray, one_sided: bool = True
) -> WilliamsResult:
    """Williams' test on the Pearson correlations of two metrics' system scores."""
    a = np.asarray(scores_a, dtype=float)
    b = np.asarray(scores_b, dtype=float)
    h = np.asarray(human, dtype=float)
    if not a.shape == b.shape == h.shape:
        raise ValueError("both metrics and the human scores need one value per system")
    r12, r13, r23 = pearson(a, h), pearson(b, h), pearson(a, b)
    t, p = williams_test(r12, r13, r23, h.size, one_sided)
    return WilliamsResult(r12, r13, r23, t, h.size - 3, p, one_sided)


@dataclass(frozen=True)
class PairedBootstrapResult:
    correlation: str
    r_a: float
    r_b: float
    delta: float  # r_a - r_b on the full data
    delta_ci: tuple[float, float]
    p: float  # one-sided: share of resamples where the better metric is not better
    p_two_sided: float
    n_resamples: int
    seed: int
    confidence: float


def paired_bootstrap_test(
    scores_a: SystemScores,
    scores_b: SystemScores,
    human: np.ndarray,
    n_sentences: int,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = DEFAULT_SEED,
    correlation: str = "pearson",
    confidence: float = 0.95,
) -> PairedBootstrapResult:
    """Paired bootstrap test of the difference between two metrics' correlations.

    Both metrics are scored on the same sentence resamples (same seed). With
    delta = r_a - r_b on the full data and delta_b on resample b:

    * ``p`` (one-sided) = share of resamples with ``sign(delta) * delta_b <= 0``, i.e.
      in which the metric that correlates better on the full data does not
      (Koehn 2004's paired bootstrap); if delta == 0, p = 1;
    * ``p_two_sided`` = min(1, 2 p); below 1 - confidence exactly when 0 lies outside
      the percentile interval ``delta_ci`` (up to interpolation).
    """
    seed = DEFAULT_SEED if seed is None else int(seed)
    human = np.asarray(human, dtype=float)
    full = np.arange(n_sentences)
    r_a = correlate_one(scores_a(full), human, correlation)
    r_b = correlate_one(scores_b(full), human, correlation)
    delta = r_a - r_b
    boot_a = bootstrap_system_scores(scores_a, n_sentences, n_resamples, seed)
    boot_b = bootstrap_system_scores(scores_b, n_sentences, n_resamples, seed)
    deltas = (correlation_rows(boot_a, human, correlation)
              - correlation_rows(boot_b, human, correlation))
    valid = deltas[~np.isnan(deltas)]
    if delta == 0 or valid.size == 0:
        p = 1.0
    else:
        p = float(np.mean(np.sign(delta) * valid <= 0))
    return PairedBootstrapResult(
        correlation=correlation,
        r_a=r_a,
        r_b=r_b,
        delta=delta,
        delta_ci=percentile_interval(deltas, confidence),
        p=p,
        p_two_sided=min(1.0, 2 * p),
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
    )
