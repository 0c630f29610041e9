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
import dataclasses
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
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


def make_files(folder: Path, data: Path | None = None) -> None:
    """The files the cases name: the shipped example, one bad file per fault, the
    file matrix's files (with copies from the evaluation ``data``, when given); and
    all of them clean in :data:`TWIN`."""
    _write_files(folder, False, data)
    _write_files(folder / TWIN, True, data)


def _write_files(folder: Path, clean: bool, shared: Path | None) -> None:
    folder.mkdir(exist_ok=True)
    for path in EXAMPLE.glob("*.txt"):
        (folder / path.name).write_bytes(path.read_bytes())
    lines = _SOURCE.splitlines()
    files: dict[str, bytes] = {
        "short.txt": ("\n".join(lines[:2]) + "\n").encode(),
        "empty.txt": b"",
        "blank3.txt": b"\n\n\n",
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
        # attribution: lines as read with trailing and repeated spaces; a sentence of
        # 125 edits (every other token replaced)
        "spaced_src.txt": "".join(line.replace(" ", "  ", 1) + "  \n"
                                  for line in lines).encode(),
        "many_src.txt": (" ".join(["word"] * 250) + "\n").encode(),
        "many_hyp.txt": (" ".join(["word", "other"] * 125) + "\n").encode(),
    }
    files.update({  # issue 33: files in and out (their own copies: a case that wrote its
        # output over its input would not change a file that other cases read)
        "clob.txt": _SOURCE.encode(), "clob.m2": GOOD_M2.encode(),
        "clob.html": (EXAMPLE / "system_a.txt").read_bytes(),
        "mine.json": files["scores_ok.json"],
        "deep.json": b"[" * 100_000 + b"]" * 100_000,
    })
    essays = "### essay_id = 1\nShe go to school .\nIt rain .\n\n### essay_id = 2\nI has a cat .\n"
    files.update({  # issue 33: commands
        "a_copy.txt": (EXAMPLE / "system_a.txt").read_bytes(),
        "pipes_ref.txt": _SOURCE.replace("school", "school|||x", 1).encode(),
        "pipe_end_ref.txt": _SOURCE.replace("school", "school|||", 1).encode(),
        "pipe_end.m2": _m2(f"{_s(0)}\nA 1 1|||M|||x||||REQUIRED|||-NONE-|||0").encode(),
        "essays.md": essays.encode(),
        "essays_ref.md": essays.replace("She go", "She goes").replace("I has", "I have")
        .encode(),
        "scores_const.json": json.dumps(_all(0.5)).encode(),
    })
    files.update(_issue33_kernel_files())
    files.update(_issue32_jobs_files())
    for name, data in {**files, **MATRIX_FILES}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    (folder / "folder").mkdir()
    _write_matrix_files(folder, clean, shared)


def _issue33_kernel_files() -> dict[str, bytes]:
    """A 3,000-token pair rewritten throughout (its language-neutral alignment takes
    tens of seconds), one 0.75 MB line per external tokenizer, and 200 different
    Korean lines of 30 KB (Kiwi takes about a second for each)."""
    rng = random.Random(33)
    words = [f"w{i}" for i in range(500)]
    pair = [" ".join(rng.choices(words, k=3000)) + "\n" for _ in range(2)]
    ko = "\ub098\ub294 \uc5b4\uc81c \ud559\uad50\uc5d0 \uac14\uc2b5\ub2c8\ub2e4. "
    ja = "\u79c1\u306f\u6628\u65e5\u5b66\u6821\u306b\u884c\u304d\u307e\u3057\u305f\u3002"
    zh = "\u6211\u6628\u5929\u53bb\u4e86\u5b66\u6821\u3002"
    ko_nospace = ko.replace(" ", "").replace(".", "")

    def long_line(base: str) -> bytes:
        return (base * (750_000 // len(base.encode()))).encode() + b"\n"

    ko_lines = "".join(f"{i} {ko_nospace * (30_000 // len(ko_nospace.encode()))}\n"
                       for i in range(200))
    return {"long_pair_src.txt": pair[0].encode(), "long_pair_ref.txt": pair[1].encode(),
            "ko_long.txt": long_line(ko), "ja_long.txt": long_line(ja),
            "zh_long.txt": long_line(zh), "ko_lines.txt": ko_lines.encode()}


def _issue32_jobs_files() -> dict[str, bytes]:
    """40,000 sentences of 60 words with one gold edit each, and an output that changes
    six words of each: about 9 s of M2 work for its ``-j`` workers on two idle cores
    (the signal cases below must find them still at work)."""
    rng = random.Random(32)
    words = [f"w{i}" for i in range(300)]
    sources, blocks, hyps = [], [], []
    for _ in range(40_000):
        src = rng.choices(words, k=60)
        sources.append(" ".join(src))
        blocks.append(f"S {' '.join(src)}\nA 3 4|||R:NOUN|||{rng.choice(words)}|||REQUIRED"
                      "|||-NONE-|||0")
        hyp = list(src)
        for i in rng.sample(range(60), 6):
            hyp[i] = rng.choice(words)
        hyps.append(" ".join(hyp))
    return {"jobs_src.txt": ("\n".join(sources) + "\n").encode(),
            "jobs_gold.m2": ("\n\n".join(blocks) + "\n").encode(),
            "jobs_hyp.txt": ("\n".join(hyps) + "\n").encode()}


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
    #: environment variables of the run (``DATA`` in a value stands for the data folder)
    env: tuple[tuple[str, str], ...] = ()
    #: the run must print exactly what the same command prints on the clean files
    #: (:data:`TWIN`: every file the case names, without its fault)
    same_as_clean: bool = False
    #: a signal ("INT", "TERM") sent to the command's process group this many
    #: seconds after it started, as a terminal's Ctrl-C would be: (name, seconds)
    interrupt: tuple[str, float] | None = None


# --- issue 33: every command x every file kind x every fault ---------------------------
# The file matrix: each input of each command that reads a file (:data:`INPUTS`: the
# command line with ``@`` for that file), given each fault of :data:`FAULTS`. A fault
# that keeps the text (a byte-order mark, CRLF, mixed LF and CRLF) must give exactly
# what the clean file gives (the same command run in :data:`TWIN`, where every file
# is clean); any other must be one line naming the file (and the line, where there is
# one). The faulty copies lie in a folder per fault (``nul/source.txt``).

#: The subfolder of the case folder holding every file clean, under the same names.
TWIN = "clean"

_ESSAY_IDS = ("e1", "e2")


def _essays(lines: list[str]) -> str:
    """Two MultiGEC essays: the first two sentences as paragraphs, then the third."""
    return (f"### essay_id = {_ESSAY_IDS[0]}\n{lines[0]}\n\n{lines[1]}\n\n"
            f"### essay_id = {_ESSAY_IDS[1]}\n{lines[2]}\n")


def _example(name: str) -> list[str]:
    return (EXAMPLE / name).read_text(encoding="utf-8").splitlines()


#: system_a.txt's edits of source.txt, as the M2 file of ``attribute --edits``
EDITS_M2 = _m2(f"{_s(0)}\nA 1 2|||R:VERB|||goes|||REQUIRED|||-NONE-|||0\n"
               "A 5 6|||R:NOUN|||day|||REQUIRED|||-NONE-|||0",
               f"{_s(1)}\nA 1 2|||R:VERB|||have|||REQUIRED|||-NONE-|||0",
               f"{_s(2)}\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0")

#: Sentences of the CoNLL-2014 test set (the per-system files of a --scores folder).
CONLL14_SENTENCES = 1312


def _matrix_files() -> dict[str, bytes]:
    """The clean file of each kind the matrix faults, by path in the case folder."""
    systems = {name: i / 20 for i, name in enumerate(CONLL14_SYSTEMS)}
    files = {name: (EXAMPLE / name).read_bytes()
             for name in ("source.txt", "ref0.txt", "system_a.txt")}
    files.update({
        "good.m2": GOOD_M2.encode(),
        "edits_a.m2": EDITS_M2.encode(),
        "essays/orig.md": _essays(_example("source.txt")).encode(),
        "essays/ref1.md": _essays(_example("ref0.txt")).encode(),
        "essays/hyp.md": _essays(_example("system_a.txt")).encode(),
        "mgdata/en-demo-orig-dev.md": _essays(_example("source.txt")).encode(),
        "mgdata/en-demo-ref1-dev.md": _essays(_example("ref0.txt")).encode(),
        "mghyp/en-demo-hypo1-dev.md": _essays(_example("system_a.txt")).encode(),
        "scores.tsv": ("system\tscore\n" + "".join(
            f"{name}\t{score}\n" for name, score in systems.items())).encode(),
        "scores.json": (json.dumps(systems, indent=2) + "\n").encode(),
        "score_output.json": (json.dumps(
            [{"hypothesis": f"{name}.txt", "spec": "green", "beta": 2.0, "score": score}
             for name, score in systems.items()], indent=2) + "\n").encode(),
        # the GoToScorer weights of system_a.txt and system_b.txt against ref0.txt
        # (written by gecmetrics.metrics.gotoscorer.write_weight_file)
        "weights.txt": b"2\n2 2 2 1 2 2 1 2 2 2 2 1 2 2 2\n2 2 2 1 2 1 2 2 2 2 2\n"
                       b"2 2 2 2 2 1 2 2 2 1 2 2 2\n",
        "run.json": (json.dumps({
            "meta_eval_run": 1, "benchmarks": ["conll14"], "metrics": [],
            "scores": ["mine=scores.json"], "analyses": {}, "options": {},
            "explicit": ["benchmarks", "scores"], "format": "table"}, indent=2)
            + "\n").encode(),
    })
    for k, name in enumerate(CONLL14_SYSTEMS):  # sentence scores, one a line
        files[f"scores_dir/{name}.txt"] = "".join(
            f"{(k * 7 + i) % 101 / 100}\n" for i in range(CONLL14_SENTENCES)).encode()
    return files


MATRIX_FILES = _matrix_files()


@dataclass(frozen=True)
class Input:
    """One file a command reads: ``argv`` has ``@`` where the file (or its ``folder``)
    goes and ``%`` for an output file of the case's own; ``file`` is the clean file
    of :data:`MATRIX_FILES` that a fault changes."""

    key: str  # the case names' prefix
    what: str  # the file's job, as "the tried" column says it
    file: str
    argv: tuple[str, ...]
    folder: str | None = None
    data: bool = False
    env: tuple[tuple[str, str], ...] = ()
    needs: str | None = None  # an optional module the command needs
    #: the files and folders of the evaluation data that ``folder`` holds a copy of
    #: (the case is skipped without the data)
    copy: tuple[str, ...] = ()


_REPORT = ("report", "--edits", "diff", "--no-significance", "-o", "%")
_ATTRIBUTE = ("attribute", "--extractor", "neutral")
_MULTIGEC = ("multigec", "--tokenize", "whitespace", "--edits", "neutral")
_META = ("meta-eval", "conll14", "--data-dir", "DATA", "--scores")

INPUTS: tuple[Input, ...] = (
    Input("score-s", "the source (score -s)", "source.txt",
          ("score", "-s", "@", "-r", "ref0.txt", "-c", "system_a.txt")),
    Input("score-r", "a reference (score -r)", "ref0.txt",
          ("score", "-s", "source.txt", "-r", "@", "-c", "system_a.txt")),
    Input("score-c", "a system output (score -c)", "system_a.txt",
          ("score", "-s", "source.txt", "-r", "ref0.txt", "-c", "@")),
    Input("score-m2", "the gold M2 file (score --m2)", "good.m2",
          ("score", "-m", "m2", "-s", "source.txt", "--m2", "@", "-c", "system_a.txt")),
    Input("score-s-m2", "the source read whole, beside --m2 (score -s)", "source.txt",
          ("score", "-m", "m2", "-s", "@", "--m2", "good.m2", "-c", "system_a.txt")),
    Input("score-s-essays", "MultiGEC essays as the source (score -s)", "essays/orig.md",
          ("score", "-m", "gleu", "-s", "@", "-r", "essays/ref1.md", "-c", "essays/hyp.md")),
    Input("score-weights", "a GoToScorer weight file (score -m gotoscorer:weight_file=)",
          "weights.txt", ("score", "-m", "gotoscorer:weight_file=@", "-s", "source.txt", "-r",
                          "ref0.txt", "-c", "system_a.txt"), needs="errant"),
    Input("report-s", "the source (report -s)", "source.txt",
          (*_REPORT, "-s", "@", "-r", "ref0.txt", "-c", "system_a.txt")),
    Input("report-r", "a reference (report -r)", "ref0.txt",
          (*_REPORT, "-s", "source.txt", "-r", "@", "-c", "system_a.txt")),
    Input("report-c", "a system output (report -c)", "system_a.txt",
          (*_REPORT, "-s", "source.txt", "-r", "ref0.txt", "-c", "@")),
    Input("report-m2", "the gold M2 file (report --m2)", "good.m2",
          (*_REPORT, "-m", "m2", "-s", "source.txt", "--m2", "@", "-c", "system_a.txt")),
    Input("attribute-s", "the source (attribute -s)", "source.txt",
          (*_ATTRIBUTE, "-s", "@", "-r", "ref0.txt", "-c", "system_a.txt")),
    Input("attribute-r", "a reference (attribute -r)", "ref0.txt",
          (*_ATTRIBUTE, "-s", "source.txt", "-r", "@", "-c", "system_a.txt")),
    Input("attribute-c", "the system output (attribute -c)", "system_a.txt",
          (*_ATTRIBUTE, "-s", "source.txt", "-r", "ref0.txt", "-c", "@")),
    Input("attribute-m2", "the gold M2 file (attribute --m2)", "good.m2",
          (*_ATTRIBUTE, "-s", "source.txt", "--m2", "@", "-c", "system_a.txt")),
    Input("attribute-edits", "the system's edits as M2 (attribute --edits)", "edits_a.m2",
          ("attribute", "-s", "source.txt", "-r", "ref0.txt", "-c", "system_a.txt",
           "--edits", "@")),
    Input("m2fromtext-s", "the source (m2-from-text -s)", "source.txt",
          ("m2-from-text", "-s", "@", "-r", "ref0.txt")),
    Input("m2fromtext-r", "a corrected text (m2-from-text -r)", "ref0.txt",
          ("m2-from-text", "-s", "source.txt", "-r", "@")),
    Input("m2totext", "the M2 file (m2-to-text FILE.m2)", "good.m2",
          ("m2-to-text", "@", "--annotator", "0")),
    Input("multigec-s", "the original essays (multigec -s)", "essays/orig.md",
          (*_MULTIGEC, "--lang", "en", "-s", "@", "-r", "essays/ref1.md",
           "-c", "essays/hyp.md")),
    Input("multigec-r", "the reference essays (multigec -r)", "essays/ref1.md",
          (*_MULTIGEC, "--lang", "en", "-s", "essays/orig.md", "-r", "@",
           "-c", "essays/hyp.md")),
    Input("multigec-c", "the corrected essays (multigec -c)", "essays/hyp.md",
          (*_MULTIGEC, "--lang", "en", "-s", "essays/orig.md", "-r", "essays/ref1.md",
           "-c", "@")),
    Input("multigec-data", "the orig file in the MultiGEC folder (multigec --data)",
          "mgdata/en-demo-orig-dev.md", (*_MULTIGEC, "--data", "@", "--hyp-dir", "mghyp"),
          folder="mgdata"),
    Input("multigec-hyp-dir", "a hypothesis file (multigec --hyp-dir)",
          "mghyp/en-demo-hypo1-dev.md", (*_MULTIGEC, "--data", "mgdata", "--hyp-dir", "@"),
          folder="mghyp"),
    Input("meta-scores-tsv", "a system<TAB>score file (meta-eval --scores)", "scores.tsv",
          (*_META, "mine=@"), data=True),
    Input("meta-scores-json", "a {system: score} JSON file (meta-eval --scores)",
          "scores.json", (*_META, "mine=@"), data=True),
    Input("meta-scores-output", "the JSON of score --format json (meta-eval --scores)",
          "score_output.json", (*_META, "mine=@"), data=True),
    Input("meta-scores-folder", "a sentence-score file of a --scores folder",
          "scores_dir/AMU.txt", (*_META, "mine=@"), folder="scores_dir", data=True),
    Input("meta-run", "a saved run (meta-eval --run)", "run.json", ("meta-eval", "--run", "@"),
          data=True, env=(("GECMETRICS_DATA", "DATA"),)),
    Input("meta-data-json", "a rating file (annotation JSON) of a benchmark's data folder "
          "(meta-eval sv-gec --data-dir)",
          "svdata/gec-evaluation/annotations/balanced_A/katarina.json",
          ("meta-eval", "sv-gec", "-m", "bleu", "--data-dir", "@"), folder="svdata",
          data=True, copy=("gec-evaluation",)),
    Input("meta-data-csv", "a rating file (CSV) of a benchmark's data folder "
          "(meta-eval gmeg-fce --data-dir)", "gmdata/GMEG/data/test/fce-corpus-scores.csv",
          ("meta-eval", "gmeg-fce", "-m", "bleu", "--data-dir", "@"), folder="gmdata",
          data=True, copy=tuple(f"GMEG/data/test/{name}" for name in (
              "fce", "fce-corpus-scores.csv", "fce-segment-scores.csv"))),
)


def _line_ends(data: bytes, ends: Callable[[int], bytes]) -> bytes:
    """``data`` with line ``k`` (from 1) ended by ``ends(k)`` (a file may have CRLF
    already: the upstream sv-gec ratings do)."""
    lines = data.replace(b"\r\n", b"\n").split(b"\n")
    return b"".join(line + ends(k) for k, line in enumerate(lines[:-1], 1)) + lines[-1]


def _line2(data: bytes, change: Callable[[bytes], bytes]) -> bytes:
    lines = data.split(b"\n")
    lines[1] = change(lines[1])
    return b"\n".join(lines)


#: The line limit of the long-line fault's runs (set through the environment, so that
#: a line over it stays small) and the length of its line 2.
SMALL_LINE_LIMIT = 4096


@dataclass(frozen=True)
class Fault:
    """One way a file goes wrong: its bytes from the clean bytes, and how it must end:
    ``words`` (of the path) in the one error line, or (``ok``) the clean file's output."""

    name: str
    tried: str
    change: Callable[[bytes], bytes]
    ok: bool = False
    words: Callable[[str], tuple[str, ...]] = lambda path: (path,)
    env: tuple[tuple[str, str], ...] = ()


FAULTS: tuple[Fault, ...] = (
    Fault("bom", "a UTF-8 byte-order mark at the start of", lambda d: b"\xef\xbb\xbf" + d,
          ok=True),
    Fault("crlf", "CRLF (Windows) line ends in", lambda d: _line_ends(d, lambda k: b"\r\n"),
          ok=True),
    Fault("mixed", "line ends mixed, LF and CRLF by turns, in",
          lambda d: _line_ends(d, lambda k: b"\r\n" if k % 2 else b"\n"), ok=True),
    Fault("lone-cr", "a lone CR inside line 2 (line 1 ends in CRLF, the rest in LF) of",
          lambda d: _line2(_line_ends(d, lambda k: b"\r\n" if k == 1 else b"\n"),
                           lambda x: x[:1] + b"\r" + x[1:]),
          words=lambda path: (path, "carriage return", "line 2")),
    Fault("nul", "a NUL byte inside line 2 of",
          lambda d: _line2(d, lambda x: x[:1] + b"\0" + x[1:]),
          words=lambda path: (path, "NUL byte", "line 2")),
    Fault("utf16", "UTF-16 (with its byte-order mark) as",
          lambda d: d.decode("utf-8").encode("utf-16"), words=lambda path: (path, "UTF-16")),
    Fault("empty", "an empty file as", lambda d: b"", words=lambda path: (path, "is empty")),
    Fault("long-line", f"a line 2 over the line limit (set to {SMALL_LINE_LIMIT:,} bytes) in",
          lambda d: _line2(d, lambda x: b"x " * SMALL_LINE_LIMIT),
          words=lambda path: (path, "line 2 is longer than"),
          env=(("GECMETRICS_MAX_LINE_BYTES", str(SMALL_LINE_LIMIT)),)),
)


def _matrix_case(source: Input, fault: Fault) -> Case:
    path = f"{fault.name}/{source.folder or source.file}"
    output = f"{fault.name}/{source.key}.html"
    argv = tuple(part.replace("@", path).replace("%", output) for part in source.argv)
    return Case(f"{source.key}-{fault.name}", f"{fault.tried} {source.what}", argv,
                () if fault.ok else fault.words(f"{fault.name}/{source.file}"),
                code=0 if fault.ok else 2, data=source.data, needs=source.needs,
                env=source.env + fault.env,
                same_as_clean=fault.ok)


FILE_MATRIX: tuple[Case, ...] = tuple(_matrix_case(source, fault)
                                      for source in INPUTS for fault in FAULTS)


def _clean_files(source: Input, data: Path | None) -> dict[str, bytes]:
    """The clean files of one input (a folder input: every file of its folder)."""
    if source.copy:
        if data is None or not all((data / part).exists() for part in source.copy):
            return {}
        paths = [path for part in source.copy for path in
                 ([data / part] if (data / part).is_file() else sorted((data / part).rglob("*")))]
        return {f"{source.folder}/{path.relative_to(data).as_posix()}": path.read_bytes()
                for path in paths if path.is_file()}
    if source.folder is None:
        return {source.file: MATRIX_FILES[source.file]}
    return {name: content for name, content in MATRIX_FILES.items()
            if name.startswith(source.folder + "/")}


def _write_matrix_files(folder: Path, clean: bool, data: Path | None) -> None:
    """Every fault's copy of every matrix file (``clean``: the clean bytes instead, for
    :data:`TWIN`), a folder input's other files beside it."""
    for source in INPUTS:
        files = _clean_files(source, data)
        for fault in FAULTS:
            for name, content in files.items():
                if name == source.file and not clean:
                    content = fault.change(content)
                target = folder / fault.name / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)


SCORE = ("score", "-s", "source.txt", "-r", "ref0.txt", "ref1.txt", "-c", "system_a.txt")
SCORE_M2 = ("score", "-m", "m2", "-s", "source.txt", "--m2", "good.m2", "-c", "system_a.txt")


ATTRIBUTE = ("attribute", "-s", "source.txt", "-r", "ref0.txt", "-c", "system_a.txt",
             "--extractor", "neutral")


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
    # --- issue 33: commands (report, m2-from-text, multigec, meta-eval) ---------------
    Case("paired-identical-copy", "a paired bootstrap of a system against its own copy "
         "(the report's mark: p = 1, not 1/(N + 1))",
         (*SCORE, "a_copy.txt", "--paired-bootstrap", "100"), ("1.0000",), code=0),
    Case("paired-ar-identical-copy", "the same with approximate randomisation",
         (*SCORE, "a_copy.txt", "--paired-ar", "100"), ("1.0000",), code=0),
    Case("m2-from-text-pipes", "three vertical bars inside a reference sentence",
         ("m2-from-text", "-s", "source.txt", "-r", "pipes_ref.txt"),
         ("pipes_ref.txt line 1", "'||'")),
    Case("m2-from-text-pipes-13a", "a reference ending in three vertical bars, tokenized by 13a",
         ("m2-from-text", "-s", "source.txt", "-r", "pipe_end_ref.txt", "--tokenize", "13a"),
         ("pipe_end_ref.txt line 1", "ends with '|'")),
    Case("m2-pipe-before-separator",
         "an M2 correction ending in a vertical bar (read as another correction)",
         SCORE_M2[:6] + ("pipe_end.m2",) + SCORE_M2[7:], ("pipe_end.m2:2", "field 4")),
    Case("m2-from-text-essays", "MultiGEC essay files given to m2-from-text",
         ("m2-from-text", "-s", "essays.md", "-r", "essays_ref.md"),
         ("essays.md", "MultiGEC essays", "gecmetrics multigec")),
    Case("m2-from-text-references", "several references after one -r, as score takes them",
         ("m2-from-text", "-s", "source.txt", "-r", "ref0.txt", "ref1.txt"), ("|||1",),
         code=0),
    Case("multigec-lang-unknown", "multigec --lang xx",
         ("multigec", "-s", "essays.md", "-r", "essays_ref.md", "-c", "essays_ref.md",
          "--lang", "xx", "--tokenize", "whitespace"), ("--lang", "'xx'", "sv")),
    Case("multigec-max-tokens-neutral", "--max-tokens where the edits are the neutral ones",
         ("multigec", "-s", "essays.md", "-r", "essays_ref.md", "-c", "essays_ref.md",
          "--lang", "sv", "--tokenize", "whitespace", "--max-tokens", "5"),
         ("--max-tokens",)),
    Case("multigec-digits-json", "multigec -d 4 --format json",
         ("multigec", "-s", "essays.md", "-r", "essays_ref.md", "-c", "essays_ref.md",
          "--lang", "sv", "--tokenize", "whitespace", "-d", "4", "--format", "json"),
         ("-d/--digits",)),
    Case("multigec-references", "several references after one -r, as score takes them",
         ("multigec", "-s", "essays.md", "-r", "essays_ref.md", "essays.md", "-c",
          "essays_ref.md", "--lang", "sv", "--tokenize", "whitespace", "--format", "json"),
         ('"references": 2',), code=0),
    Case("attribute-signature-keys", "GLEU's seed and the attribution's in one signature",
         ("attribute", "-m", "gleu", "-s", "source.txt", "-r", "ref0.txt", "-c",
          "system_a.txt", "--extractor", "neutral", "--format", "json"),
         ("seed:official", "attribution_seed:12345"), code=0),
    Case("scores-constant", "--scores where every system has the same score",
         ("meta-eval", "conll14", "--scores", "mine=scores_const.json", "--data-dir", "DATA"),
         ("scores:mine",), code=0, data=True),
    Case("meta-language-mismatch", "English ERRANT on the Swedish sv-gec",
         ("meta-eval", "sv-gec", "-m", "errant", "--data-dir", "DATA"),
         ("metric_lang:en",), code=0, data=True, needs="errant"),
    Case("unknown-command", "a misspelt command", ("scor",), ("scor",)),
    Case("list-extra-argument", "an argument list does not take", ("list", "green"),
         ("green",)),
    # --- issue 33: attribute -------------------------------------------------------------
    Case("attribute-several-metrics", "two metrics: each attributed on the same edits",
         (*ATTRIBUTE, "-m", "green", "-m", "chrf", "--format", "json"), ('"green"', '"chrf"'),
         code=0),
    Case("attribute-char-spacing", "a metric that scores spacing, lines with trailing and "
         "double spaces (the values add up; a note)",
         ("attribute", "-m", "green:tokenize=char", "-s", "spaced_src.txt", "-r", "ref0.txt",
          "-c", "system_a.txt", "--extractor", "neutral", "--format", "json"), ('"delta"',),
         code=0),
    Case("attribute-samples-add", "--samples with --method add (no random orders)",
         (*ATTRIBUTE, "--method", "add", "--samples", "10"), ("--samples",)),
    Case("attribute-long-line", "one 10,000-token line",
         ("attribute", "-s", "long_source.txt", "-r", "long_source.txt", "-c",
          "long_rewrite.txt", "--method", "add"), ("long_source.txt", "--max-tokens")),
    Case("attribute-many-edits", "a sentence of 125 edits",
         ("attribute", "-s", "many_src.txt", "-r", "many_src.txt", "-c", "many_hyp.txt",
          "--extractor", "neutral"), ("many_hyp.txt", "--max-edits")),
    Case("attribute-max-edits-zero", "--max-edits 0", (*ATTRIBUTE, "--max-edits", "0"),
         ("--max-edits",)),
    # --- issue 33: every command x every file kind x every fault (generated above) ---
    *FILE_MATRIX,
    # --- issue 33: signals in long computations, external tokenisers ---------------------
    Case("ctrl-c-neutral-alignment", "Ctrl-C inside the language-neutral alignment of a "
         "3,000-token pair (the compiled kernel)",
         ("score", "-m", "errant:edits=neutral", "-s", "long_pair_src.txt", "-r",
          "long_pair_ref.txt", "-c", "long_pair_src.txt"), ("interrupted",), code=130,
         interrupt=("INT", 3)),
    Case("ctrl-c-m2-from-text", "Ctrl-C while m2-from-text aligns a 3,000-token pair",
         ("m2-from-text", "-s", "long_pair_src.txt", "-r", "long_pair_ref.txt"),
         ("interrupted",), code=130, interrupt=("INT", 2)),
    Case("sigterm-m2-from-text", "SIGTERM while m2-from-text aligns a 3,000-token pair",
         ("m2-from-text", "-s", "long_pair_src.txt", "-r", "long_pair_ref.txt"),
         ("terminated",), code=143, interrupt=("TERM", 2)),
    Case("ko-long-line", "one 0.75 MB line through Kiwi (tokenize=ko)",
         ("score", "-m", "green:tokenize=ko", "-s", "ko_long.txt", "-r", "ko_long.txt", "-c",
          "ko_long.txt"), ("32,768", "GECMETRICS_MAX_TOKENIZE_BYTES"), needs="kiwipiepy"),
    Case("ja-long-line", "one 0.75 MB line through MeCab (tokenize=ja)",
         ("score", "-m", "green:tokenize=ja", "-s", "ja_long.txt", "-r", "ja_long.txt", "-c",
          "ja_long.txt"), ("32,768", "GECMETRICS_MAX_TOKENIZE_BYTES"), needs="fugashi"),
    Case("zh-long-line", "one 0.75 MB line through jieba (tokenize=zh), in m2-from-text",
         ("m2-from-text", "--tokenize", "zh", "-s", "zh_long.txt", "-r", "zh_long.txt"),
         ("32,768", "GECMETRICS_MAX_TOKENIZE_BYTES"), needs="jieba"),
    Case("ctrl-c-kiwi", "Ctrl-C while Kiwi tokenizes 200 lines of 30 KB (tokenize=ko)",
         ("score", "-m", "green:tokenize=ko", "-s", "ko_lines.txt", "-r", "ko_lines.txt",
          "-c", "ko_lines.txt"), ("interrupted",), code=130, needs="kiwipiepy",
         interrupt=("INT", 25)),  # after Kiwi's model load (up to 15 s on a busy machine)
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
    # --- issue 31/32: MBR selection ---
    Case("mbr-lengths", "MBR candidate files of different lengths",
         ("mbr", "-s", "source.txt", "-c", "system_a.txt", "short.txt"),
         ("short.txt", "2 lines", "3")),
    Case("mbr-one-candidate", "MBR over one candidate set, itself excluded",
         ("mbr", "-s", "source.txt", "-c", "system_a.txt", "--exclude-self"),
         ("at least two candidate sets",)),
    Case("mbr-one-candidate-self", "MBR over one candidate set (itself the pseudo-reference)",
         ("mbr", "-s", "source.txt", "-c", "system_a.txt", "--format", "json"),
         ('"chosen": 0',), code=0),
    Case("mbr-empty-candidates", "an empty MBR candidate file",
         ("mbr", "-s", "source.txt", "-c", "system_a.txt", "empty.txt"),
         ("empty.txt", "empty")),
    Case("mbr-blank-candidate", "MBR candidates that are blank lines",
         ("mbr", "-s", "source.txt", "-c", "system_a.txt", "blank3.txt", "--format", "json"),
         ('"utility"',), code=0),
    Case("mbr-unknown-metric", "MBR with an unknown metric",
         ("mbr", "-m", "chrff", "-s", "source.txt", "-c", "system_a.txt", "system_b.txt"),
         ("chrff",)),
    Case("mbr-no-sentence-scores", "MBR with a metric whose sentence scores depend on other rows",
         ("mbr", "-m", "gotoscorer", "-s", "source.txt", "-c", "system_a.txt",
          "system_b.txt"), ("gotoscorer", "MBR")),
    Case("mbr-pseudo-refs-lengths", "MBR pseudo-reference file of another length",
         ("mbr", "-s", "source.txt", "-c", "system_a.txt", "system_b.txt", "-r", "short.txt"),
         ("pseudo-reference file short.txt", "2 lines")),
    Case("mbr-candidate-twice", "the same MBR candidate file twice",
         ("mbr", "-s", "source.txt", "-c", "system_a.txt", "system_a.txt"),
         ("system_a.txt", "twice")),
    # --- issue 31/32: ERRANT's spaCy pipeline and caches ---------------------------------
    Case("errant-blank-pipeline", "ERRANT on a blank spaCy pipeline (no tagger, parser, "
         "lemmatizer)", ("score", "-m", "errant:model=blank:en", "-s", "source.txt", "-r",
                         "ref0.txt", "-c", "system_a.txt"),
         ("errant:model=blank:en", "tagger", "parser", "lemmatizer"), needs="errant"),
    Case("cleme-blank-pipeline", "CLEME (ERRANT's edits) on a blank spaCy pipeline, after "
         "a metric that would take long", ("score", "-m", "errant", "-m",
                                           "cleme:model=blank:en", "-s", "source.txt", "-r",
                                           "ref0.txt", "-c", "system_a.txt"),
         ("cleme:model=blank:en", "token.dep"), needs="errant"),
    Case("errant-cache-is-a-file", "$GECMETRICS_CACHE names a file: no cache can be written "
         "(one warning, the scores as usual)", ("score", "-m", "errant", "-s", "source.txt",
                                                 "-r", "ref0.txt", "-c", "system_a.txt"),
         ("ERRANT",), code=0, env=(("GECMETRICS_CACHE", "source.txt"),), needs="errant"),
    Case("errant-cache-read-only", "$GECMETRICS_CACHE on a read-only file system (/proc)",
         ("score", "-m", "errant", "-s", "source.txt", "-r", "ref0.txt", "-c",
          "system_a.txt"), ("ERRANT",), code=0,
         env=(("GECMETRICS_CACHE", "/proc/gecmetrics-cache"),), needs="errant"),
    # --- issue 32: parallel workers ------------------------------------------------------
    Case("ctrl-c-m2-workers", "Ctrl-C while M2's -j 2 workers score 40,000 pairs",
         ("score", "-m", "m2", "-s", "jobs_src.txt", "--m2", "jobs_gold.m2", "-c",
          "jobs_hyp.txt", "-j", "2"), ("interrupted",), code=130, interrupt=("INT", 3)),
    Case("sigterm-m2-workers", "SIGTERM while M2's -j 2 workers score 40,000 pairs",
         ("score", "-m", "m2", "-s", "jobs_src.txt", "--m2", "jobs_gold.m2", "-c",
          "jobs_hyp.txt", "-j", "2"), ("terminated",), code=143, interrupt=("TERM", 3)),
    Case("m2-jobs-one-task", "M2 with -j 2 on 3 sentences (one task: no worker starts)",
         ("score", "-m", "m2", "-s", "source.txt", "--m2", "good.m2", "-c", "system_a.txt",
          "-j", "2", "--format", "json"), ('"score"',), code=0),
)


@dataclass(frozen=True)
class Outcome:
    """What a case did: exit code, the stderr lines, stdout, seconds, peak MB."""

    code: int
    stderr: list[str]
    stdout: str
    seconds: float
    peak_mb: float
    #: for a case ``same_as_clean``: whether the clean files gave the same exit code,
    #: stdout and stderr
    same: bool | None = None
    #: seconds from the case's signal to the end of the command (None: no signal
    #: sent, or the command had ended before it)
    after_signal: float | None = None

    @property
    def shown(self) -> str:
        """What the user sees of it: the error line; on success, that there are results
        (the same as for the clean files, where compared), and any notes on stderr."""
        if self.code == 0:
            shown = "(the results)" if self.stdout else "(nothing)"
            if self.same is not None:
                shown = ("(the same output as for the clean file)" if self.same
                         else "(an output that differs from the clean file's)")
            return " / ".join([shown, *self.stderr])
        return self.stderr[0] if len(self.stderr) == 1 else " / ".join(self.stderr)


MEASURE = str(Path(__file__).with_name("trust_measure.py"))


def run_case(case: Case, folder: Path, data: Path | None) -> Outcome:
    """Run ``case`` in ``folder`` (made by :func:`make_files`), bounded by the limits;
    a case ``same_as_clean`` runs again in :data:`TWIN` to compare."""
    outcome = _run(case, folder, data)
    if not case.same_as_clean:
        return outcome
    clean = _run(case, folder / TWIN, data)
    same = (clean.code, clean.stdout, clean.stderr) == (outcome.code, outcome.stdout,
                                                          outcome.stderr)
    return dataclasses.replace(outcome, same=same)


def _run(case: Case, folder: Path, data: Path | None) -> Outcome:
    def resolved(part: str) -> str:
        return str(data) if part == "DATA" and data is not None else part

    argv = [resolved(part) for part in case.argv]
    env = {**os.environ, "COLUMNS": "100", "GECMETRICS_DATA": str(folder / "no-data"),
           **{key: resolved(value) for key, value in case.env}}
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
        sent = None
        try:
            if case.interrupt is not None:
                name, delay = case.interrupt
                try:
                    proc.wait(timeout=delay)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, getattr(signal, f"SIG{name}"))
                    sent = time.perf_counter()
            proc.wait()
        finally:
            timer.cancel()
            for feeder in feeders:
                feeder.join()
        after_signal = None if sent is None else time.perf_counter() - sent
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
                       seconds, peak_kb / 1024, after_signal=after_signal)


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


#: The commands in the order docs/trust.md groups the cases by.
COMMANDS = ("score", "report", "attribute", "m2-from-text", "m2-to-text", "multigec",
            "meta-eval", "download", "list", "mbr")


def command_of(case: Case) -> str:
    """The command a case runs (its group on the page), "other" for none of
    :data:`COMMANDS` (a misspelt one)."""
    return case.argv[0] if case.argv and case.argv[0] in COMMANDS else "other"


def markdown_row(case: Case, outcome: Outcome) -> str:
    """The row of docs/trust.md for a case (what was tried, the command, what it printed)."""
    command = "".join(f"{key}={value} " for key, value in case.env)
    command += "gecmetrics " + " ".join(case.argv)
    if case.stdin and case.stdin.startswith(YES):
        line = case.stdin[len(YES):]
        shown = (f"'{line}'" if line.isprintable() else
                 "$'" + "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in line) + "'")
        command = f"yes {shown} | {command}"
    elif case.stdin:
        command += f" < {case.stdin}"
    if case.stdout:
        command += f" > {case.stdout}"
    if case.interrupt:
        name, delay = case.interrupt
        command += f"  # SIG{name} after {delay:g} s"
    return (f"| {case.name} | {case.tried} | {_code(command)} | {_code(outcome.shown)} "
            f"| {outcome.code} |")


def _code(text: str) -> str:
    text = text.replace("|", "\\|")
    return f"`` {text} ``" if "`" in text else f"`{text}`"
