"""Reading at the edges: the line limit (endless input), UTF-16/UTF-32 and binary
input, ``--scores`` from standard input, string and huge scores, and counts in
messages that agree with their noun."""

from __future__ import annotations

import io
import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.formatting import plural
from gecmetrics.interface.cli import main
from gecmetrics.meta_eval.score_files import (
    MAX_ABS_SCORE,
    check_scores_stdin,
    parse_scores_option,
    read_scores,
    table_from_mapping,
)
from gecmetrics.readers import (
    ENV_MAX_LINE_BYTES,
    MAX_LINE_BYTES,
    count_lines,
    max_line_bytes,
    read_lines,
)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"
SRC, REF0, HYP_A = (str(EXAMPLE / f) for f in ("source.txt", "ref0.txt", "system_a.txt"))
MEMORY = 1536 << 20  # the address space of a bounded run: 1.5 GB
LIMIT_MESSAGE = f"line 1 is longer than {MAX_LINE_BYTES:,} bytes"


def invoke(*args: str, stdin: bytes | str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def bounded() -> None:
    """preexec_fn: the child may not map more than MEMORY."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "gecmetrics.interface.cli", *args]


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != ENV_MAX_LINE_BYTES}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return {**env, **extra}


def one_line_error(stderr: bytes) -> str:
    text = stderr.decode()
    assert text.count("\n") == 1 and text.startswith("error: "), text[:2000]
    assert "Traceback" not in text
    return text


# ---------------------------------------------------------------------------
# Endless input: one line at the limit, in bounded time and memory


@pytest.mark.parametrize("args, where", [
    (("score", "-s", "-", "-r", REF0, "-c", HYP_A), "source from standard input"),
    (("score", "-s", "/dev/zero", "-r", REF0, "-c", HYP_A), "source file /dev/zero"),
    (("m2-to-text", "-", "--source"), "M2 from standard input"),
])
@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_endless_zeros_end_with_one_line(args, where):
    start = time.monotonic()
    with open("/dev/zero", "rb") as zeros:
        done = subprocess.run(cli(*args), stdin=zeros, capture_output=True, timeout=60,
                              preexec_fn=bounded, env=child_env())
    assert done.returncode == 2 and done.stdout == b""
    message = one_line_error(done.stderr)
    assert message.startswith(f"error: {where}: {LIMIT_MESSAGE} and holds NUL bytes: a binary "
                              "file?")
    assert f"{ENV_MAX_LINE_BYTES}={MAX_LINE_BYTES * 4}" in message
    assert time.monotonic() - start < 60


def test_endless_scores_on_stdin_end_with_one_line(shared_data):
    args = ("meta-eval", "seeda-s", "--data-dir", str(shared_data), "--scores", "mine=-")
    with open("/dev/zero", "rb") as zeros:
        done = subprocess.run(cli(*args), stdin=zeros, capture_output=True, timeout=60,
                              preexec_fn=bounded, env=child_env())
    assert done.returncode == 2 and done.stdout == b""
    assert one_line_error(done.stderr).startswith(
        f"error: scores from standard input: {LIMIT_MESSAGE} and holds NUL bytes")


@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_endless_text_without_a_line_end_ends_with_one_line():
    """``yes | tr -d '\\n'``: text, but never a line end."""
    start = time.monotonic()
    done = subprocess.run(
        ["sh", "-c", "yes | tr -d '\\n' | \"$0\" \"$@\"", *cli("score", "-s", SRC, "-r", REF0,
                                                               "-c", "-")],
        capture_output=True, timeout=60, preexec_fn=bounded, env=child_env())
    assert done.returncode == 2 and done.stdout == b""
    message = one_line_error(done.stderr)
    assert message == (f"error: hypothesis from standard input: {LIMIT_MESSAGE}, the limit for "
                       "one line (one sentence a line is expected); to allow longer lines, set "
                       f"the environment variable {ENV_MAX_LINE_BYTES}={MAX_LINE_BYTES * 4}\n")
    assert time.monotonic() - start < 60


@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_sigterm_while_reading_endless_stdin_ends_the_run():
    """Reading is in blocks, so the CLI's SIGTERM handler runs between them."""
    env = child_env(**{ENV_MAX_LINE_BYTES: str(1 << 40)})  # never reached
    proc = subprocess.Popen(cli("score", "-s", "-", "-r", REF0, "-c", HYP_A),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=bounded, env=env)
    assert proc.stdin is not None
    stop = threading.Event()
    written = [0]

    def feed() -> None:  # zeros at about 50 MB/s, far below the memory limit in the test
        try:
            while not stop.is_set():
                proc.stdin.write(bytes(1 << 20))
                proc.stdin.flush()
                written[0] += 1 << 20
                time.sleep(0.02)
        except (BrokenPipeError, ValueError, OSError):
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        deadline = time.monotonic() + 50
        while written[0] < 8 << 20 and time.monotonic() < deadline:  # the pipe holds 64 KB:
            time.sleep(0.05)                                          # the child is reading
        assert proc.poll() is None and written[0] >= 8 << 20
        proc.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        proc.wait(timeout=20)
        waited = time.monotonic() - sent
    finally:
        stop.set()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.stderr is not None
    stderr = proc.stderr.read()
    assert proc.returncode == 143, stderr[-2000:]
    assert stderr == b"error: terminated (SIGTERM)\n"
    assert waited < 10


def test_the_limit_counts_bytes_per_line_across_blocks(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_MAX_LINE_BYTES, "10")
    ok = tmp_path / "ok.txt"
    ok.write_bytes(b"0123456789\n" * 5 + b"0123456789")  # every line exactly at the limit
    assert read_lines(ok) == ["0123456789"] * 6
    assert count_lines(str(ok), "source") == 6
    long = tmp_path / "long.txt"
    long.write_bytes(b"short\n0123456789\nx\n01234567890\n")
    expected = (f"hypothesis file {long}: line 4 is longer than 10 bytes, the limit for one line "
                "(one sentence a line is expected); to allow longer lines, set the environment "
                f"variable {ENV_MAX_LINE_BYTES}=40")
    for read in (lambda: read_lines(long, "hypothesis"), lambda: count_lines(str(long),
                                                                              "hypothesis")):
        with pytest.raises(InputError) as info:
            read()
        assert str(info.value) == expected
    monkeypatch.setenv(ENV_MAX_LINE_BYTES, "11")  # raised: the same file is read
    assert read_lines(long)[3] == "01234567890"


def test_default_limit_and_bad_settings(monkeypatch):
    monkeypatch.delenv(ENV_MAX_LINE_BYTES, raising=False)
    assert max_line_bytes() == MAX_LINE_BYTES == 8 << 20
    for bad in ("0", "-5", "8MB", "1.5"):
        monkeypatch.setenv(ENV_MAX_LINE_BYTES, bad)
        with pytest.raises(ConfigError, match=f"^{ENV_MAX_LINE_BYTES}='{bad}' is not a whole "
                                              "number of bytes >= 1"):
            max_line_bytes()


def test_long_lines_of_old_mac_files_get_the_cr_hint(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_MAX_LINE_BYTES, "100")
    path = tmp_path / "mac.txt"
    path.write_bytes(b"a sentence .\r" * 20)
    with pytest.raises(InputError, match=r"line 1 is longer than 100 bytes and holds carriage "
                                         r"returns \(\\r\): old Mac line ends\?"):
        read_lines(path)


def test_real_data_is_far_below_the_limit(shared_data):
    longest = max((len(line) for path in shared_data.rglob("*") if path.is_file()
                   for line in path.read_bytes().split(b"\n")), default=0)
    assert 0 < longest < MAX_LINE_BYTES // 100


# ---------------------------------------------------------------------------
# UTF-16, UTF-32 and NUL bytes


TEXT = "He goes home .\nFine .\n"


@pytest.mark.parametrize("data, encoding", [
    (TEXT.encode("utf-16"), "UTF-16"),       # with a byte-order mark
    (TEXT.encode("utf-32"), "UTF-32"),
    (TEXT.encode("utf-16-le"), "UTF-16LE"),  # without one: NULs in every other byte
    (TEXT.encode("utf-16-be"), "UTF-16BE"),
    (TEXT.encode("utf-32-le"), "UTF-32LE"),
    (TEXT.encode("utf-32-be"), "UTF-32BE"),
])
def test_utf16_and_utf32_get_their_conversion(tmp_path, data, encoding):
    path = tmp_path / "wide.txt"
    path.write_bytes(data)
    expected = (f"hypothesis file {path} is {encoding} text, not UTF-8; convert it, e.g. with "
                f"`iconv -f {encoding} -t UTF-8 {path} > {path}.utf8`")
    for read in (lambda: read_lines(path, "hypothesis"),
                 lambda: count_lines(str(path), "hypothesis")):
        with pytest.raises(InputError) as info:
            read()
        assert str(info.value) == expected
    assert "LATIN1" not in expected
    assert data.decode(encoding) == TEXT  # the named encoding is the right one


def test_utf16_on_stdin_through_the_cli():
    result = invoke("score", "-s", SRC, "-r", REF0, "-c", "-",
                    stdin=Path(HYP_A).read_text().encode("utf-16"))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == ("error: hypothesis from standard input is UTF-16 text, not UTF-8; "
                             "convert it, e.g. with `iconv -f UTF-16 -t UTF-8`\n")


def test_nul_bytes_are_a_binary_file(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(b"a line .\nsecond \x00\x01\x02 line\n")
    expected = (f"source file {path} holds a NUL byte (byte 16, line 2): a binary file, or "
                "UTF-16/UTF-32 text? expected UTF-8 text, one sentence a line (convert text "
                "with `iconv -f ENCODING -t UTF-8`)")
    for read in (lambda: read_lines(path, "source"), lambda: count_lines(str(path), "source")):
        with pytest.raises(InputError) as info:
            read()
        assert str(info.value) == expected


@pytest.mark.parametrize("bad", [b"\x00", b"\xff"])
def test_block_reader_and_whole_reader_name_the_same_byte(tmp_path, bad):
    """A bad byte after several blocks: the chunked scan names the same byte and line."""
    path = tmp_path / "big.txt"
    good = b"a sentence of some length , repeated .\n" * 80_000  # about 3 MB: several blocks
    path.write_bytes(good + b"almost " + bad + b" there\nlast\n")
    with pytest.raises(InputError) as whole:
        read_lines(path, "reference")
    with pytest.raises(InputError) as blocks:
        count_lines(str(path), "reference")
    assert str(whole.value) == str(blocks.value)
    assert f"(byte {len(good) + 7}, line 80001)" in str(whole.value)


# ---------------------------------------------------------------------------
# --scores


def fake_stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_scores_from_stdin_read_like_the_file(tmp_path, monkeypatch):
    scores = {"AMU": [0.25, 0.5], "CAMB": [0.5, 0.75]}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(scores))
    fake_stdin(monkeypatch, path.read_bytes())
    from_stdin = parse_scores_option("mine=-:order=lower")
    from_file = parse_scores_option(f"mine={path}:order=lower")
    assert from_stdin.order == from_file.order == "lower"
    assert {k: list(v) for k, v in from_stdin.table.values.items()} == scores
    assert from_stdin.table.source == "standard input"
    fake_stdin(monkeypatch, b"system\tscore\nAMU\t0.5\n")
    assert read_scores("-").values == {"AMU": 0.5}
    fake_stdin(monkeypatch, b"")
    with pytest.raises(InputError, match="^scores from standard input is empty; expected"):
        read_scores("-")


def test_scores_stdin_at_most_once():
    check_scores_stdin(["a=-", "b=x.json"])
    with pytest.raises(InputError, match=r"^standard input \(-\) is given 2 times \(--scores a, "
                                         r"--scores b\)"):
        check_scores_stdin(["a=-", "b=-:order=lower"])


@pytest.mark.full
def test_meta_eval_scores_from_stdin(shared_data):
    from gecmetrics.meta_eval.benchmarks import load_benchmark

    systems = list(load_benchmark("seeda-s", str(shared_data)).corpus.hypotheses)
    scores = json.dumps({s: 0.5 + k / 100 for k, s in enumerate(systems)})
    args = ["meta-eval", "seeda-s", "--format", "json", "--data-dir", str(shared_data)]
    result = invoke(*args, "--scores", "mine=-", stdin=scores)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert rows and all(r["spec"] == "scores:mine" for r in rows)
    twice = invoke(*args, "--scores", "a=-", "--scores", "b=-", stdin=scores)
    assert twice.exit_code == 2 and twice.stderr.count("\n") == 1
    assert "standard input (-) is given 2 times" in twice.stderr


def test_a_json_string_score_is_refused(tmp_path):
    path = tmp_path / "text.json"
    path.write_text(json.dumps({"AMU": "0.5", "CAMB": 0.6}))
    with pytest.raises(InputError) as info:
        read_scores(path)
    assert str(info.value) == (f"{path}, system AMU: the score '0.5' is a string, not a number; "
                               "write it as a JSON number, without quotes")
    path.write_text(json.dumps({"AMU": [0.5, "0.25"], "CAMB": [0.6, 0.7]}))
    with pytest.raises(InputError, match=r", system AMU, sentence 2: the score '0.25' is a "
                                         "string"):
        read_scores(path)
    with pytest.raises(InputError, match="in-memory scores, system A: the score '1' is a string"):
        table_from_mapping({"A": "1"})
    tsv = tmp_path / "scores.tsv"  # in a text file every value is text: read as before
    tsv.write_text("system\tscore\nAMU\t0.5\n")
    assert read_scores(tsv).values == {"AMU": 0.5}


@pytest.mark.parametrize("value", [1e308, -1e308, 1.5e100])
def test_huge_scores_are_refused_without_a_warning(tmp_path, value):
    for given, where in (({"AMU": value, "CAMB": 0.5}, "system AMU"),
                         ({"AMU": [0.5, value], "CAMB": [0.5, 0.5]}, "system AMU, sentence 2")):
        path = tmp_path / "huge.json"
        path.write_text(json.dumps(given))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(InputError) as info:
                read_scores(path)
        assert str(info.value).startswith(f"{path}, {where}: the score {value!r} is beyond "
                                          f"+-{MAX_ABS_SCORE:g}")
        assert "divide every score by one factor" in str(info.value)


def test_scores_up_to_the_bound_correlate_without_a_warning():
    """At the bound the correlations' arithmetic does not overflow: the same r as the
    scores divided by 1e100 (a correlation does not change with the scale)."""
    import numpy as np

    from gecmetrics.stats.correlation import pearson

    rng = np.random.default_rng(7)
    unit = rng.uniform(-1, 1, size=12)
    human = rng.uniform(0, 1, size=12)
    table = table_from_mapping({f"s{k}": v * MAX_ABS_SCORE for k, v in enumerate(unit)})
    big = np.array(list(table.values.values()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = float(pearson(big, human))
    assert r == pytest.approx(float(pearson(unit, human)), rel=1e-12)


# ---------------------------------------------------------------------------
# Counts agree with their noun


def test_plural():
    assert [plural(n, "file") for n in (0, 1, 2)] == ["0 files", "1 file", "2 files"]
    assert plural(1, "analysis", "analyses") == "1 analysis"
    assert plural(3, "analysis", "analyses") == "3 analyses"


def test_one_file_and_one_line_in_messages(tmp_path):
    listed = invoke("download", "--list", "tmu-gfm", "--data-dir", str(tmp_path))
    assert listed.exit_code == 0
    assert listed.stdout.startswith("tmu-gfm\t1 file\t")
    one = tmp_path / "one.txt"
    one.write_text("A line .\n")
    result = invoke("score", "-s", SRC, "-r", REF0, "-c", str(one))
    assert result.exit_code == 2
    assert f"hypothesis file {one} has 1 line but" in result.stderr


def test_gotoscorer_weight_file_is_read_like_every_input(tmp_path, monkeypatch):
    from gecmetrics.metrics.gotoscorer import read_weight_file

    wide = tmp_path / "weights.txt"
    wide.write_bytes("3\n0 1\n".encode("utf-16"))
    with pytest.raises(InputError, match=f"^gotoscorer weight file {wide} is UTF-16 text"):
        read_weight_file(str(wide))
    monkeypatch.setenv(ENV_MAX_LINE_BYTES, "8")
    long = tmp_path / "long.txt"
    long.write_text("3\n" + "1 " * 10 + "\n")
    with pytest.raises(InputError, match="line 2 is longer than 8 bytes"):
        read_weight_file(str(long))
