"""Correlations against hand formulas and scipy; vectorised sweep curves against scalar ones."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from gecmetrics.errors import InputError
from gecmetrics.stats.correlation import (
    correlate,
    correlation_curves,
    kendall_rows,
    pearson_rows,
)


def test_hand_computed_example():
    x = [1.0, 2.0, 3.0, 4.0]
    y = [1.0, 3.0, 2.0, 4.0]
    c = correlate(x, y)
    # Pearson: deviations (-1.5,-.5,.5,1.5) both; sum of products 2.25+(-0.25)+... = 4,
    # sum of squares 5 each -> r = 4/5.
    assert c.pearson == pytest.approx(0.8)
    # Spearman on ranks = Pearson here (ranks equal values) = 0.8; also 1 - 6*2/(4*15).
    assert c.spearman == pytest.approx(1 - 6 * 2 / (4 * 15))
    # Kendall: 6 pairs, one discordant (2,3) -> (5 - 1) / 6.
    assert c.kendall == pytest.approx(4 / 6)
    assert c.n == 4


def test_constant_scores_give_nan():
    c = correlate([1.0, 1.0, 1.0], [1.0, 2.0, 3.0])
    assert math.isnan(c.pearson) and math.isnan(c.spearman)


def test_input_checks():
    with pytest.raises(InputError):
        correlate([1.0, 2.0], [1.0, 2.0])
    with pytest.raises(InputError):
        correlate([1.0, 2.0, 3.0], [1.0, 2.0])


def test_vectorised_curves_match_scipy():
    rng = np.random.default_rng(0)
    human = rng.random(13)
    metric = rng.random((40, 13))
    metric[3] = np.round(metric[3], 1)  # ties
    metric[5] = 0.5  # constant row
    curves = correlation_curves(metric, human)
    taus = kendall_rows(metric, human)
    for row, r, rho, tau in zip(metric, curves["pearson"], curves["spearman"], taus,
                                strict=True):
        if np.all(row == row[0]):
            assert math.isnan(r) and math.isnan(rho) and math.isnan(tau)
            continue
        assert r == pytest.approx(stats.pearsonr(row, human)[0], abs=1e-12)
        assert rho == pytest.approx(stats.spearmanr(row, human)[0], abs=1e-12)
        assert tau == pytest.approx(stats.kendalltau(row, human)[0], abs=1e-12)


def test_kendall_tau_b_with_ties_in_both():
    x = np.array([[1.0, 1.0, 2.0, 3.0]])
    y = [1.0, 2.0, 2.0, 3.0]
    # pairs: (0,1) x tie; (0,2) +; (0,3) +; (1,2) y tie; (1,3) +; (2,3) + -> 4 concordant.
    # n0 = 6, ties in x: 1, in y: 1 -> tau_b = 4 / sqrt(5 * 5).
    assert kendall_rows(x, y)[0] == pytest.approx(0.8)
    assert pearson_rows(x, np.array(y))[0] == pytest.approx(stats.pearsonr(x[0], y)[0])
