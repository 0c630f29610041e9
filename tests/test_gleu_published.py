"""Published GLEU figures on CoNLL-2014, reproduced to the printed digit.

Sources, REF0/REF1 and INPUT come from the CoNLL-2014 M2 file; sampling uses
the official seed. The expected numbers are read from data/published/ (each file
cites its source).
"""

from __future__ import annotations

import pytest
from gleu_chrf_data import conll14

from gecmetrics.corpus import Corpus
from gecmetrics.formatting import percent
from gecmetrics.metrics.gleu import Gleu
from gecmetrics.published import load


def corpus_of(names, null=False) -> Corpus:
    sources, refs, outputs = conll14()
    hyps = {name: (refs[0] if name == "REF0" else outputs[name]) for name in names}
    if null:
        hyps["NULL"] = [""] * len(sources)  # the all-empty output of GREEN's Table 4
    return Corpus(sources, refs, hyps)


def shown(results, digits):
    return {r.hypothesis: percent(r.score, digits) for r in results}


# GLEU README (shotakoyama/gleu), data/published/gleu-readme.json: each entry has the
# `gleu` command that printed it and the output as printed.
GLEU_README = load("gleu-readme").values
# Koyama et al. 2024 (GREEN, INLG), Table 4, data/published/green-paper-table4.json.
TABLE4 = load("green-paper-table4").values
README = ("AMU", "CAMB", "INPUT", "REF0")


def digits(printed: dict[str, str]) -> int:
    """Decimal places of the printed figures (all equal)."""
    (places,) = {len(v.partition(".")[2]) for v in printed.values()}
    return places


def test_readme_corpus_sampling_official_seed():
    # `gleu corpus -s INPUT -r REF0 REF1 -o AMU CAMB INPUT REF0 -d 4 -f`, equal to
    # the original GLEU+ output.
    expected = GLEU_README["corpus"]["scores"]
    assert digits(expected) == 4
    assert shown(Gleu().evaluate(corpus_of(README)), 4) == expected


def test_readme_corpus_max_mode():
    # `gleu corpus ... -m`
    expected = GLEU_README["corpus_max"]["scores"]
    assert shown(Gleu(mode="max").evaluate(corpus_of(README)), digits(expected)) == expected


def test_readme_max_mode_breakdown():
    # `gleu corpus ... -o AMU CAMB -mv`, numer/denom per n.
    printed = GLEU_README["corpus_max_verbose"]
    results = Gleu(mode="max").evaluate(corpus_of(("AMU", "CAMB")))
    counts = {r.hypothesis: [[o["numerator"], o["denominator"]] for o in r.details["orders"]]
              for r in results}
    assert counts == printed["numerator_denominator"]
    assert results[1].hypothesis == "CAMB"
    assert percent(results[1].details["bp"], 2) == printed["bp"]["CAMB"]


def test_readme_mean_level():
    # `gleu mean ...` and `gleu mean ... -m`
    corpus = corpus_of(README)
    sampling, best = GLEU_README["mean"]["scores"], GLEU_README["mean_max"]["scores"]
    assert shown(Gleu().evaluate(corpus, "mean"), digits(sampling)) == sampling
    assert shown(Gleu(mode="max").evaluate(corpus, "mean"), digits(best)) == best


@pytest.mark.parametrize("mode, key", [("sampling", "sentence"), ("max", "sentence_max")])
def test_readme_sentence_level(mode, key):
    # `gleu sent ...` (first 10 lines) and `gleu sent ... -m` (first 9 lines)
    printed = GLEU_README[key]
    assert tuple(printed["columns"]) == README
    rows = printed["rows"]
    results = Gleu(mode=mode).evaluate(corpus_of(README), "sentence")
    got = [" ".join(percent(r.scores[i], 2) for r in results) for i in range(len(rows))]
    assert got == rows


@pytest.mark.parametrize("spec, options", [
    ("gleu:variant=paper", {"variant": "paper"}),
    ("gleu:variant=paper,tokenize=char,n=6", {"variant": "paper", "tokenize": "char", "n": 6}),
])
def test_green_paper_table4_gleu_paper_variant(spec, options):
    # Table 4: wordGLEU and charGLEU (N = 6) with the paper formula (their equations 9/10)
    # for AMU, INPUT, IPN and NULL.
    expected = {name: f"{value:.2f}" for name, value in TABLE4[spec].items()}
    assert set(expected) == {"AMU", "INPUT", "IPN", "NULL"}
    results = Gleu(**options).evaluate(corpus_of(("AMU", "INPUT", "IPN"), null=True))
    assert shown(results, 2) == expected


def test_the_two_published_tables_disagree_because_of_the_penalty():
    # The official code's AMU (GLEU README) and the paper formula's AMU (GREEN
    # paper, Table 4) differ on the same data and draws.
    corpus = corpus_of(("AMU",))
    official = Gleu().evaluate(corpus)[0].score
    paper = Gleu(variant="paper").evaluate(corpus)[0].score
    readme_amu = GLEU_README["corpus"]["scores"]["AMU"]
    assert readme_amu != f"{TABLE4['gleu:variant=paper']['AMU']:.2f}"
    assert (percent(official, 4), percent(paper, 2)) == (
        readme_amu, f"{TABLE4['gleu:variant=paper']['AMU']:.2f}")
