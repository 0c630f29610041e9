"""GLEU: hand-calculated cases, the paper-vs-code difference, edge rules, oracle properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gleu_oracle import corpus_gleu, official_draws, sentence_gleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiers import examples

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.metrics.gleu import Gleu, numerators, official_rounds
from gecmetrics.ngrams import compute_intersections
from gecmetrics.registry import get_metric, metric_from_spec


def corpus_score(src, refs, hyp, **options) -> float:
    (result,) = Gleu(**options).score(src, refs, {"h": hyp})
    return result.score


# -- the README's worked case (sigma, rho, eta) = (2, 1, 3) -------------------------------

def unigram_numerators(sigma: int, rho: int, eta: int) -> tuple[int, int]:
    """(official, paper) numerator of one sentence made of a single repeated word."""
    x = compute_intersections([" ".join(["a"] * sigma)], [[" ".join(["a"] * rho)]],
                              {"h": [" ".join(["a"] * eta)]}, "word", 1)
    return int(numerators(x, "official")[0, 0, 0, 0]), int(numerators(x, "paper")[0, 0, 0, 0])


def test_worked_case_penalties_are_0_and_1():
    # By hand: match = min(rho, eta) = 1. Official penalty min(sigma_diff, eta) = 0 since
    # rho > 0; paper penalty max(0, min(sigma, eta) - min(rho, eta)) = 2 - 1 = 1.
    assert unigram_numerators(2, 1, 3) == (1 - 0, 1 - 1)


def test_worked_case_scores_of_the_two_variants():
    src, refs, hyp = ["a a"], [["a"]], ["a a a"]
    # p_1 = 1/3 (official) or 0/3 (paper); BP = 1 since r = 1 < h = 3.
    assert corpus_score(src, refs, hyp, n=1) == pytest.approx(1 / 3, abs=1e-15)
    assert corpus_score(src, refs, hyp, n=1, variant="paper") == 0.0


@pytest.mark.parametrize("sigma", range(4))
@pytest.mark.parametrize("rho", range(4))
@pytest.mark.parametrize("eta", range(4))
def test_variants_differ_exactly_when_rho_is_between_0_and_min_sigma_eta(sigma, rho, eta):
    official, paper = unigram_numerators(sigma, rho, eta)
    assert (official != paper) == (0 < rho < min(sigma, eta))
    if official != paper:  # then the paper penalty is min(sigma, eta) - rho, official's 0
        assert official - paper == min(min(sigma, eta) - rho, min(rho, eta))


# -- edge rules of the official code ------------------------------------------------------

def test_empty_hypothesis_against_non_empty_reference_is_zero():
    assert corpus_score(["a b"], [["a b"]], [""]) == 0.0
    assert corpus_score(["a b"], [["a b"]], [""], variant="paper", mode="max") == 0.0


def test_empty_hypothesis_and_reference_score_one():
    # Every denominator is 0 (p = 1) and both lengths are 0 (BP = 1).
    assert corpus_score(["a b"], [[""]], [""]) == 1.0


def test_zero_denominator_gives_p_one():
    # Orders 3 and 4 have no hypothesis n-grams: p_3 = p_4 = 1; p_1 = p_2 = 1.
    assert corpus_score(["a b"], [["a b"]], ["a b"]) == 1.0


def test_brevity_penalty_by_hand():
    # r = 4, h = 2: BP = exp(1 - 4/2); p_1 = 2/2, p_2 = 1/1.
    value = corpus_score(["a b c d"], [["a b c d"]], ["a b"], n=2)
    assert value == pytest.approx(math.exp(-1.0), rel=1e-15)


def test_numerator_is_clipped_per_sentence():
    # Official: source "b" absent from the reference is kept twice: match 1 ("a"),
    # penalty 2 -> numerator max(0, -1) = 0 for sentence 1; sentence 2 is perfect.
    src, refs, hyp = ["a b b", "c"], [["a d", "c"]], ["a b b", "c"]
    # p_1 = (0 + 1) / (3 + 1); BP: r = 3 < h = 4 -> 1.
    assert corpus_score(src, refs, hyp, n=1) == pytest.approx(1 / 4, rel=1e-15)


# -- references: sampling and max ---------------------------------------------------------

def test_official_draws_are_python2_randint():
    draws = official_rounds(3, 5, 2)
    assert draws.tolist() == official_draws(3, 5, 2)


def test_one_reference_sampling_equals_max():
    src, refs, hyp = ["a b c", "d e"], [["a b d", "d e"]], ["a b c", "d f"]
    assert corpus_score(src, refs, hyp) == pytest.approx(corpus_score(src, refs, hyp, mode="max"),
                                                         rel=1e-15)


def test_integer_seed_is_reproducible_and_differs_from_official():
    src = [f"w{i} x y" for i in range(40)]
    refs = [[f"w{i} x z" for i in range(40)], [f"v{i} x y" for i in range(40)]]
    hyp = [f"w{i} x z" for i in range(40)]
    a = corpus_score(src, refs, hyp, n=1, seed=7, iterations=20)
    assert a == corpus_score(src, refs, hyp, n=1, seed=7, iterations=20)
    assert 0 < a < 1
    assert a != corpus_score(src, refs, hyp, n=1, iterations=20)


def test_max_mode_prefers_the_better_reference():
    src, refs, hyp = ["a b c"], [["x y z"], ["a b c"]], ["a b c"]
    assert corpus_score(src, refs, hyp, mode="max") == 1.0
    # sampling: sentence level is the mean over the two references
    (res,) = Gleu().score(src, refs, {"h": hyp}, level="sentence")
    assert res.scores == [pytest.approx(0.5, abs=1e-15)]


# -- options, registry, beta ---------------------------------------------------------------

def test_spec_options_and_display_names():
    m = metric_from_spec("gleu:tokenize=char,n=6,variant=paper,mode=max,seed=3,iterations=9")
    assert m.display_name == "charGLEU"
    assert (m.config.n, m.config.variant, m.config.mode, m.config.seed) == (6, "paper", "max", 3)
    assert get_metric("gleu").display_name == "wordGLEU"
    assert get_metric("gleu").config.seed == "official"


@pytest.mark.parametrize("spec", ["gleu:variant=bleu", "gleu:mode=min", "gleu:n=0",
                                  "gleu:iterations=0", "gleu:seed=-1", "gleu:seed=abc",
                                  "gleu:tokenize=bpe"])
def test_bad_options_are_config_errors(spec):
    with pytest.raises(ConfigError):
        metric_from_spec(spec)


def test_beta_does_not_affect_gleu():
    corpus = Corpus.build(["a b c"], [["a b d"]], {"h": ["a b d"]})
    plain = Gleu().evaluate(corpus)
    with_betas = Gleu().evaluate(corpus, betas=[0.5, 3.0])
    assert [r.to_json() for r in plain] == [r.to_json() for r in with_betas]
    assert plain[0].beta is None


# -- the fast path equals the slow oracle ---------------------------------------------------

WORDS = st.sampled_from(["a", "b", "c", "d"])
SENT = st.lists(WORDS, min_size=0, max_size=7).map(" ".join)


@st.composite
def corpora(draw):
    d = draw(st.integers(1, 5))
    k = draw(st.integers(1, 3))
    src = draw(st.lists(SENT, min_size=d, max_size=d))
    refs = [draw(st.lists(SENT, min_size=d, max_size=d)) for _ in range(k)]
    # hypotheses often close to the source or a reference, as in GEC
    hyps = []
    for _ in range(draw(st.integers(1, 2))):
        hyps.append([draw(st.sampled_from([src[i], refs[0][i], draw(SENT)])) for i in range(d)])
    return src, refs, hyps


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=corpora(), n=st.integers(1, 4), tokenize=st.sampled_from(["word", "char"]),
       variant=st.sampled_from(["official", "paper"]), mode=st.sampled_from(["sampling", "max"]))
def test_fast_equals_oracle(data, n, tokenize, variant, mode):
    src, refs, hyps = data
    iterations = 6
    metric = Gleu(n=n, tokenize=tokenize, variant=variant, mode=mode, iterations=iterations)
    corpus = Corpus.build(src, refs, hyps)
    draws = official_draws(iterations, len(src), len(refs))
    for result, hyp in zip(metric.evaluate(corpus), hyps, strict=True):
        expected = corpus_gleu(src, refs, hyp, n, tokenize, variant, mode, draws)
        assert result.score == pytest.approx(expected, rel=1e-12, abs=1e-14)
    sentence = metric.evaluate(corpus, "sentence")
    mean = metric.evaluate(corpus, "mean")
    for s_res, m_res, hyp in zip(sentence, mean, hyps, strict=True):
        expected = sentence_gleu(src, refs, hyp, n, tokenize, variant, mode)
        assert s_res.scores == pytest.approx(expected, rel=1e-12, abs=1e-14)
        assert m_res.score == pytest.approx(float(np.mean(expected)), rel=1e-12, abs=1e-14)


@settings(max_examples=examples(30), deadline=None)
@given(data=corpora())
def test_resampled_corpus_equals_corpus_of_the_resample(data):
    src, refs, hyps = data
    idx = np.array([0] + list(range(len(src))))  # a resample with a repeat
    for mode in ("sampling", "max"):
        stats = Gleu(mode=mode, iterations=5, seed=1).statistics(Corpus.build(src, refs, hyps))
        sub = stats.corpus_scores(None, idx)
        if mode == "max":  # the same choices on the resampled corpus itself
            direct = Gleu(mode=mode).score([src[i] for i in idx], [[r[i] for i in idx]
                                           for r in refs], [[h[i] for i in idx] for h in hyps])
            assert sub == pytest.approx([r.score for r in direct], rel=1e-12, abs=1e-14)
        assert np.all((sub >= 0) & (sub <= 1))
