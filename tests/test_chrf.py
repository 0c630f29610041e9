"""chrF / chrF++: hand calculations, the oracle, and sacrebleu on small random inputs."""

from __future__ import annotations

import pytest
from chrf_oracle import corpus_chrf, sentence_chrf
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF
from tiers import examples

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.metrics.chrf import Chrf
from gecmetrics.ngrams import chrf_word_tokens
from gecmetrics.registry import metric_from_spec


def test_spec_example_by_hand():
    # chrf-notes: "A cat is running" vs "The cat is running there", 6-grams only:
    # 7 of 8 hypothesis 6-grams match, 7 of 15 reference ones; F1 = 2PR/(P+R).
    (res,) = Chrf(char_order=6, beta=1.0).score(
        ["x"], [["The cat is running there"]], {"h": ["A cat is running"]})
    # Orders 1..6 are averaged, so check order 6's counts, then one order's F by hand.
    six = res.details["orders"][5]
    assert (six["hyp"], six["ref"], six["match"]) == (8, 15, 7)
    (one,) = Chrf(char_order=1, beta=1.0).score(["x"], [["ab"]], {"h": ["abc"]})
    assert one.score == pytest.approx(2 * (2 / 3) * 1 / (2 / 3 + 1), rel=1e-15)


def test_word_tokens_split_one_punctuation_mark():
    assert chrf_word_tokens("Hello, (world) ! x.y. 'ok") == [
        "Hello", ",", "(world", ")", "!", "x.y", ".", "'", "ok"]


def test_empty_hypothesis_and_reference_orders():
    # No hypothesis n-grams: precision undefined, effective order 0 -> 0.
    (res,) = Chrf().score(["s"], [["abc"]], {"h": [""]})
    assert res.score == 0.0
    # Reference shorter than 6 characters: only orders 1-3 count; hypothesis equal -> 1.
    (res,) = Chrf().score(["s"], [["abc"]], {"h": ["a b c"]})
    assert res.score == pytest.approx(1.0, rel=1e-15)


def test_display_names_and_beta():
    assert metric_from_spec("chrf").display_name == "chrF"
    assert metric_from_spec("chrf:word_order=2").display_name == "chrF++"
    corpus = Corpus.build(["a"], [["abcd efg"]], {"h": ["abce fg"]})
    results = Chrf().evaluate(corpus, betas=[1.0, 3.0])
    assert [r.beta for r in results] == [1.0, 3.0]
    assert results[0].score != results[1].score
    assert Chrf().evaluate(corpus)[0].beta == 2.0


@pytest.mark.parametrize("spec", ["chrf:char_order=0", "chrf:word_order=-1", "chrf:beta=-1",
                                  "chrf:lowercase=maybe", "chrf:n=6"])
def test_bad_options(spec):
    with pytest.raises(ConfigError):
        metric_from_spec(spec)


ALPHABET = st.sampled_from(list("abcAB.,( ") + ["  "])
TEXT = st.lists(ALPHABET, max_size=14).map("".join)


@st.composite
def corpora(draw):
    d = draw(st.integers(1, 4))
    k = draw(st.integers(1, 3))
    refs = [draw(st.lists(TEXT, min_size=d, max_size=d)) for _ in range(k)]
    hyps = [draw(st.lists(TEXT, min_size=d, max_size=d)) for _ in range(draw(st.integers(1, 2)))]
    return refs, hyps


OPTIONS = st.fixed_dictionaries({
    "char_order": st.integers(1, 6), "word_order": st.integers(0, 2),
    "whitespace": st.booleans(), "lowercase": st.booleans()})


@settings(max_examples=examples(150), deadline=None)
@given(data=corpora(), options=OPTIONS, beta=st.sampled_from([1, 2, 3]),
       eps=st.booleans())
def test_equals_sacrebleu_on_random_inputs(data, options, beta, eps):
    refs, hyps = data
    metric = Chrf(beta=float(beta), eps_smoothing=eps, **options)
    corpus = Corpus.build([""] * len(refs[0]), refs, hyps)
    reference = CHRF(beta=beta, eps_smoothing=eps, **options)
    for res, hyp in zip(metric.evaluate(corpus), hyps, strict=True):
        assert 100 * res.score == pytest.approx(reference.corpus_score(hyp, refs).score,
                                                abs=1e-9)
    for res, hyp in zip(metric.evaluate(corpus, "sentence"), hyps, strict=True):
        expected = [reference.sentence_score(h, [r[i] for r in refs]).score
                    for i, h in enumerate(hyp)]
        assert [100 * v for v in res.scores] == pytest.approx(expected, abs=1e-9)


@settings(max_examples=examples(100), deadline=None)
@given(data=corpora(), options=OPTIONS, beta=st.sampled_from([0.5, 1.0, 2.0]))
def test_equals_oracle(data, options, beta):
    refs, hyps = data
    metric = Chrf(beta=beta, **options)
    corpus = Corpus.build([""] * len(refs[0]), refs, hyps)
    for res, hyp in zip(metric.evaluate(corpus), hyps, strict=True):
        assert res.score == pytest.approx(corpus_chrf(refs, hyp, beta, **options),
                                          rel=1e-12, abs=1e-15)
    for res, hyp in zip(metric.evaluate(corpus, "sentence"), hyps, strict=True):
        assert res.scores == pytest.approx(sentence_chrf(refs, hyp, beta, **options),
                                           rel=1e-12, abs=1e-15)
