"""Window analysis and cross-validated beta*: hand cases and scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from gecmetrics.meta_eval.analyses.window import rank_by_human, window_correlations
from gecmetrics.meta_eval.cv_folds import best_beta, cv_beta, make_folds
from gecmetrics.meta_eval.plot import plot_windows

# -- window analysis ------------------------------------------------------------------

HUMAN = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0, "E": 3.5}
METRIC = {"A": 1.0, "B": 2.0, "C": 4.0, "D": 3.0, "E": 5.0}


def test_windows_by_hand():
    # ranked by human: A (4), E (3.5), B (3), C (2), D (1)
    assert rank_by_human(HUMAN) == ["A", "E", "B", "C", "D"]
    rows = window_correlations(METRIC, HUMAN, window=3)
    assert [r.window_start for r in rows] == [1, 2, 3]
    assert [r.systems_in_window for r in rows] == [["A", "E", "B"], ["E", "B", "C"],
                                                   ["B", "C", "D"]]
    # window 3: B, C, D: human (3, 2, 1), metric (2, 4, 3)
    # centred human (1, 0, -1), metric (-1, 1, 0): r = (-1 + 0 + 0) / (sqrt(2) sqrt(2)) = -0.5
    # ranks: human (3, 2, 1), metric (1, 3, 2): d = (2, -1, -1), rho = 1 - 6*6/(3*8) = -0.5
    assert rows[2].pearson == pytest.approx(-0.5)
    assert rows[2].spearman == pytest.approx(-0.5)
    for row in rows:
        h = [HUMAN[s] for s in row.systems_in_window]
        m = [METRIC[s] for s in row.systems_in_window]
        assert row.pearson == pytest.approx(stats.pearsonr(m, h)[0])
        assert row.spearman == pytest.approx(stats.spearmanr(m, h)[0])


def test_window_uses_the_human_system_set_and_reports_constant_windows_as_null():
    metric = dict(METRIC, A=2.0, E=2.0, B=2.0, Z=9.0)  # Z is not in the system set
    rows = window_correlations(metric, HUMAN, window=3)
    assert math.isnan(rows[0].pearson) and rows[0].to_json()["pearson"] is None
    assert all("Z" not in r.systems_in_window for r in rows)
    assert len(window_correlations(METRIC, HUMAN, window=5)) == 1
    with pytest.raises(ValueError, match="only 5 systems"):
        window_correlations(METRIC, HUMAN, window=6)
    with pytest.raises(ValueError, match="no metric score"):
        window_correlations({"A": 1.0}, HUMAN, window=2)


def test_plot_windows(tmp_path):
    rows = {"m1": window_correlations(METRIC, HUMAN, 3)}
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        from gecmetrics.errors import ConfigError

        with pytest.raises(ConfigError, match="pip install gecmetrics\\[plot\\]"):
            plot_windows(rows, str(tmp_path / "w.png"))
        return
    plot_windows(rows, str(tmp_path / "w.png"))
    assert (tmp_path / "w.png").read_bytes()[:4] == b"\x89PNG"


# -- cross-validated beta* ------------------------------------------------------------

H = np.array([1.0, 2.0, 3.0, 4.0])
# orthogonal to the centred human scores, so r(H - c V, H) falls as c grows
V = np.array([1.0, -1.0, -1.0, 1.0])


def make_score(preferred):
    """Systems' scores whose correlation peaks at beta = mean preferred beta of the
    sentences used: score = H - |beta - mean(preferred[idx])| * V."""
    preferred = np.asarray(preferred, dtype=float)
    return lambda beta, idx: H - abs(beta - preferred[idx].mean()) * V


def test_cv_beta_by_hand():
    # preferred betas of 4 sentences: 0.5, 0.5, 0.5, 2.0; 4 folds of one sentence each.
    # leaving out a 0.5: training mean (0.5 + 0.5 + 2) / 3 = 1.0 -> grid optimum 1.0 (x3)
    # leaving out the 2.0: training mean 0.5 -> optimum 0.5
    # beta* = (1 + 1 + 1 + 0.5) / 4 = 0.875 = the mean over all sentences, where r = 1
    res = cv_beta(make_score([0.5, 0.5, 0.5, 2.0]), H, [0.5, 1.0, 2.0], 4, k=4, seed=0)
    assert sorted(res.beta_star_folds) == [0.5, 1.0, 1.0, 1.0]
    assert res.beta_star == pytest.approx(0.875)
    assert res.beta_star_std == pytest.approx(np.std([0.5, 1, 1, 1]))  # 0.2165
    assert res.pearson == pytest.approx(1.0) and res.spearman == pytest.approx(1.0)
    assert res.kendall == pytest.approx(1.0)
    # held out: a 0.5 sentence at beta 1.0 (c = 0.5); the 2.0 sentence at 0.5 (c = 1.5)
    r_half = stats.pearsonr(H - 0.5 * V, H)[0]
    r_one_half = stats.pearsonr(H - 1.5 * V, H)[0]
    assert sorted(res.held_out) == pytest.approx(sorted([r_half] * 3 + [r_one_half]))
    assert res.to_json()["beta_star_folds"] == res.beta_star_folds


def test_best_beta_picks_the_first_maximum_and_skips_undefined():
    score = make_score([1.0, 1.0])
    assert best_beta(score, H, [0.5, 1.0, 1.5], np.arange(2))[0] == 1.0
    assert best_beta(score, H, [0.5, 1.5], np.arange(2))[0] == 0.5  # tie: first
    constant = lambda beta, idx: np.ones(4) if beta < 1 else H  # noqa: E731
    assert best_beta(constant, H, [0.5, 2.0], np.arange(2)) == (2.0, pytest.approx(1.0))
    with pytest.raises(ValueError, match="undefined for every beta"):
        best_beta(lambda b, i: np.ones(4), H, [1.0], np.arange(2))


def test_folds():
    folds = make_folds(10, 3, seed=4)
    assert sorted(np.concatenate(folds).tolist()) == list(range(10))
    assert [len(f) for f in folds] == [4, 3, 3]
    assert [f.tolist() for f in make_folds(5, 2, seed=None)] == [[0, 1, 2], [3, 4]]
    assert all((a == b).all() for a, b in zip(folds, make_folds(10, 3, seed=4), strict=True))
    with pytest.raises(ValueError):
        make_folds(3, 4)
    with pytest.raises(ValueError):
        make_folds(3, 1)
