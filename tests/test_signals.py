"""Processes, signals and standard output at the edges (issue 22).

* Ctrl-C / SIGTERM to the process group of a ``score -j 2`` run: exit 130 / 143,
  one line on stderr, no traceback from the parent or a worker, no process left;
* standard output on a full disk (``> /dev/full``) is one line, exit 2; a closed
  pipe (``| head``) ends quietly, without "Exception ignored ... BrokenPipeError";
* ``-j 1000`` on a 3-line file forks no pool (it forked about 860 processes);
* figures and ``m2-to-text -o`` are written whole or not at all.

Every CLI case runs the console entry in a subprocess, with a timeout.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gecmetrics import parallel
from gecmetrics.paths import PARTIAL_SUFFIX, atomic_output

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
# the CLI in a fresh interpreter, as the console script runs it
CLI = [sys.executable, "-c", "import sys; from gecmetrics.interface.cli import run; "
       "sys.argv[0] = 'gecmetrics'; run()"]
SCORE = ["score", "-s", str(EXAMPLE / "source.txt"), "-r", str(EXAMPLE / "ref0.txt"),
         str(EXAMPLE / "ref1.txt"), "-c", str(EXAMPLE / "system_a.txt")]


def cli(*args: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], text=True, timeout=timeout, **kwargs)


# -- signals with worker processes ------------------------------------------------------

@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory) -> tuple[Path, Path]:
    """A source and a hypothesis file that chrF takes several seconds to count with
    ``-j 2`` (200,000 lines of made-up words; no real data needed)."""
    folder = tmp_path_factory.mktemp("big")
    rng = random.Random(22)
    words = ["".join(rng.choice("abcdefghij") for _ in range(rng.randint(2, 9)))
             for _ in range(2000)]
    src, hyp = folder / "src.txt", folder / "hyp.txt"
    lines = [" ".join(rng.choices(words, k=20)) for _ in range(200_000)]
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    hyp.write_text("\n".join(line[::-1] for line in lines) + "\n", encoding="utf-8")
    return src, hyp


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(c) for c in text]
    return found


def alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.full
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig, code, line", [
    (signal.SIGINT, 130, "error: interrupted (Ctrl-C)"),
    (signal.SIGTERM, 143, "error: terminated (SIGTERM)"),
])
@pytest.mark.parametrize("group", [True, False], ids=["process-group", "parent-only"])
def test_signal_with_workers_is_one_line_and_leaves_no_process(big_corpus, sig, code, line,
                                                               group):
    src, hyp = big_corpus
    proc = subprocess.Popen([*CLI, "score", "-m", "chrf", "-s", str(src), "-r", str(hyp),
                             "-c", str(src), "-j", "2"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(children(proc.pid)) < 2:  # the two workers are counting
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no worker started"
            time.sleep(0.05)
        time.sleep(0.5)
        assert proc.poll() is None  # still counting: 200,000 lines take seconds
        if group:  # what a terminal's Ctrl-C or `timeout` does
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == code, err
    assert err.splitlines() == [line], err
    assert "Traceback" not in err and out == ""
    deadline = time.monotonic() + 10
    while alive(proc.pid) and time.monotonic() < deadline:  # the workers die with it
        time.sleep(0.05)
    assert not alive(proc.pid)


def test_workers_leave_signals_to_the_parent():
    """The pool's initializer: Ctrl-C ignored, SIGTERM the quiet default, both let in."""
    before = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
    try:
        parallel._worker_init()
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        assert not {signal.SIGINT, signal.SIGTERM} & signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finally:
        signal.signal(signal.SIGINT, before[0])
        signal.signal(signal.SIGTERM, before[1])
        parallel._current = parallel.Execution()


# -- how many processes -------------------------------------------------------------------

def test_pool_size_is_capped_by_chunks_and_cores():
    cores = parallel.default_jobs()
    assert parallel.pool_size(1000, 1) == 1
    assert parallel.pool_size(1000, 3) == min(3, cores)
    assert parallel.pool_size(1000, 10_000) == cores
    assert parallel.pool_size(1, 10_000) == 1


def test_one_chunk_makes_no_pool():
    before = dict(parallel._pools)  # earlier tests of this process may have made pools
    got = list(parallel.map_ordered(abs, iter([-3]), jobs=1000))
    assert got == [3] and parallel._pools == before


def test_jobs_1000_on_three_lines_forks_nothing():
    """`-j 1000` on a 3-line file forked about 860 processes (19.8 s instead of 0.7 s):
    no pool now, and a note that the machine has fewer cores."""
    code = ("import sys; from gecmetrics.interface.cli import main;"
            " from gecmetrics import parallel\n"
            "try:\n    main.main(sys.argv[1:], standalone_mode=False)\n"
            "finally:\n    print('pools', len(parallel._pools), file=sys.stderr)\n")
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", code, *SCORE, "-j", "1000", "--format", "json"],
                          capture_output=True, text=True, timeout=60)
    took = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1] == "pools 0"
    cores = parallel.default_jobs()
    if cores < 1000:
        assert (f"note: -j/--jobs 1000 is more than the {cores} core" in proc.stderr)
    assert took < 15, took  # about 1 s; 860 forks took 19.8 s


# -- standard output -----------------------------------------------------------------------

def commands(shared: Path | None) -> list[list[str]]:
    cases = [["list"], SCORE, [*SCORE, "--level", "sentence", "--format", "json"]]
    if shared is not None:
        cases.append(["meta-eval", "seeda-s", "-m", "green", "--data-dir", str(shared)])
    return cases


@pytest.fixture
def maybe_shared(request) -> Path | None:
    from conftest import SHARED_DATA

    return SHARED_DATA if (SHARED_DATA / "SEEDA").is_dir() else None


@pytest.mark.full
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_full_disk_on_stdout_is_one_line(maybe_shared):
    for args in [*commands(maybe_shared), ["--help"], ["--version"]]:
        with open("/dev/full", "w") as full:
            proc = cli(*args, stdout=full, stderr=subprocess.PIPE)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr.splitlines() == [
            "error: cannot write to standard output (No space left on device); free space "
            "where it goes, or redirect it to another file"], (args, proc.stderr)


@pytest.mark.full
def test_closed_pipe_ends_quietly(maybe_shared):
    for args in commands(maybe_shared):
        read, write = os.pipe()
        os.close(read)  # the reader is gone before the first line (`| head -0`)
        try:
            proc = cli(*args, stdout=write, stderr=subprocess.PIPE)
        finally:
            os.close(write)
        assert proc.returncode == 0, (args, proc.stderr)
        assert proc.stderr == "", (args, proc.stderr)  # no "Exception ignored"


# -- no partial files -----------------------------------------------------------------------

def test_atomic_output_leaves_the_old_file_or_the_new_one(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(KeyboardInterrupt), atomic_output(target) as part:
        Path(part).write_text("half")
        raise KeyboardInterrupt
    assert target.read_text() == "old" and sorted(tmp_path.iterdir()) == [target]
    with atomic_output(target) as part:
        assert part.endswith(PARTIAL_SUFFIX) and Path(part).parent == tmp_path
        Path(part).write_text("new")
    assert target.read_text() == "new" and sorted(tmp_path.iterdir()) == [target]


def test_m2_to_text_output_is_atomic(tmp_path, monkeypatch):
    """A write that fails half-way leaves neither a partial file nor a temporary one."""
    from click.testing import CliRunner

    from gecmetrics.interface.cli import main

    m2 = tmp_path / "g.m2"
    m2.write_text("S A b c .\nA 1 2|||R:NOUN|||B|||REQUIRED|||-NONE-|||0\n\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    assert CliRunner().invoke(main, ["m2-to-text", str(m2), "--source", "-o",
                                     str(out)]).exit_code == 0
    assert out.read_text(encoding="utf-8") == "A b c .\n"
    from gecmetrics.interface.commands import common  # where command outputs are written

    class Full:
        """A file that takes three characters, then finds the disk full."""

        def __init__(self, path, *args, **kwargs):
            self.file = open(path, *args, **kwargs)  # noqa: SIM115

        def write(self, text):
            self.file.write(text[:3])
            self.file.flush()
            raise OSError(28, "No space left on device")

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

    monkeypatch.setattr(common, "open", Full, raising=False)
    res = CliRunner().invoke(main, ["m2-to-text", str(m2), "--annotator", "0", "-o",
                                    str(out)])
    assert res.exit_code == 2 and "No space left on device" in res.output
    assert out.read_text(encoding="utf-8") == "A b c .\n"  # the old file, untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.m2", "out.txt"]


def test_ctrl_c_while_the_cli_is_imported_is_one_line(monkeypatch, capsys):
    """The console script imports the CLI inside the signal handling
    (gecmetrics.interface.console)."""
    import builtins

    from gecmetrics.interface import console

    real_import = builtins.__import__

    def interrupted(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "cli" and level == 1:
            raise KeyboardInterrupt
        return real_import(name, globals, locals, fromlist, level)

    before = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(builtins, "__import__", interrupted)
    try:
        with pytest.raises(SystemExit) as stop:
            console.main()
    finally:
        signal.signal(signal.SIGINT, before)
    assert stop.value.code == 130
    assert capsys.readouterr().err == "error: interrupted (Ctrl-C)\n"
