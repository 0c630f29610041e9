"""Bootstrap intervals, Williams' test and the paired bootstrap (gecmetrics.stats), against
scipy and by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.stats import DEFAULT_SEED, intervals
from gecmetrics.stats import correlation as corr
from gecmetrics.stats import significance as sig


def mean_scores(per_sentence: np.ndarray):
    """A system_scores callable: each system's corpus score = mean of its sentence scores."""
    return lambda idx: per_sentence[:, idx].mean(axis=1)


# -- row correlations agree with scipy ------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_row_correlations_match_scipy_including_ties(seed):
    rng = np.random.default_rng(seed)
    human = np.round(rng.normal(size=13), 1)  # rounding makes ties
    rows = np.round(rng.normal(size=(20, 13)), 1)
    rows[0, :] = rows[0, 0]  # one constant row
    rows[1] = human  # one perfect row
    for i, row in enumerate(rows):
        got = {name: corr.correlation_rows(row, human, name)[0] for name in corr.CORRELATIONS}
        all_rows = {name: corr.correlation_rows(rows, human, name)[i] for name in corr.CORRELATIONS}
        if i == 0:
            assert all(math.isnan(v) for v in got.values())
            continue
        expected = {
            "pearson": stats.pearsonr(row, human)[0],
            "spearman": stats.spearmanr(row, human)[0],
            "kendall": stats.kendalltau(row, human)[0],
        }
        for name in corr.CORRELATIONS:
            assert got[name] == pytest.approx(expected[name], abs=1e-12), (i, name)
            assert all_rows[name] == pytest.approx(expected[name], abs=1e-12), (i, name)


def test_kendall_tau_b_by_hand():
    # x = (1, 2, 2, 3), y = (1, 3, 2, 4): pairs (12)(13)(14)(23)(24)(34)
    # sign x: + + + 0 + +   sign y: + + + - + +   -> P = 5, Q = 0, x-ties = 1, y-ties = 0
    # tau_b = 5 / sqrt((6 - 1) * (6 - 0)) = 5 / sqrt(30)
    assert corr.kendall_rows(np.array([1, 2, 2, 3]), np.array([1, 3, 2, 4]))[0] == pytest.approx(
        5 / math.sqrt(30)
    )


def test_unknown_correlation():
    with pytest.raises(ConfigError, match="unknown correlation"):
        corr.correlation_rows(np.ones(3), np.ones(3), "cosine")


# -- bootstrap intervals ----------------------------------------------------------------


def test_identical_sentences_give_a_point_interval():
    # every sentence has the same scores, so every resample has the full-data scores
    system = np.array([0.2, 0.5, 0.4, 0.9, 0.1])
    human = np.array([1.0, 3.0, 2.0, 5.0, 4.0])
    per_sentence = np.repeat(system[:, None], 50, axis=1)
    ci = intervals.bootstrap_ci(mean_scores(per_sentence), human, 50, n_resamples=200, seed=7)
    r = stats.pearsonr(system, human)[0]
    rho = stats.spearmanr(system, human)[0]  # ranks 2,4,3,5,1 vs 1,3,2,5,4: d = 1,1,1,0,-3
    tau = stats.kendalltau(system, human)[0]
    assert rho == pytest.approx(0.4)  # 1 - 6 * (1+1+1+0+9) / (5 * 24), by hand
    assert tau == pytest.approx(0.4)  # (7 - 3) / 10 concordant minus discordant, by hand
    assert ci.pearson == pytest.approx(r)
    assert ci.pearson_ci == pytest.approx((r, r))
    assert ci.spearman_ci == pytest.approx((0.4, 0.4))
    assert ci.kendall_ci == pytest.approx((0.4, 0.4))
    assert ci.seed == 7 and ci.n_resamples == 200 and ci.method == "percentile"


@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_bootstrap_interval_equals_an_independent_percentile_computation():
    rng = np.random.default_rng(3)
    n_sys, n_sent = 8, 60
    human = rng.normal(size=n_sys)
    per_sentence = human[:, None] + rng.normal(scale=3.0, size=(n_sys, n_sent))
    ci = intervals.bootstrap_ci(mean_scores(per_sentence), human, n_sent, n_resamples=300, seed=11)
    # the documented resampling: default_rng(seed).integers(0, n, n) per resample
    draw = np.random.default_rng(11)
    values = {"pearson": [], "spearman": [], "kendall": []}
    for _ in range(300):
        idx = draw.integers(0, n_sent, size=n_sent)
        scores = per_sentence[:, idx].mean(axis=1)
        values["pearson"].append(stats.pearsonr(scores, human)[0])
        values["spearman"].append(stats.spearmanr(scores, human)[0])
        values["kendall"].append(stats.kendalltau(scores, human)[0])
    for name in corr.CORRELATIONS:
        expected = np.percentile(values[name], [2.5, 97.5])
        assert getattr(ci, f"{name}_ci") == pytest.approx(tuple(expected), abs=1e-12)
    assert ci.pearson_ci[0] < ci.pearson_ci[1]
    assert ci.to_json()["pearson_ci"] == list(ci.pearson_ci)


def test_bootstrap_is_reproducible_and_seeded():
    rng = np.random.default_rng(5)
    per_sentence = rng.random((6, 40))
    human = rng.random(6)
    f = mean_scores(per_sentence)
    a = intervals.bootstrap_ci(f, human, 40, n_resamples=100, seed=1)
    b = intervals.bootstrap_ci(f, human, 40, n_resamples=100, seed=1)
    c = intervals.bootstrap_ci(f, human, 40, n_resamples=100, seed=2)
    d = intervals.bootstrap_ci(f, human, 40, n_resamples=100, seed=None)
    assert a == b and a.pearson_ci != c.pearson_ci
    assert d.seed == DEFAULT_SEED


def test_bootstrap_counts_undefined_resamples_and_checks_shapes():
    # system 0 and 1 differ on sentence 0 only: resamples without it are constant
    per_sentence = np.zeros((3, 4))
    per_sentence[0, 0] = 1.0
    human = np.array([3.0, 1.0, 2.0])
    ci = intervals.bootstrap_ci(mean_scores(per_sentence), human, 4, n_resamples=400, seed=0)
    draws = np.random.default_rng(0)
    expected = sum(0 not in draws.integers(0, 4, size=4) for _ in range(400))
    assert ci.n_undefined["pearson"] == expected > 0  # about (3/4)^4 = 32%
    with pytest.raises(InputError, match="gave 3 scores for 2 human scores"):
        intervals.bootstrap_ci(mean_scores(per_sentence), human[:2], 4, n_resamples=5)


def test_percentile_interval():
    samples = np.arange(101, dtype=float)  # quantile q of 0..100 is 100 q
    assert intervals.percentile_interval(samples, 0.95) == pytest.approx((2.5, 97.5))
    assert intervals.percentile_interval(np.append(samples, np.nan), 0.9) == pytest.approx((5, 95))
    assert all(math.isnan(v) for v in intervals.percentile_interval(np.array([np.nan])))
    with pytest.raises(ConfigError, match="confidence must be a number between 0 and 1"):
        intervals.percentile_interval(samples, 1.5)


# -- Williams' test ----------------------------------------------------------------------


def test_williams_by_hand():
    # r12 = .9, r13 = .7, r23 = .8, n = 13, worked by hand:
    # |R| = 1 - .81 - .49 - .64 + 2(.9)(.7)(.8) = 0.068
    # rbar = 0.8; numerator = 0.2 sqrt(12 * 1.8) = 0.2 sqrt(21.6) = 0.929516
    # denominator = sqrt(2 * 12/10 * 0.068 + 0.64 * 0.2^3) = sqrt(0.16832) = 0.4102682
    # t = 0.929516 / 0.4102682 = 2.26563 with 10 degrees of freedom
    t, p = sig.williams_test(0.9, 0.7, 0.8, 13)
    assert t == pytest.approx(2.26563, abs=1e-5)
    assert p == pytest.approx(stats.t.sf(2.26563, 10), abs=1e-6)
    assert 0.02 < p < 0.03  # t tables: t(10) = 2.228 at 0.025 and 2.764 at 0.01, one-sided
    t2, p2 = sig.williams_test(0.9, 0.7, 0.8, 13, one_sided=False)
    assert t2 == t and p2 == pytest.approx(2 * p)
    t3, p3 = sig.williams_test(0.7, 0.9, 0.8, 13)  # symmetric
    assert t3 == pytest.approx(-t) and p3 == pytest.approx(p)


def test_williams_uses_the_determinant_of_the_correlation_matrix():
    # Steiger (1980) eq. 7 writes the statistic with |R|; compute |R| with numpy
    r12, r13, r23, n = 0.62, 0.35, 0.41, 15
    det = np.linalg.det(np.array([[1, r12, r13], [r12, 1, r23], [r13, r23, 1]]))
    rbar = (r12 + r13) / 2
    t = (r12 - r13) * math.sqrt(
        (n - 1) * (1 + r23) / (2 * (n - 1) / (n - 3) * det + rbar**2 * (1 - r23) ** 3)
    )
    got_t, got_p = sig.williams_test(r12, r13, r23, n)
    assert got_t == pytest.approx(t) and got_p == pytest.approx(stats.t.sf(t, n - 3))
    assert sig.williams_test(0.5, 0.5, 0.3, 10) == (0.0, 0.5)
    with pytest.raises(ValueError):
        sig.williams_test(0.5, 0.4, 0.3, 3)


def test_williams_sig_diff_from_scores():
    human = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    a = np.array([1.1, 1.9, 3.2, 3.9, 5.1, 6.0])
    b = np.array([2.0, 1.0, 4.0, 3.0, 6.0, 5.0])
    res = sig.williams_sig_diff(a, b, human)
    assert res.r_a == pytest.approx(stats.pearsonr(a, human)[0])
    assert res.r_b == pytest.approx(stats.pearsonr(b, human)[0])
    assert res.r_ab == pytest.approx(stats.pearsonr(a, b)[0])
    t, p = sig.williams_test(res.r_a, res.r_b, res.r_ab, 6)
    assert (res.t, res.p, res.df) == (pytest.approx(t), pytest.approx(p), 3)
    assert res.t > 0 and res.p < 0.5
    with pytest.raises(InputError, match="must have the same length"):
        sig.williams_sig_diff(a[:5], b, human)


# -- paired bootstrap ---------------------------------------------------------------------


def test_paired_p_value_by_hand():
    # both defined in resamples 0, 1, 2 and 4
    a = np.array([0.9, 0.5, 0.3, np.nan, 0.7, 0.2])
    b = np.array([0.8, 0.5, 0.4, 0.1, 0.6, np.nan])
    assert sig.paired_p_value(a, b) == 0.5  # 2 of 4: 0.5 <= 0.5 and 0.3 <= 0.4
    assert sig.paired_p_value(b, a) == 0.75
    assert math.isnan(sig.paired_p_value(np.array([np.nan]), np.array([1.0])))



def test_paired_bootstrap_identical_metrics():
    rng = np.random.default_rng(0)
    per_sentence = rng.random((5, 30))
    f = mean_scores(per_sentence)
    res = sig.paired_bootstrap_test(f, f, rng.random(5), 30, n_resamples=50)
    assert res.delta == 0 and res.p == 1.0 and res.delta_ci == (0.0, 0.0)


def test_paired_bootstrap_perfect_metric_always_wins():
    human = np.array([0.1, 0.4, 0.2, 0.9, 0.5])
    perfect = np.repeat(human[:, None], 40, axis=1)  # r = 1 on every resample
    rng = np.random.default_rng(1)
    noisy = human[:, None] + rng.normal(scale=0.3, size=(5, 40))
    res = sig.paired_bootstrap_test(mean_scores(perfect), mean_scores(noisy), human, 40,
                                    n_resamples=200, seed=3)
    assert res.r_a == pytest.approx(1.0) and res.r_b < 1
    assert res.p == 0.0 and res.p_two_sided == 0.0 and res.delta_ci[0] > 0
    swapped = sig.paired_bootstrap_test(mean_scores(noisy), mean_scores(perfect), human, 40,
                                        n_resamples=200, seed=3)
    assert swapped.p == 0.0 and swapped.delta == pytest.approx(-res.delta)


def test_paired_bootstrap_p_equals_an_independent_count():
    rng = np.random.default_rng(8)
    n_sys, n_sent = 7, 50
    human = rng.normal(size=n_sys)
    a = human[:, None] + rng.normal(scale=4.0, size=(n_sys, n_sent))
    b = human[:, None] + rng.normal(scale=4.0, size=(n_sys, n_sent))
    res = sig.paired_bootstrap_test(mean_scores(a), mean_scores(b), human, n_sent,
                                    n_resamples=250, seed=21, correlation="kendall")
    full_a = stats.kendalltau(a.mean(axis=1), human)[0]
    full_b = stats.kendalltau(b.mean(axis=1), human)[0]
    assert res.delta == pytest.approx(full_a - full_b)
    draw = np.random.default_rng(21)
    deltas = []
    for _ in range(250):
        idx = draw.integers(0, n_sent, size=n_sent)
        deltas.append(stats.kendalltau(a[:, idx].mean(axis=1), human)[0]
                      - stats.kendalltau(b[:, idx].mean(axis=1), human)[0])
    deltas = np.array(deltas)
    expected = np.mean(np.sign(full_a - full_b) * deltas <= 0)
    assert res.p == pytest.approx(expected)
    assert res.p_two_sided == pytest.approx(min(1, 2 * expected))
    assert res.delta_ci == pytest.approx(tuple(np.percentile(deltas, [2.5, 97.5])))
