"""GREEN on the real CoNLL-2014 data: fast path == oracle, and the paper's Table 4.

The oracle (tests/green_oracle.py, plain Python) runs live in the full tier; the fast
tier compares with its recorded outputs (tests/data/green_oracle_reference.json, made
by tests/reference/oracle_outputs.py): P, R, F and the mean at every beta, and the
sentence scores of every tenth sentence.

Systems: the 12 team outputs, INPUT (the M2 file's source; the shipped
official_submissions/INPUT has a trailing space on every line, which changes
char-level scores) and NULL (every sentence empty).
"""

from __future__ import annotations

import json
from pathlib import Path

import green_oracle as oracle
import numpy as np
import pytest

from gecmetrics import get_metric
from gecmetrics.corpus import Corpus
from gecmetrics.published import load

SETTINGS = [("word", 4), ("char", 6)]
BETAS = [0.5, 1.0, 2.0]


@pytest.fixture(scope="module")
def corpus(conll):
    sources, refs, hyps = conll
    return Corpus(sources, refs, hyps)


RECORDED = json.loads((Path(__file__).parent / "data" / "green_oracle_reference.json")
                      .read_text(encoding="utf-8"))


@pytest.mark.parametrize("tokenize,n", SETTINGS)
def test_all_levels_equal_recorded_oracle(corpus, tokenize, n):
    metric = get_metric("green", tokenize=tokenize, n=n)
    corpus_level = metric.evaluate(corpus, "corpus", BETAS)
    sentence_level = metric.evaluate(corpus, "sentence", BETAS)
    mean_level = metric.evaluate(corpus, "mean", BETAS)
    recorded = RECORDED["results"][tokenize]
    assert RECORDED["n"][tokenize] == n and list(recorded) == list(corpus.hypotheses)
    for c, s, m in zip(corpus_level, sentence_level, mean_level, strict=True):
        want = recorded[c.hypothesis][str(c.beta)]
        assert (c.score, c.precision, c.recall) == pytest.approx(
            (want["f"], want["precision"], want["recall"]), abs=1e-12)
        assert np.allclose(s.scores[::RECORDED["stride"]], want["sentence"], rtol=0,
                           atol=1e-12), (c.hypothesis, c.beta)
        assert m.score == pytest.approx(want["mean"], abs=1e-12)


@pytest.mark.full
@pytest.mark.parametrize("tokenize,n", SETTINGS)
def test_all_levels_equal_oracle(corpus, tokenize, n):
    metric = get_metric("green", tokenize=tokenize, n=n)
    corpus_level = metric.evaluate(corpus, "corpus", BETAS)
    sentence_level = metric.evaluate(corpus, "sentence", BETAS)
    mean_level = metric.evaluate(corpus, "mean", BETAS)
    for c, s, m in zip(corpus_level, sentence_level, mean_level, strict=True):
        hyp = corpus.hypotheses[c.hypothesis]
        p, r, f = oracle.corpus_green(corpus.sources, corpus.references, hyp, n, tokenize, c.beta)
        assert (c.score, c.precision, c.recall) == pytest.approx((f, p, r), abs=1e-12)
        expected = oracle.sentence_green(corpus.sources, corpus.references, hyp, n, tokenize,
                                         c.beta)
        assert np.allclose(s.scores, expected, rtol=0, atol=1e-12), (c.hypothesis, c.beta)
        assert m.score == pytest.approx(float(np.mean(expected)), abs=1e-12)


# Koyama et al. (2024), "n-gram F-score for Evaluating Grammatical Error
# Correction", INLG, Table 4 (GREEN beta = 2; word n = 4, char n = 6), in percent
# (data/published/green-paper-table4.json).
_TABLE4 = load("green-paper-table4").values
TABLE4 = {"word": _TABLE4["green"], "char": _TABLE4["green:tokenize=char,n=6"]}


@pytest.mark.parametrize("tokenize,n", SETTINGS)
def test_table4_published_scores_and_order(corpus, tokenize, n):
    from gecmetrics.formatting import percent

    results = get_metric("green", tokenize=tokenize, n=n).evaluate(corpus, "corpus", [2.0])
    score = {r.hypothesis: r.score for r in results}
    assert score["AMU"] > score["INPUT"] > score["IPN"] > score["NULL"]
    for system, published in TABLE4[tokenize].items():
        got = float(percent(score[system]))
        if (tokenize, system) == ("word", "AMU"):
            # We (and the oracle) get 79.25 (0.792458); the paper prints 79.26.
            # Every other figure of the table matches to the digit; see
            # docs/metrics/green.md ("Reproducing the paper").
            assert abs(got - published) <= 0.011
        else:
            assert got == published, system
