"""Files in and out: an output that is an input is refused, outputs are written whole
or not at all, streams are bounded by the count of the files read first, pipes are read
once, and JSON nested too deeply is one line (issue 33)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.interface.cli import main
from gecmetrics.m2_format import read_m2
from gecmetrics.meta_eval.saved_run import MetaEvalRun
from gecmetrics.paths import PARTIAL_SUFFIX
from gecmetrics.readers import LineBound, parse_json, read_lines, read_text
from gecmetrics.scoring import load_corpus
from gecmetrics.validate import check_outputs, same_file

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"
SRC, REF0, HYP_A = (str(EXAMPLE / f) for f in ("source.txt", "ref0.txt", "system_a.txt"))
SOURCE_LINES = (EXAMPLE / "source.txt").read_text(encoding="utf-8").splitlines()


def invoke(*args: str, stdin: bytes | str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "gecmetrics.interface.cli", *args]


def one_line_error(stderr: bytes | str) -> str:
    text = stderr.decode() if isinstance(stderr, bytes) else stderr
    assert text.count("\n") == 1 and text.startswith("error: "), text[:2000]
    return text


# ---------------------------------------------------------------------------
# An output that is an input: refused before anything is written


@pytest.fixture
def folder(tmp_path, monkeypatch):
    for name in ("source.txt", "ref0.txt", "system_a.txt"):
        (tmp_path / name).write_bytes((EXAMPLE / name).read_bytes())
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("args, flags", [
    (("m2-from-text", "-s", "source.txt", "-r", "ref0.txt", "-o", "source.txt"),
     ("-o/--output source.txt", "-s/--source")),
    (("m2-from-text", "-s", "source.txt", "-r", "ref0.txt", "-o", "./ref0.txt"),
     ("-o/--output ./ref0.txt", "-r/--reference")),
    (("m2-from-text", "-s", "source.txt", "-r", "ref0.txt", "-o", "link.txt"),
     ("-o/--output link.txt", "-r/--reference")),
    (("report", "-s", "source.txt", "-r", "ref0.txt", "-c", "sys.html", "-o", "sys.html"),
     ("-o/--output sys.html", "-c/--hypothesis")),
    (("m2-to-text", "gold.m2", "--source", "-o", "gold.m2"), ("-o/--output gold.m2",)),
    (("meta-eval", "conll14", "--scores", "mine=mine.json", "--save-run", "mine.json"),
     ("--save-run mine.json", "--scores")),
    (("meta-eval", "conll14", "--scores", "mine=mine.html", "--html", "mine.html"),
     ("--html mine.html", "--scores")),
    (("meta-eval", "conll14", "-m", "green", "--plot", "f.svg", "--window-plot", "f.svg"),
     ("--plot f.svg", "--window-plot f.svg")),
])
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(folder, args, flags):
    os.symlink("ref0.txt", "link.txt")
    (folder / "sys.html").write_bytes((EXAMPLE / "system_a.txt").read_bytes())
    invoke("m2-from-text", "-s", "source.txt", "-r", "ref0.txt", "-o", "gold.m2")
    scores = json.dumps({"AMU": 0.5, "CAMB": 0.4})
    for name in ("mine.json", "mine.html"):
        (folder / name).write_text(scores, encoding="utf-8")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    message = one_line_error(result.output)
    for flag in flags:
        assert flag in message
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_the_same_file_by_identity(tmp_path):
    a = tmp_path / "a.txt"
    a.write_text("x\n")
    os.link(a, tmp_path / "hard.txt")
    assert same_file(a, tmp_path / "hard.txt")
    assert same_file(tmp_path / "new.txt", tmp_path / "sub" / ".." / "new.txt")  # neither exists
    assert not same_file(a, tmp_path / "new.txt")
    # Standard output and a device that exists are written to, not replaced: no clash.
    check_outputs([("-o", "-"), ("--x", os.devnull)], [("-s", "-"), ("-r", os.devnull)])
    with pytest.raises(ConfigError, match="-o .*hard.txt is also the input -s"):
        check_outputs([("-o", str(tmp_path / "hard.txt"))], [("-s", str(a))])


def test_two_distinct_outputs_and_inputs_pass(folder):
    result = invoke("m2-from-text", "-s", "source.txt", "-r", "ref0.txt", "-o", "out.m2")
    assert result.exit_code == 0, result.output
    assert (folder / "out.m2").read_text().startswith("S ")


# ---------------------------------------------------------------------------
# Outputs written whole or not at all


def test_a_saved_run_that_fails_midway_keeps_the_old_file(tmp_path, monkeypatch):
    from gecmetrics.meta_eval import saved_run
    from gecmetrics.meta_eval.options import MetaEvalOptions

    path = tmp_path / "run.json"
    path.write_text("old\n")
    run = MetaEvalRun.of(MetaEvalOptions(benchmarks=("conll14",), metrics=("green",)), "table")

    def dump(obj, handle, **kwargs):
        handle.write('{"meta_eval_run": ')
        raise KeyboardInterrupt

    monkeypatch.setattr(saved_run.json, "dump", dump)
    with pytest.raises(KeyboardInterrupt):
        run.save(str(path))
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no partial file left
    monkeypatch.undo()
    run.save(str(path))
    assert MetaEvalRun.load(str(path)) == run


def test_text_output_is_replaced_whole(folder, monkeypatch):
    """``-o`` text (m2-from-text, m2-to-text) goes to a part file that replaces the
    output; an interruption while writing leaves the old file and no part file."""
    from gecmetrics.interface.commands import common

    (folder / "out.m2").write_text("old\n")
    real_open = open

    def failing_open(path, mode="r", *args, **kwargs):
        handle = real_open(path, mode, *args, **kwargs)
        if "w" in mode and str(path).endswith(PARTIAL_SUFFIX):
            handle.write("S half")
            handle.close()
            raise KeyboardInterrupt
        return handle

    monkeypatch.setattr(common, "open", failing_open, raising=False)
    with pytest.raises(KeyboardInterrupt):
        common.write_text("S full\n", "out.m2")
    assert (folder / "out.m2").read_text() == "old\n"
    assert not [p for p in folder.iterdir() if p.name.endswith(PARTIAL_SUFFIX)]


# ---------------------------------------------------------------------------
# Standard input and pipes: bounded, read at once, read once


def endless(line: bytes, proc: subprocess.Popen) -> threading.Thread:
    def feed() -> None:
        try:
            while True:
                proc.stdin.write(line * 4096)
        except (OSError, ValueError):
            pass

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("args, message", [
    (("score", "-s", SRC, "-r", REF0, "-c", "-"),
     f"hypothesis from standard input has more than {len(SOURCE_LINES)} lines but source "
     f"file {SRC} has {len(SOURCE_LINES)}"),
    (("score", "-s", "-", "-r", REF0, "-c", HYP_A),
     f"source from standard input has more than {len(SOURCE_LINES)} lines but reference "
     f"file {REF0} has {len(SOURCE_LINES)}"),
    (("m2-from-text", "-s", SRC, "-r", "-"), "reference from standard input has more than"),
    (("m2-to-text", "-", "--source"), "standard input:1: expected an 'S ' or 'A ' line"),
    (("multigec", "-s", SRC, "-r", REF0, "-c", "-", "--lang", "en", "--tokenize",
      "whitespace", "--edits", "none"), "hypothesis from standard input has more than"),
])
@pytest.mark.full  # a second or two per command
def test_endless_valid_lines_stop_at_the_first_line_too_many(args, message):
    start = time.monotonic()
    proc = subprocess.Popen(cli(*args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    endless(b"She goes .\n", proc)
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 2 and out == b""
    assert message in one_line_error(err)
    assert time.monotonic() - start < 60


@pytest.mark.full  # a second
def test_endless_random_bytes_stop_at_once():
    with open("/dev/urandom", "rb") as noise:
        done = subprocess.run(cli("score", "-s", SRC, "-r", REF0, "-c", "-"), stdin=noise,
                              capture_output=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    message = one_line_error(done.stderr)
    assert message.startswith("error: hypothesis from standard input ")
    assert "NUL byte" in message or "not valid UTF-8" in message


def test_a_stream_past_its_bound_stops_within_the_first_block(monkeypatch):
    """The bound acts on each block: a stream read through a counting handle stops
    after its first block, not at its end."""
    import io

    from gecmetrics import readers

    data = b"She goes .\n" * 500_000  # 5.5 MB: several blocks
    handle = io.BufferedReader(io.BytesIO(data))
    monkeypatch.setattr(readers.sys, "stdin", io.TextIOWrapper(handle))
    with pytest.raises(InputError, match="more than 3 lines but source file s.txt has 3"):
        read_text("-", "hypothesis", LineBound(3, "source file s.txt"))
    assert handle.tell() <= readers.READ_BYTES


def test_binary_after_a_good_block_names_its_byte_and_line(tmp_path):
    """Each block is checked as read, with byte and line numbers from the start."""
    good = b"She goes .\n" * 200_000
    path = tmp_path / "bad.txt"
    path.write_bytes(good + b"x\x00y\n")
    with pytest.raises(InputError, match=f"NUL byte \\(byte {len(good) + 1}, line 200001\\)"):
        read_lines(path, "hypothesis")


def fifo(tmp_path: Path, name: str, data: bytes) -> str:
    """A FIFO that carries ``data`` once (a writer thread), like ``<(zcat f.gz)``."""
    path = tmp_path / name
    os.mkfifo(path)

    def write() -> None:
        with open(path, "wb") as handle:
            handle.write(data)

    threading.Thread(target=write, daemon=True).start()
    return str(path)


def test_every_input_may_be_a_pipe(tmp_path):
    files = {name: (EXAMPLE / name).read_bytes() for name in
             ("source.txt", "ref0.txt", "system_a.txt")}
    corpus = load_corpus(fifo(tmp_path, "s", files["source.txt"]),
                         [fifo(tmp_path, "r", files["ref0.txt"])],
                         [fifo(tmp_path, "c", files["system_a.txt"])])
    expected = load_corpus(SRC, [REF0], [HYP_A])
    assert corpus.sources == expected.sources
    assert corpus.references == expected.references
    assert list(corpus.hypotheses.values()) == list(expected.hypotheses.values())


def test_a_pipe_read_twice_gives_its_text_twice(tmp_path):
    path = fifo(tmp_path, "p", b"a b\nc d\n")
    assert read_text(path) == "a b\nc d\n"
    assert read_lines(path) == ["a b", "c d"]  # the kernel has no copy left: ours
    with pytest.raises(InputError, match="more than 1 line"):
        read_lines(path, bound=LineBound(1, "source file s.txt"))


@pytest.mark.parametrize("command", [
    "gecmetrics score -s {src} -r <(cat {ref}) -c <(cat {hyp}) --format json",
    "gecmetrics score -s <(cat {src}) -r {ref} -c {hyp} --format json",
    "gecmetrics score -s {src} -r {ref} -c <(cat {hyp}) --format json --level sentence",
    "gecmetrics multigec -s <(cat {src}) -r <(cat {ref}) -c {hyp} --lang en --tokenize "
    "whitespace --edits none --format json",
    "gecmetrics m2-from-text -s <(cat {src}) -r <(cat {ref})",
])
@pytest.mark.full  # a second each
def test_process_substitution_in_bash(command):
    script = Path(sys.executable).with_name("gecmetrics")
    line = command.replace("gecmetrics", str(script), 1).format(src=SRC, ref=REF0, hyp=HYP_A)
    piped = subprocess.run(["bash", "-c", line], capture_output=True, timeout=120)
    plain = subprocess.run(["bash", "-c", line.replace("<(cat ", "").replace(")", "")],
                           capture_output=True, timeout=120)
    assert piped.returncode == 0, piped.stderr.decode()
    assert plain.returncode == 0, plain.stderr.decode()
    if plain.stdout[:1] in (b"[", b"{"):  # JSON: files are named by their paths
        def numbers(text: bytes) -> list:
            data = json.loads(text)
            rows = data if isinstance(data, list) else data["results"]
            return [{k: v for k, v in row.items() if k not in ("hypothesis", "corpus")}
                    for row in rows]

        assert numbers(piped.stdout) == numbers(plain.stdout)
    else:
        assert piped.stdout == plain.stdout


# ---------------------------------------------------------------------------
# JSON nested deeper than Python's parser follows


DEEP = "[" * 100_000 + "]" * 100_000


def test_parse_json_names_the_file_for_deep_and_broken_json():
    with pytest.raises(InputError, match=r"^x.json: JSON nested more than [\d,]+ levels deep"):
        parse_json(DEEP, "x.json")
    with pytest.raises(ConfigError, match=r"^--run x.json:1: not valid JSON"):
        parse_json("{", "--run x.json", error=ConfigError)
    assert parse_json("[[1]]", "x.json") == [[1]]


@pytest.mark.parametrize("args, start", [
    (("meta-eval", "conll14", "--scores", "mine=deep.json"), "error: deep.json: JSON nested"),
    (("meta-eval", "--run", "deep.json"), "error: --run deep.json: JSON nested"),
])
def test_deep_json_is_one_line(folder, args, start):
    (folder / "deep.json").write_text(DEEP)
    result = invoke(*args)
    assert result.exit_code == 2
    assert one_line_error(result.output).startswith(start)


def test_deep_json_in_benchmark_files_is_one_line(tmp_path):
    from gecmetrics.meta_eval.benchmarks import sv_gec

    path = tmp_path / "annotations.json"
    path.write_text(DEEP)
    with pytest.raises(InputError, match="nested more than"):
        sv_gec._read_json(path)


def test_m2_parsed_as_read_reports_the_first_bad_line(tmp_path):
    path = tmp_path / "g.m2"
    path.write_text("S a b\n\nS c d\nS e f\n" + "S x\n\n" * 200_000)
    with pytest.raises(InputError, match=r"g.m2:4: 'S' line right after the block of line 3"):
        read_m2(path)
