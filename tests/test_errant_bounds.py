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
    SENTENCE_FACTOR,
    check_lengths,
    m2_corrections,
    parsed_texts,
)
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.m2_format import read_m2
from gecmetrics.metrics.errant import Errant
from gecmetrics.registry import metric_from_spec

SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))


@pytest.fixture
def no_spacy(monkeypatch):
    """Fail the test if ERRANT/spaCy would be loaded: the check must come first."""
    def refuse(model: str = "", lang: str = "en"):
        raise AssertionError("spaCy was loaded before the length check")

    monkeypatch.setattr(extraction, "load_annotator", refuse)


SRC = ("source line ", "")
HYP = ("hypothesis s line ", "")


def test_check_lengths_counts_whitespace_tokens_of_each_aligned_pair():
    at_limit = " ".join(["w"] * 5)
    spaced = "  ".join(["v"] * 5) + "   "  # extra spaces are not tokens
    check_lengths([(SRC, [at_limit, at_limit, "x" * 40]), (HYP, [spaced, at_limit, "y"])],
                  max_tokens=5)
    # A longer sentence against a shorter one: 2 x 11 tokens, a 3 x 12 matrix <= 6 x 6.
    check_lengths([(SRC, ["a b"]), (HYP, [" ".join(["w"] * 11)])], max_tokens=5)
    # The same tokens are not aligned at all, however long.
    long = " ".join(["w"] * 50)
    check_lengths([(SRC, [long]), (HYP, ["  " + long])], max_tokens=5)
    with pytest.raises(InputError) as err:
        check_lengths([(SRC, ["ok", at_limit]), (HYP, ["ok", at_limit + " w"])], max_tokens=5)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("ERRANT cannot align hypothesis s line 2 (6 tokens) with source "
                              "line 2 (5 tokens): more than errant:max_tokens=5 allows")
    # The estimate is 40 bytes per cell of a 6 x 7 alignment matrix: 1,680 bytes;
    # the smallest limit that takes the pair: 6 x 7 = 42 <= (6 + 1) ** 2.
    assert "about 2 KB" in message and "raise the limit with -m errant:max_tokens=6 " in message
    with pytest.raises(InputError, match=r"with source line 1 \(12 tokens\): more than "
                                         r"cleme:max_tokens=5 "):
        check_lengths([(SRC, [" ".join(["w"] * 12)]), (HYP, ["a b"])], max_tokens=5,
                      metric="cleme")


def test_check_lengths_bounds_each_sentence_of_an_aligned_pair():
    """Inside the pair bound, a sentence still may not exceed SENTENCE_FACTOR x
    max_tokens tokens: spaCy's parse of one long line is large (50,000 tokens
    against an empty hypothesis: 24 s, 1.1 GB)."""
    assert SENTENCE_FACTOR * MAX_TOKENS == 3000
    # max_tokens=20: matrices up to 21 x 21 = 441 cells, sentences up to 200 tokens.
    check_lengths([(SRC, [" ".join(["w"] * 200)]), (HYP, [""])], max_tokens=20)
    with pytest.raises(InputError) as err:
        check_lengths([(SRC, [" ".join(["w"] * 201)]), (HYP, [""])], max_tokens=20)
    assert str(err.value) == (
        f"ERRANT cannot take source line 1: 201 tokens, more than {SENTENCE_FACTOR} x "
        "errant:max_tokens=20 = 200 (spaCy's parse of one sentence needs about 20 KB a "
        "token); split the sentence, or raise the limit with -m errant:max_tokens=21 if time "
        "and memory allow")
    with pytest.raises(InputError, match=r"^ERRANT cannot take hypothesis s line 1: 201 "):
        check_lengths([(SRC, ["a"]), (HYP, [" ".join(["w"] * 201)])], max_tokens=20)
    # Over both bounds (3 x 401 cells > 441; 400 > 200): the value suggested takes the
    # pair on both counts (40 x 10 >= 400, where 35 x 35 >= 3 x 401 alone would not).
    with pytest.raises(InputError, match=r"raise the limit with -m errant:max_tokens=40 "):
        check_lengths([(SRC, ["a b"]), (HYP, [" ".join(["w"] * 400)])], max_tokens=20)


def test_check_lengths_characters_limit_is_spacys():
    assert MAX_CHARS == 1_000_000  # spaCy's default nlp.max_length
    one_token = "x" * (MAX_CHARS + 1)
    with pytest.raises(InputError, match=r"hypothesis s line 1: 1,000,001 characters"):
        check_lengths([(SRC, ["a"]), (HYP, [one_token])], max_tokens=MAX_TOKENS)
    with pytest.raises(InputError, match=r"source line 1: 1,000,001 characters"):
        check_lengths([(SRC, [one_token]), (HYP, [one_token])], max_tokens=MAX_TOKENS)
    check_lengths([(SRC, ["a"]), (HYP, ["x" * MAX_CHARS])], max_tokens=MAX_TOKENS)


@pytest.mark.errant
def test_every_parsed_text_is_checked_before_spacy_loads(no_spacy):
    long = " ".join(["w"] * 8)
    other = " ".join(["v"] * 7)
    base = dict(sources=["a b", other], refs=[["a b", other], ["a b", other]],
                hyps={"sysA": ["a b", other], "sysB": ["a b", other]})

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
        with pytest.raises(InputError) as err:  # an 8 x 9 matrix > 8 x 8
            Errant(max_tokens=7).evaluate(Corpus(src, refs, hyps))
        assert f"{place} line 2 (8 tokens)" in str(err.value)

    fails("source", "source")
    fails("reference", "reference 2")
    fails("hypothesis", "hypothesis sysB")


@pytest.mark.errant
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
    # A 4 x 10 alignment matrix: more than 6 x 6 (max_tokens=5), at most 7 x 7.
    with pytest.raises(InputError, match=r"sentence 1 of .*gold.m2 as corrected by annotator "
                                         r"1 \(9 tokens\) with source line 1 \(3 tokens\): "
                                         r"more than errant:max_tokens=5 "):
        Errant(max_tokens=5).evaluate(corpus)
    with pytest.raises(AssertionError, match="spaCy was loaded"):  # it passes: on to spaCy
        Errant(max_tokens=6).evaluate(corpus)


@pytest.mark.errant
def test_max_tokens_option():
    assert Errant().config.max_tokens == MAX_TOKENS == 300
    assert metric_from_spec("errant:max_tokens=5000").config.max_tokens == 5000
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ConfigError, match="max_tokens"):
            Errant(max_tokens=bad)


@pytest.mark.errant
def test_raising_the_limit_scores_as_before(tmp_path, monkeypatch):
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path))
    sources = ["He go to school every days .", "This is fine ."]
    corpus = Corpus(sources, [["He goes to school every day .", "This is fine ."]],
                    {"s": ["He goes to school every days .", "This is fine !"]})
    with pytest.raises(InputError, match=r"with source line 1 \(7 tokens\)"):
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
@pytest.mark.errant
@pytest.mark.full  # over a second: the fast tier stays under 90 s
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


@pytest.mark.errant
def test_cli_token_limit_message(tmp_path):
    src = tmp_path / "src.txt"
    src.write_text("A short line .\n" + " ".join(["w"] * 100_000) + "\n")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("A short line .\n" + " ".join(["w"] * 99_999) + " v\n")
    res = _run_measured(["score", "-m", "errant", "-s", str(src), "-r", str(src),
                         "-c", str(hyp)])
    assert res["rc"] == 2, res
    assert res["stderr"].strip() == (
        f"error: ERRANT cannot align hypothesis {hyp} line 2 (100,000 tokens) with source "
        "line 2 (100,000 tokens): more than errant:max_tokens=300 allows (two sentences of "
        "300 tokens, or a longer one against a shorter one); aligning this pair needs about "
        "400 GB of memory and time in proportion; split the sentence, or raise the limit "
        "with -m errant:max_tokens=100000 if time and memory allow")
    assert res["peak_kib"] < 400_000, res["peak_kib"]
