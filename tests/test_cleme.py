"""CLEME and CLEME2.0: a hand-worked case, and CoNLL-2014 against THUKElab/CLEME.

The reference numbers in tests/data/cleme_reference.json were produced by the
authors' implementation (GitHub THUKElab/CLEME, commit e90abea) on ERRANT M2
files of the CoNLL-2014 references (``errant_m2 -gold``) and of the 13
outputs (``errant_parallel``); the commands and versions are in the JSON's
``meta`` and in docs/metrics/cleme.md.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import CONLL_M2, SUBMISSIONS, TEAMS

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.metrics.cleme import (
    FN,
    FP,
    FP_NE,
    FP_UN,
    TN,
    TP,
    heuo,
    partition,
    rebuild,
    reference_counts,
)
from gecmetrics.registry import get_metric

REFERENCE = Path(__file__).parent / "data" / "cleme_reference.json"

# -- hand-worked case ------------------------------------------------------
# source  He go to school .
# hyp     He goes to school .          edit (1, 2, goes)
# ref A   He went to school .          edit (1, 2, went)
# ref B   He goes to the school .      edits (1, 2, goes), (3, 3, the)
# Merged spans [1, 2] and [3, 3]; chunks [0,1] [1,2] [2,3] [3,3] [3,5].
SRC = "He go to school .".split()
HYP = [(1, 2, "goes", "R:VERB:SVA")]
REF_A = [(1, 2, "went", "R:VERB:TENSE")]
REF_B = [(1, 2, "goes", "R:VERB:SVA"), (3, 3, "the", "M:DET")]


def _rows():
    return partition(SRC, [rebuild(SRC, HYP), rebuild(SRC, REF_A), rebuild(SRC, REF_B)])


def test_partition_by_hand():
    chunks, rows = _rows()
    assert chunks == [(0, 1), (1, 2), (2, 3), (3, 3), (3, 5)]
    assert rows[0] == [(False, ("He",)), (True, ("goes",)), (False, ("to",)), (False, ()),
                       (False, ("school", "."))]
    assert rows[1][1] == (True, ("went",)) and rows[1][3] == (False, ())
    assert rows[2][1] == (True, ("goes",)) and rows[2][3] == (True, ("the",))


def test_counts_by_hand():
    chunks, rows = _rows()
    dep = reference_counts(SRC, rows, chunks, "dependent", None)
    # vs A: the hypothesis changed chunk 1 differently from A (which changed it): FP, fp_ne.
    assert dep[0] == [0, 1, 0, 4, 1, 0]
    # vs B: chunk 1 equal (TP), chunk 3 missed (FN).
    assert dep[1] == [1, 0, 1, 3, 0, 0]
    ind = reference_counts(SRC, rows, chunks, "independent", None)
    # goes is among the references' chunk 1 (TP); chunk 3 is changed by B only, not by all (TN).
    assert ind == [[1, 0, 0, 4, 0, 0]] * 2
    # Length weights with bias 1 (every changed reference chunk has length 1):
    # TP length 1: 2 / (1 + e^0) = 1; FN length 0: 2 / (1 + e^1) = 0.538 -> clipped to 0.75.
    w = reference_counts(SRC, rows, chunks, "dependent", 1.0)
    assert w[1][TP] == 1.0 and w[1][FN] == 0.75 and w[0][FP] == 1.0


def test_heuo_by_hand():
    # vs B unweighted: N = 1 + 0 + 1; hit 0.5, wrong 0, under 0.5, over 0 / 1.
    c = [1, 0, 1, 3, 0, 0]
    hit, err, und, ove, com = heuo(c, (0.45, 0.35, 0.15, 0.05))
    assert (hit, err, und, ove) == (0.5, 0.0, 0.5, 0.0)
    assert com == pytest.approx(0.45 * 0.5 + 0.35 + 0.15 * 0.5 + 0.05, abs=1e-15)
    assert heuo([0, 1, 0, 4, 1, 0], (0.45, 0.35, 0.15, 0.05))[4] == pytest.approx(0.2, abs=1e-15)


@pytest.mark.full
@pytest.mark.errant  # skips without the errant extra (conftest)
def test_scores_by_hand_through_errant():
    corpus = Corpus([" ".join(SRC)], [["He went to school ."], ["He goes to the school ."]],
                    {"hyp": ["He goes to school ."]})
    dep = get_metric("cleme", weighting="none").evaluate(corpus)[0]
    # B chosen: P = 1, R = 1/2, F0.5 = 1.25 * 0.5 / (0.25 + 0.5).
    assert dep.score == pytest.approx(0.625 / 0.75, abs=1e-15)
    # Length weights: bias 1, R = 1 / 1.75, F0.5 = 20/23.
    assert get_metric("cleme").evaluate(corpus)[0].score == pytest.approx(20 / 23, abs=1e-15)
    ind = get_metric("cleme", variant="independent", weighting="none").evaluate(corpus)[0]
    assert ind.score == 1.0
    two = get_metric("cleme2").evaluate(corpus)[0]
    assert two.score == pytest.approx(0.7, abs=1e-15)
    assert two.details["hit"] == 0.5 and two.details["under"] == 0.5
    sent = get_metric("cleme", weighting="none").evaluate(corpus, level="sentence")[0]
    assert sent.scores == [pytest.approx(0.625 / 0.75, abs=1e-15)]


@pytest.mark.errant
@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_options_are_checked():
    with pytest.raises(ConfigError, match="variant must be dependent or independent"):
        get_metric("cleme", variant="both")
    with pytest.raises(ConfigError, match="weighting must be length or none"):
        get_metric("cleme2", weighting="bert")
    with pytest.raises(ConfigError, match="must sum to 1"):
        get_metric("cleme2", hit=0.5)
    assert get_metric("cleme2", hit=0.5, wrong=0.3).config.over == 0.05


def test_import_and_list_do_not_import_spacy_or_errant():
    code = ("import sys, gecmetrics.metrics.cleme;"
            "from gecmetrics.registry import list_metrics; d = list_metrics();"
            "assert 'unavailable' not in d['cleme'] + d['cleme2'];"
            "assert 'spacy' not in sys.modules and 'errant' not in sys.modules, 'imported'")
    run = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                         cwd="/")
    assert run.returncode == 0, run.stderr


@pytest.mark.errant
def test_references_m2_needs_m2():
    corpus = Corpus(["a b ."], [["a b ."]], {"x": ["a b ."]})
    with pytest.raises(InputError, match="references=m2 needs gold edits"):
        get_metric("cleme", references="m2").statistics(corpus)


# -- CoNLL-2014 against the authors' implementation -----------------------------


@pytest.fixture(scope="module")
def conll_corpus(shared_data):
    from gecmetrics.m2_format import read_m2
    from gecmetrics.readers import read_lines

    m2 = read_m2(CONLL_M2)
    hyps = {t: read_lines(SUBMISSIONS / t, "hypothesis") for t in ["INPUT", *TEAMS]}
    return Corpus(list(m2.sources), m2.references(), hyps, m2=m2)


@pytest.fixture(scope="module")
def reference():
    return json.loads(REFERENCE.read_text())["systems"]


def _row_sums(stats, h):
    c = stats.chunks.counts[h][stats.chunks.present]
    return c.sum(axis=0), (c ** 2).sum(axis=0), c.shape[0]


@pytest.mark.full
@pytest.mark.errant
@pytest.mark.real_data
@pytest.mark.parametrize("variant", ["dependent", "independent"])
@pytest.mark.parametrize("weighting", ["length", "none"])
def test_conll14_equals_thukelab(conll_corpus, reference, variant, weighting):
    tag = "weighted" if weighting == "length" else "unweighted"
    cleme = get_metric("cleme", variant=variant, weighting=weighting)
    stats = cleme.statistics(conll_corpus)
    corpus = stats.corpus(None)
    sentence = stats.sentence(None)
    stats2 = get_metric("cleme2", variant=variant, weighting=weighting).statistics(conll_corpus)
    corpus2 = stats2.corpus(None)
    mean2 = stats2.mean(None)
    assert set(stats.systems) == set(reference)
    for h, name in enumerate(stats.systems):
        ref = reference[name][variant]
        # Every (sentence, reference) count: sums and sums of squares to 1e-9.
        s, sq, n = _row_sums(stats, h)
        assert n == ref[f"pairs_{tag}"], name
        np.testing.assert_allclose(s, ref[f"sum_{tag}"], rtol=0, atol=1e-9)
        np.testing.assert_allclose(sq, ref[f"sumsq_{tag}"], rtol=0, atol=1e-9)
        assert stats.chunks.bias[h] == pytest.approx(ref["bias"], abs=1e-12)
        # Corpus level: the summed counts of the chosen references, to 1e-12.
        pc = ref[f"prf_corpus_{tag}"]
        d = corpus[h].details
        for key in ("tp", "fp", "fn", "tn"):
            assert d[key] == pytest.approx(pc[key], abs=1e-9), (name, key)
        # and P, R, F to the reference's printed (4-decimal) digits.
        assert round(corpus[h].precision, 4) == pc["p"], name
        assert round(corpus[h].recall, 4) == pc["r"], name
        assert round(corpus[h].score, 4) == pc["f"], name
        # Sentence level: the reference averages each sentence's F rounded to
        # 4 decimals; ours rounded the same way gives its mean exactly.
        ps = ref[f"prf_sentence_{tag}"]
        assert float(np.mean(np.round(sentence[h], 4))) == pytest.approx(ps["f"], abs=1e-12)
        assert abs(stats.mean(None)[h] - ps["f"]) < 5e-5
        # CLEME2.0: corpus and sentence level, unrounded in the reference too.
        hc, hs = ref[f"heuo_corpus_{tag}"], ref[f"heuo_sentence_{tag}"]
        assert corpus2[h].score == pytest.approx(hc["com"], abs=1e-12), name
        assert corpus2[h].details["hit"] == pytest.approx(hc["hit"], abs=1e-12)
        assert corpus2[h].details["wrong"] == pytest.approx(hc["err"], abs=1e-12)
        assert corpus2[h].details["under"] == pytest.approx(hc["und"], abs=1e-12)
        assert corpus2[h].details["over"] == pytest.approx(hc["ove"], abs=1e-12)
        assert corpus2[h].details["fp_un"] == pytest.approx(hc["fp_un"], abs=1e-9)
        assert mean2[h] == pytest.approx(hs["com"], abs=1e-12), name


@pytest.mark.full
@pytest.mark.errant
@pytest.mark.real_data
def test_conll14_amu_sentences_equal_thukelab(conll_corpus, reference):
    stats = get_metric("cleme").statistics(conll_corpus)
    h = stats.systems.index("AMU")
    expected = reference["AMU"]["dependent"]["sentences_weighted"]
    assert len(expected) == conll_corpus.num_sentences
    for d, rows in enumerate(expected):
        assert stats.chunks.present[d].sum() == len(rows), d
        got = stats.chunks.counts[h, d, :len(rows)][:, [TP, FP, FN, TN, FP_NE, FP_UN]]
        np.testing.assert_allclose(got, rows, rtol=0, atol=1e-12, err_msg=f"sentence {d}")
    assert not any(math.isnan(x) for x in stats.sentence(None)[h])


@pytest.mark.full
@pytest.mark.errant
@pytest.mark.real_data
def test_all_sentences_in_order_is_the_corpus_score(conll_corpus):
    stats = get_metric("cleme").statistics(conll_corpus)
    everything = np.arange(conll_corpus.num_sentences)
    assert [s.score for s in stats.corpus(None, everything)] == [
        s.score for s in stats.corpus(None)]


@pytest.mark.full
@pytest.mark.errant
@pytest.mark.real_data
@pytest.mark.parametrize("name", ["cleme", "cleme2"])
def test_sentence_statistics_sum_to_the_corpus_score(conll_corpus, name):
    # Paired tests swap sentences' chosen counts between systems; the formula on
    # the unswapped sums must give back the corpus scores.
    stats = get_metric(name).statistics(conll_corpus)
    counts, formula = stats.sentence_statistics(None)
    assert counts.shape == (len(stats.systems), conll_corpus.num_sentences, 6)
    np.testing.assert_allclose(formula(counts.sum(axis=1)), stats.corpus_scores(None),
                               rtol=0, atol=1e-12)
