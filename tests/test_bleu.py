"""BLEU against sacrebleu (installed with the ``test`` extra) to the last digit.

Expected values: sacrebleu's ``BLEU.corpus_score`` / ``BLEU.sentence_score``
(``sentence_bleu``'s defaults: effective order) on the 13 CoNLL-2014 outputs
(2 references from the M2 file) and SEEDA's 15 outputs, live in the full tier
and recorded for the fast one (tests/data/sacrebleu_bleu_reference.json, made by
tests/reference/oracle_outputs.py); a hand calculation for the edge rules; a
Counter oracle for the kernel's clipped matches.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from snapshot import TOLERANCE
from tiers import examples

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.mteval import tokens_13a
from gecmetrics.ngrams import _intersect_compiled, compute_intersections
from gecmetrics.registry import get_metric

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU  # noqa: E402
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a  # noqa: E402

CONFIGS = [
    {},
    {"tokenize": "none"},
    {"smooth_method": "floor"},
    {"smooth_method": "floor", "smooth_value": 0.3},
    {"smooth_method": "add-k"},
    {"smooth_method": "add-k", "smooth_value": 0.5},
    {"smooth_method": "none"},
    {"lowercase": True},
    {"max_ngram_order": 2},
]


def theirs(options: dict, effective: bool = False) -> BLEU:
    return BLEU(force=True, effective_order=effective, **options)


@pytest.fixture(scope="module")
def conll_corpus(conll):
    sources, refs, hyps = conll
    hyps = {name: lines for name, lines in hyps.items() if name != "NULL"}
    return Corpus(sources, refs, hyps)


@pytest.fixture(scope="module")
def seeda_corpus(conll, shared_data):
    from gecmetrics.readers import read_lines

    sources, refs, _ = conll
    folder = Path(shared_data) / "SEEDA" / "outputs" / "all"
    hyps = {p.stem: read_lines(str(p), "hypothesis") for p in sorted(folder.glob("*.txt"))}
    n = len(next(iter(hyps.values())))
    assert len(hyps) == 15
    return Corpus(sources[:n], [r[:n] for r in refs], hyps)


RECORDED = json.loads((Path(__file__).parent / "data" / "sacrebleu_bleu_reference.json")
                      .read_text(encoding="utf-8"))


def options_id(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


@pytest.mark.real_data
@pytest.mark.parametrize("recorded", RECORDED["conll14"]["corpus"],
                         ids=lambda r: options_id(r["options"]))
def test_corpus_bleu_equals_recorded_sacrebleu_conll14(conll_corpus, recorded):
    """All 13 outputs, every option set, against sacrebleu's recorded corpus_score."""
    results = get_metric("bleu", **recorded["options"]).evaluate(conll_corpus)
    assert [r.hypothesis for r in results] == list(recorded["scores"])
    for r in results:
        want = recorded["scores"][r.hypothesis]
        assert r.score == pytest.approx(want["score"] / 100, abs=TOLERANCE), r.hypothesis
        assert (r.details["hyp_length"], r.details["ref_length"]) == (want["sys_len"],
                                                                        want["ref_len"])
        assert r.details["bp"] == pytest.approx(want["bp"], abs=TOLERANCE)


@pytest.mark.real_data
@pytest.mark.parametrize("recorded", RECORDED["conll14"]["sentence"],
                         ids=lambda r: options_id(r["options"]))
@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_sentence_bleu_equals_recorded_sacrebleu_conll14(conll_corpus, recorded):
    """All 13 outputs, every STRIDE-th sentence, against sacrebleu's recorded
    sentence_score."""
    stats = get_metric("bleu", **recorded["options"]).statistics(conll_corpus)
    sent = stats.sentence(None)[:, ::RECORDED["stride"]]
    assert list(stats.systems) == list(recorded["scores"])
    for h, name in enumerate(stats.systems):
        want = np.array(recorded["scores"][name]) / 100
        np.testing.assert_allclose(sent[h], want, rtol=0, atol=TOLERANCE, err_msg=name)


@pytest.mark.full
@pytest.mark.real_data
def test_seeda_equals_recorded_sacrebleu(seeda_corpus):
    """All 15 outputs: corpus BLEU, and sentence BLEU of every STRIDE-th sentence."""
    stats = get_metric("bleu").statistics(seeda_corpus)
    want = RECORDED["seeda"]
    assert list(stats.systems) == list(want["corpus"])
    np.testing.assert_allclose(stats.corpus_scores(None),
                               np.array(list(want["corpus"].values())) / 100,
                               rtol=0, atol=TOLERANCE)
    sent = stats.sentence(None)[:, ::RECORDED["stride"]]
    for h, name in enumerate(stats.systems):
        np.testing.assert_allclose(sent[h], np.array(want["sentence"][name]) / 100, rtol=0,
                                   atol=TOLERANCE, err_msg=name)


@pytest.mark.full
@pytest.mark.real_data
@pytest.mark.parametrize("options", CONFIGS, ids=options_id)
def test_corpus_bleu_equals_sacrebleu_conll14(conll_corpus, options):
    """All 13 outputs with the default options; four of them with the others (time)."""
    refs = [list(r) for r in conll_corpus.references]
    metric = BLEU(force=True, references=refs, **options)  # references counted once
    results = get_metric("bleu", **options).evaluate(conll_corpus)
    assert len(results) == 13
    for r in results:
        if options and r.hypothesis not in ("AMU", "CAMB", "INPUT", "UMC"):
            continue
        expected = metric.corpus_score(list(conll_corpus.hypotheses[r.hypothesis]), None)
        assert r.score == expected.score / 100, r.hypothesis
        assert r.details["hyp_length"] == expected.sys_len
        assert r.details["ref_length"] == expected.ref_len
        assert r.details["bp"] == expected.bp


@pytest.mark.full
@pytest.mark.real_data
@pytest.mark.parametrize("options,systems", [
    ({}, None),  # all 13
    ({"tokenize": "none", "smooth_method": "add-k"}, ["AMU", "INPUT", "UMC"]),
    ({"smooth_method": "floor"}, ["CAMB", "IPN"]),
    ({"effective_order": False}, ["CUUI", "PKU"]),
])
def test_sentence_bleu_equals_sacrebleu_conll14(conll_corpus, options, systems):
    ours = dict(options)
    effective = ours.pop("effective_order", True)
    metric = theirs(ours, effective=effective)
    stats = get_metric("bleu", **options).statistics(conll_corpus)
    sent = stats.sentence(None)
    refs = conll_corpus.references
    for h, name in enumerate(stats.systems):
        if systems is not None and name not in systems:
            continue
        hyp = conll_corpus.hypotheses[name]
        expected = [metric.sentence_score(hyp[i], [r[i] for r in refs]).score / 100
                    for i in range(len(hyp))]
        assert sent[h].tolist() == expected, name
    # mean level is the mean of these
    mean = get_metric("bleu", **options).evaluate(conll_corpus, "mean")
    assert [r.score for r in mean] == pytest.approx(sent.mean(axis=1).tolist(), abs=0)


@pytest.mark.full
@pytest.mark.real_data
def test_seeda_corpus_and_sentence_equal_sacrebleu(seeda_corpus):
    """Corpus BLEU of all 15 outputs; sentence BLEU of five (time)."""
    refs = [list(r) for r in seeda_corpus.references]
    corpus_metric, sentence_metric = theirs({}), theirs({}, effective=True)
    stats = get_metric("bleu").statistics(seeda_corpus)
    corpus_scores = stats.corpus_scores(None)
    sent = stats.sentence(None)
    for h, name in enumerate(stats.systems):
        hyp = list(seeda_corpus.hypotheses[name])
        assert corpus_scores[h] == corpus_metric.corpus_score(hyp, refs).score / 100, name
        if name not in ("GPT-3.5", "INPUT", "REF-F", "T5", "UEDIN-MS"):
            continue
        expected = [sentence_metric.sentence_score(hyp[i], [r[i] for r in refs]).score / 100
                    for i in range(len(hyp))]
        assert sent[h].tolist() == expected, name


@pytest.mark.full
@pytest.mark.real_data
def test_13a_tokens_equal_sacrebleu_on_every_line(conll_corpus, seeda_corpus):
    tok = Tokenizer13a()
    lines = set(conll_corpus.sources)
    for c in (conll_corpus, seeda_corpus):
        lines.update(*c.references, *c.hypotheses.values())
    tricky = ["a &quot;b&quot; &amp; c &lt;d&gt;", "1,000.50 and 3-4 x-y", "end-\nnext <skipped> z",
              "Mr. Smith, (hi) [x] {y} $5 @me #1 a/b c\\d 'q' ~", "  spaces\tand\ttabs  ", ""]
    for line in [*sorted(lines), *tricky]:
        assert tokens_13a(line) == tok(line.rstrip()).split(), line


def test_hand_calculation():
    """hyp 'the cat sat' vs ref 'the cat sat down' (c = 3, r = 4):
    p1 = p2 = p3 = 100%, no 4-gram in the hypothesis (t4 = 0).
    Corpus BLEU: order 4 stays at precision 0, log 0 is sacrebleu's -9999999999,
    so BLEU = 0. Sentence BLEU (effective order 3): BP * 100 = exp(1 - 4/3) * 100."""
    corpus = Corpus(["x"], [["the cat sat down"]], {"h": ["the cat sat"]})
    metric = get_metric("bleu")
    assert metric.evaluate(corpus)[0].score == 0.0
    assert metric.evaluate(corpus, "sentence")[0].scores == [
        pytest.approx(math.exp(1 - 4 / 3), rel=1e-15)]
    # exp smoothing: 'the dog sat' -> p1 = 2/3, p2 = 0 -> 100 / (2 * 2), p3 = 0 -> 100 / (4 * 1)
    corpus = Corpus(["x"], [["the cat sat"]], {"h": ["the dog sat"]})
    expected = math.exp((math.log(200 / 3) + math.log(25.0) + math.log(25.0)) / 3) / 100
    assert metric.evaluate(corpus, "sentence")[0].scores == [pytest.approx(expected, rel=1e-15)]


def test_closest_reference_length_prefers_shorter_on_ties():
    # c = 3; references of 2 and 4 tokens are equally close: r = 2 (no brevity penalty).
    corpus = Corpus(["x"], [["a b"], ["a b c d"]], {"h": ["a b c"]})
    (result,) = get_metric("bleu", max_ngram_order=1).evaluate(corpus)
    assert result.details["ref_length"] == 2 and result.details["bp"] == 1.0


@pytest.mark.parametrize("options,message", [
    ({"smooth_method": "exp", "smooth_value": 0.1}, "applies to smooth_method=floor or add-k"),
    ({"smooth_method": "floor", "smooth_value": -1}, "must be a number > 0"),
    ({"smooth_method": "laplace"}, "smooth_method must be one of"),
    ({"tokenize": "spm"}, "tokenize must be one of: 13a, none, intl, char"),
    ({"max_ngram_order": 0}, "max_ngram_order must be an integer >= 1"),
])
def test_bad_options(options, message):
    with pytest.raises(ConfigError, match=message):
        get_metric("bleu", **options)


WORDS = st.lists(st.sampled_from("a b c d".split()), max_size=9).map(" ".join)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.tuples(WORDS, WORDS, WORDS, WORDS, WORDS), min_size=1, max_size=6),
       st.integers(1, 4))
def test_clipped_matches_against_counter_oracle(rows, n):
    src = [r[0] for r in rows]
    refs = [[r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows]]
    hyps = {"h": [r[4] for r in rows], "s": src}
    backends = ["python"] + (["compiled"] if _intersect_compiled is not None else [])
    for backend in backends:
        x = compute_intersections(src, refs, hyps, "word", n, backend=backend)
        for h, name in enumerate(hyps):
            for d, line in enumerate(hyps[name]):
                for order in range(1, n + 1):
                    def grams(text, k=order):
                        toks = text.split()
                        return Counter(tuple(toks[i:i + k]) for i in range(len(toks) - k + 1))
                    hyp = grams(line)
                    most = Counter()
                    for ref in refs:
                        most |= grams(ref[d])
                    expected = sum(min(c, most[g]) for g, c in hyp.items())
                    assert x.rc_max[h, d, order - 1] == expected


@pytest.mark.real_data
def test_paired_bleu_uses_summed_statistics(conll_corpus):
    from gecmetrics.paired import bootstrap_scores
    from gecmetrics.stats.resampling import bootstrap_system_scores

    stats = get_metric("bleu").statistics(conll_corpus)
    per, formula = stats.sentence_statistics(None)
    assert np.array_equal(formula(per.sum(axis=1)), stats.corpus_scores(None))
    slow = bootstrap_system_scores(lambda idx: stats.corpus_scores(None, idx),
                                   conll_corpus.num_sentences, 100, 5)
    assert np.array_equal(bootstrap_scores(stats, "corpus", None, 100, 5), slow)


@pytest.mark.full
@pytest.mark.real_data
@pytest.mark.parametrize("name", ["conll14", "seeda-s", "seeda-e"])
def test_meta_eval_bleu_correlations(name):
    """``meta-eval -m bleu``: the Pearson r and Spearman rho it prints equal scipy's
    on sacrebleu's corpus BLEU of the benchmark's systems and the human scores."""
    import json
    import subprocess
    import sys

    from meta_data import benchmark, shared_data
    from scipy.stats import pearsonr, spearmanr

    bench = benchmark(name)
    systems = list(bench.system_sets[bench.default_set])
    human = [bench.human[bench.default_human][s] for s in systems]
    refs = [list(r) for r in bench.corpus.references]
    metric = BLEU(force=True, references=refs)
    bleu = [metric.corpus_score(list(bench.corpus.hypotheses[s]), None).score for s in systems]
    script = str(Path(sys.executable).with_name("gecmetrics"))
    proc = subprocess.run([script, "meta-eval", name, "-m", "bleu", "--data-dir",
                           str(shared_data()), "--format", "json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)
    assert row["n_systems"] == len(systems)
    assert row["pearson"] == pytest.approx(pearsonr(bleu, human)[0], abs=1e-12)
    assert row["spearman"] == pytest.approx(spearmanr(bleu, human)[0], abs=1e-12)


# ------------------------------------------------------- 13a word by word (the fast path)

def decoded(texts):
    """encode(texts, '13a') as one list of token ids per text."""
    from gecmetrics.ngrams import encode

    tokens, start = encode(texts, "13a")
    return [tokens[a:b].tolist() for a, b in zip(start[:-1], start[1:], strict=True)]


def same_partition(texts):
    """The fast encoding gives every line the oracle's tokens: same lengths, and
    two tokens share an id exactly when the oracle's tokens are equal."""
    fast = decoded(texts)
    slow = [tokens_13a(text) for text in texts]
    assert [len(x) for x in fast] == [len(x) for x in slow]
    pairs = set(zip((t for x in fast for t in x), (t for x in slow for t in x), strict=True))
    assert len({a for a, _ in pairs}) == len(pairs) == len({b for _, b in pairs})


PIECES = ["a", "b", "1", "2", ".", ",", "-", "'", "&", "&quot;", "&amp;", "&lt;", "&gt;",
          "&amp;lt;", "<skipped>", "<skip", "ped>", " ", "  ", "\t", "\n", "-\n", "\r", "\x0c",
          "(", ")", "$", "/", "{", "~", "[", "`", "@", ":", "é", "٣", "\u3000", "\xa0", "\x85"]
LINES = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(LINES, min_size=0, max_size=6))
def test_13a_word_by_word_equals_whole_line_and_sacrebleu(lines):
    """Fuzzed lines of punctuation, digits, entities, <skipped>, line ends and
    every kind of whitespace: the words of prepare_13a tokenized one by one
    (what encode does) give tokens_13a's tokens, which are sacrebleu's; the
    joined preparation (prepared_words_13a) equals the line-by-line one."""
    from itertools import chain

    from gecmetrics.mteval import prepare_13a, prepared_words_13a, word_tokens_13a

    tok = Tokenizer13a()
    for line in lines:
        whole = tokens_13a(line)
        assert whole == tok(line.rstrip()).split(), repr(line)
        words = prepare_13a(line).split()
        assert list(chain.from_iterable(map(word_tokens_13a, words))) == whole, repr(line)
    assert prepared_words_13a(lines) == [prepare_13a(line).split() for line in lines]
    without_line_ends = [line.replace("\n", " ") for line in lines]
    assert prepared_words_13a(without_line_ends) == [prepare_13a(line).split()
                                                     for line in without_line_ends]
    same_partition(lines)
    same_partition(without_line_ends)


def test_13a_encode_edge_cases():
    same_partition([])
    same_partition([""])
    same_partition(["", "a, b.", "", "&amp;lt; x-\ny", "   "])


@pytest.mark.full
@pytest.mark.real_data
def test_13a_fast_counts_equal_line_by_line_on_all_13_conll14_systems(conll_corpus,
                                                                       monkeypatch):
    """All 13 CoNLL-2014 outputs: the intersections with the word-by-word 13a
    encoding equal those with every line through the whole-line tokenizer (the
    path before the fast one), array by array; so do corpus and sentence BLEU."""
    import dataclasses

    from gecmetrics import ngrams, tokenizers
    from gecmetrics.tokenizers import registry

    c = conll_corpus
    assert len(c.hypotheses) == 13
    fast = ngrams.compute_intersections(c.sources, c.references, c.hypotheses, "13a", 4)
    # the registry's 13a without its word-by-word forms
    monkeypatch.setitem(registry.TABLE, "13a",
                        dataclasses.replace(tokenizers.spec("13a"), word_local=None,
                                            whitespace_words=None))
    slow = ngrams.compute_intersections(c.sources, c.references, c.hypotheses, "13a", 4)
    for field in ("src_len", "ref_len", "hyp_len", "sr", "sc", "rc", "src", "sc_off_r",
                  "rc_max"):
        assert np.array_equal(getattr(fast, field), getattr(slow, field)), field
    corpus = Corpus(c.sources, c.references, c.hypotheses)
    slow_stats = get_metric("bleu").statistics(corpus)
    monkeypatch.undo()
    fast_stats = get_metric("bleu").statistics(Corpus(c.sources, c.references, c.hypotheses))
    assert fast_stats.corpus_scores(None).tolist() == slow_stats.corpus_scores(None).tolist()
    assert np.array_equal(fast_stats.sentence(None), slow_stats.sentence(None))


@pytest.mark.full
@pytest.mark.real_data
def test_corpus_bleu_of_all_13_conll14_systems_equals_sacrebleu_multi_system(conll_corpus):
    """sacrebleu's multi-system use (one BLEU object, references counted once,
    corpus_score per system), all 13 outputs: the same floats, bit for bit."""
    refs = [list(r) for r in conll_corpus.references]
    metric = BLEU(references=refs)
    ours = get_metric("bleu").statistics(conll_corpus).corpus_scores(None).tolist()
    assert ours == [metric.corpus_score(list(conll_corpus.hypotheses[name]), None).score / 100
                    for name in conll_corpus.hypotheses]


def test_identical_hypothesis_scores_as_sacrebleu_above_one():
    """An identical hypothesis: sacrebleu gives 100.00000000000004 (exp of the
    mean of four log(100.0)), so BLEU is 1.0000000000000004, not 1: kept, since
    the scores are sacrebleu's to the last bit (docs/metrics/bleu.md)."""
    line = "the cat sat on the mat ."
    corpus = Corpus([line], [[line]], {"h": [line]})
    ours = get_metric("bleu").evaluate(corpus)[0].score
    sentence = get_metric("bleu").evaluate(corpus, "sentence")[0].scores[0]
    assert ours == BLEU().corpus_score([line], [[line]]).score / 100
    assert sentence == BLEU(effective_order=True).sentence_score(line, [line]).score / 100
    assert ours == sentence > 1
