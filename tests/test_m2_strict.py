"""Strict M2 reading: every malformed line stops with file, line number and field.

Each bad line below used to be read silently and changed the scores (an edit
beyond the sentence was dropped, a truncated line went to annotator 0, an
``A`` line after a blank line joined the previous sentence, ...). The real
CoNLL-2014 file must read exactly as before.
"""

from __future__ import annotations

import os
from pathlib import Path

import m2_oracle
import pytest
from click.testing import CliRunner

from gecmetrics.errors import InputError
from gecmetrics.interface.cli import main
from gecmetrics.m2_format import Edit, M2Sentence, read_m2

GOOD_EDIT = "A 1 2|||Nn|||cats|||REQUIRED|||-NONE-|||0"
NOOP = "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1"
CAT = "S The cat sat ."  # 4 tokens

# (case, M2 text, line of the error, words the message must hold)
CASES = [
    ("beyond the sentence", [CAT, "A 3 5|||R|||x|||REQUIRED|||-NONE-|||0"], 2,
     ["field 1 (span)", "'3 5'", "beyond the end of the sentence", "<= 4"]),
    ("end before start", [CAT, GOOD_EDIT, "A 2 1|||R|||x|||REQUIRED|||-NONE-|||0"],
     3, ["field 1 (span)", "'2 1'", "ends before it starts"]),
    ("negative offset", [CAT, "A -2 1|||R|||x|||REQUIRED|||-NONE-|||0"], 2,
     ["field 1 (span)", "negative offset"]),
    ("-1 with a real end", [CAT, "A -1 2|||R|||x|||REQUIRED|||-NONE-|||0"], 2,
     ["field 1 (span)", "negative offset"]),
    ("non-integer offset", [CAT, "A 1 b|||R|||x|||REQUIRED|||-NONE-|||0"], 2,
     ["field 1 (span)", "two integers"]),
    ("truncated", ["S He go home .", "A 1 2|||Vt|||goe"], 2,
     ["3 of the 6", "truncated", "REQUIRED|||-NONE-|||annotator"]),
    ("five fields", ["S He go home .", "A 1 2|||Vt|||goes|||REQUIRED|||-NONE-"], 2,
     ["5 of the 6"]),
    ("A line with no S line", [CAT, GOOD_EDIT, "",
                               "A 0 1|||R|||A|||REQUIRED|||-NONE-|||0"], 4,
     ["'A' line after a blank line", "block"]),
    ("A line first", ["A 0 1|||R|||A|||REQUIRED|||-NONE-|||0", CAT], 1,
     ["'A' line before any 'S' line"]),
    ("two S lines in one block", [CAT, GOOD_EDIT, "S Another one ."], 3,
     ["'S' line right after the block of line 1", "blank line"]),
    ("||| in the correction", [CAT, "A 1 2|||R|||cats|||dogs|||REQUIRED|||-NONE-|||0"],
     2, ["7 '|||'-separated fields", "correction (field 3)", "'||' separates alternatives"]),
    ("negative annotator", [CAT, "A 1 2|||Nn|||cats|||REQUIRED|||-NONE-|||-1"], 2,
     ["field 6 (annotator)", "'-1'", "non-negative integer"]),
    ("non-numeric annotator", [CAT, "A 1 2|||Nn|||cats|||REQUIRED|||-NONE-|||B"], 2,
     ["field 6 (annotator)", "'B'"]),
    ("noop with a correction", [CAT, GOOD_EDIT,
                                "A -1 -1|||noop|||cats|||REQUIRED|||-NONE-|||1"], 3,
     ["noop edit with field 3 (correction)", "'cats'"]),
    ("noop with a span", [CAT, "A 0 1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0"], 2,
     ["noop edit with field 1 (span)", "'0 1'"]),
    ("noop offsets with a type", [CAT, "A -1 -1|||Nn|||-NONE-|||REQUIRED|||-NONE-|||0"],
     2, ["noop edit with field 2 (type)", "'Nn'"]),
    ("noop with field 4", [CAT, "A -1 -1|||noop|||-NONE-|||OPTIONAL|||-NONE-|||0"],
     2, ["noop edit with field 4 (REQUIRED)", "'OPTIONAL'"]),
]
IDS = [case[0] for case in CASES]


def write_m2(folder: Path, lines: list[str]) -> Path:
    path = folder / "gold.m2"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def sentence_count(lines: list[str]) -> int:
    return sum(1 for line in lines if line.startswith("S "))


@pytest.mark.parametrize(("case", "lines", "line_no", "words"), CASES, ids=IDS)
def test_read_m2_rejects(tmp_path, case, lines, line_no, words):
    path = write_m2(tmp_path, lines)
    with pytest.raises(InputError) as info:
        read_m2(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{line_no}: ")
    assert "\n" not in message
    for word in words:
        assert word in message


@pytest.mark.parametrize(("case", "lines", "line_no", "words"), CASES, ids=IDS)
@pytest.mark.parametrize("command", ["score", "m2-to-text"])
def test_commands_reject(tmp_path, command, case, lines, line_no, words):
    path = write_m2(tmp_path, lines)
    src = tmp_path / "src.txt"
    src.write_text("The cat sat .\n" * sentence_count(lines))
    if command == "score":
        args = ["score", "-m", "m2", "-s", str(src), "--m2", str(path), "-c", str(src)]
    else:
        args = ["m2-to-text", str(path), "--annotator", "0"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {path}:{line_no}: ")
    assert result.stderr.count("\n") == 1
    assert words[0] in result.stderr


def test_stdin_m2_errors_name_standard_input():
    result = CliRunner().invoke(main, ["m2-to-text", "-", "--source"],
                                input="S a b\nA 0 3|||R|||x|||REQUIRED|||-NONE-|||0\n")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: standard input:2: malformed edit line: field 1")


def test_valid_edge_cases_still_read(tmp_path):
    """What the format allows: an empty source, an insertion at the end, a deletion
    with an empty correction, alternatives, several blank lines, no final blank line."""
    path = write_m2(tmp_path, [
        "S ", "A 0 0|||M|||Hello|||REQUIRED|||-NONE-|||0", "", "", "",
        "S a b", "A 2 2|||M|||c|||REQUIRED|||-NONE-|||0", "A 0 1|||U||||||REQUIRED|||-NONE-|||1",
        "A 1 2|||R|||B||C|||REQUIRED|||-NONE-|||2", NOOP.replace("|||1", "|||3"),
    ])
    m2 = read_m2(path)
    assert m2.sources == ["", "a b"]
    assert m2.references() == [["Hello", "a b c"], ["Hello", "b"], ["Hello", "a B"],
                               ["Hello", "a b"]]
    assert m2.sentences[1].edits[2] == Edit(1, 2, "R", "B||C", 2)


def test_meta_eval_rejects_a_malformed_conll_m2(tmp_path, shared_data):
    """meta-eval reads the benchmark's M2 file through the same strict reader."""
    from conftest import CONLL_M2

    from gecmetrics.meta_eval.benchmarks.base import description

    desc = description("conll14")
    for entry in desc["files"]:
        target = tmp_path / entry["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.name != CONLL_M2.name:
            os.symlink(shared_data / entry["path"], target)
    lines = CONLL_M2.read_text(encoding="utf-8").split("\n")
    bad = next(i for i, line in enumerate(lines) if line.startswith("A ") and i > 100)
    lines[bad] = lines[bad].rsplit("|||", 3)[0]  # truncated: 3 fields left
    m2 = tmp_path / desc["m2"]
    m2.write_text("\n".join(lines), encoding="utf-8")
    result = CliRunner().invoke(main, ["meta-eval", "conll14", "-m", "green",
                                       "--data-dir", str(tmp_path)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: {m2}:{bad + 1}: malformed edit line: 3 of the 6")
    assert result.stderr.count("\n") == 1


# ---------------------------------------------------------------------------
# The real files read as before


def legacy_read_m2(path: Path) -> list[M2Sentence]:
    """The reader before strict checking, transcribed: an ``S`` line opens a
    sentence, ``A`` lines join the open one, fields split on ``|||``."""
    sentences, source, edits = [], None, []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("S "):
            if source is not None:
                sentences.append(M2Sentence(source, tuple(edits)))
            source, edits = line[2:], []
        elif line.startswith("A "):
            fields = line[2:].split("|||")
            start, end = fields[0].split()
            annotator = int(fields[-1]) if len(fields) >= 6 else 0
            edits.append(Edit(int(start), int(end), fields[1], fields[2], annotator))
    sentences.append(M2Sentence(source, tuple(edits)))
    return sentences


def test_conll14_reads_as_before(shared_data):
    from conftest import CONLL_M2

    m2 = read_m2(CONLL_M2)
    before = legacy_read_m2(CONLL_M2)
    assert len(m2.sentences) == len(before) == 1312
    assert m2.sentences == before  # same sources and edits, in order
    assert sum(len(s.edits) for s in m2.sentences) == 5873  # `grep -c '^A '`
    for strict in (False, True):
        legacy_refs = [[s.reference(k, strict) for s in before] for k in range(2)]
        assert m2.references(strict) == legacy_refs
    # and as the official scorer's reader (an independent transcription) sees it
    sources, golds = m2_oracle.read_gold(CONLL_M2)
    assert m2.sources == sources
    for sentence, gold in zip(m2.sentences, golds, strict=True):
        ours = {a: [(e.start, e.end, list(e.corrections)) for e in edits]
                for a, edits in sentence.official_gold().items()}
        assert ours == {a: [(s, e, c) for s, e, _, c in edits] for a, edits in gold.items()}


def test_every_m2_file_in_shared_data_reads(shared_data):
    files = sorted(shared_data.rglob("*.m2"))
    assert files, "no M2 file found under the shared data"
    for path in files:
        text = path.read_text(encoding="utf-8")
        m2 = read_m2(path)
        assert len(m2.sentences) == sum(1 for line in text.split("\n") if line.startswith("S "))


def test_m2_reader_does_not_import_the_metric_layer():
    import subprocess
    import sys

    code = ("import sys, gecmetrics.m2_format; "
            "print(sorted(m for m in sys.modules if m.startswith(('gecmetrics.edits', "
            "'gecmetrics.metrics', 'gecmetrics.metric', 'numpy'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    # Only the edit types, whose package imports nothing.
    assert out.strip() == "['gecmetrics.edits', 'gecmetrics.edits.span']"
