"""The one statistics core (gecmetrics.stats.correlation): hand cases, scipy, single vs rows,
constant vectors, and the pieces consolidated with it (rank pairs, metric betas)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from meta_data import shared_data
from scipy import stats
from tiers import examples

from gecmetrics import get_metric
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.meta_eval.analyses.window import window_correlations
from gecmetrics.meta_eval.cv_folds import best_beta
from gecmetrics.meta_eval.human import pairwise_wins, rank_pairs, read_judgments
from gecmetrics.meta_eval.sentence_agreement import human_pairs
from gecmetrics.stats import correlation as corr
from gecmetrics.stats import intervals
from gecmetrics.stats import significance as sig

SCIPY = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}
SINGLE = {"pearson": corr.pearson, "spearman": corr.spearman, "kendall": corr.kendall}

# -- hand-computed cases ---------------------------------------------------------------

# (x, y, pearson, spearman, kendall tau-b), each worked out by hand below.
HAND = [
    # No ties. x deviations -2..2, y deviations (-1,-2,1,0,2): sum of products 8, sums
    # of squares 10 and 10 -> r = 0.8; values are their own ranks -> rho = r.
    # Pairs: 10, discordant (1,2) and (3,4) -> tau = (8 - 2) / 10.
    ([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], 0.8, 0.8, 0.6),
    # Ties in both. x mean 2.25, y mean 1.75: products 0.9375 + 0.1875 - 0.0625 + 2.1875
    # = 3.25 = 13/4, Sxx = 4.75, Syy = 2.75 -> r = 13/4 / sqrt(209/16) = 13 / sqrt(209).
    # Average ranks x (1, 2.5, 2.5, 4), y (1.5, 1.5, 3, 4): products 1.5 + 2.25 = 3.75,
    # both sums of squares 4.5 -> rho = 5/6.
    # Pairs: (0,1) y-tie, (1,2) x-tie, the other 4 concordant -> 4 / sqrt(5 * 5).
    ([1, 2, 2, 4], [1, 1, 2, 3], 13 / math.sqrt(209), 5 / 6, 0.8),
    # Reversed order: every pair discordant.
    ([3, 2, 1], [1, 2, 3], -1.0, -1.0, -1.0),
    # x ties only: x (1, 1, 2, 3), y (1, 2, 3, 4); pairs: one x-tie, 5 concordant ->
    # tau_b = 5 / sqrt((6 - 1) * 6).
    ([1, 1, 2, 3], [1, 2, 3, 4], None, None, 5 / math.sqrt(30)),
]


@pytest.mark.parametrize("x, y, r, rho, tau", HAND)
def test_hand_cases_and_scipy(x, y, r, rho, tau):
    expected = {"pearson": r, "spearman": rho, "kendall": tau}
    whole = corr.correlate(x, y)
    for name, value in expected.items():
        reference = SCIPY[name](x, y)[0]
        got = SINGLE[name](x, y)
        assert got == pytest.approx(reference, abs=1e-12), name
        if value is not None:
            assert got == pytest.approx(value, abs=1e-12), name
        assert getattr(whole, name) == got
        assert corr.correlate_one(x, y, name) == got
        assert corr.correlation_rows(np.array([x, x]), y, name).tolist() == [got, got]


# -- single vs rows ----------------------------------------------------------------


def _check_rows(rows: np.ndarray, human: np.ndarray) -> None:
    curves = corr.correlation_curves(rows, human)
    for name, single in SINGLE.items():
        assert np.array_equal(curves[name], corr.correlation_rows(rows, human, name),
                              equal_nan=True)
        for i, row in enumerate(rows):
            one = single(row, human)
            # the same value to the bit, whatever the number of rows
            assert (math.isnan(one) and math.isnan(curves[name][i])) or one == curves[name][i]
            if np.ptp(row) == 0 or np.ptp(human) == 0:
                assert math.isnan(one)
            else:
                assert one == pytest.approx(SCIPY[name](row, human)[0], abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_rows_agree_with_single_vectors_and_scipy(seed):
    rng = np.random.default_rng(seed)
    n = 3 + seed * 4
    human = np.round(rng.normal(size=n), 1)  # rounding makes ties
    rows = np.round(rng.normal(size=(30, n)), 1)
    rows[0] = 0.1  # constant
    rows[1] = human
    rows[2] = -human
    _check_rows(rows, human)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(3, 9).flatmap(lambda n: st.tuples(
    st.lists(st.integers(-3, 3), min_size=n, max_size=n),
    st.lists(st.lists(st.integers(-3, 3), min_size=n, max_size=n), min_size=1, max_size=6))))
def test_rows_agree_with_single_vectors_property(data):
    human, rows = data
    scale = 0.1  # tenths: many ties, and values that are not exact in binary
    _check_rows(np.array(rows, dtype=float) * scale, np.array(human, dtype=float) * scale)


def test_kendall_blocks_give_the_same_values(monkeypatch):
    rng = np.random.default_rng(5)
    human = rng.random(9)
    rows = np.round(rng.random((25, 9)), 1)
    whole = corr.kendall_rows(rows, human)
    monkeypatch.setattr(corr, "_KENDALL_BLOCK", 36 * 4)  # 4 rows a block
    assert np.array_equal(corr.kendall_rows(rows, human), whole)


@pytest.mark.parametrize("block", [None, 36 * 4])
def test_paired_rows_are_the_rows_functions_row_by_row(monkeypatch, block):
    """paired_rows runs the same kernels: row b against human row b is, to the last bit,
    the correlation of that one row (blocked or not), constant rows included."""
    if block is not None:
        monkeypatch.setattr(corr, "_KENDALL_BLOCK", block)
    rng = np.random.default_rng(11)
    x = np.round(rng.random((25, 9)), 1)
    y = np.round(rng.random((25, 9)), 1)
    x[3], y[7] = 0.4, 0.2  # constant rows: NaN
    for name in corr.CORRELATIONS:
        got = corr.paired_rows(x, y, name)
        want = np.array([corr.correlate_one(a, b, name) for a, b in zip(x, y, strict=True)])
        assert np.isnan(got[3]) and np.isnan(got[7])
        assert got.tobytes() == want.tobytes(), name


# -- constant vectors: NaN from every function -----------------------------------------


@pytest.mark.parametrize("value", [0.1, 0.7, 1 / 3, 0.0, 1e300])
def test_a_constant_vector_has_no_correlation_anywhere(value):
    # [0.1] * 13 centres to rounding residue, not zeros: the old rows code gave 0.0 there
    const = np.full(13, value)
    human = np.arange(13.0)
    rows = np.vstack([const, human])
    for name, single in SINGLE.items():
        assert math.isnan(single(const, human)) and math.isnan(single(human, const))
        assert math.isnan(corr.correlate_one(const, human, name))
        assert math.isnan(corr.correlation_rows(rows, human, name)[0])
        assert corr.correlation_rows(rows, human, name)[1] == pytest.approx(1.0)
        assert np.isnan(corr.correlation_rows(rows, const, name)).all()
        assert math.isnan(corr.correlation_curves(rows, human)[name][0])
    c = corr.correlate(const, human)
    assert math.isnan(c.pearson) and math.isnan(c.spearman) and math.isnan(c.kendall)
    for function in (corr.pearson_rows, corr.spearman_rows, corr.kendall_rows):
        assert math.isnan(function(const, human)[0])


def test_analyses_report_constant_scores_as_undefined():
    human = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    const = np.full(5, 0.1)
    w = sig.williams_sig_diff(const, human * 0.3, human)
    assert math.isnan(w.r_a) and math.isnan(w.t) and math.isnan(w.p)
    per_sentence = np.full((5, 20), 0.1)
    ci = intervals.bootstrap_ci(lambda idx: per_sentence[:, idx].mean(axis=1), human, 20,
                          n_resamples=30, seed=1)
    assert math.isnan(ci.pearson) and math.isnan(ci.kendall_ci[0])
    assert ci.n_undefined == {"pearson": 30, "spearman": 30, "kendall": 30}
    names = list("ABCDE")
    rows = window_correlations(dict(zip(names, [0.1, 0.1, 0.1, 0.4, 0.2], strict=True)),
                               dict(zip(names, human, strict=True)), window=3)
    # human order E D C B A: the window (C, B, A) has metric scores 0.1, 0.1, 0.1
    assert [r.systems_in_window for r in rows][-1] == ["C", "B", "A"]
    assert math.isnan(rows[-1].pearson) and math.isnan(rows[-1].spearman)
    assert not math.isnan(rows[0].pearson)
    # a beta whose scores are constant never wins the CV optimum
    beta, r = best_beta(lambda b, idx: const if b == 0 else human * b, human, [0, 2],
                        np.arange(3))
    assert beta == 2 and r == pytest.approx(1.0)


# -- input checks ----------------------------------------------------------------


def test_shape_errors_are_input_errors():
    with pytest.raises(InputError, match="do not match 2 human scores"):
        corr.pearson_rows(np.ones((4, 3)), [1.0, 2.0])
    with pytest.raises(InputError, match="one vector"):
        corr.pearson(np.ones((2, 3)), [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="2-D"):
        corr.correlation_curves([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="at least 2 systems"):
        corr.kendall_rows(np.ones((2, 1)), [1.0])
    with pytest.raises(ConfigError, match="unknown correlation"):
        corr.correlation_rows([1.0, 2.0], [1.0, 2.0], "tau-c")


# -- rank groups to pairs: one expansion -----------------------------------------------

# One annotator: A and C share rank 1 (one output), B and D rank 2 in separate groups,
# E rank 3, listed out of rank order.
GROUPS = ((2, ("B",)), (1, ("A", "C")), (3, ("E",)), (2, ("D",)))


def test_rank_pairs_by_hand():
    assert rank_pairs(GROUPS) == [
        ("A", "B"), ("A", "D"), ("C", "B"), ("C", "D"),  # rank 1 over rank 2
        ("A", "E"), ("C", "E"),  # rank 1 over rank 3
        ("B", "E"), ("D", "E"),  # rank 2 over rank 3
    ]
    # systems outside the set are dropped before pairing; equal ranks never pair
    assert rank_pairs(GROUPS, keep={"C", "D", "E"}) == [("C", "D"), ("C", "E"), ("D", "E")]
    assert rank_pairs(((1, ("A", "B")), (1, ("C",)))) == []
    # a system named in two groups is never compared with itself
    assert rank_pairs(((1, ("A",)), (2, ("A", "B")))) == [("A", "B")]


def test_expected_wins_and_sentence_pairs_share_the_expansion():
    items = read_judgments(shared_data() / "GJG15" / "judgments.xml", 0)
    from_wins = Counter(pairwise_wins(items))
    from_pairs = Counter((a, b) for _, a, b in human_pairs(items))
    assert from_wins == from_pairs and sum(from_wins.values()) > 10_000


# -- metric betas: one place -----------------------------------------------------------


def test_resolve_betas_is_the_metrics_own_rule():
    green, gleu = get_metric("green"), get_metric("gleu")
    assert green.resolve_betas(None) == [2.0] == green.resolve_betas([])
    assert green.resolve_betas([1, 0.5]) == [1.0, 0.5]
    assert gleu.resolve_betas([1.0]) == [None]
    with pytest.raises(ConfigError, match="beta must be a finite number"):
        green.resolve_betas([-1.0])


def test_scale_does_not_matter():
    rng = np.random.default_rng(3)
    human = rng.random(12)
    rows = rng.random((4, 12))
    base = corr.pearson_rows(rows, human)
    # power-of-two scales are exact: the same bits, even where the squares would overflow
    assert np.array_equal(corr.pearson_rows(rows * 2.0**600, human * 2.0**-600), base)
    assert corr.pearson_rows(rows * 1e200 + 5e200, human)[0] == pytest.approx(base[0], abs=1e-12)


def test_average_ranks_equal_scipys_rankdata():
    """Spearman's ranks are computed without scipy.stats (a costly import): the same
    arrays as rankdata(x, axis=-1) on ties, infinities, NaN rows, 1-D and 2-D input."""
    from scipy.stats import rankdata

    from gecmetrics.stats.correlation import _average_ranks

    rng = np.random.default_rng(0)
    for case in range(2000):
        shape = (int(rng.integers(1, 5)), int(rng.integers(1, 12))) if case % 2 else \
            (int(rng.integers(1, 12)),)
        x = rng.integers(0, 4, size=shape).astype(float) if case % 3 else rng.normal(size=shape)
        if case % 7 == 0:
            x.flat[rng.integers(x.size)] = np.nan
        if case % 11 == 0:
            x.flat[rng.integers(x.size)] = -np.inf
        ours, theirs = _average_ranks(x), rankdata(x, axis=-1)
        assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs, equal_nan=True), x
