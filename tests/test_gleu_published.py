"""Published GLEU figures on CoNLL-2014, reproduced to the printed digit.

Sources, REF0/REF1 and INPUT come from the CoNLL-2014 M2 file; sampling uses
the official seed. Each expected number is copied from the publication cited
above it.
"""

from __future__ import annotations

import pytest
from gleu_chrf_data import conll14

from gecmetrics.corpus import Corpus
from gecmetrics.formatting import percent
from gecmetrics.metrics.gleu import Gleu


def corpus_of(names, null=False) -> Corpus:
    sources, refs, outputs = conll14()
    hyps = {name: (refs[0] if name == "REF0" else outputs[name]) for name in names}
    if null:
        hyps["NULL"] = [""] * len(sources)  # the all-empty output of GREEN's Table 4
    return Corpus(sources, refs, hyps)


def shown(results, digits):
    return {r.hypothesis: percent(r.score, digits) for r in results}


README = ("AMU", "CAMB", "INPUT", "REF0")


def test_readme_corpus_sampling_official_seed():
    # GLEU README (shotakoyama/gleu): `gleu corpus -s INPUT -r REF0 REF1
    # -o AMU CAMB INPUT REF0 -d 4 -f`, equal to the original GLEU+ output.
    got = shown(Gleu().evaluate(corpus_of(README)), 4)
    assert got == {"AMU": "58.3256", "CAMB": "59.2553", "INPUT": "56.6048", "REF0": "81.8462"}


def test_readme_corpus_max_mode():
    # GLEU README (shotakoyama/gleu): `gleu corpus ... -m`
    got = shown(Gleu(mode="max").evaluate(corpus_of(README)), 2)
    assert got == {"AMU": "68.81", "CAMB": "68.55", "INPUT": "68.34", "REF0": "100.00"}


def test_readme_max_mode_breakdown():
    # GLEU README (shotakoyama/gleu): `gleu corpus ... -o AMU CAMB -mv`, numer/denom per n.
    results = Gleu(mode="max").evaluate(corpus_of(("AMU", "CAMB")))
    counts = {r.hypothesis: [(o["numerator"], o["denominator"]) for o in r.details["orders"]]
              for r in results}
    assert counts["AMU"] == [(26538, 30362), (21521, 29050), (17600, 27739), (14423, 26428)]
    assert counts["CAMB"] == [(26154, 29859), (21156, 28547), (17327, 27236), (14227, 25925)]
    assert percent(results[1].details["bp"], 2) == "99.36"


def test_readme_mean_level():
    # GLEU README (shotakoyama/gleu): `gleu mean ...` and `gleu mean ... -m`
    corpus = corpus_of(README)
    assert shown(Gleu().evaluate(corpus, "mean"), 2) == {
        "AMU": "54.12", "CAMB": "54.33", "INPUT": "50.67", "REF0": "79.63"}
    assert shown(Gleu(mode="max").evaluate(corpus, "mean"), 2) == {
        "AMU": "66.70", "CAMB": "65.55", "INPUT": "64.53", "REF0": "100.00"}


@pytest.mark.parametrize("mode, rows", [
    # GLEU README (shotakoyama/gleu): `gleu sent ...` (first 10 lines), columns AMU CAMB INPUT REF0
    ("sampling", ["100.00 100.00 100.00 100.00", "100.00 0.00 100.00 100.00",
                  "53.34 0.00 53.34 100.00", "0.00 67.53 0.00 100.00",
                  "84.92 56.30 100.00 100.00", "100.00 80.96 100.00 100.00",
                  "100.00 0.00 100.00 100.00", "92.93 92.93 92.93 92.93",
                  "86.35 72.42 86.35 100.00", "26.93 0.00 0.00 69.62"]),
    # GLEU README (shotakoyama/gleu): `gleu sent ... -m` (first 9 lines)
    ("max", ["100.00 100.00 100.00 100.00", "100.00 0.00 100.00 100.00",
             "53.34 0.00 53.34 100.00", "0.00 67.53 0.00 100.00",
             "84.92 56.30 100.00 100.00", "100.00 80.96 100.00 100.00",
             "100.00 0.00 100.00 100.00", "100.00 100.00 100.00 100.00",
             "86.35 72.42 86.35 100.00"]),
])
def test_readme_sentence_level(mode, rows):
    results = Gleu(mode=mode).evaluate(corpus_of(README), "sentence")
    got = [" ".join(percent(r.scores[i], 2) for r in results) for i in range(len(rows))]
    assert got == rows


def test_green_paper_table4_word_gleu_paper_variant():
    # Koyama et al. 2024 (GREEN, INLG), Table 4: wordGLEU AMU 58.08, INPUT 56.34,
    # IPN 55.08, NULL 0.00 (the paper formula, their equations 9/10).
    results = Gleu(variant="paper").evaluate(corpus_of(("AMU", "INPUT", "IPN"), null=True))
    assert shown(results, 2) == {"AMU": "58.08", "INPUT": "56.34", "IPN": "55.08",
                                 "NULL": "0.00"}


def test_green_paper_table4_char_gleu_paper_variant():
    # Koyama et al. 2024 (GREEN, INLG), Table 4: charGLEU (N = 6) AMU 81.68,
    # INPUT 81.75, IPN 81.06, NULL 0.00.
    results = Gleu(variant="paper", tokenize="char", n=6).evaluate(
        corpus_of(("AMU", "INPUT", "IPN"), null=True))
    assert shown(results, 2) == {"AMU": "81.68", "INPUT": "81.75", "IPN": "81.06",
                                 "NULL": "0.00"}


def test_the_two_published_tables_disagree_because_of_the_penalty():
    # The official code's AMU (GLEU README, 58.3256) and the paper formula's AMU
    # (Koyama et al. 2024, Table 4, 58.08) differ on the same data and draws.
    corpus = corpus_of(("AMU",))
    official = Gleu().evaluate(corpus)[0].score
    paper = Gleu(variant="paper").evaluate(corpus)[0].score
    assert (percent(official, 4), percent(paper, 2)) == ("58.3256", "58.08")
