"""The default ``--jobs`` starts no workers for small work (issue 23).

On three lines, the default ``-j`` (2 on a 2-core machine) was 15% slower than
``-j 1``: it started threads (and, with a small ``--chunk-size``, processes)
for work that takes less than their start-up. Below
:data:`gecmetrics.parallel.MIN_PARALLEL_WORK` sentences x metrics the default
now runs in the calling thread; an explicit ``--jobs N`` still starts up to N
workers (capped by chunks and cores). The timing is in
bench/bench_small.py, never here.
"""

from __future__ import annotations

import concurrent.futures
import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from gecmetrics import parallel
from gecmetrics.interface.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
SCORE = ["score", "-m", "green", "-m", "green:tokenize=char", "-s",
         str(EXAMPLE / "source.txt"), "-r", str(EXAMPLE / "ref0.txt"),
         str(EXAMPLE / "ref1.txt"), "-c", str(EXAMPLE / "system_a.txt"),
         str(EXAMPLE / "system_b.txt"), "--format", "json"]


def test_workers_for_default_and_explicit_jobs(monkeypatch):
    monkeypatch.setattr(parallel, "machine_free_cores", lambda: float(parallel.default_jobs()))
    small, large = parallel.MIN_PARALLEL_WORK - 1, parallel.MIN_PARALLEL_WORK
    with parallel.execution():
        assert parallel.current().jobs is None
        assert parallel.workers_for(small) == 1
        assert parallel.workers_for(large) == parallel.default_jobs()
        assert parallel.workers_for(None) == parallel.default_jobs()  # size unknown
    with parallel.execution(jobs=3):
        assert parallel.workers_for(small) == parallel.workers_for(large) == 3


class Recorded:
    """Stands for both executors: records how many workers were asked for and
    runs every task at once in the calling thread."""

    sizes: list[tuple[str, int]] = []

    def __init__(self, workers: int, kind: str = "threads") -> None:
        Recorded.sizes.append((kind, workers))

    def submit(self, func, *args):
        future: concurrent.futures.Future = concurrent.futures.Future()
        future.set_result(func(*args))
        return future

    def map(self, func, items):
        return [func(item) for item in items]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.fixture
def recorded(monkeypatch):
    Recorded.sizes = []
    monkeypatch.setattr(concurrent.futures, "ThreadPoolExecutor", Recorded)
    monkeypatch.setattr(parallel, "_pool", lambda workers: Recorded(workers, "processes"))
    monkeypatch.setattr(parallel, "default_jobs", lambda: 2)  # as on the 2-core machine
    monkeypatch.setattr(parallel, "machine_free_cores", lambda: 2.0)  # both idle
    return Recorded.sizes


def run(*extra: str) -> list[dict]:
    out = io.StringIO()
    with redirect_stdout(out):
        main([*SCORE, *extra], standalone_mode=False)
    return json.loads(out.getvalue())


@pytest.mark.parametrize("level", ["corpus", "sentence"])
def test_default_jobs_on_three_lines_starts_no_worker(recorded, level):
    """Three lines in chunks of one line, two metrics: the default starts neither
    processes nor threads; ``-j 2`` starts both, with the same scores."""
    default = run("--chunk-size", "1", "--level", level)
    assert recorded == []
    explicit = run("--chunk-size", "1", "--level", level, "-j", "2")
    kinds = {kind for kind, _ in recorded}
    assert kinds == ({"processes", "threads"} if level == "corpus" else {"processes"})
    assert all(workers == 2 for _, workers in recorded)
    assert explicit == default == run("-j", "1", "--level", level)
