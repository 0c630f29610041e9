"""GREEN: hand-worked cases, the slow oracle, property tests and kernel agreement."""

from __future__ import annotations

import math

import green_oracle as oracle
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tiers import examples

from gecmetrics import get_metric
from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.ngrams import _intersect_compiled, compute_intersections


def corpus_result(src, refs, hyp, **options):
    metric = get_metric("green", **options)
    return metric.score(src, refs, {"h": hyp})[0]


def test_readme_multiset_example():
    # "a a b" with N = 2 is the multiset {a, a, b, a a, a b} (GREEN README).
    x = compute_intersections(["a a b"], [["a a b"]], {"h": ["a a"]}, "word", 2)
    assert x.src_len.tolist() == [[3, 2]]  # 3 unigrams, 2 bigrams
    assert x.sc.tolist() == [[[2, 1]]]  # {a, a} and {a a} are shared with "a a"


def test_every_region_non_empty_by_hand():
    # S, R, C chosen so each unigram lands in one region: d TD (plus one extra k),
    # i TI, k TK, o OD, x OI, u UD, y UI.
    src, ref, hyp = "k k d o u", "k o i y", "k u i x"
    res = corpus_result([src], [ref], [hyp], n=1, beta=2.0)
    row = res.details["per_n"][0]
    assert {k: row[k] for k in oracle.REGION_NAMES} == {
        "TD": 2, "TI": 1, "TK": 1, "OD": 1, "OI": 1, "UD": 1, "UI": 1}
    assert (row["TP"], row["FP"], row["FN"]) == (4, 2, 2)
    assert res.precision == pytest.approx(2 / 3) and res.recall == pytest.approx(2 / 3)
    assert res.score == pytest.approx(2 / 3)  # P = R, so F_beta = P for every beta
    # bigrams share nothing: TP = TD = 4, FP = OI = 3, FN = UI = 3; P = R = sqrt(2/3 * 4/7)
    res2 = corpus_result([src], [ref], [hyp], n=2)
    assert res2.score == pytest.approx(math.sqrt(8 / 21), abs=1e-15)


def test_edge_rules():
    # Hypothesis = source = reference: nothing to change, all kept: P = R = 1.
    assert corpus_result(["a b"], ["a b"], ["a b"], n=2).score == 1.0
    # Empty everything: P = 1 (nothing predicted), R = 0 (nothing expected), F = 0.
    res = corpus_result([""], [""], [""])
    assert (res.precision, res.recall, res.score) == (1.0, 0.0, 0.0)
    # A sentence shorter than n has no 4-grams: recall 0 at n = 4 makes the gmean 0.
    assert corpus_result(["a b"], ["a c"], ["a c"]).score == 0.0
    assert corpus_result(["a b"], ["a c"], ["a c"], n=2).score == 1.0


def test_beta_zero_is_precision_and_large_beta_tends_to_recall():
    src, refs, hyp = ["a b c d"], [["a x c d"]], ["a x c e"]
    m = get_metric("green", n=2)
    r0 = m.score(src, refs, [hyp], betas=[0.0])[0]
    assert r0.score == pytest.approx(r0.precision)
    r_big = m.score(src, refs, [hyp], betas=[1e6])[0]
    assert r_big.score == pytest.approx(r_big.recall, rel=1e-9)


@pytest.mark.parametrize("bad", [{"n": 0}, {"n": "x"}, {"tokenize": "bpe"}, {"beta": -1},
                                 {"beta": "nan"}, {"bogus": 1}])
def test_invalid_options(bad):
    with pytest.raises(ConfigError):
        get_metric("green", **bad)


def test_display_names_and_spec():
    assert get_metric("green").display_name == "wordGREEN"
    m = get_metric("green", tokenize="char", n="6")
    assert m.display_name == "charGREEN" and m.spec == "green:tokenize=char,n=6"
    assert "version:" in m.signature()


# -- property tests against the oracle ----------------------------------------

WORDS = st.sampled_from(["a", "b", "c", "the", "cat", "."])
SENT = st.lists(WORDS, min_size=0, max_size=9).map(" ".join)
CHARS = st.text(alphabet="ab c", min_size=0, max_size=12)


@st.composite
def corpora(draw, sentence):
    size = draw(st.integers(1, 4))
    k = draw(st.integers(1, 3))
    src = [draw(sentence) for _ in range(size)]
    refs = [[draw(sentence) for _ in range(size)] for _ in range(k)]
    hyp = [draw(sentence) for _ in range(size)]
    return src, refs, hyp


def check_against_oracle(src, refs, hyp, tokenize, n, beta):
    assume(not oracle.has_ambiguous_tie(src, refs, hyp, n, tokenize, beta))
    metric = get_metric("green", tokenize=tokenize, n=n)
    corpus = Corpus(src, refs, {"h": hyp})
    got = metric.evaluate(corpus, "corpus", [beta])[0]
    p, r, f = oracle.corpus_green(src, refs, hyp, n, tokenize, beta)
    assert got.score == pytest.approx(f, abs=1e-12)
    assert got.precision == pytest.approx(p, abs=1e-12)
    assert got.recall == pytest.approx(r, abs=1e-12)
    sent = metric.evaluate(corpus, "sentence", [beta])[0].scores
    expected = oracle.sentence_green(src, refs, hyp, n, tokenize, beta)
    assert np.allclose(sent, expected, rtol=0, atol=1e-12)
    mean = metric.evaluate(corpus, "mean", [beta])[0].score
    assert mean == pytest.approx(sum(expected) / len(expected), abs=1e-12)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(SENT), st.integers(1, 4), st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.7]))
@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_word_green_equals_oracle(data, n, beta):
    check_against_oracle(*data, "word", n, beta)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(CHARS), st.integers(1, 6), st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.7]))
def test_char_green_equals_oracle(data, n, beta):
    check_against_oracle(*data, "char", n, beta)


@pytest.mark.skipif(_intersect_compiled is None, reason="compiled kernel not built here")
@settings(max_examples=examples(100), deadline=None)
@given(corpora(SENT), st.integers(1, 5), st.sampled_from(["word", "char"]))
def test_compiled_and_python_kernels_agree(data, n, tokenize):
    src, refs, hyp = data
    hyps = {"h": hyp, "g": list(reversed(hyp)), "s": src}
    a = compute_intersections(src, refs, hyps, tokenize, n, backend="compiled")
    b = compute_intersections(src, refs, hyps, tokenize, n, backend="python")
    for field in ("src_len", "ref_len", "hyp_len", "sr", "sc", "rc", "src", "sc_off_r"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field


@pytest.mark.parametrize("num_refs", [2, 3])
def test_sweep_reference_choice_matches_per_beta_recomputation(num_refs):
    # The once-for-all-betas choice analysis (crossovers for two references, exact
    # evaluation otherwise) must pick what a fresh per-beta lexicographic
    # comparison picks, and give the same corpus sums, at every beta.
    rng = np.random.default_rng(num_refs)
    words = ["a", "b", "c", "d", "e"]
    src = [" ".join(rng.choice(words, 8)) for _ in range(80)]
    refs = [[" ".join(rng.choice(words, 8)) for _ in range(80)] for _ in range(num_refs)]
    hyps = {f"h{j}": [" ".join(rng.choice(words, 7)) for _ in range(80)] for j in range(3)}
    hyps["src"] = src  # unchanged sentences: many ties at beta = 0
    from gecmetrics.fscore import alpha_of, f_alpha, lexicographic_argmax

    stats = get_metric("green", n=3).statistics(Corpus(src, refs, hyps))
    betas = [0.0, 0.005, *np.round(np.linspace(0.01, 5, 120), 6).tolist(), 17.0]
    stats.precompute(betas)
    h = np.arange(len(hyps))[:, None]
    d = np.arange(80)[None, :]
    for beta in betas:
        f = f_alpha(stats.p_cum, stats.r_cum, alpha_of(beta))  # (H, D, K, N)
        full = lexicographic_argmax(f.reshape(-1, *f.shape[2:])).reshape(f.shape[:2])
        assert np.array_equal(stats.choice(float(beta)), full), beta
        expected = stats.regions[h, d, full].sum(axis=1)
        assert np.array_equal(stats.region_sums(float(beta)), expected), beta


def test_bootstrap_subset_equals_rescoring_the_subset():
    rng = np.random.default_rng(1)
    words = ["a", "b", "c", "d"]
    src = [" ".join(rng.choice(words, 6)) for _ in range(30)]
    refs = [[" ".join(rng.choice(words, 6)) for _ in range(30)] for _ in range(2)]
    hyp = [" ".join(rng.choice(words, 6)) for _ in range(30)]
    metric = get_metric("green", n=3)
    stats = metric.statistics(Corpus(src, refs, {"h": hyp}))
    idx = rng.integers(0, 30, 30)
    sub = Corpus([src[i] for i in idx], [[r[i] for i in idx] for r in refs],
                 {"h": [hyp[i] for i in idx]})
    expected = metric.evaluate(sub, "corpus", [1.5])[0].score
    assert stats.corpus_scores(1.5, idx)[0] == pytest.approx(expected, abs=1e-15)
    assert stats.corpus(1.5, idx)[0].score == pytest.approx(expected, abs=1e-15)


def test_add_rows_sums_what_np_add_at_sums():
    """The beta sweep's exact-choice corrections (_add_rows) against np.add.at, the
    definition: random repeats, empty input, negative counts."""
    from gecmetrics.metrics.green import _add_rows

    rng = np.random.default_rng(7)
    for _ in range(200):
        B, H, W = (int(x) for x in rng.integers(1, 20, size=3))
        M = int(rng.integers(0, 300)) if _ % 10 else 0
        flat = rng.integers(-1000, 1000, size=(B, H, W))
        bi, h = rng.integers(0, B, size=M), rng.integers(0, H, size=M)
        values = rng.integers(-50, 50, size=(M, W))
        expected = flat.copy()
        np.add.at(expected, (bi, h), values)
        got = _add_rows(flat.copy(), bi * H + h, values)
        assert got.dtype == expected.dtype and np.array_equal(got, expected)
