"""Edit-level attribution (gecmetrics.workflows.attribution, `gecmetrics attribute`).

Oracles: every subset sentence scored on its own, as a one-sentence corpus
(no batching, no deduplication), and the Shapley value as the mean marginal
contribution over all n! orders (not the subset-weight formula the module
uses); gec-attribute's own values on CoNLL-2014 (tests/gec_attribute_reference.json,
made by tests/reference/gec_attribute_reference.py, whose docstring has the command).
"""

from __future__ import annotations

import json
import math
from itertools import combinations, permutations
from pathlib import Path

import pytest
from click.testing import CliRunner

from gecmetrics import __version__
from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.interface.cli import main
from gecmetrics.registry import metric_from_spec
from gecmetrics.workflows.attribution import (
    AttributionOptions,
    apply_edits,
    attribute,
)

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
REFERENCE = Path(__file__).with_name("gec_attribute_reference.json")

SRC = "he go to school every days and he like it very much"
REFS = [["he goes to school every day and he likes it very much"],
        ["he goes to the school every day , and he likes it a lot"]]
# (start, end, correction, type): five edits, one of them wrong (very -> really).
EDITS = [(1, 2, "goes", "R:VERB:SVA"), (5, 6, "day", "R:NOUN:NUM"), (6, 6, ",", "M:PUNCT"),
         (8, 9, "likes", "R:VERB:SVA"), (10, 11, "really", "R:ADV")]


def corpus_for(edits, refs=REFS):
    hyp = apply_edits(SRC.split(), edits)
    return Corpus([SRC], refs, {"hyp": [hyp]})


def naive_value(metric, subset, edits=EDITS, refs=REFS):
    """v(subset): the subset's sentence and the source each scored as its own corpus."""
    def one(text):
        c = Corpus([SRC], refs, {"x": [text]})
        return float(metric.statistics(c).sentence(None)[0][0])

    return one(apply_edits(SRC.split(), [edits[i] for i in subset])) - one(SRC)


def shapley_by_orders(metric, edits=EDITS):
    n = len(edits)
    v = {s: naive_value(metric, s, edits) for k in range(n + 1)
         for s in combinations(range(n), k)}
    phi = [0.0] * n
    for order in permutations(range(n)):
        for k, i in enumerate(order):
            phi[i] += v[tuple(sorted(order[:k + 1]))] - v[tuple(sorted(order[:k]))]
    return [p / math.factorial(n) for p in phi], v


@pytest.fixture(scope="module")
def green():
    return metric_from_spec("green")


@pytest.fixture(scope="module")
def oracle(green):
    return shapley_by_orders(green)


def values(result):
    return [e.attribution for e in result.sentences[0].edits]


def test_shapley_equals_brute_force(green, oracle):
    phi, v = oracle
    res = attribute(green, corpus_for(EDITS), AttributionOptions("shapley"), {"hyp": [EDITS]})
    assert values(res) == pytest.approx(phi, abs=1e-12)
    full = tuple(range(len(EDITS)))
    assert sum(values(res)) == pytest.approx(v[full], abs=1e-12)  # efficiency
    assert res.sentences[0].delta == pytest.approx(v[full], abs=1e-12)
    # 32 subsets + the source + the hypothesis (= the full subset): 32 distinct rows
    assert res.requested == 34 and res.scored == 32


def test_add_and_remove_equal_their_definitions(green, oracle):
    _, v = oracle
    n = len(EDITS)
    delta = v[tuple(range(n))]
    add = [v[(i,)] for i in range(n)]
    rem = [delta - v[tuple(j for j in range(n) if j != i)] for i in range(n)]
    for method, raw in (("add", add), ("remove", rem)):
        res = attribute(green, corpus_for(EDITS), AttributionOptions(method), {"hyp": [EDITS]})
        want = [r * delta / sum(raw) for r in raw]
        assert values(res) == pytest.approx(want, abs=1e-12), method


def test_sampling_within_its_standard_error(green, oracle):
    phi, _ = oracle
    res = attribute(green, corpus_for(EDITS), AttributionOptions("sampling", samples=60),
                    {"hyp": [EDITS]})
    edits = res.sentences[0].edits
    assert all(e.stderr is not None and e.stderr > 0 for e in edits)
    for e, want in zip(edits, phi, strict=True):
        assert abs(e.attribution - want) <= 4 * e.stderr + 1e-12
    again = attribute(green, corpus_for(EDITS), AttributionOptions("sampling", samples=60),
                      {"hyp": [EDITS]})
    assert values(again) == values(res)  # seeded
    # 3 edits, 3! = 6 <= samples: every order once, the exact value, stderr 0
    three = EDITS[:3]
    exact = attribute(green, corpus_for(three), AttributionOptions("shapley"), {"hyp": [three]})
    every = attribute(green, corpus_for(three), AttributionOptions("sampling", samples=6),
                      {"hyp": [three]})
    assert values(every) == pytest.approx(values(exact), abs=1e-12)
    assert all(e.stderr == 0 for e in every.sentences[0].edits)


def test_fallback_to_sampling_with_a_note(green):
    res = attribute(green, corpus_for(EDITS), AttributionOptions("shapley", exact_max_edits=4),
                    {"hyp": [EDITS]})
    assert res.sentences[0].method == "sampling"
    assert len(res.notes) == 1 and "more than the exact Shapley bound (4)" in res.notes[0]


def test_worked_example_of_the_docs(green):
    """docs/attribution.md's example, recomputed by hand from the three subset scores."""
    edits = [(2, 3, "is", "R:VERB:SVA"), (4, 5, "", "U:NOUN")]
    src = "The cats are nice today"
    refs = [["The cats is nice"]]
    lines = [src, "The cats is nice today", "The cats are nice", "The cats is nice"]
    c = Corpus([src] * 4, [refs[0] * 4], {"x": lines})
    m = [float(x) for x in green.statistics(c).sentence(None)[0]]
    v1, v2, v12 = m[1] - m[0], m[2] - m[0], m[3] - m[0]
    # the numbers docs/attribution.md prints (GREEN, beta 2), in percent
    assert [round(100 * x, 2) for x in (m[0], v1, v2, v12)] == [0.0, 90.8, 40.11, 100.0]
    corpus = Corpus([src], refs, {"h": ["The cats is nice"]})
    shap = values(attribute(green, corpus, AttributionOptions("shapley"), {"h": [edits]}))
    assert shap == pytest.approx([(v1 + v12 - v2) / 2, (v2 + v12 - v1) / 2], abs=1e-12)
    add = values(attribute(green, corpus, AttributionOptions("add"), {"h": [edits]}))
    assert add == pytest.approx([v1 * v12 / (v1 + v2), v2 * v12 / (v1 + v2)], abs=1e-12)
    rem = values(attribute(green, corpus, AttributionOptions("remove"), {"h": [edits]}))
    r1, r2 = v12 - v2, v12 - v1
    assert rem == pytest.approx([r1 * v12 / (r1 + r2), r2 * v12 / (r1 + r2)], abs=1e-12)
    assert [round(100 * x, 2) for x in shap + add + rem] == [
        75.35, 24.65, 69.36, 30.64, 86.69, 13.31]


def test_no_edit_and_zero_sum():
    from gecmetrics.workflows.attribution import normalised

    assert normalised([0.1, -0.1], 0.3) == [0.0, 0.0]
    res = attribute(metric_from_spec("green"), Corpus([SRC], REFS, {"h": [SRC]}),
                    AttributionOptions(), {"h": [[]]})
    assert res.sentences[0].edits == () and res.sentences[0].delta == 0


@pytest.mark.full  # importing errant (the extra's check) takes seconds
@pytest.mark.errant  # gotoscorer is made only with the errant extra
def test_metric_without_own_sentence_scores():
    with pytest.raises(ConfigError, match="cannot attribute gotoscorer"):
        attribute(metric_from_spec("gotoscorer"), corpus_for(EDITS), None, {"hyp": [EDITS]})
    assert metric_from_spec("gotoscorer:weights=none").sentence_scores_problem() is None
    base = ["attribute", "-s", str(EXAMPLE / "source.txt"), "-r", str(EXAMPLE / "ref0.txt")]
    res = CliRunner().invoke(main, [*base, "-m", "gotoscorer", "-c",
                                    str(EXAMPLE / "system_a.txt")])
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert res.output.startswith("error: cannot attribute gotoscorer")


def test_bad_inputs(tmp_path):
    with pytest.raises(ConfigError, match="--samples takes"):
        AttributionOptions("sampling", samples=1)
    with pytest.raises(ConfigError, match="unknown attribution method"):
        AttributionOptions("lime")
    runner = CliRunner()
    base = ["attribute", "-s", str(EXAMPLE / "source.txt"), "-r", str(EXAMPLE / "ref0.txt")]
    res = runner.invoke(main, [*base, "-c", str(EXAMPLE / "system_a.txt"),
                               str(EXAMPLE / "system_b.txt"), "--edits", "x.m2"])
    assert res.exit_code == 2 and "one -c" in res.output
    m2 = tmp_path / "a.m2"
    m2.write_text("S a b\nA 0 1|||R:X|||c|||REQUIRED|||-NONE-|||0\n\n")
    res = runner.invoke(main, [*base, "-c", str(EXAMPLE / "system_a.txt"), "--edits", str(m2)])
    assert res.exit_code == 2 and "has 1 sentences but the source has 3" in res.output


def test_cli_edits_from_m2(tmp_path):
    src = (EXAMPLE / "source.txt").read_text().splitlines()
    hyp = (EXAMPLE / "system_a.txt").read_text().splitlines()
    blocks = []
    for s, h in zip(src, hyp, strict=True):
        a, b = s.split(), h.split()
        lines = [f"S {s}"]
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                lines.append(f"A {i} {i + 1}|||R:OTHER|||{y}|||REQUIRED|||-NONE-|||0")
        blocks.append("\n".join(lines))
    m2 = tmp_path / "hyp.m2"
    m2.write_text("\n\n".join(blocks) + "\n\n")
    res = CliRunner().invoke(main, [
        "attribute", "-s", str(EXAMPLE / "source.txt"), "-r", str(EXAMPLE / "ref0.txt"),
        "-c", str(EXAMPLE / "system_a.txt"), "--edits", str(m2), "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line.rstrip(",")) for line in res.stdout.splitlines()[1:-1]]
    sents = [r for r in rows if "edits" in r]
    types = [r for r in rows if "type" in r]
    assert [(t["type"], t["count"]) for t in types] == [("R:OTHER", 3)]
    assert [len(r["edits"]) for r in sents] == [2, 1, 0]
    assert all(e["type"] == "R:OTHER" for r in sents for e in r["edits"])
    for r in sents:
        assert sum(e["attribution"] for e in r["edits"]) == pytest.approx(r["delta"])
    assert all(r["signature"].endswith(f"|edits:m2|version:{__version__}") for r in rows)


def test_digits_with_json_refused_as_score_does():
    base = ["-s", str(EXAMPLE / "source.txt"), "-r", str(EXAMPLE / "ref0.txt"),
            "-c", str(EXAMPLE / "system_a.txt")]
    runner = CliRunner()
    refused = [runner.invoke(main, [command, *base, "-d", "3", "--format", "json"])
               for command in ("attribute", "score")]
    assert [r.exit_code for r in refused] == [2, 2]
    assert refused[0].output == refused[1].output
    assert refused[0].output.startswith("error: -d/--digits") and \
        len(refused[0].output.strip().splitlines()) == 1
    res = runner.invoke(main, ["attribute", *base, "--extractor", "neutral", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert '"signature": "green|' in res.stdout and "|edits:neutral" in res.stdout


# -- gec-attribute's own values on CoNLL-2014 --------------------------------------------


@pytest.mark.full
@pytest.mark.real_data
@pytest.mark.errant
def test_equals_gec_attribute(conll):
    """Same ERRANT edits, same source and sentence scores, Shapley / add / sub to 1e-9;
    our sampled values (64 seeded orders) within 4 standard errors of its exact values,
    and equal to its sampled values where it takes every order (at most 4 edits)."""
    reference = json.loads(REFERENCE.read_text())
    sources, refs, hyps = conll
    rows = reference["rows"]
    corpus = Corpus([sources[r["line"]] for r in rows], [[ref[r["line"]] for r in rows]
                                                         for ref in refs],
                    {"h": [hyps[r["team"]][r["line"]] for r in rows]})
    green = metric_from_spec("green")
    for ours, theirs in (("shapley", "shapley"), ("add", "add"), ("remove", "sub"),
                         ("sampling", "shapleysampling")):
        res = attribute(green, corpus, AttributionOptions(ours))
        for s, row in zip(res.sentences, rows, strict=True):
            assert [[e.start, e.end, e.correction, e.type] for e in s.edits] == row["edits"]
            assert s.source_score == pytest.approx(row["src_score"], abs=1e-12)
            assert s.delta == pytest.approx(row["sent_score"], abs=1e-12)
            got = [e.attribution for e in s.edits]
            if ours != "sampling" or len(got) <= 4:
                assert got == pytest.approx(row[theirs], abs=1e-9), (ours, row["line"])
            else:
                for e, want in zip(s.edits, row["shapley"], strict=True):
                    assert e.stderr is not None
                    assert abs(e.attribution - want) <= 4 * e.stderr + 1e-12


# -- SEEDA's edit judgments and the AUC -----------------------------------------------


def test_roc_auc_equals_pair_counting():
    import numpy as np

    from gecmetrics.stats.pairwise_accuracy import roc_auc

    rng = np.random.default_rng(3)
    scores = rng.integers(0, 5, 40).astype(float)  # many ties
    labels = rng.random(40) < 0.4
    pos, neg = scores[labels], scores[~labels]
    want = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))
    assert roc_auc(scores, labels) == pytest.approx(want, abs=1e-12)
    with pytest.raises(ValueError):
        roc_auc([1.0, 2.0], [True, True])


@pytest.mark.parametrize("line, hyp, edits, labels", [
    ("a [b→c|True] d [→e|False]", "a c d e", [(1, 2, "c", ""), (3, 3, "e", "")], [True, False]),
    ("[x→x y] |True, z", "x y , z", [(0, 1, "x y", "")], [True]),      # label after the bracket
    ("[→|True,] a", ", a", [(0, 0, ",", "")], [True]),                  # correction after it
    ("[it→the|Truey] go", "they go", [(0, 1, "they", "")], [True]),     # label inside a word
    ("[b→c]|False d", "c d", [(0, 1, "c", "")], [False]),
    ("[b→c] d [e→|False|True]", "c d", [(0, 1, "c", ""), (2, 3, "", "")], [None, None]),
])
def test_seeda_markup(line, hyp, edits, labels):
    from gecmetrics.meta_eval.edit_judgments import parse_correction

    parsed = parse_correction(line)
    assert parsed is not None
    src, got_hyp, got_edits, got_labels = parsed
    assert " ".join(got_hyp) == hyp and got_edits == edits and got_labels == labels
    assert apply_edits(src, got_edits) == hyp
    assert parse_correction("a [b→c|True d [e→f|True]") is None  # an unclosed bracket


@pytest.mark.full
@pytest.mark.real_data
def test_seeda_edit_judgments_read(shared_data):
    from gecmetrics.meta_eval.edit_judgments import read_edit_judgments

    j = read_edit_judgments(shared_data)
    assert len(j.corrections) > 2000 and j.unreadable < 0.03 * len(j.corrections)
    for c in j.corrections:
        assert apply_edits(c.source.split(), c.edits) == c.hypothesis
    labels = [x for c in j.corrections for x in c.labels]
    assert labels.count(True) > labels.count(False) > 0


def test_too_many_subset_sentences_is_one_line(monkeypatch):
    import gecmetrics.workflows.attribution as attribution

    monkeypatch.setattr(attribution, "MAX_CANDIDATES", 30)
    with pytest.raises(attribution.InputError, match="would build 34 subset sentences"):
        attribute(metric_from_spec("green"), corpus_for(EDITS), None, {"hyp": [EDITS]})
    assert attribution.candidates_needed(12, AttributionOptions("shapley")) == 12 * 64
    assert attribution.candidates_needed(3, AttributionOptions("sampling")) == 3 * 6


def test_one_scorer_for_several_methods(green):
    from gecmetrics.workflows.attribution import CandidateScorer

    corpus = corpus_for(EDITS)
    scorer = CandidateScorer(green, corpus)
    attribute(green, corpus, AttributionOptions("shapley"), {"hyp": [EDITS]}, scorer)
    passes, scored = scorer.passes, len(scorer.scores)
    for method in ("add", "remove"):  # their subsets are among Shapley's: nothing new
        attribute(green, corpus, AttributionOptions(method), {"hyp": [EDITS]}, scorer)
    assert (scorer.passes, len(scorer.scores)) == (passes, scored) == (2, 32)


def test_language_neutral_edits():
    from gecmetrics.workflows.attribution import hypothesis_edits

    corpus = corpus_for(EDITS)
    got = hypothesis_edits(corpus, extractor="neutral")["hyp"][0]
    assert [(s, e, c) for s, e, c, _ in got] == [(s, e, c) for s, e, c, _ in EDITS]
    assert {t for *_, t in got} <= {"M", "U", "R", "W"}
    with pytest.raises(ConfigError, match="unknown edit extractor"):
        hypothesis_edits(corpus, extractor="spacy")
    res = CliRunner().invoke(main, [
        "attribute", "-s", str(EXAMPLE / "source.txt"), "-r", str(EXAMPLE / "ref0.txt"),
        "-c", str(EXAMPLE / "system_a.txt"), "--extractor", "neutral", "--edits", "x.m2"])
    assert res.exit_code == 2 and "drop --extractor" in res.output
