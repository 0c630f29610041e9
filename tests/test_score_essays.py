"""`gecmetrics score` on MultiGEC essay files: one item per essay, references per essay.

The essays are tests/data/multigec's (tests/test_multigec.py says how they were made),
already tokenised as MultiGEC's scorer tokenises them (tokenized/). `score` reads them as
`gecmetrics multigec --tokenize whitespace` does, so its GLEU is multigec's and MultiGEC's
own scorer's (reference.json, from the official scorer).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gecmetrics import essays
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.formatting import percent
from gecmetrics.interface.cli import main
from gecmetrics.scoring import ScoreOptions, load_corpus, plan, score
from gecmetrics.workflows.multigec import MultigecOptions, run

DATA = Path(__file__).parent / "data" / "multigec" / "tokenized"
UK_SRC = str(DATA / "ref" / "uk-ua_gec-orig-dev.md")
UK_REFS = [str(DATA / "ref" / f"uk-ua_gec-ref{k}-dev.md") for k in (1, 2, 3, 4)]
UK_HYP = str(DATA / "res" / "uk-ua_gec-hypo1-dev.md")
SV_SRC = str(DATA / "ref" / "sv-swell_gold-orig-dev.md")
SV_REF = str(DATA / "ref" / "sv-swell_gold-ref1-dev.md")
SV_HYP = str(DATA / "res" / "sv-swell_gold-hypo1-dev.md")


def test_score_equals_multigec_on_partial_references():
    """Ukrainian: 3 essays, 4 reference files covering 3, 2, 1, 1 of them."""
    import json

    options = ScoreOptions(UK_SRC, UK_REFS, [UK_HYP],
                           metrics=("gleu", "errant:references=text,edits=neutral"))
    assert plan(options) == "corpus"
    gleu, edits = score(options).results
    (row,) = run(MultigecOptions(source=UK_SRC, references=UK_REFS, hypotheses=[UK_HYP],
                                 lang="uk", tokenize="whitespace", edits="neutral")).rows
    assert gleu.score == row.gleu
    assert (edits.precision, edits.recall, edits.score) == (row.precision, row.recall, row.f05)
    official = json.loads((DATA.parent / "reference.json").read_text(encoding="utf-8"))
    assert percent(gleu.score, 4) == official["gleu"]["uk-ua_gec-hypo1-dev.tmp"]
    corpus = load_corpus(UK_SRC, UK_REFS, [UK_HYP])
    assert corpus.num_sentences == 3 and corpus.reference_counts is not None


def test_essay_line_breaks_are_tabs_and_levels(tmp_path):
    src = tmp_path / "orig.md"
    src.write_text("### essay_id = a\nOne two.\n\nThree four.\n\n### essay_id = b\nFive.\n",
                   encoding="utf-8")
    ref = tmp_path / "ref.md"
    ref.write_text("### essay_id = b\nFive!\n### essay_id = a\nOne two.\nThree four.\n",
                   encoding="utf-8")
    corpus = load_corpus(str(src), [str(ref)], [str(src)])
    assert list(corpus.sources) == ["One two.\t\tThree four.", "Five."]
    assert [list(r) for r in corpus.references] == [["One two.\tThree four.", "Five!"]]
    (row,) = score(ScoreOptions(str(src), [str(ref)], [str(src)], metrics=("chrf",),
                                level="sentence")).results
    assert len(row.scores) == 2 and row.scores[1] < 1.0


def test_metric_that_cannot_is_refused_before_any_work():
    with pytest.raises(ConfigError, match=r"^metric 'chrf' cannot score items with fewer "
                                          r"references than others"):
        score(ScoreOptions(UK_SRC, UK_REFS, [UK_HYP], metrics=("gleu", "chrf")))
    result = CliRunner().invoke(main, ["score", "-m", "gleu", "-m", "green", "-s", UK_SRC,
                                       "-r", *UK_REFS, "-c", UK_HYP])
    assert result.exit_code == 2
    assert result.output.startswith("error: metric 'green' cannot score items with fewer")


def test_bad_essay_inputs(tmp_path):
    lacking = tmp_path / "h.md"
    lacking.write_text(Path(SV_HYP).read_text(encoding="utf-8").split("### essay_id = s2")[0],
                       encoding="utf-8")
    with pytest.raises(InputError, match=r"lacks essay s2 of .*\(1 missing\)"):
        load_corpus(SV_SRC, [SV_REF], [str(lacking)])
    foreign = tmp_path / "h9.md"
    foreign.write_text(Path(SV_HYP).read_text(encoding="utf-8").replace("= s2", "= s9"),
                       encoding="utf-8")
    with pytest.raises(InputError, match=r"h9.md, line 4: essay id s9 is not in the source"):
        load_corpus(SV_SRC, [SV_REF], [str(foreign)])
    line_ref = tmp_path / "ref.txt"
    line_ref.write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"holds one text a line but .* holds MultiGEC essays"):
        load_corpus(SV_SRC, [str(line_ref)], [SV_HYP])
    with pytest.raises(InputError, match=r"the inputs are MultiGEC essays; give the references"):
        load_corpus(SV_SRC, [], [SV_HYP], m2=str(line_ref))


def test_essays_on_standard_input(monkeypatch, tmp_path):
    text = Path(SV_HYP).read_text(encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert load_corpus(SV_SRC, [SV_REF], ["-"]).num_sentences == 2  # the others say essays
    lines = tmp_path / "l.txt"
    lines.write_text("x\n" * text.count("\n"), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    with pytest.raises(InputError, match=r"^hypothesis from standard input holds MultiGEC essays"):
        load_corpus(str(lines), [str(lines)], ["-"])


def test_detection_is_multigecs(tmp_path):
    lines = tmp_path / "lines.txt"
    lines.write_text("x ### essay_id = 1\nfine\n", encoding="utf-8")
    assert not essays.holds_essays(str(lines))  # the marker, but not a header line
    essay = tmp_path / "e.md"
    essay.write_text("### essay_id = 1\nText.\n", encoding="utf-8")
    late = tmp_path / "late.txt"
    late.write_text("a b c d e f\n### essay_id = 1\n", encoding="utf-8")
    for path in (essay, late):
        assert essays.holds_essays(str(path)) == essays.is_essay_file(path.read_text("utf-8"))
        assert essays.holds_essays(str(path))
    assert not essays.holds_essays(str(tmp_path / "missing.txt"))
    (tmp_path / "empty.txt").write_bytes(b"")
    assert not essays.holds_essays(str(tmp_path / "empty.txt"))
    pipe = tmp_path / "fifo"
    os.mkfifo(pipe)
    assert not essays.holds_essays(str(pipe))  # not opened: a pipe is read once
    example = Path(__file__).parents[1] / "data" / "example"
    options = ScoreOptions(str(example / "source.txt"), [str(example / "ref0.txt")],
                           [str(example / "system_a.txt")], metrics=("gleu",))
    assert plan(options) == "chunked"  # line files: read by chunks as before


def test_signature_says_when_items_have_different_numbers_of_references():
    partial = score(ScoreOptions(UK_SRC, UK_REFS, [UK_HYP], metrics=("gleu",)))
    assert "|refs_per_item:varying|" in partial.signatures[0]
    full = score(ScoreOptions(SV_SRC, [SV_REF], [SV_HYP], metrics=("gleu",)))
    assert "refs_per_item" not in full.signatures[0]
