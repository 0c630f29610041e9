"""The edit-metric core: counts, the official annotator choice rules, F arithmetic.

External scorers plugged in through the adapters: tests/test_edit_adapters.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from gecmetrics.edits.statistics import EditCounts, EditStatistics
from gecmetrics.fscore import m2_running_f, prf


def counts(tp, fp, fn, present=None):
    tp, fp, fn = (np.array(x)[None] for x in (tp, fp, fn))
    if present is None:
        present = np.ones(tp.shape[1:], dtype=bool)
    return EditCounts(("sys",), tp, fp, fn, present)


def test_prf_edge_rules():
    assert prf(0, 0, 0, 0.5) == (1.0, 1.0, 1.0)
    assert prf(0, 0, 3, 0.5) == (1.0, 0.0, 0.0)
    assert prf(0, 2, 0, 0.5) == (0.0, 1.0, 0.0)
    assert m2_running_f(0, 0, 0, 0.5) == 1.0
    assert m2_running_f(1, 2, 4, 1.0) == pytest.approx(2 / 6)


def test_m2_rule_uses_running_totals():
    # Sentence 0 fixes the totals at TP 1, FP 0, FN 9. In sentence 1, annotator 0
    # gives (0, 0, 0) and annotator 1 gives (1, 1, 0): alone, annotator 0 scores
    # F = 1 and wins; with the running totals annotator 1 wins (F 0.435 > 0.357).
    st = EditStatistics(counts([[1, 1], [0, 1]], [[0, 0], [0, 1]], [[9, 9], [0, 0]]), "m2")
    assert st.choice(0.5).tolist() == [[0, 1]]
    assert st.choice(0.5, running=False).tolist() == [[0, 0]]
    score = st.corpus(0.5)[0]
    assert (score.details["TP"], score.details["FP"], score.details["FN"]) == (2, 1, 9)
    assert st.sentence(0.5)[0].tolist() == [pytest.approx(prf(1, 0, 9, 0.5)[2]), 1.0]


def test_m2_tie_rule_prefers_more_correct_then_smaller_denominator():
    # Equal F (0.5 = 1.25 * 1 / 2.5 = 1.25 * 2 / 5): more correct edits win
    st = EditStatistics(counts([[1, 2]], [[1, 2]], [[1, 2]]), "m2")
    assert st.choice(0.5).tolist() == [[1]]
    # Equal F and correct: the smaller proposed + beta^2 gold wins
    st = EditStatistics(counts([[0, 0]], [[2, 1]], [[1, 1]]), "m2")
    assert st.choice(0.5).tolist() == [[1]]
    # Complete tie: first annotator
    st = EditStatistics(counts([[0, 0]], [[1, 1]], [[1, 1]]), "m2")
    assert st.choice(0.5).tolist() == [[0]]


def test_numpy_beta_chooses_as_a_python_float():
    # Annotator 0 has nothing proposed, correct or missed: the official comp_f1
    # divides 0 by 0 and scores it 1.0; annotator 1 (1, 0, 0) also scores 1.0 and
    # wins the tie with more correct edits. Computed in numpy scalars, 0/0 would
    # be NaN, every comparison with it False, and annotator 0 would stay.
    st = EditStatistics(counts([[0, 1]], [[0, 0]], [[0, 0]]), "m2")
    assert st.choice(np.float64(0.5)).tolist() == [[1]]
    assert st.choice(0.5).tolist() == [[1]]


def test_errant_tie_rule_fewer_fp_then_fewer_fn():
    st = EditStatistics(counts([[0, 0]], [[2, 1]], [[1, 1]]), "errant")
    assert st.choice(0.5).tolist() == [[1]]
    st = EditStatistics(counts([[0, 0]], [[0, 0]], [[2, 1]]), "errant")
    assert st.choice(0.5).tolist() == [[1]]


def test_absent_annotator_is_never_chosen():
    present = np.array([[False, True]])
    st = EditStatistics(counts([[5, 0]], [[0, 3]], [[0, 3]], present), "m2")
    assert st.choice(0.5).tolist() == [[1]]


def test_resample_is_a_sum_with_the_full_corpus_choice():
    st = EditStatistics(counts([[1, 1], [0, 1]], [[0, 0], [0, 1]], [[9, 9], [0, 0]]), "m2")
    again = st.corpus(0.5, np.array([1, 1, 0]))[0]
    assert (again.details["TP"], again.details["FP"], again.details["FN"]) == (3, 2, 9)
    assert st.corpus_scores(0.5, np.array([1, 1, 0]))[0] == pytest.approx(again.score)


def test_counts_are_checked():
    with pytest.raises(ValueError):
        EditCounts(("a",), np.zeros((1, 2, 1)), np.zeros((1, 2, 1)), np.zeros((1, 2, 2)),
                   np.ones((2, 1), dtype=bool))
    with pytest.raises(ValueError, match="at least one annotator"):
        EditCounts(("a",), *(np.zeros((1, 1, 1)),) * 3, np.zeros((1, 1), dtype=bool))
    with pytest.raises(ValueError, match="one annotator id per column"):
        EditCounts(("a",), *(np.zeros((1, 1, 2)),) * 3, np.ones((1, 2), dtype=bool), (0,))
