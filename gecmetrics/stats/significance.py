"""Significance tests of a difference: between two metrics' correlations, and between
two systems' scores.

Pure numpy/scipy functions; nothing here reads files or knows about metrics. Corpus
scores on resampled sentences come from a callable ``system_scores(sentence_indices)
-> ndarray (n_systems,)``, e.g. ``lambda idx: stats.corpus_scores(beta, idx)`` on
gecmetrics :class:`~gecmetrics.metric.Statistics`, which sums the cached
per-sentence statistics over the (resampled) sentences without rescoring.

Two metrics (the meta-evaluation):

* :func:`williams_test` / :func:`williams_sig_diff`: Williams' test (Williams
  1959, in the form of Steiger 1980 eq. 7, as in WMT and mt-metrics-eval) for
  the difference between two dependent Pearson correlations sharing the human
  scores. One-sided by default. Kept by hand: scipy has no test of dependent
  correlations.
* :func:`paired_bootstrap_test`: both metrics' correlations recomputed on the
  same sentence resamples, with the one-sided p-value of :func:`paired_p_value`,
  which the significance clusters (:mod:`.clusters`) use too.

Two systems (``score --paired-bootstrap/--paired-ar``, sacrebleu's conventions), on
per-sentence statistics (hypotheses, sentences, ...) and the formula that turns
their sums into scores:

* :func:`weighted_scores`: scores from weighted sentence sums (a bootstrap
  resample is its draw counts as weights, one matrix product a block);
* :func:`bootstrap_p_value`: the paired-bootstrap p (sacrebleu's statistic, counted
  "at least as extreme");
* :func:`ar_scores` / :func:`ar_diffs` / :func:`ar_p_value`: approximate
  randomisation (Riezler & Maxwell 2005), swapping sentences between the two
  systems under the masks of :func:`.resampling.swap_masks`.

See docs/significance.md and docs/paired.md for the methods, their assumptions and
their low power with 12-15 systems.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gecmetrics.errors import ConfigError
from gecmetrics.validate import (
    arguments,
    check_size,
    is_array,
    is_count,
    is_flag,
    is_fraction,
    is_function,
    is_number,
    is_optional,
    is_real,
)

from . import DEFAULT_RESAMPLES, DEFAULT_SEED
from .correlation import correlate_one, correlation_rows, known_correlation, pearson
from .intervals import percentile_interval
from .resampling import SystemScores, bootstrap_system_scores, swap_masks

Formula = Callable[[np.ndarray], np.ndarray]


@arguments(same=("a", "b"),
           a=is_array(1, 0), b=is_array(1, 0))
def paired_p_value(a: np.ndarray, b: np.ndarray) -> float:
    """The one-sided paired-bootstrap p-value that ``a`` is not better than ``b``
    (Koehn 2004), from their statistics on the same resamples: the share of resamples,
    among those where both are defined (not NaN), with ``a <= b``; NaN if there is
    none."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both = ~(np.isnan(x) | np.isnan(y))
    return float(np.mean(x[both] <= y[both])) if both.any() else float("nan")


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


@arguments(r12=is_real(), r13=is_real(), r23=is_real(), n=is_count(),
           one_sided=is_flag())
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


@arguments(same=("scores_a", "scores_b", "human"),
           scores_a=is_array(1), scores_b=is_array(1), human=is_array(1), one_sided=is_flag())
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


@arguments(scores_a=is_function("a function of sentence indices"),
           scores_b=is_function("a function of sentence indices"), human=is_array(1),
           n_sentences=is_count(), n_resamples=is_count(), seed=is_optional(is_count()),
           correlation=known_correlation, confidence=is_fraction())
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
      (:func:`paired_p_value`); if delta == 0, p = 1;
    * ``p_two_sided`` = min(1, 2 p); below 1 - confidence exactly when 0 lies outside
      the percentile interval ``delta_ci`` (up to interpolation).
    """
    seed = DEFAULT_SEED if seed is None else int(seed)
    human = np.asarray(human, dtype=float)
    full = np.arange(n_sentences)
    r_a = correlate_one(scores_a(full), human, correlation)
    r_b = correlate_one(scores_b(full), human, correlation)
    delta = r_a - r_b
    boot_a = correlation_rows(bootstrap_system_scores(scores_a, n_sentences, n_resamples, seed),
                              human, correlation)
    boot_b = correlation_rows(bootstrap_system_scores(scores_b, n_sentences, n_resamples, seed),
                              human, correlation)
    deltas = boot_a - boot_b
    if delta == 0 or np.isnan(deltas).all():
        p = 1.0
    elif np.isnan(delta):  # undefined on all data: "not better" never holds
        p = 0.0
    else:
        better, worse = (boot_a, boot_b) if delta > 0 else (boot_b, boot_a)
        p = paired_p_value(better, worse)
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


# -- comparing two systems on per-sentence statistics -----------------------------------


def _as_sums(stats: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """Sums back to integers when the statistics are counts (exact: float64 holds them)."""
    if np.issubdtype(stats.dtype, np.integer):
        return np.rint(sums).astype(np.int64)
    return sums


@arguments(stats=is_array((2, 3, 4, 5)), formula=is_function("a function of summed statistics"),
           weights=is_array(2))
def weighted_scores(stats: np.ndarray, formula: Formula, weights: np.ndarray) -> np.ndarray:
    """formula(sum_d weights[t, d] * stats[h, d, ...]) for every row t: (T, H).

    ``stats``: per-sentence statistics (H systems, D sentences, ...); ``weights`` (T, D),
    e.g. the :func:`.resampling.draw_counts` of T bootstrap resamples.
    """
    H, D = stats.shape[:2]
    flat = stats.reshape(H, D, -1).transpose(1, 0, 2).reshape(D, -1).astype(np.float64)
    sums = (weights @ flat).reshape((weights.shape[0], H) + stats.shape[2:])
    return np.asarray(formula(_as_sums(stats, sums)), dtype=np.float64)


@arguments(per=is_array((2, 3, 4, 5)), formula=is_function("a function of summed statistics"),
           baseline=is_count(), samples=is_count(), seed=is_count())
def ar_scores(per: np.ndarray, formula: Formula, baseline: int, samples: int,
              seed: int) -> np.ndarray:
    """|A_t - B_t| for every trial t and system: (samples, H).

    Trial t is one row of :func:`.resampling.swap_masks`; pseudo-system A takes the
    baseline's statistics where the mask is set and the system's elsewhere, B the
    opposite. The baseline's column is 0.
    """
    return np.vstack([ar_diffs(per, formula, baseline, mask)
                      for mask in swap_masks(samples, per.shape[1], seed)])


@arguments(per=is_array((2, 3, 4, 5)), formula=is_function("a function of summed statistics"),
           baseline=is_count(), masks=is_array(2, 0, "booleans"))
def ar_diffs(per: np.ndarray, formula: Formula, baseline: int,
             masks: np.ndarray) -> np.ndarray:
    """|A - B| for given swap masks (trials, sentences): True keeps the baseline's
    sentence in A (and the system's in B). (trials, H); 0 for the baseline."""
    H, D = per.shape[:2]
    if baseline >= H:
        raise ConfigError(f"baseline must be the index of a system of per, from 0 to {H - 1} "
                          f"(got {baseline})")
    check_size("masks", masks.shape[1], D, "columns, one per sentence of per")
    flat = per.reshape(H, D, -1).astype(np.float64)
    totals = flat.sum(axis=1)  # (H, F)
    weights = np.asarray(masks, dtype=np.float64)
    F = flat.shape[2]
    by_sentence = flat.transpose(1, 0, 2).reshape(D, H * F)
    picked = (weights @ by_sentence).reshape(len(weights), H, F)  # sums where the mask is set
    a = picked[:, baseline][:, None] + (totals[None] - picked)
    b = (totals[baseline][None, None] - picked[:, baseline][:, None]) + picked
    shape = (len(weights), H) + per.shape[2:]
    score_a = np.asarray(formula(_as_sums(per, a.reshape(shape))), dtype=np.float64)
    score_b = np.asarray(formula(_as_sums(per, b.reshape(shape))), dtype=np.float64)
    return np.abs(score_a - score_b)


#: Resampled differences within this much of the observed one count as equal to it
#: ("at least as extreme"): the same sums reach a score by different float paths.
TIE_TOLERANCE = 1e-12


@arguments(same=("system", "baseline"),
           system=is_array(1), baseline=is_array(1), observed=is_number())
def bootstrap_p_value(system: np.ndarray, baseline: np.ndarray, observed: float) -> float:
    """Paired-bootstrap p (sacrebleu's statistic): resamples whose shifted absolute
    difference is at least |d|, +1 over N + 1; 1 when d is 0 (no difference is the
    least extreme outcome, so identical outputs are never significant)."""
    if observed == 0:
        return 1.0
    diffs = np.abs(system - baseline)
    extreme = diffs - diffs.mean() >= abs(observed) - TIE_TOLERANCE
    return float((np.sum(extreme) + 1) / (len(diffs) + 1))


@arguments(trial_diffs=is_array(1, 0), observed=is_number())
def ar_p_value(trial_diffs: np.ndarray, observed: float) -> float:
    """Approximate-randomisation p (Riezler & Maxwell 2005): trials whose |A - B| is
    at least |d|, +1 over N + 1; 1 when d is 0 (every trial is as extreme)."""
    if observed == 0:
        return 1.0
    extreme = trial_diffs >= abs(observed) - TIE_TOLERANCE
    return float((np.sum(extreme) + 1) / (len(trial_diffs) + 1))
