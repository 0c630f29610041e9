"""External edit scorers plugged in through gecmetrics.edits.adapters, end to end.

A tiny external M2-style scorer (a Python script run as a subprocess) reads
the M2 file and one hypothesis file and prints ``SENTENCE ANNOTATOR TP FP FN``
lines. It is registered as a metric through an entry point (then scored by
``gecmetrics score``) and through ``register_metric`` (then by the API); the
corpus scores are checked against a hand calculation and against the
built-in ``m2`` metric, whose edits coincide with the script's on this data.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from gecmetrics import get_metric
from gecmetrics.corpus import Corpus
from gecmetrics.edits.adapters import (
    CommandEditMetric,
    SentenceEditMetric,
    annotator_order,
    m2_lines,
    parse_count_lines,
)
from gecmetrics.edits.span import SpanEdit
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.m2_format import M2File, read_m2
from gecmetrics.metrics.m2_lattice import GoldEdit, build_lattice, sentence_counts
from gecmetrics.readers import read_lines
from gecmetrics.registry import register_metric

SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))

GOLD_M2 = """\
S He go to school .
A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||1

S She like apple .
A 1 2|||R:VERB:SVA|||likes|||REQUIRED|||-NONE-|||0
A 2 3|||R:NOUN:NUM|||apples|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:SVA|||likes|||REQUIRED|||-NONE-|||1

S This is fine .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1

S I has a idea .
A 1 2|||R:VERB:SVA|||have|||REQUIRED|||-NONE-|||0
A 2 3|||R:DET|||an|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:SVA|||have|||REQUIRED|||-NONE-|||1
"""
SOURCE = ["He go to school .", "She like apple .", "This is fine .", "I has a idea ."]
SYSTEMS = {
    "a.txt": ["He goes to school .", "She likes apple .", "This is fine .",
              "I have a ideas ."],
    "b.txt": ["He went to school .", "She like apples .", "This is good .",
              "I has an idea ."],
}
# (TP, FP, FN) per sentence, for annotators 0 and 1, counted by hand:
#   a: (1,0,0) (0,1,1) | (1,0,1) (1,0,0) | (0,0,0) (0,0,0) | (1,1,1) (1,1,0)
#   b: (0,1,1) (1,0,0) | (1,0,1) (0,1,1) | (0,1,0) (0,1,0) | (1,0,1) (0,1,1)
HAND_COUNTS = {
    "a.txt": [[(1, 0, 0), (0, 1, 1)], [(1, 0, 1), (1, 0, 0)], [(0, 0, 0), (0, 0, 0)],
              [(1, 1, 1), (1, 1, 0)]],
    "b.txt": [[(0, 1, 1), (1, 0, 0)], [(1, 0, 1), (0, 1, 1)], [(0, 1, 0), (0, 1, 0)],
              [(1, 0, 1), (0, 1, 1)]],
}
# The M2 rule, sentence by sentence on running totals (c, e = c + FP, g = c + FN),
# F = (1 + b2) c / (b2 g + e):
#   a, beta 0.5: s0 ann 0 (F 1 vs 0); s1 ann 1 (c2 e2 g2: 1 vs c2 e2 g3: 0.909);
#     s2 tie -> ann 0; s3 ann 1 (c3 e4 g3: 0.789 vs c3 e4 g4: 0.75).
#     Totals TP 3, FP 1, FN 0: P 3/4, R 1, F0.5 = 1.25 * 3/4 / (0.25 * 3/4 + 1) = 15/19.
#   a, beta 1: the same choice (s3: 6/7 vs 3/4); F1 = 2 * 3/4 / (3/4 + 1) = 6/7.
#   b, beta 0.5: s0 ann 1 (1 vs 0); s1 ann 0 (c2 e2 g3: 0.909 vs c1 e2 g2: 0.5);
#     s2 tie -> ann 0; s3 ann 0 (c3 e4 g5: 0.714 vs c2 e4 g4: 0.5).
#     Totals TP 3, FP 1, FN 2: P 3/4, R 3/5, F0.5 = 1.25 * 9/20 / (3/16 + 3/5) = 5/7.
#   b, beta 1: the same choice (s1: 0.8 vs 0.5; s3: 2/3 vs 1/2); F1 = 2/3.
HAND_CHOICE = {"a.txt": [0, 1, 0, 1], "b.txt": [1, 0, 0, 0]}
HAND_SCORES = {  # (beta, system) -> (P, R, F)
    (0.5, "a.txt"): (Fraction(3, 4), Fraction(1), Fraction(15, 19)),
    (1.0, "a.txt"): (Fraction(3, 4), Fraction(1), Fraction(6, 7)),
    (0.5, "b.txt"): (Fraction(3, 4), Fraction(3, 5), Fraction(5, 7)),
    (1.0, "b.txt"): (Fraction(3, 4), Fraction(3, 5), Fraction(2, 3)),
}


def documented_scorer() -> str:
    """The example scorer of docs/adapters.md (so the documented script is the tested one):
    hypothesis edits from a token diff, matched exactly (same span, same correction)
    against each annotator's gold edits."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "adapters.md").read_text("utf-8")
    block = text.split("## A command", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert block.startswith("# span_scorer.py M2_FILE HYPOTHESIS_FILE")
    return block


SPAN_SCORER = documented_scorer()

PLUGIN = '''
import shlex
from pathlib import Path

from gecmetrics.edits.adapters import CommandEditMetric

SCORER = shlex.quote(str(Path(__file__).with_name("span_scorer.py")))


class SpanScorer(CommandEditMetric):
    name = "spans"
    description = "token-diff edits matched exactly to the gold spans (test plug-in)"
    choice_rule = "m2"
    command = "{python} " + SCORER + " {m2} {hypothesis}"
    timeout = 60
'''


@pytest.fixture
def files(tmp_path):
    (tmp_path / "gold.m2").write_text(GOLD_M2, encoding="utf-8")
    (tmp_path / "src.txt").write_text("".join(s + "\n" for s in SOURCE), encoding="utf-8")
    for name, lines in SYSTEMS.items():
        (tmp_path / name).write_text("".join(s + "\n" for s in lines), encoding="utf-8")
    return tmp_path


@pytest.fixture
def plugin_site(tmp_path):
    """A plug-in package, installed as far as importlib.metadata can tell."""
    site = tmp_path / "site"
    package = site / "gecm_span_plugin"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(PLUGIN), encoding="utf-8")
    (package / "span_scorer.py").write_text(SPAN_SCORER, encoding="utf-8")
    info = site / "gecm_span_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gecm-span-plugin\n"
                                   "Version: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[gecmetrics.metrics]\nspans = gecm_span_plugin:SpanScorer\n", encoding="utf-8")
    return site


def corpus_of(folder: Path) -> Corpus:
    m2 = read_m2(folder / "gold.m2")
    hyps = {name: read_lines(folder / name, "hypothesis") for name in SYSTEMS}
    return Corpus(read_lines(folder / "src.txt", "source"), m2.references(), hyps, m2=m2)


def span_scorer_class(folder: Path, rule: str = "m2") -> type[CommandEditMetric]:
    script = folder / "span_scorer.py"
    script.write_text(SPAN_SCORER, encoding="utf-8")

    class Spans(CommandEditMetric):
        name = "spans-api"
        description = "token-diff edits matched exactly (test)"
        choice_rule = rule
        command = "{python} " + shlex.quote(str(script)) + " {m2} {hypothesis}"

    return Spans


@pytest.mark.full
def test_entry_point_command_scorer_through_the_cli(files, plugin_site):
    # The plug-in's folder in front of the caller's path (which may name the checkout under test).
    path = os.pathsep.join(p for p in (str(plugin_site), os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYTHONPATH=path)
    listed = subprocess.run([SCRIPT, "list"], capture_output=True, text=True, env=env)
    assert "spans" in listed.stdout and "test plug-in" in listed.stdout
    proc = subprocess.run(
        [SCRIPT, "score", "-m", "spans", "-m", "m2", "-s", str(files / "src.txt"),
         "--m2", str(files / "gold.m2"), "-c", str(files / "a.txt"), str(files / "b.txt"),
         "-b", "0.5", "-b", "1", "--format", "json"],
        capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    ours = {(r["beta"], Path(r["hypothesis"]).name): r for r in rows if r["metric"] == "spans"}
    builtin = {(r["beta"], Path(r["hypothesis"]).name): r for r in rows if r["metric"] == "M2"}
    assert set(ours) == set(HAND_SCORES)
    for key, (p, r, f) in HAND_SCORES.items():
        row = ours[key]
        assert (row["precision"], row["recall"]) == pytest.approx((float(p), float(r)), abs=1e-15)
        assert row["score"] == pytest.approx(float(f), abs=1e-15)
        # the built-in M2 finds the same edits here, and the choice rule is the same
        assert (row["score"], row["precision"], row["recall"]) == (
            builtin[key]["score"], builtin[key]["precision"], builtin[key]["recall"])


def test_registered_command_scorer_through_the_api(files):
    register_metric("spans-api", span_scorer_class(files))
    corpus = corpus_of(files)
    metric = get_metric("spans-api")
    stats = metric.statistics(corpus)
    for h, name in enumerate(SYSTEMS):
        triples = np.stack([stats.counts.tp[h], stats.counts.fp[h], stats.counts.fn[h]], axis=2)
        assert triples.tolist() == [[list(t) for t in row] for row in HAND_COUNTS[name]]
    assert stats.counts.annotators == (0, 1)
    for beta in (0.5, 1.0):
        assert stats.choice(beta).tolist() == [HAND_CHOICE[n] for n in SYSTEMS]
        for res in metric.evaluate(corpus, betas=[beta]):
            p, r, f = HAND_SCORES[(beta, res.hypothesis)]
            assert (res.precision, res.recall, res.score) == pytest.approx(
                (float(p), float(r), float(f)), abs=1e-15)
    # The same counts and choices as the built-in M2 metric, at every beta.
    builtin = get_metric("m2").statistics(corpus)
    for x in ("tp", "fp", "fn", "present"):
        assert np.array_equal(getattr(stats.counts, x), getattr(builtin.counts, x))
    for beta in (0.1, 0.5, 1.0, 2.0):
        assert np.array_equal(stats.choice(beta), builtin.choice(beta))
        assert np.array_equal(stats.choice(beta, running=False),
                              builtin.choice(beta, running=False))
        assert [s.score for s in stats.corpus(beta)] == [s.score for s in builtin.corpus(beta)]
        assert np.array_equal(stats.sentence(beta), builtin.sentence(beta))


def test_command_gets_the_gold_of_a_benchmark_subset(files):
    """A subset corpus (as SEEDA's) keeps the full file's path with fewer sentences:
    the command must see the corpus's sentences, not the file on disk."""
    full = read_m2(files / "gold.m2")
    keep = [3, 1]
    sub = M2File(full.path, [full.sentences[i] for i in keep])
    hyps = {name: [lines[i] for i in keep] for name, lines in SYSTEMS.items()}
    corpus = Corpus(sub.sources, sub.references(), hyps, m2=sub)
    stats = span_scorer_class(files)().statistics(corpus)
    assert stats.counts.tp[0].tolist() == [[1, 1], [1, 1]]  # a.txt, sentences 3 and 1
    assert stats.counts.fn[1].tolist() == [[1, 1], [1, 1]]  # b.txt
    builtin = get_metric("m2").statistics(corpus)
    for x in ("tp", "fp", "fn"):
        assert np.array_equal(getattr(stats.counts, x), getattr(builtin.counts, x))


def test_m2_lines_read_back_identically(shared_data, tmp_path):
    path = shared_data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"
    original = read_m2(path)
    copy = tmp_path / "copy.m2"
    copy.write_text("".join(line + "\n" for line in m2_lines(original.sentences)),
                    encoding="utf-8")
    assert read_m2(copy).sentences == original.sentences


def test_errant_rule_and_annotator_order(files):
    """With choice_rule = "errant" the adapter chooses as ERRANT's compare_m2."""
    from gecmetrics.edits.statistics import EditStatistics

    corpus = corpus_of(files)
    stats = span_scorer_class(files, "errant")().statistics(corpus)
    same_counts = EditStatistics(stats.counts, "errant")
    assert stats.rule == "errant"
    for beta in (0.5, 1.0):
        assert np.array_equal(stats.choice(beta), same_counts.choice(beta))
    # errant visits coders as strings ("10" before "2"); the M2 scorer by number.
    assert annotator_order("errant", {2, 10, 1}) == [1, 10, 2]
    assert annotator_order("m2", {2, 10, 1}) == [1, 2, 10]


class LatticeM2(SentenceEditMetric):
    """The built-in M2 lattice, plugged in again through the per-sentence adapter."""

    name = "lattice-m2"
    description = "M2 through SentenceEditMetric (test)"
    choice_rule = "m2"

    def sentence_counts(self, source: str, hypothesis: str,
                        gold: Mapping[int, Sequence[SpanEdit]]) -> dict[int, tuple[int, int, int]]:
        src, hyp = source.split(), hypothesis.split()
        lattice = build_lattice(src, hyp, 2) if src != hyp else None
        out = {}
        for a, edits in gold.items():
            if lattice is None:  # no hypothesis edit: every gold edit is missed
                out[a] = (0, 0, len(edits))
                continue
            golds = [GoldEdit(e.start, e.end, " ".join(src[e.start:e.end]), e.corrections)
                     for e in edits]
            c, p, g = sentence_counts(lattice, golds, False)
            out[a] = (c, p - c, g - c)
        return out


@pytest.mark.full
def test_sentence_adapter_equals_builtin_m2_on_conll(shared_data):
    m2 = read_m2(shared_data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2")
    teams = ("AMU", "CAMB", "IPN")
    hyps = {t: read_lines(shared_data / "official_submissions" / t, "hypothesis") for t in teams}
    hyps["INPUT"] = list(m2.sources)
    corpus = Corpus(m2.sources, m2.references(), hyps, m2=m2)
    ours = LatticeM2().statistics(corpus)
    builtin = get_metric("m2").statistics(corpus)
    assert ours.counts.annotators == builtin.counts.annotators == (0, 1)
    for x in ("tp", "fp", "fn", "present"):
        assert np.array_equal(getattr(ours.counts, x), getattr(builtin.counts, x))
    for beta in (0.5, 2.0):
        assert np.array_equal(ours.choice(beta), builtin.choice(beta))
        assert [s.score for s in ours.corpus(beta)] == [s.score for s in builtin.corpus(beta)]
    # AMU's published F0.5 (Ng et al. 2014): 35.01
    assert round(100 * ours.corpus(0.5)[0].score, 2) == 35.01


class Fixed(SentenceEditMetric):
    """Returns whatever counts it is told to, to test the checks."""

    name = "fixed"
    description = "test"
    answer: dict = {}

    def sentence_counts(self, source, hypothesis, gold):
        return self.answer


def test_sentence_adapter_checks_the_counts(files):
    corpus = corpus_of(files)
    Fixed.answer = {0: (1, 0, 0)}
    with pytest.raises(InputError,
                       match=r"annotators \[0\] of sentence 0.*has annotators \[0, 1\]"):
        Fixed().statistics(corpus)
    Fixed.answer = {0: (1, 0, 0), 1: (1, -1, 0)}
    with pytest.raises(InputError, match=r"gave \(1, -1, 0\) for annotator 1"):
        Fixed().statistics(corpus)
    Fixed.answer = {}
    with pytest.raises(InputError, match="no counts for sentence 0"):
        Fixed().statistics(corpus)


def test_adapters_need_the_m2_gold_of_this_source(files):
    corpus = corpus_of(files)
    with pytest.raises(InputError, match="needs gold edits"):
        LatticeM2().statistics(Corpus(corpus.sources, corpus.references, corpus.hypotheses))
    shifted = Corpus(corpus.sources[1:] + corpus.sources[:1], corpus.references,
                     corpus.hypotheses, m2=corpus.m2)
    with pytest.raises(InputError, match="source line 1 differs from the 'S' line"):
        LatticeM2().statistics(shifted)


def command_metric(command: str, rule: str = "m2") -> CommandEditMetric:
    class Command(CommandEditMetric):
        name = "cmd"
        description = "test"
        choice_rule = rule

    Command.command = command
    return Command()


@pytest.mark.parametrize("code, message", [
    ("print('oops')", "output line 1 is 'oops'; expected 'SENTENCE ANNOTATOR TP FP FN'"),
    ("print('0 0 1 0 0'); print('0 1 0 0 0')", "gave no counts for sentence 1"),
    ("print('9 0 1 0 0')", "output line 1 has sentence 9; sentences are numbered 0 to 3"),
    ("print('0 0 1 0 0'); print('0 0 1 0 0')", "repeats sentence 0 annotator 0"),
    ("import sys; print('boom', file=sys.stderr); sys.exit(3)",
     r"failed on a.txt \(exit 3\): boom"),
])
def test_command_output_errors(files, code, message):
    corpus = corpus_of(files)
    metric = command_metric(f"{{python}} -c {shlex.quote(code)}")
    with pytest.raises(InputError, match=message):
        metric.statistics(corpus)


def test_command_template_errors(files):
    corpus = corpus_of(files)
    with pytest.raises(ConfigError, match="has no command"):
        command_metric("  ").statistics(corpus)
    with pytest.raises(ConfigError, match="bad placeholder"):
        command_metric("{python} {gold}").statistics(corpus)
    with pytest.raises(ConfigError, match="check the quotes"):
        command_metric("{python} 'unclosed").statistics(corpus)
    with pytest.raises(ConfigError, match="was not found: 'no-such-scorer-gecm'"):
        command_metric("no-such-scorer-gecm {m2}").statistics(corpus)
    with pytest.raises(ConfigError, match="choice_rule = 'best'"):
        command_metric("{python}", rule="best")


def test_parse_count_lines_ignores_comments_and_blank_lines():
    text = "# header\n\n0 1 2 3 4\n  # indented comment\n1 0 0 0 5\n"
    assert parse_count_lines(text, 2, "x") == [{1: (2, 3, 4)}, {0: (0, 0, 5)}]
