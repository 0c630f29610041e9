"""The edit-metric adapter interface: counts, annotator choice rules, external scorers."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

from gecmetrics.corpus import Corpus
from gecmetrics.edits import (
    CommandEditScorer,
    EditCounts,
    EditMetric,
    EditStatistics,
    m2_running_f,
    prf,
)
from gecmetrics.errors import InputError
from gecmetrics.m2 import read_m2


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


M2_TEXT = """S a b
A 1 2|||R:OTHER|||c|||REQUIRED|||-NONE-|||0

S d e
A 0 1|||R:OTHER|||f|||REQUIRED|||-NONE-|||0
A 0 1|||R:OTHER|||g|||REQUIRED|||-NONE-|||1
"""


class FromCommand(EditMetric):
    """A plug-in edit metric: an external command does the counting."""

    name = "from-command"
    description = "test plug-in"

    def __init__(self, command: str) -> None:
        super().__init__()
        self.command = command

    def edit_counts(self, corpus):
        return CommandEditScorer(self.command).counts(corpus)


def test_external_command_scorer(tmp_path):
    gold = tmp_path / "gold.m2"
    gold.write_text(M2_TEXT, encoding="utf-8")
    script = tmp_path / "scorer.py"
    # a toy external scorer: TP 1 when the hypothesis contains the annotator's word
    script.write_text(textwrap.dedent("""
        import sys
        hyps = open(sys.argv[1], encoding="utf-8").read().splitlines()
        wanted = [{0: "c"}, {0: "f", 1: "g"}]
        print("# sentence annotator tp fp fn")
        for d, hyp in enumerate(hyps):
            for a, word in wanted[d].items():
                hit = word in hyp.split()
                print(d, a, int(hit), 0, int(not hit))
    """), encoding="utf-8")
    m2 = read_m2(gold)
    corpus = Corpus(m2.sources, m2.references(), {"s": ["a c", "g e"]}, m2=m2)
    metric = FromCommand(f"{sys.executable} {script} {{hypothesis}}")
    res = metric.evaluate(corpus)[0]
    assert res.score == 1.0 and res.details["TP"] == 2
    stats = metric.statistics(corpus)
    assert stats.counts.present.tolist() == [[True, False], [True, True]]
    assert stats.choice(0.5).tolist() == [[0, 1]]


def test_external_command_errors(tmp_path):
    gold = tmp_path / "gold.m2"
    gold.write_text(M2_TEXT, encoding="utf-8")
    m2 = read_m2(gold)
    corpus = Corpus(m2.sources, m2.references(), {"s": ["a c", "g e"]}, m2=m2)
    with pytest.raises(InputError, match="expected 'SENTENCE ANNOTATOR TP FP FN'"):
        FromCommand(f"{sys.executable} -c \"print('oops')\"").evaluate(corpus)
    with pytest.raises(InputError, match="no counts for sentence 1"):
        FromCommand(f"{sys.executable} -c \"print('0 0 1 0 0')\"").evaluate(corpus)
    with pytest.raises(InputError, match="failed"):
        FromCommand(f"{sys.executable} -c \"import sys; sys.exit(3)\"").evaluate(corpus)
