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
from gecmetrics.signature import metric_signature
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


# -- issue 33: spacing, several metrics, bounds, streaming, signatures, the API ---------

# Lines as read: trailing, leading and repeated spaces (the official CoNLL-2014 INPUT
# ends every line with spaces), edits on their whitespace tokens.
SPACED_SRC = "he go to  school every days and he like it very much  "
SPACED_REFS = [["he goes to school every day and he likes it very much"]]
SPACED_HYP = " he goes to school every day , and he likes it really much"
SPACED_EDITS = EDITS  # the same five edits: the source has the same tokens as SRC


def _subset_text(tokens, edits):
    """The test's own rebuild of a subset sentence: token lists spliced right to left."""
    out = list(tokens)
    for start, end, correction, _ in sorted(edits, key=lambda e: e[0], reverse=True):
        out[start:end] = correction.split()
    return " ".join(out)


def _one_score(metric, src, refs, text):
    c = Corpus([src], refs, {"x": [text]})
    return float(metric.statistics(c).sentence(None)[0][0])


def _brute_force_shapley(metric, src, refs, edits):
    """Shapley values over all subsets, each subset's sentence (tokens joined by single
    spaces) scored as its own one-sentence corpus against the source and references as
    read, the weights |E'|! (n-|E'|-1)! / n! written out."""
    tokens = src.split()
    base = _one_score(metric, src, refs, " ".join(tokens))
    n = len(edits)
    v = {s: _one_score(metric, src, refs, _subset_text(tokens, [edits[i] for i in s])) - base
         for k in range(n + 1) for s in combinations(range(n), k)}
    phi = []
    for i in range(n):
        total = 0.0
        for k in range(n):
            for s in combinations([j for j in range(n) if j != i], k):
                w = math.factorial(k) * math.factorial(n - k - 1) / math.factorial(n)
                total += w * (v[tuple(sorted((*s, i)))] - v[s])
        phi.append(total)
    return phi, v[tuple(range(n))]


@pytest.mark.parametrize("spec", ["green:tokenize=char", "chrf:whitespace=True", "green"])
def test_efficiency_with_irregular_spacing(spec):
    """Values add up to delta, and equal the brute-force Shapley values, when the lines
    have trailing, leading and double spaces and the metric scores them (char level)."""
    metric = metric_from_spec(spec)
    corpus = Corpus([SPACED_SRC], SPACED_REFS, {"h": [SPACED_HYP]})
    res = attribute(metric, corpus, AttributionOptions("shapley"), {"h": [SPACED_EDITS]})
    s = res.sentences[0]
    phi, v_all = _brute_force_shapley(metric, SPACED_SRC, SPACED_REFS, SPACED_EDITS)
    assert values(res) == pytest.approx(phi, abs=1e-12)
    assert sum(values(res)) == pytest.approx(s.delta, abs=1e-12)  # efficiency
    assert s.delta == pytest.approx(v_all, abs=1e-12)
    raw = [_one_score(metric, SPACED_SRC, SPACED_REFS, t) for t in (SPACED_SRC, SPACED_HYP)]
    scores_spacing = raw != [s.source_score, s.hypothesis_score]
    assert scores_spacing is spec.startswith("green:tokenize=char") or spec.startswith("chrf")
    assert any("scores spacing" in n for n in res.notes) is scores_spacing
    for method in ("sampling", "add", "remove"):
        other = attribute(metric, corpus, AttributionOptions(method, samples=30),
                          {"h": [SPACED_EDITS]})
        assert sum(values(other)) == pytest.approx(other.sentences[0].delta, abs=1e-12), method


def test_one_edit_has_the_sign_of_the_change():
    """A sentence of one edit: its value is the sentence's change, whatever the spacing."""
    metric = metric_from_spec("green:tokenize=char")
    src, hyp = "he go to school .  ", "he goes to school ."
    refs = [["he goes to school ."]]
    res = attribute(metric, Corpus([src], refs, {"h": [hyp]}), None,
                    {"h": [[(1, 2, "goes", "R:VERB:SVA")]]})
    s = res.sentences[0]
    assert s.delta > 0 and values(res) == [pytest.approx(s.delta, abs=1e-12)]
    want = _one_score(metric, src, refs, hyp) - _one_score(metric, src, refs,
                                                           "he go to school .")
    assert s.delta == pytest.approx(want, abs=1e-12)


def _sampled_by_hand(metric, edits, samples, seed, system, line):
    """Mean and standard error of the marginal contributions over the seeded orders
    (gecmetrics.stats.resampling.edit_orders), every prefix scored on its own."""
    import zlib

    import numpy as np

    from gecmetrics.stats.resampling import edit_orders

    n = len(edits)
    drawn = edit_orders(n, samples, seed, (zlib.crc32(system.encode()), line))
    base = _one_score(metric, SRC, REFS, SRC)
    margins = np.zeros((samples, n))
    for k, order in enumerate(drawn):
        prev = 0.0
        for pos, i in enumerate(order):
            text = _subset_text(SRC.split(), [edits[j] for j in order[:pos + 1]])
            value = _one_score(metric, SRC, REFS, text) - base
            margins[k, i] = value - prev
            prev = value
    return margins.mean(axis=0), margins.std(axis=0, ddof=1) / math.sqrt(samples)


def test_sampled_orders_are_streamed(green, monkeypatch):
    """Sampled values equal the mean and standard error over the seeded orders computed
    whole, while the scorer keeps no sampled sentence and scores in small passes."""
    import gecmetrics.workflows.attribution as attribution

    monkeypatch.setattr(attribution, "ROWS_PER_PASS", 7)
    mean, se = _sampled_by_hand(green, EDITS, 40, 12345, "hyp", 0)
    scorer = attribution.CandidateScorer(green, corpus_for(EDITS))
    res = attribute(green, scorer.corpus, AttributionOptions("sampling", samples=40),
                    {"hyp": [EDITS]}, scorer)
    assert values(res) == pytest.approx(mean.tolist(), abs=1e-12)
    assert [e.stderr for e in res.sentences[0].edits] == pytest.approx(se.tolist(), abs=1e-12)
    assert len(scorer.scores) == 2  # the source and the hypothesis; no order's sentences
    assert scorer.passes > 10  # passes of at most 7 rows
    assert res.requested == 2 + 40 * len(EDITS)


def test_memory_does_not_grow_with_samples(green, monkeypatch):
    """What waits to be scored is bounded by the pass size, not by the orders."""
    import gecmetrics.workflows.attribution as attribution

    held = []
    real = attribution._Passes.run

    def run(self):
        held.append(len(self.pending) + self.waiting_rows + len(self.dropped))
        real(self)

    monkeypatch.setattr(attribution, "ROWS_PER_PASS", 50)
    monkeypatch.setattr(attribution._Passes, "run", run)
    eight = EDITS + [(0, 1, "He", "R:ORTH"), (3, 4, "the school", "R:OTHER"),
                     (7, 8, "she", "R:PRON")]
    for samples in (100, 1000):
        held.clear()
        attribute(green, corpus_for(eight), AttributionOptions("sampling", samples=samples),
                  {"hyp": [eight]})
        assert max(held) <= 3 * 50 + 2 * len(eight), samples


def test_progress_bar_counts_every_subset_sentence(green, monkeypatch):
    from gecmetrics import progress

    drawn = []

    class Bar:
        def __init__(self, total, label, **kw):
            self.total, self.label, self.done, self.closed = total, label, 0, False
            drawn.append(self)

        def update(self, n=1):
            self.done += n

        def close(self):
            self.closed = True

    monkeypatch.setattr(progress, "bar", Bar)
    res = attribute(green, corpus_for(EDITS), AttributionOptions("sampling", samples=9),
                    {"hyp": [EDITS]})
    [bar] = drawn
    assert bar.total == bar.done == res.requested == 2 + 9 * len(EDITS) and bar.closed
    assert "green" in bar.label


def test_progress_bar_drawn_on_a_terminal_only(green, monkeypatch):
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    for stream, shown in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stream)
        attribute(green, corpus_for(EDITS), None, {"hyp": [EDITS]})
        assert ("attributing with green" in stream.getvalue()) is shown
    monkeypatch.setattr(sys, "stderr", Terminal())
    attribute(green, corpus_for(EDITS), None, {"hyp": [EDITS]}, progress_bar=False)
    assert sys.stderr.getvalue() == ""


def test_bounds_on_tokens_and_edits_before_any_work(green, monkeypatch):
    import gecmetrics.workflows.attribution as attribution
    from gecmetrics.errors import InputError

    def no_scoring(*args, **kwargs):
        raise AssertionError("scored before the bound was checked")

    monkeypatch.setattr(attribution, "score_rows", no_scoring)
    corpus = corpus_for(EDITS)
    with pytest.raises(InputError, match=r"hyp, line 1: 13 tokens, more than --max-tokens 12"
                                         r".*raise the limit with --max-tokens 13"):
        attribute(green, corpus, AttributionOptions(max_tokens=12), {"hyp": [EDITS]})
    with pytest.raises(InputError, match=r"^attribution cannot take source, line 1: 12 tokens"):
        attribute(green, Corpus([SRC], REFS, {"hyp": ["short"]}),
                  AttributionOptions(max_tokens=11), {"hyp": [[]]})
    with pytest.raises(InputError, match=r"hyp, line 1: 5 edits, more than --max-edits 4.*"
                                         r"--max-edits 5"):
        attribute(green, corpus, AttributionOptions("add", max_edits=4), {"hyp": [EDITS]})
    # the default: ERRANT's max_tokens
    from gecmetrics.edits.extraction import MAX_TOKENS

    assert AttributionOptions().token_limit == MAX_TOKENS
    long = " ".join(["word"] * (MAX_TOKENS + 1))
    with pytest.raises(InputError, match=f"{MAX_TOKENS + 1} tokens, more than --max-tokens"):
        attribute(green, Corpus([long], [[long]], {"h": [long]}), None, {"h": [[]]})
    for bad in (0, -1, True, 2.0, "3"):
        with pytest.raises(ConfigError, match="--max-edits"):
            AttributionOptions(max_edits=bad)
        with pytest.raises(ConfigError, match="--max-tokens"):
            AttributionOptions(max_tokens=bad)


def test_errant_edits_bounded_before_spacy(monkeypatch):
    """hypothesis_edits checks ERRANT's pair bound (attribute's --max-tokens) first."""
    from gecmetrics.errors import InputError
    from gecmetrics.workflows.attribution import hypothesis_edits

    long = " ".join(["word"] * 40)
    corpus = Corpus([long], [[long]], {"h.txt": [" ".join(["other"] * 40)]})
    with pytest.raises(InputError, match=r"h.txt line 1 .*--max-tokens 10 allows.*"
                                         r"raise the limit with --max-tokens 40"):
        hypothesis_edits(corpus, max_tokens=10)


def test_cli_bounds_are_one_line(tmp_path):
    src = tmp_path / "src.txt"
    src.write_text(" ".join(["word"] * 12) + "\n")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text(" ".join(["word", "other"] * 6) + "\n")
    base = ["attribute", "-s", str(src), "-r", str(src), "-c", str(hyp), "--extractor",
            "neutral"]
    runner = CliRunner()
    res = runner.invoke(main, [*base, "--max-tokens", "10"])
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert res.output.startswith(f"error: attribution cannot take source file {src}, line 1: "
                                 "12 tokens, more than --max-tokens 10")
    res = runner.invoke(main, [*base, "--max-edits", "5"])
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert f"{hyp}, line 1: 6 edits, more than --max-edits 5" in res.output
    assert "--max-edits 6" in res.output
    res = runner.invoke(main, [*base, "--max-edits", "6", "--format", "json"])
    assert res.exit_code == 0, res.output


def _signature_keys(signature):
    return [part.split(":", 1)[0] for part in signature.split("|")[1:]]


@pytest.mark.parametrize("method, fields", [
    ("shapley", ["attribution", "exact_max", "samples", "seed", "edits"]),
    ("sampling", ["attribution", "samples", "seed", "edits"]),
    ("add", ["attribution", "edits"]),
    ("remove", ["attribution", "edits"]),
])
def test_signature_records_what_the_method_reads(green, method, fields):
    res = attribute(green, corpus_for(EDITS), AttributionOptions(method), {"hyp": [EDITS]})
    keys = _signature_keys(res.signature)
    base = _signature_keys(str(metric_signature(green)))[:-1]  # the metric's, then version
    assert keys[:len(base)] == base and keys[-1] == "version"
    assert keys[len(base):-1] == fields
    assert len(keys) == len(set(keys))


def test_signature_keys_once_with_a_metric_seed():
    """GLEU's signature has its own seed: the attribution's is attribution_seed."""
    res = attribute(metric_from_spec("gleu"), corpus_for(EDITS), None, {"hyp": [EDITS]})
    keys = _signature_keys(res.signature)
    assert len(keys) == len(set(keys)) and "seed" in keys and "attribution_seed" in keys
    assert "|seed:official|" in res.signature and "|attribution_seed:12345|" in res.signature


EXAMPLE_ARGS = ["-s", str(EXAMPLE / "source.txt"), "-r", str(EXAMPLE / "ref0.txt"),
                str(EXAMPLE / "ref1.txt"), "-c", str(EXAMPLE / "system_a.txt"),
                str(EXAMPLE / "system_b.txt"), "--extractor", "neutral"]


def test_every_format_carries_one_signature_per_metric():
    runner = CliRunner()
    for specs in (["green"], ["green", "chrf"]):
        metric_args = [part for spec in specs for part in ("-m", spec)]
        outputs = {fmt: runner.invoke(main, ["attribute", *metric_args, *EXAMPLE_ARGS,
                                             "--format", fmt])
                   for fmt in ("table", "tsv", "json")}
        assert all(r.exit_code == 0 for r in outputs.values())
        table = [line for line in outputs["table"].stdout.splitlines()
                 if line.startswith("signature: ")]
        tsv = [line for line in outputs["tsv"].stderr.splitlines()
               if line.startswith("signature: ")]
        assert "signature" not in outputs["tsv"].stdout
        rows = json.loads(outputs["json"].stdout)
        in_json = list(dict.fromkeys(r["signature"] for r in rows))
        assert table == tsv == [f"signature: {sig}" for sig in in_json]
        assert [sig.split("|")[0] for sig in in_json] == specs
        for sig in in_json:
            keys = _signature_keys(sig)
            assert len(keys) == len(set(keys))


def test_several_metrics_each_attributed():
    """-m green -m chrf: every metric, on the same edits, as each would be alone."""
    runner = CliRunner()
    both = runner.invoke(main, ["attribute", "-m", "green", "-m", "chrf", *EXAMPLE_ARGS,
                                "--format", "json"])
    assert both.exit_code == 0, both.output
    alone = [json.loads(runner.invoke(main, ["attribute", "-m", spec, *EXAMPLE_ARGS,
                                             "--format", "json"]).stdout)
             for spec in ("green", "chrf")]
    assert json.loads(both.stdout) == alone[0] + alone[1]
    tsv = runner.invoke(main, ["attribute", "-m", "green", "-m", "chrf", *EXAMPLE_ARGS,
                               "--format", "tsv"]).stdout
    edit_table, type_table = tsv.split("\n\n")
    header, *rows = edit_table.splitlines()
    assert header.split("\t")[:2] == ["metric", "system"]
    n_edits = sum(len(r["edits"]) for r in alone[0] if "edits" in r)
    assert [r.split("\t")[0] for r in rows] == ["green"] * n_edits + ["chrf"] * n_edits
    assert type_table.splitlines()[0].split("\t")[:3] == ["metric", "system", "type"]
    one = runner.invoke(main, ["attribute", "-m", "green", *EXAMPLE_ARGS, "--format", "tsv"])
    assert one.stdout.splitlines()[0].startswith("system\t")  # one metric: no metric column


def test_samples_with_add_refused():
    runner = CliRunner()
    for flag in ("--samples", "--seed"):
        res = runner.invoke(main, ["attribute", *EXAMPLE_ARGS, "--method", "add", flag, "10"])
        assert res.exit_code == 2 and res.output.count("\n") == 1
        assert res.output.startswith(f"error: {flag} applies only to --method sampling and "
                                     "shapley")


@pytest.mark.parametrize("edits, words", [
    ({"hyp": [[(3, 99, "x", "R:X")]]}, "edits of hyp, line 1, edit 1: span 3-99 is outside "
                                       "the source, which has 12 tokens"),
    ({"hyp": [[(-1, 0, "x", "R:X")]]}, "span -1-0 is outside"),
    ({"hyp": [[(2, 1, "x", "R:X")]]}, "span 2-1 is outside"),
    ({"hyp": [[(True, 1, "x", "R:X")]]}, "start and end must be integer"),
    ({"hyp": [[(0, 1.0, "x", "R:X")]]}, "start and end must be integer"),
    ({"hyp": [[(0, 1, None, "R:X")]]}, "correction and type must be strings"),
    ({"hyp": [[(0, 1, "x")]]}, "must be a (start, end, correction, type) tuple"),
    ({"hyp": [["0 1 x R"]]}, "must be a (start, end, correction, type) tuple"),
    ({"hyp": ["abc"]}, "edits of hyp, line 1 must be a list of edits"),
    ({"hyp": []}, "the edits of hyp do not cover its 1 line (got 0 lines)"),
    ({"other": [[]]}, "the edits of hyp do not cover its 1 line (got none)"),
    ([[]], "edits must map each system name"),
    ({"hyp": [[(0, 2, "x", "R"), (1, 3, "y", "R")]]}, "spans 0-2 and 1-3 overlap"),
    ({"hyp": [[(0, 1, "she", "R")]]}, "do not give the hypothesis's tokens"),
])
def test_api_edits_checked(green, edits, words):
    from gecmetrics.errors import InputError

    with pytest.raises(InputError) as err:
        attribute(green, corpus_for(EDITS[:1]), None, edits)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_api_other_arguments_checked(green):
    from gecmetrics.errors import GecMetricsError
    from gecmetrics.workflows.attribution import attribute_metrics, hypothesis_edits

    corpus = corpus_for(EDITS)
    edits = {"hyp": [EDITS]}
    cases = [
        (lambda: attribute(None, corpus, None, edits), "metric must be a gecmetrics Metric"),
        (lambda: attribute("green", corpus, None, edits), "metric must be a gecmetrics Metric"),
        (lambda: attribute(green, None, None, edits), "corpus must be a gecmetrics Corpus"),
        (lambda: attribute(green, [SRC], None, edits), "corpus must be a gecmetrics Corpus"),
        (lambda: attribute(green, corpus, "shapley", edits), "options must be an "
                                                             "AttributionOptions"),
        (lambda: attribute(green, corpus, None, None, edit_source="spacy"),
         "unknown edit source 'spacy'"),
        (lambda: attribute(green, corpus, None, edits, scorer=object()),
         "scorer must be a CandidateScorer"),
        (lambda: attribute_metrics([], corpus, None, edits), "non-empty list of Metric"),
        (lambda: attribute_metrics(green, corpus, None, edits), "non-empty list of Metric"),
        (lambda: hypothesis_edits(None), "corpus must be a gecmetrics Corpus"),
        (lambda: hypothesis_edits(corpus, model=3), "model must be a spaCy pipeline name"),
        (lambda: apply_edits("a b c", []), "tokens must be a list of strings"),
        (lambda: apply_edits(["a", 1], []), "tokens must be a list of strings"),
        (lambda: apply_edits(["a"], [(0, 5, "x", "")]), "span 0-5 is outside"),
        (lambda: AttributionOptions(samples=True), "--samples"),
        (lambda: AttributionOptions(seed=True), "--seed"),
        (lambda: AttributionOptions(method=["shapley"]), "unknown attribution method"),
    ]
    for call, words in cases:
        with pytest.raises(GecMetricsError) as err:
            call()
        assert words in str(err.value) and "\n" not in str(err.value), words


def test_given_extractor_is_used(green):
    """edits=None with edit_source="neutral": the language-neutral edits, named so."""
    from gecmetrics.workflows.attribution import hypothesis_edits

    corpus = corpus_for(EDITS)
    res = attribute(green, corpus, None, None, edit_source="neutral")
    want = hypothesis_edits(corpus, extractor="neutral")["hyp"][0]
    assert [(e.start, e.end, e.correction, e.type) for e in res.sentences[0].edits] == want
    assert res.signature.endswith(f"|edits:neutral|version:{__version__}")
