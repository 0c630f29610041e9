"""MultiGEC-2025 essays and `gecmetrics multigec`, against MultiGEC's own scorer.

tests/data/multigec holds small essays written for these tests (MultiGEC's data is not
public): English, Ukrainian (four reference files, the later ones covering only some
essays), Swedish and Greek, in MultiGEC's file names and format. reference.json is the
output of MultiGEC's own scorer on them (tests/reference/multigec_reference.py says
how it was made: it cannot run here, it needs its own venv); tokenized/ holds the same
essays as that scorer tokenises them (syntok), for runs without the multigec extra.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.essays import essay_corpus, read_essays
from gecmetrics.formatting import percent
from gecmetrics.metric import PARTIAL_REFERENCE_METRICS
from gecmetrics.registry import BUILTIN, metric_class, metric_from_spec
from gecmetrics.workflows.multigec import NEUTRAL_SPEC, MultigecOptions, run

DATA = Path(__file__).parent / "data" / "multigec"
REFERENCE = json.loads((DATA / "reference.json").read_text(encoding="utf-8"))


def official_gleu(rows) -> dict[str, str]:
    """Our GLEU as Koyama's gleu prints it with -d 4 (percent, rounded half up)."""
    return {Path(r.hypothesis).name.replace(".md", ".tmp"): percent(r.gleu, 4) for r in rows}


def test_gleu_equals_multigec_scorer_with_partial_references():
    """Ukrainian: four reference files, the later ones covering some essays (fast tier)."""
    tok = DATA / "tokenized"
    results = run(MultigecOptions(
        source=str(tok / "ref" / "uk-ua_gec-orig-dev.md"),
        references=[str(tok / "ref" / f"uk-ua_gec-ref{k}-dev.md") for k in (1, 2, 3, 4)],
        hypotheses=[str(tok / "res" / "uk-ua_gec-hypo1-dev.md")], lang="uk",
        tokenize="whitespace", edits="none"))
    assert official_gleu(results.rows) == {"uk-ua_gec-hypo1-dev.tmp":
                                           REFERENCE["gleu"]["uk-ua_gec-hypo1-dev.tmp"]}


@pytest.mark.full
def test_gleu_equals_multigec_scorer_on_four_languages():
    results = run(MultigecOptions(data_dir=str(DATA / "tokenized" / "ref"),
                                  hyp_dir=str(DATA / "tokenized" / "res"),
                                  tokenize="whitespace", edits="none"))
    assert official_gleu(results.rows) == REFERENCE["gleu"]
    uk = next(r for r in results.rows if r.lang == "uk")
    assert (uk.essays, uk.references) == (3, 4)


@pytest.mark.skipif(importlib.util.find_spec("syntok") is None,
                    reason="the multigec extra (syntok) is not installed")
def test_gleu_equals_multigec_scorer_from_raw_essays():
    results = run(MultigecOptions(data_dir=str(DATA / "ref"), hyp_dir=str(DATA / "res"),
                                  edits="none"))
    assert official_gleu(results.rows) == REFERENCE["gleu"]


@pytest.mark.full
@pytest.mark.errant
def test_errant_equals_multigec_scorer_on_english():
    en = "en-writeandimprove2024"
    tok = DATA / "tokenized"
    results = run(MultigecOptions(source=str(tok / "ref" / f"{en}-orig-dev.md"),
                                  references=[str(tok / "ref" / f"{en}-ref1-dev.md")],
                                  hypotheses=[str(tok / "res" / f"{en}-hypo1-dev.md")],
                                  lang="en", tokenize="whitespace"))
    (row,) = results.rows
    want = REFERENCE["errant_en"]
    # errant_compare prints P/R/F rounded to 4 decimals with trailing zeros dropped
    got = [str(round(v, 4)) for v in (row.precision, row.recall, row.f05)]
    assert got == [want["precision"], want["recall"], want["f0.5"]]


def test_partial_references_are_the_items_own():
    essays = essay_corpus(str(DATA / "tokenized" / "ref" / "uk-ua_gec-orig-dev.md"),
                          [str(DATA / "tokenized" / "ref" / f"uk-ua_gec-ref{k}-dev.md")
                           for k in (1, 2, 3, 4)],
                          [str(DATA / "tokenized" / "res" / "uk-ua_gec-hypo1-dev.md")])
    corpus = essays.corpus
    assert essays.ids == ("1", "2", "3")
    assert corpus.reference_counts == (4, 1, 2)
    assert corpus.partial_references
    assert len(corpus.item_references(1)) == 1 and len(corpus.item_references(2)) == 2
    # the filled places hold the item's first reference (MultiGEC's copy_ref1)
    assert corpus.references[3][2] == corpus.references[0][2]
    with pytest.raises(ConfigError, match="metrics that can: gleu, errant"):
        metric_from_spec("chrf").evaluate(corpus)
    with pytest.raises(ConfigError, match="'green' cannot score items with fewer references"):
        metric_from_spec("green").evaluate(corpus)
    # every existing corpus is unchanged: no counts, every reference its own
    full = Corpus(["a b"], [["a c"], ["a d"]], {"s": ["a b"]})
    assert full.reference_counts is None and not full.partial_references
    assert full.item_references(0) == ["a c", "a d"]


@pytest.mark.full  # imports every metric module
def test_partial_reference_metrics_list_is_the_registrys():
    have = {name for name in BUILTIN if name not in ("some", "impara", "scribendi", "ptm2",
                                                     "pterrant", "llm-judge")
            and metric_class(name).partial_references}
    assert have == set(PARTIAL_REFERENCE_METRICS)


def test_gleu_on_partial_references_matches_a_hand_draw():
    """mode=max picks per item the best of the references it has: item 2 has one, so
    its copies change nothing; an oracle from per-item lists gives the same score."""
    gleu = metric_from_spec("gleu:mode=max")
    partial = Corpus(["a b c", "d e f"], [["a b x", "d e y"], ["a b c", "d e y"]],
                     {"s": ["a b c", "d e f"]}, reference_counts=(2, 1))
    oracle = Corpus(["a b c", "d e f"], [["a b c", "d e y"]], {"s": ["a b c", "d e f"]})
    assert gleu.evaluate(partial)[0].score == gleu.evaluate(oracle)[0].score


def test_bad_reference_counts():
    with pytest.raises(InputError, match="item 1: expected an integer from 1 to 2"):
        Corpus(["a"], [["b"], ["b"]], {"s": ["a"]}, reference_counts=(3,))
    with pytest.raises(InputError, match="must hold a copy of its first reference"):
        Corpus(["a"], [["b"], ["c"]], {"s": ["a"]}, reference_counts=(1,))


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


ORIG = "### essay_id = 1\nЄ текст.\n\n### essay_id = 2\nΕίναι κείμενο.\n"


@pytest.mark.parametrize("text, message", [
    ("intro\n### essay_id = 1\nx\n", r"orig\.md, line 1: text before the first"),
    ("### essay_id = 1\nx\n\n### essay_id = 1\ny\n",
     r"line 4: duplicate essay id 1 \(first at line 1\)"),
    ("### essay_id = 1\n\n\n### essay_id = 2\ny\n", r"line 1: essay 1 is empty"),
    ("### essay_id = 1\nx\n##essay_id = 2\ny\n", r"line 3: unreadable essay header"),
    ("### essay_id = \nx\n", r"line 1: essay header without an id"),
    ("x\n# essay_id: 2\n", None),  # no header at all: one text a line
])
def test_bad_essay_files(tmp_path, text, message):
    path = write(tmp_path / "orig.md", text)
    if message is None:
        assert not read_essays(path, "source").markdown
        return
    with pytest.raises(InputError, match=message):
        read_essays(path, "source")


def test_ids_must_match_the_source(tmp_path):
    orig = write(tmp_path / "orig.md", ORIG)
    ref = write(tmp_path / "ref.md", "### essay_id = 1\nЄ текст.\n\n### essay_id = 2\nΕίναι.\n")
    stray = write(tmp_path / "stray.md", "### essay_id = 3\nx\n")
    half = write(tmp_path / "half.md", "### essay_id = 1\nЄ текст.\n")
    lines = write(tmp_path / "lines.txt", "a\nb\n")
    with pytest.raises(InputError, match=r"stray\.md, line 1: essay id 3 is not in the source"):
        essay_corpus(orig, [ref, stray], [ref])
    with pytest.raises(InputError, match=r"half\.md lacks essay 2 .* \(1 missing\)"):
        essay_corpus(orig, [ref], [half])
    with pytest.raises(InputError, match=r"line 4: essay 2 has no reference in any -r file"):
        essay_corpus(orig, [half], [ref])
    with pytest.raises(InputError, match="holds one text a line but .* holds MultiGEC essays"):
        essay_corpus(orig, [lines], [ref])


def test_line_files_are_items_too(tmp_path):
    src = write(tmp_path / "src.txt", "Це є текст .\nΑυτό είναι .\n")
    ref = write(tmp_path / "ref.txt", "Це текст .\nΑυτό είναι .\n")
    essays = essay_corpus(src, [ref], [src])
    assert essays.ids == ("1", "2") and essays.corpus.reference_counts is None


def test_options_fail_before_reading():
    for lang in ("swedish", "xx", "EN"):  # xx looked like a code: it was accepted
        with pytest.raises(ConfigError, match="--lang must be an ISO 639-1 code in lower "
                                              "case, such as MultiGEC-2025's cs, de, "):
            MultigecOptions(source="x", references=["y"], hypotheses=["z"], lang=lang)
    with pytest.raises(ConfigError, match="--edits errant is English only here"):
        MultigecOptions(source="x", references=["y"], hypotheses=["z"], lang="sv",
                        edits="errant")
    with pytest.raises(ConfigError, match="give either --data"):
        MultigecOptions()
    assert dataclasses.is_dataclass(MultigecOptions)


@pytest.mark.full  # a subprocess
def test_cli_one_line_error(tmp_path):
    orig = write(tmp_path / "orig.md", ORIG)
    dup = write(tmp_path / "dup.md", "### essay_id = 1\nx\n\n### essay_id = 1\ny\n")
    proc = subprocess.run([sys.executable, "-m", "gecmetrics.interface.cli", "multigec", "-s", orig,
                           "-r", dup, "-c", orig, "--lang", "uk", "--tokenize", "whitespace"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: reference file")
    assert "line 4: duplicate essay id 1" in proc.stderr


def test_neutral_edits_for_greek_and_swedish_by_hand():
    """Greek: the reference makes 4 word edits (οικογένειά, ωραίες, έρχονται, βρόμικοι),
    the hypothesis 2 of them and nothing else: P = 1, R = 2/4, F0.5 = 1.25 * 0.5 / 0.75.
    Swedish: 6 reference edits (two word-order swaps, mina, fikar, Mitt, var det), the
    hypothesis 4 of them: P = 1, R = 4/6, F0.5 = 1.25 * (2/3) / (0.25 + 2/3)."""
    tok = DATA / "tokenized"
    want = {"el": (1.0, 0.5, 1.25 * 0.5 / 0.75),
            "sv": (1.0, 2 / 3, 1.25 * (2 / 3) / (0.25 + 2 / 3))}
    for lang, corpus in (("el", "glcii"), ("sv", "swell_gold")):
        essays = essay_corpus(str(tok / "ref" / f"{lang}-{corpus}-orig-dev.md"),
                              [str(tok / "ref" / f"{lang}-{corpus}-ref1-dev.md")],
                              [str(tok / "res" / f"{lang}-{corpus}-hypo1-dev.md")])
        (row,) = metric_from_spec(NEUTRAL_SPEC).evaluate(essays.corpus)
        assert (row.precision, row.recall, row.score) == pytest.approx(want[lang], abs=1e-12)


def test_partial_corpus_pickles():
    import pickle

    corpus = Corpus(["a b", "c"], [["a", "c"], ["b", "c"]], {"s": ["a b", "c"]},
                    reference_counts=(2, 1))
    again = pickle.loads(pickle.dumps(corpus))
    assert again.reference_counts == (2, 1) and again.references == corpus.references


def test_syntok_missing_is_one_line(monkeypatch):
    from gecmetrics.essays import tokenizer

    monkeypatch.setitem(sys.modules, "syntok", None)
    with pytest.raises(ConfigError, match=r"needs the multigec extra: pip install"):
        tokenizer("syntok")


def _cli(*args: str):
    from click.testing import CliRunner

    from gecmetrics.interface.cli import main

    return CliRunner().invoke(main, ["multigec", *args])


def test_max_tokens_without_errant_is_refused(tmp_path):
    """--max-tokens bounds ERRANT's alignment only: where no corpus gets ERRANT's edits
    (not English, --edits neutral or none) it was ignored without a word."""
    orig = write(tmp_path / "orig.md", ORIG)
    base = ["-s", orig, "-r", orig, "-c", orig, "--tokenize", "whitespace"]
    for extra in (["--lang", "uk"], ["--lang", "en", "--edits", "neutral"],
                  ["--lang", "en", "--edits", "none"]):
        out = _cli(*base, *extra, "--max-tokens", "5")
        assert out.exit_code == 2, out.output
        assert out.output.startswith("error: --max-tokens bounds ERRANT's alignment")
        assert out.output.count("\n") == 1
    assert _cli(*base, "--lang", "uk").exit_code == 0  # the default applies to nothing


def test_digits_with_json_and_greedy_lists(tmp_path):
    """-d with --format json is refused as by score; -r/-c take several files after one
    flag as score does."""
    orig = write(tmp_path / "orig.md", ORIG)
    ref = write(tmp_path / "ref.md", ORIG.replace("текст", "текст ."))
    base = ["-s", orig, "--lang", "uk", "--tokenize", "whitespace", "--edits", "neutral"]
    out = _cli(*base, "-r", ref, "-c", orig, "-d", "4", "--format", "json")
    assert out.exit_code == 2 and out.output.startswith("error: -d/--digits sets the decimals")
    greedy = _cli(*base, "-r", ref, orig, "-c", orig, ref, "--format", "json")
    repeated = _cli(*base, "-r", ref, "-r", orig, "-c", orig, "-c", ref, "--format", "json")
    assert greedy.exit_code == 0, greedy.output
    assert greedy.output == repeated.output
    rows = json.loads(greedy.output)
    assert [r["hypothesis"] for r in rows] == [orig, ref] and rows[0]["references"] == 2


def test_data_dir_language_must_be_a_code(tmp_path):
    data, hyps = tmp_path / "data", tmp_path / "hyps"
    data.mkdir()
    hyps.mkdir()
    write(data / "xx-c-orig-dev.md", ORIG)
    write(data / "xx-c-ref1-dev.md", ORIG)
    write(hyps / "xx-c-sys-dev.md", ORIG)
    with pytest.raises(InputError, match="'xx' is no ISO 639-1 language code"):
        run(MultigecOptions(data_dir=str(data), hyp_dir=str(hyps), tokenize="whitespace"))
