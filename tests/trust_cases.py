"""The bad-input sweep: what a user can get wrong, and what they see for it.

Each :class:`Case` is one command line run the way a user runs it (the console
script, in a folder holding the files of :func:`make_files`), with what it
must end in: an exit code and, for a refusal, one ``error: ...`` line naming
the words of ``words``. The table is the single list of cases:
``tests/test_trust_sweep.py`` runs it (bounded in time and memory) and
``docs/generate/make_trust.py`` renders it, with what each case printed, as
docs/trust.md; the test also checks that the page shows exactly what the
command prints today, so the page cannot drift from the behaviour.

Paths in the commands are relative to the case folder; ``DATA`` stands for
the evaluation data folder (cases with ``data=True`` are skipped without it).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))

#: every case ends within this many seconds and this much resident memory
LIMIT_S = 60.0
LIMIT_MB = 1024

_SOURCE = (EXAMPLE / "source.txt").read_text(encoding="utf-8")
_SOURCE_TOKENS = [line.split() for line in _SOURCE.splitlines()]


def _m2(*blocks: str) -> str:
    return "\n\n".join(blocks) + "\n"


def _s(i: int) -> str:
    return "S " + " ".join(_SOURCE_TOKENS[i])


GOOD_M2 = _m2(f"{_s(0)}\nA 1 2|||Vt|||goes|||REQUIRED|||-NONE-|||0",
              f"{_s(1)}\nA 1 2|||Vt|||have|||REQUIRED|||-NONE-|||0",
              f"{_s(2)}\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0")


CONLL14_SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU",
                   "UFC", "UMC", "INPUT")


def _all(score: float) -> dict[str, float]:
    return {name: score for name in CONLL14_SYSTEMS}


def make_files(folder: Path) -> None:
    """The files the cases name: the shipped example, and one bad file per fault."""
    for path in EXAMPLE.glob("*.txt"):
        (folder / path.name).write_bytes(path.read_bytes())
    lines = _SOURCE.splitlines()
    files: dict[str, bytes] = {
        "short.txt": ("\n".join(lines[:2]) + "\n").encode(),
        "empty.txt": b"",
        "latin1.txt": _SOURCE.replace("She", "Caf\u00e9").encode("latin-1"),
        "utf16.txt": _SOURCE.encode("utf-16"),
        "oldmac.txt": _SOURCE.replace("\n", "\r").encode(),
        "binary.bin": b"\x00\x01\x02GEC\x00" * 64,
        "good.m2": GOOD_M2.encode(),
        "two_blocks.m2": GOOD_M2.split("\n\n", 2)[0].encode() + b"\n\n"
        + GOOD_M2.split("\n\n", 2)[1].encode(),
        "truncated.m2": _m2(f"{_s(0)}\nA 1 2|||Vt|||goes|||REQUIRED").encode(),
        "offsets.m2": _m2(f"{_s(0)}\nA 5 99|||Vt|||goes|||REQUIRED|||-NONE-|||0").encode(),
        "annotator_text.m2": _m2(f"{_s(0)}\nA 1 2|||Vt|||goes|||REQUIRED|||-NONE-|||ann").encode(),
        "huge_annotator.m2": GOOD_M2.replace("|||0\n", "|||99999999999999999999\n").encode(),
        "orphan.m2": b"A 1 2|||Vt|||goes|||REQUIRED|||-NONE-|||0\n",
        "empty.m2": b"",
        "overlap.m2": _m2(f"{_s(0)}\nA 1 2|||Vt|||goes|||REQUIRED|||-NONE-|||0\n"
                          f"A 1 3|||Vt|||goes to|||REQUIRED|||-NONE-|||0",
                          f"{_s(1)}\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0",
                          f"{_s(2)}\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0").encode(),
        "scores_text.json": json.dumps({**_all(0.5), "AMU": "0.5"}).encode(),
        "scores_nan.json": b'{"AMU": NaN}',
        "scores_broken.json": b'{"AMU": 0.5,',
        "scores_huge.json": json.dumps({name: (-1) ** i * 1.7e308 for i, name in
                                        enumerate(CONLL14_SYSTEMS)}).encode(),
        "scores_ok.json": json.dumps({name: i / 20 for i, name in
                                      enumerate(CONLL14_SYSTEMS)}).encode(),
        "long_source.txt": (" ".join(["word"] * 10_000) + "\n").encode(),
        "long.m2": _m2("S " + " ".join(["word"] * 10_000)
                       + "\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0").encode(),
        "long_rewrite.txt": (" ".join(["other"] * 10_000) + "\n").encode(),
        # Unicode: a reference in NFC, a hypothesis in NFD (combining accents); no-break
        # spaces, right-to-left text and zero-width joiners (docs/tokenizers.md)
        "accents_src.txt": b"Eva a lu le cafe .\nIl fait beau .\n",
        "accents_ref.txt": "\u00c9va a lu le caf\u00e9 .\nIl fait beau .\n".encode(),
        "accents_nfd.txt": "E\u0301va a lu le cafe\u0301 .\nIl fait beau .\n".encode(),
        "unicode_hyp.txt": ("She\xa0goes\xa0to school every day .\n"
                            "\u05d0\u05e0\u05d9 \u05d0\u05d5\u05d4\u05d1 .\n"
                            "\u0646\u200d\u0635 weather is nice today .\n").encode(),
    }
    files.update({  # issue 33: files in and out (their own copies: a case that wrote its
        # output over its input would not change a file that other cases read)
        "clob.txt": _SOURCE.encode(), "clob.m2": GOOD_M2.encode(),
        "clob.html": (EXAMPLE / "system_a.txt").read_bytes(),
        "mine.json": files["scores_ok.json"],
        "deep.json": b"[" * 100_000 + b"]" * 100_000,
    })
    for name, data in files.items():
        (folder / name).write_bytes(data)
    (folder / "folder").mkdir()


@dataclass(frozen=True)
class Case:
    """One command line and what it must end in.

    ``stdin``/``stdout`` name a file (in the case folder, or a device such as
    /dev/zero) to connect; ``stdin`` ``yes:LINE`` feeds LINE without end, as
    ``yes LINE |`` does. An argument ``<(cat FILE)`` is a pipe that carries FILE,
    as bash's process substitution passes it (``/dev/fd/N``). ``words`` must
    appear in the one error line (or, for exit code 0, on stdout).
    """

    name: str
    tried: str
    argv: tuple[str, ...]
    words: tuple[str, ...] = ()
    code: int = 2
    stdin: str | None = None
    stdout: str | None = None
    data: bool = False
    needs: str | None = None  # an optional module the case needs ("errant")


SCORE = ("score", "-s", "source.txt", "-r", "ref0.txt", "ref1.txt", "-c", "system_a.txt")
SCORE_M2 = ("score", "-m", "m2", "-s", "source.txt", "--m2", "good.m2", "-c", "system_a.txt")


def _score_with(**swap: str) -> tuple[str, ...]:
    flags = {"-s": "source.txt", "-r": "ref0.txt", "-c": "system_a.txt", **swap}
    return ("score", *(part for flag, value in flags.items() for part in (flag, value)))


def _hyp(path: str) -> tuple[str, ...]:
    return _score_with(**{"-c": path})


CASES: tuple[Case, ...] = (
    # --- score: metrics and options ----------------------------------------------
    Case("unknown-metric", "a metric that does not exist", (*SCORE, "-m", "nosuch"),
         ("nosuch",)),
    Case("metric-bad-key", "an option the metric does not have", (*SCORE, "-m", "green:x=1"),
         ("x",)),
    Case("metric-bad-value", "an option value of the wrong type",
         (*SCORE, "-m", "green:n=abc"), ("n",)),
    Case("green-n-zero", "an n-gram order of 0", (*SCORE, "-m", "green:n=0"), ("n",)),
    Case("green-n-huge", "an n-gram order of 10^8", (*SCORE, "-m", "green:n=100000000"),
         ("n",)),
    Case("chrf-order-huge", "a chrF character order of 10^8",
         (*SCORE, "-m", "chrf:char_order=100000000"), ("char_order",)),
    Case("beta-zero", "beta 0 (F is precision)", (*SCORE, "-b", "0", "--format", "json"),
         ('"score"',), code=0),
    Case("beta-negative", "a negative beta", (*SCORE, "-b", "-1"), ("beta",)),
    Case("beta-nan", "beta NaN", (*SCORE, "-b", "nan"), ("finite",)),
    Case("beta-huge", "beta 1e155", (*SCORE, "-b", "1e155"), ("1e+100",)),
    Case("level-unknown", "an unknown --level", (*SCORE, "--level", "paragraph"),
         ("--level",)),
    Case("format-unknown", "an unknown --format", (*SCORE, "--format", "xml"), ("--format",)),
    Case("digits-huge", "100 decimal places", (*SCORE, "-d", "100"), ("--digits",)),
    Case("jobs-zero", "--jobs 0", (*SCORE, "-j", "0"), ("--jobs",)),
    Case("jobs-huge", "--jobs 1000 on a 3-line file (scores as with -j 1)",
         (*SCORE, "-j", "1000", "--format", "json"), ('"score"',), code=0),
    Case("chunk-negative", "a negative --chunk-size", (*SCORE, "--chunk-size", "-1"),
         ("--chunk-size",)),
    Case("paired-zero", "a paired bootstrap with 0 resamples",
         (*SCORE, "-c", "system_b.txt", "--paired-bootstrap", "0"), ("--paired-bootstrap",)),
    Case("paired-one-system", "a paired test with one system",
         (*SCORE, "--paired-bootstrap", "100"), ("--paired-bootstrap",)),
    Case("breakdown-no-edits", "--breakdown with a metric that has no edits",
         (*SCORE, "--breakdown", "annotator"), ("--breakdown",)),
    # --- score: files -----------------------------------------------------------------
    Case("source-missing", "a source file that does not exist",
         _score_with(**{"-s": "nosuch.txt"}), ("nosuch.txt",)),
    Case("source-folder", "a folder as the source", _score_with(**{"-s": "folder"}),
         ("folder",)),
    Case("hyp-short", "a system output one line short", _hyp("short.txt"),
         ("short.txt", "2 lines")),
    Case("hyp-empty", "an empty system output", _hyp("empty.txt"), ("empty.txt",)),
    Case("hyp-latin1", "a Latin-1 file", _hyp("latin1.txt"), ("latin1.txt", "UTF-8")),
    Case("hyp-utf16", "a UTF-16 file", _hyp("utf16.txt"), ("utf16.txt", "UTF-16")),
    Case("hyp-oldmac", "old Mac (CR) line ends", _hyp("oldmac.txt"), ("oldmac.txt",)),
    Case("hyp-binary", "a binary file", _hyp("binary.bin"), ("binary.bin",)),
    Case("stdin-twice", "standard input for two files",
         _score_with(**{"-s": "-", "-c": "-"}), ("-s/--source", "-c/--hypothesis")),
    Case("stdin-empty", "empty standard input", _score_with(**{"-s": "-"}),
         ("standard input",), stdin="/dev/null"),
    Case("stdin-endless", "endless standard input without a newline (/dev/zero)",
         _score_with(**{"-s": "-"}), ("standard input",), stdin="/dev/zero"),
    Case("no-reference", "no -r and no --m2",
         ("score", "-s", "source.txt", "-c", "system_a.txt"), ("-r/--reference",)),
    Case("no-hypothesis", "no -c", ("score", "-s", "source.txt", "-r", "ref0.txt"),
         ("-c/--hypothesis",)),
    Case("hyp-twice", "the same system output twice",
         (*SCORE, "system_a.txt"), ("system_a.txt", "twice")),
    Case("stdout-full", "stdout on a full disk (> /dev/full)", SCORE, ("output",),
         stdout="/dev/full"),
    Case("long-sentence-m2", "M2 on one 10,000-token sentence rewritten throughout",
         ("score", "-m", "m2", "-s", "long_source.txt", "--m2", "long.m2",
          "-c", "long_rewrite.txt"), ("1",)),
    Case("long-sentence-errant", "ERRANT on one 10,000-token sentence",
         ("score", "-m", "errant", "-s", "long_source.txt", "-r", "long_source.txt",
          "-c", "long_rewrite.txt"), ("max_tokens",), needs="errant"),
    # --- score: M2 files ---------------------------------------------------------------
    Case("m2-truncated", "an M2 edit line cut short", SCORE_M2[:6] + ("truncated.m2",)
         + SCORE_M2[7:], ("truncated.m2:2",)),
    Case("m2-offsets", "M2 offsets beyond the sentence",
         SCORE_M2[:6] + ("offsets.m2",) + SCORE_M2[7:], ("offsets.m2:2",)),
    Case("m2-annotator-text", "an annotator id that is not a number",
         SCORE_M2[:6] + ("annotator_text.m2",) + SCORE_M2[7:], ("annotator_text.m2",)),
    Case("m2-annotator-huge", "annotator id 99999999999999999999 (scored as any other id)",
         SCORE_M2[:6] + ("huge_annotator.m2",) + SCORE_M2[7:] + ("--format", "json"),
         ('"score"',), code=0),
    Case("m2-orphan", "an A line without its S line",
         SCORE_M2[:6] + ("orphan.m2",) + SCORE_M2[7:], ("orphan.m2:1",)),
    Case("m2-empty", "an empty M2 file", SCORE_M2[:6] + ("empty.m2",) + SCORE_M2[7:],
         ("empty.m2",)),
    Case("m2-too-few", "an M2 file with fewer sentences than the source",
         SCORE_M2[:6] + ("two_blocks.m2",) + SCORE_M2[7:], ("two_blocks.m2",)),
    # --- m2-to-text ---------------------------------------------------------------------
    Case("m2text-overlap", "overlapping edits by one annotator",
         ("m2-to-text", "overlap.m2", "--annotator", "0"), ("overlap.m2", "overlap")),
    Case("m2text-absent-annotator", "an annotator the file does not have",
         ("m2-to-text", "good.m2", "--annotator", "7"), ("7",)),
    Case("m2text-no-mode", "neither --source nor --annotator", ("m2-to-text", "good.m2"),
         ("--annotator",)),
    Case("m2text-out-folder", "an output file in a folder that does not exist",
         ("m2-to-text", "good.m2", "--source", "-o", "nodir/out.txt"), ("nodir",)),
    # --- meta-eval ----------------------------------------------------------------------
    Case("meta-unknown-benchmark", "a benchmark that does not exist",
         ("meta-eval", "nosuch", "-m", "green"), ("nosuch",)),
    Case("meta-no-metric", "no -m and no --scores", ("meta-eval", "conll14"), ("-m",)),
    Case("meta-grid-reversed", "a beta grid that runs backwards",
         ("meta-eval", "conll14", "-m", "green", "--sweep-beta", "5:0:0.1"),
         ("--sweep-beta",)),
    Case("meta-grid-garbage", "a beta grid that is not numbers",
         ("meta-eval", "conll14", "-m", "green", "--sweep-beta", "a:b:c"), ("--sweep-beta",)),
    Case("meta-grid-huge", "a beta grid of 5 billion points",
         ("meta-eval", "conll14", "-m", "green", "--sweep-beta", "0:5:1e-9"),
         ("--sweep-beta",)),
    Case("meta-bootstrap-few", "5 bootstrap resamples",
         ("meta-eval", "conll14", "-m", "green", "--bootstrap", "5"), ("--bootstrap",)),
    Case("meta-cv-one", "1-fold cross-validation",
         ("meta-eval", "conll14", "-m", "green", "--cv-beta", "1"), ("--cv-beta",)),
    Case("meta-seed-negative", "a negative seed",
         ("meta-eval", "conll14", "-m", "green", "--bootstrap", "100", "--seed", "-1"),
         ("--seed",)),
    Case("meta-plot-format", "a figure format that is not PNG, SVG or PDF",
         ("meta-eval", "conll14", "-m", "green", "--plot", "sweep.gif"), ("gif",)),
    Case("meta-references-unknown", "an unknown reference set",
         ("meta-eval", "conll14", "-m", "green", "--references", "nosuch"), ("nosuch",)),
    Case("meta-no-data", "a data folder without the benchmark",
         ("meta-eval", "conll14", "-m", "green", "--data-dir", "folder"),
         ("gecmetrics download",)),
    Case("scores-missing", "a --scores file that does not exist",
         ("meta-eval", "conll14", "--scores", "mine=nosuch.json", "--data-dir", "DATA"),
         ("nosuch.json",), data=True),
    Case("scores-broken", "a --scores file that is not valid JSON",
         ("meta-eval", "conll14", "--scores", "mine=scores_broken.json", "--data-dir",
          "DATA"), ("scores_broken.json",), data=True),
    Case("scores-text", 'a score given as the string "0.5"',
         ("meta-eval", "conll14", "--scores", "mine=scores_text.json", "--data-dir", "DATA"),
         ("scores_text.json", "AMU"), data=True),
    Case("scores-nan", "a score NaN",
         ("meta-eval", "conll14", "--scores", "mine=scores_nan.json", "--data-dir", "DATA"),
         ("scores_nan.json", "AMU"), data=True),
    Case("scores-huge", "scores near 1e308",
         ("meta-eval", "conll14", "--scores", "mine=scores_huge.json", "--data-dir", "DATA"),
         ("scores_huge.json",), data=True),
    Case("scores-stdin", "--scores read from standard input (mine=-)",
         ("meta-eval", "conll14", "--scores", "mine=-", "--data-dir", "DATA"), ("mine",),
         code=0, stdin="scores_ok.json", data=True),
    # --- tokenizers and Unicode (docs/tokenizers.md) ----------------------------------
    Case("tokenize-unknown", "a tokenizer that does not exist",
         (*SCORE, "-m", "green:tokenize=xx"), ("tokenize", "zh-char")),
    Case("normalize-unknown", "a Unicode normal form that does not exist",
         (*SCORE, "-m", "gleu:normalize=nfx"), ("normalize", "nfc")),
    Case("nfd-hypothesis", "a hypothesis in NFD (combining accents), its reference in NFC",
         ("score", "-s", "accents_src.txt", "-r", "accents_ref.txt", "-c", "accents_nfd.txt",
          "--format", "json"), ('"score"',), code=0),
    Case("nfd-hypothesis-nfc", "the same, with normalize=nfc (no note)",
         ("score", "-m", "green:normalize=nfc", "-s", "accents_src.txt", "-r",
          "accents_ref.txt", "-c", "accents_nfd.txt", "--format", "json"), ('"score"',),
         code=0),
    Case("unicode-hypothesis", "no-break spaces, right-to-left text, a zero-width joiner",
         _hyp("unicode_hyp.txt") + ("--format", "json"), ('"score"',), code=0),
    # --- download and the rest ------------------------------------------------------------
    Case("download-unknown", "a benchmark name download does not know",
         ("download", "nosuch", "--data-dir", "folder"), ("nosuch",)),
    Case("download-timeout-nan", "--timeout nan",
         ("download", "conll14", "--timeout", "nan", "--data-dir", "folder"), ("--timeout",)),
    Case("download-stall-inf", "--stall-timeout inf",
         ("download", "conll14", "--stall-timeout", "inf", "--data-dir", "folder"),
         ("--stall-timeout",)),
    Case("download-dir-is-file", "a data folder path that runs through a file",
         ("download", "conll14", "--data-dir", "source.txt/data"), ("source.txt",)),
    Case("unknown-command", "a misspelt command", ("scor",), ("scor",)),
    Case("list-extra-argument", "an argument list does not take", ("list", "green"),
         ("green",)),
    # --- issue 33: files in and out -------------------------------------------------------
    Case("out-is-source", "m2-from-text -o names its own source",
         ("m2-from-text", "-s", "clob.txt", "-r", "ref0.txt", "-o", "clob.txt"),
         ("-o/--output", "-s/--source", "clob.txt")),
    Case("out-is-reference-spelt-otherwise", "m2-from-text -o ./X where X is a reference",
         ("m2-from-text", "-s", "source.txt", "-r", "clob.txt", "-o", "./clob.txt"),
         ("-o/--output", "-r/--reference")),
    Case("out-is-m2-input", "m2-to-text -o names the M2 file it reads",
         ("m2-to-text", "clob.m2", "--source", "-o", "clob.m2"), ("-o/--output", "clob.m2")),
    Case("out-is-hypothesis", "report -o names a system output it reads",
         ("report", "-s", "source.txt", "-r", "ref0.txt", "-c", "clob.html", "-o",
          "clob.html"), ("-o/--output", "-c/--hypothesis")),
    Case("out-is-scores", "meta-eval --save-run names the --scores file",
         ("meta-eval", "conll14", "--scores", "mine=mine.json", "--save-run", "mine.json"),
         ("--save-run", "--scores")),
    Case("out-twice", "meta-eval --plot and --html name one file",
         ("meta-eval", "conll14", "-m", "green", "--plot", "fig.svg", "--html", "fig.svg"),
         ("--plot", "--html")),
    Case("stdin-endless-lines", "endless valid lines as the hypothesis (3 source lines)",
         ("score", "-s", "source.txt", "-r", "ref0.txt", "-c", "-"),
         ("standard input", "more than 3 lines"), stdin="yes:She goes ."),
    Case("stdin-endless-source", "endless valid lines as the source",
         ("score", "-s", "-", "-r", "ref0.txt", "-c", "system_a.txt"),
         ("source from standard input", "more than 3 lines"), stdin="yes:She goes ."),
    Case("stdin-endless-attribute", "endless lines as attribute's hypothesis",
         ("attribute", "-s", "source.txt", "-r", "ref0.txt", "-c", "-"),
         ("more than 3 lines",), stdin="yes:She goes ."),
    Case("stdin-endless-report", "endless lines as report's hypothesis",
         ("report", "-s", "source.txt", "-r", "ref0.txt", "-c", "-", "-o", "endless.html"),
         ("more than 3 lines",), stdin="yes:She goes ."),
    Case("stdin-endless-m2-from-text", "endless lines as m2-from-text's reference",
         ("m2-from-text", "-s", "source.txt", "-r", "-"), ("more than 3 lines",),
         stdin="yes:She goes ."),
    Case("stdin-endless-m2", "endless lines that are not M2 to m2-to-text",
         ("m2-to-text", "-", "--source"), ("standard input:1",), stdin="yes:She goes ."),
    Case("stdin-endless-scores", "endless lines as --scores -",
         ("meta-eval", "conll14", "--scores", "mine=-"), ("standard input:1",),
         stdin="yes:She goes ."),
    Case("stdin-endless-multigec", "endless lines as a multigec hypothesis",
         ("multigec", "-s", "source.txt", "-r", "ref0.txt", "-c", "-", "--lang", "en",
          "--tokenize", "whitespace", "--edits", "none"), ("more than 3 lines",),
         stdin="yes:She goes ."),
    Case("stdin-endless-binary", "endless binary lines (a NUL byte in each)",
         ("score", "-s", "source.txt", "-r", "ref0.txt", "-c", "-"),
         ("standard input", "NUL"), stdin="yes:She\x00goes ."),
    Case("pipe-every-input", "every input a pipe (bash's <(zcat ...))",
         ("score", "-s", "<(cat source.txt)", "-r", "<(cat ref0.txt)", "-c",
          "<(cat system_a.txt)", "--format", "json"), ('"score"',), code=0),
    Case("pipe-m2-from-text", "m2-from-text from pipes",
         ("m2-from-text", "-s", "<(cat source.txt)", "-r", "<(cat ref0.txt)"), ("S ",),
         code=0),
    Case("pipe-multigec", "multigec from pipes",
         ("multigec", "-s", "<(cat source.txt)", "-r", "<(cat ref0.txt)", "-c",
          "<(cat system_a.txt)", "--lang", "en", "--tokenize", "whitespace", "--edits",
          "none"), ("GLEU",), code=0),
    Case("deep-json-scores", "a --scores JSON nested 100,000 levels deep",
         ("meta-eval", "conll14", "--scores", "mine=deep.json"), ("deep.json", "nested")),
    Case("deep-json-run", "a --run file nested 100,000 levels deep",
         ("meta-eval", "--run", "deep.json"), ("--run deep.json", "nested")),
)


@dataclass(frozen=True)
class Outcome:
    """What a case did: exit code, the stderr lines, stdout, seconds, peak MB."""

    code: int
    stderr: list[str]
    stdout: str
    seconds: float
    peak_mb: float

    @property
    def shown(self) -> str:
        """What the user sees of it: the error line; on success, that there are results,
        and any notes on stderr."""
        if self.code == 0:
            shown = "(the results)" if self.stdout else "(nothing)"
            return " / ".join([shown, *self.stderr])
        return self.stderr[0] if len(self.stderr) == 1 else " / ".join(self.stderr)


MEASURE = str(Path(__file__).with_name("trust_measure.py"))


def run_case(case: Case, folder: Path, data: Path | None) -> Outcome:
    """Run ``case`` in ``folder`` (made by :func:`make_files`), bounded by the limits."""
    argv = [str(data) if part == "DATA" and data is not None else part for part in case.argv]
    env = {**os.environ, "COLUMNS": "100", "GECMETRICS_DATA": str(folder / "no-data")}
    env.pop("GECMETRICS_MIRROR", None)
    endless = case.stdin[len(YES):] if case.stdin and case.stdin.startswith(YES) else None
    stdin = subprocess.PIPE if endless is not None else open(  # noqa: SIM115
        folder / case.stdin if case.stdin else os.devnull, "rb")
    argv, pipes = _substituted(argv, folder)
    cap = 4 * LIMIT_MB * 1024 * 1024  # address space: four times the resident limit
    with _closing(stdin), tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryDirectory() as scratch:
        target = open(folder / case.stdout, "wb") if case.stdout else out  # noqa: SIM115
        measured = Path(scratch) / "measured"
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-I", "-S", MEASURE, str(measured), str(cap),
                                 SCRIPT, *argv], cwd=folder, env=env, stdin=stdin,
                                stdout=target, stderr=err, start_new_session=True,
                                pass_fds=list(pipes))
        feeders = [_feed(open(write, "wb"), data)  # noqa: SIM115 (the thread closes it)
                   for write, data in pipes.values()]
        for read in pipes:
            os.close(read)
        if endless is not None:
            feeders.append(_feed(proc.stdin, (endless + "\n").encode(), endless=True))
        timer = threading.Timer(LIMIT_S, lambda: os.killpg(proc.pid, signal.SIGKILL))
        timer.start()
        try:
            proc.wait()
        finally:
            timer.cancel()
            for feeder in feeders:
                feeder.join()
        code, peak_kb = (int(part) for part in measured.read_text().split()) \
            if measured.exists() else (proc.returncode, 0)
        seconds = time.perf_counter() - start
        if target is not out:
            target.close()
        out.seek(0)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
        if data is not None:
            stderr = stderr.replace(str(data), "DATA")
        stderr = _machine_neutral(stderr)
        return Outcome(code, stderr.splitlines(), out.read().decode("utf-8", "replace"),
                       seconds, peak_kb / 1024)


#: ``Case.stdin`` that feeds a line without end: ``yes:She goes .``.
YES = "yes:"


def _closing(stdin: Any) -> Any:
    """A context for ``stdin``: the file opened for it, or nothing to close (a pipe)."""
    return contextlib.nullcontext() if stdin == subprocess.PIPE else stdin


def _substituted(argv: list[str], folder: Path) -> tuple[list[str], dict[int, tuple[int, bytes]]]:
    """``argv`` with each ``<(cat FILE)`` replaced by ``/dev/fd/N``, the read end of a
    pipe that will carry FILE; the pipes: read end -> (write end, FILE's bytes)."""
    pipes: dict[int, tuple[int, bytes]] = {}
    out = []
    for part in argv:
        match = re.fullmatch(r"<\(cat (\S+)\)", part)
        if match is None:
            out.append(part)
            continue
        read, write = os.pipe()
        pipes[read] = (write, (folder / match.group(1)).read_bytes())
        out.append(f"/dev/fd/{read}")
    return out, pipes


def _feed(handle: Any, data: bytes, endless: bool = False) -> threading.Thread:
    """A thread that writes ``data`` (again and again if ``endless``) to the binary file
    ``handle`` until the reader goes, then closes it."""
    def run() -> None:
        chunk = data * max(1, (1 << 16) // len(data)) if endless else data
        try:
            handle.write(chunk)
            while endless:
                handle.write(chunk)
        except (OSError, ValueError):  # the reader has gone (EPIPE)
            pass
        finally:
            with contextlib.suppress(OSError):
                handle.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _machine_neutral(stderr: str) -> str:
    """The --jobs note names this machine's cores; the page shows N for any machine."""
    cores = len(os.sched_getaffinity(0))
    return re.sub(rf"(?<=the ){cores} cores?(.*at most ){cores}\b", r"N cores\1N", stderr)


def markdown_row(case: Case, outcome: Outcome) -> str:
    """The row of docs/trust.md for a case (what was tried, the command, what it printed)."""
    command = "gecmetrics " + " ".join(case.argv)
    if case.stdin and case.stdin.startswith(YES):
        line = case.stdin[len(YES):]
        shown = (f"'{line}'" if line.isprintable() else
                 "$'" + "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in line) + "'")
        command = f"yes {shown} | {command}"
    elif case.stdin:
        command += f" < {case.stdin}"
    if case.stdout:
        command += f" > {case.stdout}"
    return (f"| {case.name} | {case.tried} | {_code(command)} | {_code(outcome.shown)} "
            f"| {outcome.code} |")


def _code(text: str) -> str:
    text = text.replace("|", "\\|")
    return f"`` {text} ``" if "`" in text else f"`{text}`"
