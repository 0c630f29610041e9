"""M2 (MaxMatch): published CoNLL-2014 figures, a literal oracle, hand cases, CLI."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from conftest import CONLL_M2, SUBMISSIONS
from m2_oracle import corpus_prf, read_gold
from m2_oracle import sentence_counts as oracle_counts

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.interface.cli import main
from gecmetrics.m2_format import read_m2
from gecmetrics.metrics.m2 import M2, m2_counts
from gecmetrics.metrics.m2_lattice import GoldEdit, build_lattice, sentence_counts
from gecmetrics.published import load
from gecmetrics.readers import read_lines
from gecmetrics.registry import get_metric

GOLD = CONLL_M2
needs_data = pytest.mark.real_data  # skips without the data (conftest)

# Ng et al. 2014, "The CoNLL-2014 Shared Task on Grammatical Error Correction",
# the table of official scores of the 12 teams without alternative answers: P, R, F0.5 (%)
# (data/published/conll2014-overview.json).
CONLL2014_TABLE = {name: (v["precision"], v["recall"], v["f0.5"])
                   for name, v in load("conll2014-overview").values.items()}
# Koyama et al. 2024, GREEN paper (INLG 2024), Table 4, M2 column: F0.5 in percent.
GREEN_TABLE4_M2 = load("green-paper-table4").values["m2"]


@pytest.fixture(scope="module")
def conll():
    m2 = read_m2(GOLD)
    hyps = {name: read_lines(SUBMISSIONS / name) for name in [*CONLL2014_TABLE, "INPUT"]}
    hyps["NULL"] = [""] * len(m2.sentences)
    corpus = Corpus(m2.sources, m2.references(), hyps, m2=m2)
    results = {r.hypothesis: r for r in M2().evaluate(corpus)}
    return corpus, results


def pct(x: float) -> float:
    return round(100 * x + 1e-9, 2)


@pytest.mark.full
@needs_data
def test_conll2014_overview_table(conll):
    _, results = conll
    for name, (p, r, f) in CONLL2014_TABLE.items():
        res = results[name]
        assert (pct(res.precision), pct(res.recall), pct(res.score)) == (p, r, f), name


@pytest.mark.full
@needs_data
def test_green_paper_table4(conll):
    _, results = conll
    for name, f in GREEN_TABLE4_M2.items():
        assert pct(results[name].score) == f, name


@pytest.mark.full  # the fixture scores 14 CoNLL-2014 systems: seconds
@needs_data
def test_input_scores_zero_with_precision_one(conll):
    _, results = conll
    res = results["INPUT"]
    assert res.score == 0.0 and res.precision == 1.0 and res.recall == 0.0


@pytest.mark.full  # the fixture scores 14 CoNLL-2014 systems: seconds
@needs_data
def test_counts_equal_the_literal_oracle_on_real_sentences(conll):
    """Every (sentence, annotator) count of two systems on small lattices, vs the oracle."""
    corpus, _ = conll
    _, golds = read_gold(GOLD)
    counts = M2().statistics(corpus).counts
    names = list(corpus.hypotheses)
    checked = 0
    for name in ("CAMB", "NTHU"):
        h = names.index(name)
        for d, hyp in enumerate(corpus.hypotheses[name]):
            src = corpus.m2.sentences[d].source
            if hyp.split() == src.split() or len(src.split()) > 22:
                continue
            expected = oracle_counts(src, hyp, golds[d])
            for k, a in enumerate(counts.annotators):
                if a in expected:
                    c, p, g = expected[a]
                    got = (counts.tp[h, d, k], counts.fp[h, d, k], counts.fn[h, d, k])
                    assert got == (c, p - c, g - c), (name, d, a)
            checked += 1
            if checked >= 120:
                return
    assert checked > 50


@pytest.mark.full
@needs_data
def test_annotator_choice_follows_running_f_at_several_betas(conll):
    """Corpus scores over the first 150 sentences equal the oracle's at beta 0.5, 1 and 2."""
    corpus, _ = conll
    sources, golds = read_gold(GOLD)
    idx = list(range(150))
    sub = Corpus([corpus.sources[i] for i in idx], [[r[i] for i in idx] for r in
                                                    corpus.references],
                 {"CUUI": [corpus.hypotheses["CUUI"][i] for i in idx]},
                 m2=type(corpus.m2)(corpus.m2.path, corpus.m2.sentences[:150]))
    stats = M2().statistics(sub)
    for beta in (0.5, 1.0, 2.0):
        expected = corpus_prf(sub.hypotheses["CUUI"], sources[:150], golds[:150], beta)
        got = stats.corpus(beta)[0]
        assert (got.precision, got.recall, got.score) == pytest.approx(expected, abs=1e-12)


def random_case(rng: random.Random):
    vocab = ["a", "b", "c", "d"][: rng.randint(2, 4)]
    src = [rng.choice(vocab) for _ in range(rng.randint(0, 7))]
    hyp = [rng.choice(vocab + ["x", "y"]) for _ in range(rng.randint(0, 8))]
    golds = {}
    for a in range(rng.randint(1, 2)):
        gold = []
        for _ in range(rng.randint(0, 3)):
            s = rng.randint(0, len(src))
            e = min(len(src), s + rng.choice([0, 1, 1, 2]))
            if hyp and rng.random() < 0.6:
                j = rng.randint(0, len(hyp))
                corr = " ".join(hyp[j:j + rng.randint(0, 3)])
            else:
                corr = rng.choice(["x", "", "a b"])
            gold.append((s, e, " ".join(src[s:e]), [corr]))
        gold.sort(key=lambda t: (t[0], t[1]))
        golds[a] = gold
    return src, hyp, golds


@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_random_sentences_agree_with_the_oracle():
    """Small random sentences with repeated words and random gold edits.

    Bit-identical float ties are broken differently (see m2_lattice's docstring),
    which happens about once in 3,000 such sentences; none in these 400.
    """
    rng = random.Random(7)
    for _ in range(400):
        src, hyp, golds = random_case(rng)
        mu = rng.choice([0, 1, 2, 3])
        lat = build_lattice(src, hyp, mu)
        fast = {a: sentence_counts(lat, [GoldEdit(s, e, o, tuple(c)) for s, e, o, c in g])
                for a, g in golds.items()}
        assert fast == oracle_counts(" ".join(src), " ".join(hyp), golds, mu), (src, hyp, golds)


def hand_corpus(tmp_path, src, m2_text, hyps):
    path = tmp_path / "gold.m2"
    path.write_text(m2_text, encoding="utf-8")
    m2 = read_m2(path)
    return Corpus(src, m2.references(), hyps, m2=m2)


M2_TEXT = """S He go to school .
A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||1

S This is fine .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S I like the apple .
A 3 4|||R:NOUN:NUM|||apples|||REQUIRED|||-NONE-|||0
A 2 3|||U:DET||||||REQUIRED|||-NONE-|||0
"""
SRC = ["He go to school .", "This is fine .", "I like the apple ."]


def test_hand_corpus_counts_and_sentence_level(tmp_path):
    hyps = {"sys": ["He went to school .", "This is fine .", "I like the apples ."]}
    corpus = hand_corpus(tmp_path, SRC, M2_TEXT, hyps)
    metric = M2()
    stats = metric.statistics(corpus)
    # sentence 1: annotator 1 matches "went"; sentence 3: 1 of 2 gold edits
    score = stats.corpus(0.5)[0]
    assert score.details["TP"] == 2 and score.details["FP"] == 0 and score.details["FN"] == 1
    assert score.precision == 1.0 and score.recall == pytest.approx(2 / 3)
    sent = stats.sentence(0.5)[0]
    # unchanged sentence without gold edits scores 1.0 (P = R = 1)
    assert sent[0] == 1.0 and sent[1] == 1.0
    assert sent[2] == pytest.approx(1.25 * 1 * 0.5 / (0.25 * 1 + 0.5))


def test_unchanged_sentence_with_gold_edits_scores_zero(tmp_path):
    corpus = hand_corpus(tmp_path, SRC, M2_TEXT, {"src": SRC})
    stats = M2().statistics(corpus)
    assert list(stats.sentence(0.5)[0]) == [0.0, 1.0, 0.0]
    assert stats.corpus(0.5)[0].score == 0.0


def test_merged_edit_and_alternatives(tmp_path):
    text = "S a b c d\nA 1 3|||R:OTHER|||x y||z|||REQUIRED|||-NONE-|||0\n"
    corpus = hand_corpus(tmp_path, ["a b c d"], text, {"one": ["a z d"], "two": ["a x y d"],
                                                       "bad": ["a q r d"]})
    res = {r.hypothesis: r for r in M2().evaluate(corpus)}
    assert res["one"].score == 1.0 and res["two"].score == 1.0
    # one merged (non-gold) edit "b c -> q r": P 0, R 0
    assert res["bad"].precision == 0.0 and res["bad"].recall == 0.0


def test_ignore_whitespace_casing(tmp_path):
    text = "S The cat sat .\nA 0 1|||R:ORTH|||the|||REQUIRED|||-NONE-|||0\n"
    corpus = hand_corpus(tmp_path, ["The cat sat ."], text, {"s": ["the cat sat ."]})
    assert M2().evaluate(corpus)[0].score == 1.0
    ignored = M2(ignore_whitespace_casing=True).evaluate(corpus)[0]
    assert ignored.precision == 1.0 and ignored.recall == 0.0  # the edit is dropped


def test_max_unchanged_words_changes_merging(tmp_path):
    text = "S a b c d e\nA 0 5|||R:OTHER|||x b c d y|||REQUIRED|||-NONE-|||0\n"
    corpus = hand_corpus(tmp_path, ["a b c d e"], text, {"s": ["x b c d y"]})
    assert M2(max_unchanged_words=3).evaluate(corpus)[0].score == 1.0
    strict = M2(max_unchanged_words=2).evaluate(corpus)[0]  # 3 unchanged words: two edits
    assert strict.precision == 0.0


def test_options_and_errors(tmp_path):
    assert get_metric("m2", beta="1", max_unchanged_words="3").spec == (
        "m2:beta=1.0,max_unchanged_words=3")
    with pytest.raises(ConfigError):
        M2(max_unchanged_words=-1)
    corpus = Corpus.build(["a b"], ["a c"], ["a c"])
    with pytest.raises(InputError, match="--m2"):
        M2().evaluate(corpus)
    bad = hand_corpus(tmp_path, ["He goes to school ."], "S He go to school .\n", {"s": ["x"]})
    with pytest.raises(InputError, match="source line 1"):
        m2_counts(bad)


def test_beta_sweep_reuses_lattice_counts(tmp_path):
    hyps = {"sys": ["He goes to school .", "This is fine .", "I like apples ."]}
    corpus = hand_corpus(tmp_path, SRC, M2_TEXT, hyps)
    metric = M2()
    res = metric.evaluate(corpus, betas=[0.5, 1.0])
    assert [r.beta for r in res] == [0.5, 1.0]
    assert metric.statistics(corpus) is metric.statistics(corpus)


@pytest.mark.full
@needs_data
def test_cli_score_with_m2_json(tmp_path):
    src = tmp_path / "src.txt"
    src.write_text("".join(s + "\n" for s in read_m2(GOLD).sources), encoding="utf-8")
    result = CliRunner().invoke(main, [
        "score", "-m", "m2", "-m", "green", "-s", str(src), "--m2", str(GOLD),
        "-c", str(SUBMISSIONS / "AMU"), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    m2_row = next(r for r in rows if r["metric"] == "M2")
    assert m2_row["beta"] == 0.5 and pct(m2_row["score"]) == 35.01
    assert {r["metric"] for r in rows} == {"M2", "wordGREEN"}


def test_cli_m2_metric_without_m2_file_fails_cleanly(tmp_path):
    for name, text in (("s.txt", "a b\n"), ("r.txt", "a c\n"), ("h.txt", "a c\n")):
        (tmp_path / name).write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["score", "-m", "m2", "-s", str(tmp_path / "s.txt"),
                                       "-r", str(tmp_path / "r.txt"),
                                       "-c", str(tmp_path / "h.txt")])
    assert result.exit_code == 2
    assert "--m2" in result.output
