"""ERRANT's sentence-length bound: a too long line is a one-line InputError
raised before spaCy is loaded, so the failing run is quick and small.

ERRANT's alignment keeps two (source x other tokens) Python matrices; without
the bound one 5 MB line ran into a MemoryError traceback after minutes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import gecmetrics.edits.extraction as extraction
from gecmetrics.corpus import Corpus
from gecmetrics.edits.extraction import (
    MAX_CHARS,
    MAX_TOKENS,
    check_lengths,
    m2_corrections,
    parsed_texts,
)
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.m2 import read_m2
from gecmetrics.metrics.errant import Errant
from gecmetrics.registry import metric_from_spec

SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))


@pytest.fixture
def no_spacy(monkeypatch):
    """Fail the test if ERRANT/spaCy would be loaded: the check must come first."""
    def refuse(model: str = ""):
        raise AssertionError("spaCy was loaded before the length check")

    monkeypatch.setattr(extraction, "load_annotator", refuse)


def test_check_lengths_counts_whitespace_tokens_against_the_limit():
    at_limit = " ".join(["w"] * 5)
    spaced = "  ".join(["w"] * 5) + "   "  # extra spaces are not tokens
    check_lengths([(("source line ", ""), [at_limit, spaced, "x" * 40])], max_tokens=5)
    with pytest.raises(InputError) as err:
        check_lengths([(("source line ", ""), ["ok", at_limit + " w"])], max_tokens=5)
    message = str(err.value)
    assert "\n" not in message
    assert "source line 2: 6 tokens" in message and "errant:max_tokens=5" in message
    # The estimate is 40 bytes per cell of a 7 x 7 alignment matrix: 1,960 bytes.
    assert "about 2 KB" in message


def test_check_lengths_characters_limit_is_spacys():
    assert MAX_CHARS == 1_000_000  # spaCy's default nlp.max_length
    one_token = "x" * (MAX_CHARS + 1)
    with pytest.raises(InputError, match=r"hypothesis s line 1: 1,000,001 characters"):
        check_lengths([(("hypothesis s line ", ""), [one_token])], max_tokens=MAX_TOKENS)
    check_lengths([(("hypothesis s line ", ""), ["x" * MAX_CHARS])], max_tokens=MAX_TOKENS)


def test_every_parsed_text_is_checked_before_spacy_loads(no_spacy):
    long = " ".join(["w"] * 8)
    base = dict(sources=["a b", "c d"], refs=[["a b", "c d"], ["a b", "c d"]],
                hyps={"sysA": ["a b", "c d"], "sysB": ["a b", "c d"]})

    def fails(where, place):
        src = list(base["sources"])
        refs = [list(r) for r in base["refs"]]
        hyps = {k: list(v) for k, v in base["hyps"].items()}
        if where == "source":
            src[1] = long
        elif where == "reference":
            refs[1][1] = long
        else:
            hyps["sysB"][1] = long
        with pytest.raises(InputError) as err:
            Errant(max_tokens=7).evaluate(Corpus(src, refs, hyps))
        assert f"{place} line 2: 8 tokens" in str(err.value)

    fails("source", "source")
    fails("reference", "reference 2")
    fails("hypothesis", "hypothesis sysB")


def test_m2_corrections_are_checked_too(tmp_path, no_spacy):
    # Annotator 1 inserts 6 tokens: its corrected sentence has 3 + 6 = 9 tokens,
    # while the source and the hypothesis have 3.
    m2 = tmp_path / "gold.m2"
    m2.write_text("S a b c\nA 1 1|||M:OTHER|||x x x x x x|||REQUIRED|||-NONE-|||1\n"
                  "A 0 1|||R:OTHER|||d|||REQUIRED|||-NONE-|||0\n\n"
                  "S e f\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n")
    gold = read_m2(str(m2))
    corpus = Corpus(gold.sources, gold.references(), {"s": gold.sources}, m2=gold)
    corrections = m2_corrections(corpus)
    assert corrections[0][1][0] == "a x x x x x x b c" and corrections[1] == {0: None}
    names = [where for where, _ in parsed_texts(corpus, corrections)]
    assert ("sentence ", f" of {m2} as corrected by annotator 1") in names
    with pytest.raises(InputError, match=r"sentence 1 of .*gold.m2 as corrected by annotator "
                                         r"1: 9 tokens, more than errant:max_tokens=8"):
        Errant(max_tokens=8).evaluate(corpus)
    with pytest.raises(AssertionError, match="spaCy was loaded"):  # 9 tokens pass: on to spaCy
        Errant(max_tokens=9).evaluate(corpus)


def test_max_tokens_option():
    assert Errant().config.max_tokens == MAX_TOKENS == 1000
    assert metric_from_spec("errant:max_tokens=5000").config.max_tokens == 5000
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ConfigError, match="max_tokens"):
            Errant(max_tokens=bad)


def test_raising_the_limit_scores_as_before(tmp_path, monkeypatch):
    pytest.importorskip("errant")
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path))
    sources = ["He go to school every days .", "This is fine ."]
    corpus = Corpus(sources, [["He goes to school every day .", "This is fine ."]],
                    {"s": ["He goes to school every days .", "This is fine !"]})
    with pytest.raises(InputError, match="source line 1: 7 tokens"):
        Errant(max_tokens=6).evaluate(corpus)
    limited = Errant(max_tokens=7).evaluate(corpus)[0]
    default = Errant().evaluate(corpus)[0]
    # Hand count: TP 1 (goes), FP 1 (!), FN 1 (day): P = R = 1/2, F0.5 = 1/2.
    assert (limited.details["TP"], limited.details["FP"], limited.details["FN"]) == (1, 1, 1)
    assert limited.score == default.score == 0.5


# The CLI on a generated 5 MB line, in a child process whose peak memory is
# measured by a parent that runs nothing else.
MEASURE = textwrap.dedent("""
    import json, resource, subprocess, sys
    run = subprocess.run(sys.argv[1:], capture_output=True, text=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    print(json.dumps({"rc": run.returncode, "stderr": run.stderr, "stdout": run.stdout,
                      "peak_kib": peak}))
""")


def _run_measured(args):
    out = subprocess.run([sys.executable, "-c", MEASURE, SCRIPT, *args],
                         capture_output=True, text=True, timeout=120)
    return json.loads(out.stdout)


@pytest.mark.parametrize("spaced", [True, False], ids=["words", "one-token"])
def test_cli_5mb_line_fails_fast_in_little_memory(tmp_path, spaced):
    unit = "word " if spaced else "wordy"
    line = (unit * 1_000_000).strip()  # 5 MB on one line
    src = tmp_path / "src.txt"
    src.write_text("A short line .\nAnother one .\n")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("A short line .\n" + line + "\n")
    res = _run_measured(["score", "-m", "errant", "-s", str(src), "-r", str(src),
                         "-c", str(hyp)])
    assert res["rc"] == 2, res
    lines = res["stderr"].strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res["stderr"]
    assert lines[0].startswith(f"error: ERRANT cannot take hypothesis {hyp} line 2: ")
    assert "characters, more than spaCy's limit of 1,000,000" in lines[0]
    # Python, numpy and the 5 MB file: far below what parsing would take (> 4 GB).
    assert res["peak_kib"] < 400_000, res["peak_kib"]


def test_cli_token_limit_message(tmp_path):
    src = tmp_path / "src.txt"
    src.write_text("A short line .\n" + " ".join(["w"] * 100_000) + "\n")
    res = _run_measured(["score", "-m", "errant", "-s", str(src), "-r", str(src),
                         "-c", str(src)])
    assert res["rc"] == 2, res
    assert res["stderr"].strip() == (
        "error: ERRANT cannot take source line 2: 100,000 tokens, more than "
        "errant:max_tokens=1,000 (aligning it with a sentence as long needs about 400 GB "
        "of memory); split it into sentences, or raise errant:max_tokens if memory and "
        "time allow")
    assert res["peak_kib"] < 400_000, res["peak_kib"]
