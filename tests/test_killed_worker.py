"""A worker process that dies (killed from outside, or by the out-of-memory killer)
ends the run with one ``error:`` line and exit code 2 (issue 32): no traceback, no
worker left behind, nothing on stdout, no partial result."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from trust_cases import _issue32_jobs_files

from gecmetrics import parallel
from gecmetrics.errors import GecMetricsError

CLI = [sys.executable, "-c", "import sys; from gecmetrics.interface.cli import run; "
       "sys.argv[0] = 'gecmetrics'; run()"]


def _die_in_worker(parent: int) -> int:
    if os.getpid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
    return parent


def test_a_killed_worker_is_one_error_and_no_pool_is_left():
    with pytest.raises(GecMetricsError, match=r"worker processes \(-j/--jobs\) was killed"):
        list(parallel.map_ordered(_die_in_worker, [os.getpid()] * 4, jobs=2))
    assert 2 not in parallel._pools  # a broken pool is never reused
    assert list(parallel.map_ordered(abs, [-1, -2, -3], jobs=2)) == [1, 2, 3]  # a new one


@pytest.fixture(scope="module")
def m2_corpus(tmp_path_factory) -> tuple[Path, Path, Path]:
    """The M2 work of the bad-input sweep's -j signal cases (seconds of it), so that a
    worker is killed while busy."""
    folder = tmp_path_factory.mktemp("killed")
    for name, content in _issue32_jobs_files().items():
        (folder / name).write_bytes(content)
    return folder / "jobs_src.txt", folder / "jobs_gold.m2", folder / "jobs_hyp.txt"


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


@pytest.mark.full
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_m2_worker_killed_from_outside(m2_corpus):
    """``kill -9`` of one of M2's two workers: exit 2, one line, nothing printed, and
    the other worker gone with the parent."""
    src, gold, hyp = m2_corpus
    proc = subprocess.Popen([*CLI, "score", "-m", "m2", "-s", str(src), "--m2", str(gold),
                             "-c", str(hyp), "-j", "2"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(children(proc.pid)) < 2:  # the two workers are scoring pairs
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no worker started"
            time.sleep(0.02)
        os.kill(children(proc.pid)[0], signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 2, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "killed" in lines[0] and "-j 1" in lines[0]
    assert out == ""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("a worker outlived the run")
