"""The default ``--jobs``'s rule (issue 32): workers only where they pay.

:func:`gecmetrics.parallel.planned_workers` is a pure function of the work's
estimate, a worker's start cost and the cores free; :func:`free_cores` turns
the load average and the run queue into the cores free. Both are checked here
against the expected-time model written out in the tests (an independent
brute force over every worker count), never against a clock: the timings are
in bench/bench_jobs_default.py.
"""

from __future__ import annotations

import itertools

from gecmetrics import parallel
from gecmetrics.parallel import PARALLEL_OVERHEAD, free_cores, planned_workers


def expected_time(work: float, start: float, workers: int) -> float:
    """What ``workers`` processes are expected to take (1: this process alone)."""
    if workers == 1:
        return work
    return workers * start + work * (1 + PARALLEL_OVERHEAD) / workers


def test_the_rule_picks_the_fastest_count_within_whole_free_cores():
    for work, start, free, limit in itertools.product(
            [0.0, 0.01, 0.1, 0.3, 1.0, 10.0, 100.0], [0.0, 0.01, 0.05, 0.5],
            [1.0, 1.5, 2.0, 2.9, 4.0, 16.0], [1, 2, 4, 16]):
        got = planned_workers(work, start, free, limit)
        allowed = range(1, min(limit, int(free)) + 1)
        assert got in allowed
        best = min(expected_time(work, start, w) for w in allowed)
        assert expected_time(work, start, got) == best, (work, start, free, limit)
        if got > 1:  # never parallel unless it is expected to win
            assert expected_time(work, start, got) < work


def test_work_shorter_than_starting_its_workers_runs_here():
    start = parallel.WORKER_START_S
    assert planned_workers(start, start, 2.0, 2) == 1
    assert planned_workers(2 * start, start, 2.0, 2) == 1
    assert planned_workers(100 * start, start, 2.0, 2) == 2


def test_busy_cores_give_no_workers_however_large_the_work():
    assert planned_workers(1000.0, 0.0, 1.0, 2) == 1
    assert planned_workers(1000.0, 0.0, 1.9, 2) == 1
    assert planned_workers(1000.0, 0.0, 2.0, 2) == 2
    assert planned_workers(1000.0, 0.0, 3.5, 8) == 3


def test_free_cores_counts_this_process_once_and_believes_the_lower_reading():
    assert free_cores(2, 0.0, 1.0) == 2.0        # idle: this process alone runs
    assert free_cores(2, 1.0, 1.0) == 2.0        # the load is ours
    assert free_cores(2, 3.0, 1.0) == 2.0        # load of a run that just ended
    assert free_cores(2, 0.5, 4.0) == 2.0        # a burst of others now, idle a minute
    assert free_cores(2, 2.0, 2.0) == 1.0        # one other process on a core
    assert free_cores(2, 7.0, 6.0) == 1.0        # loaded: never below one
    assert free_cores(16, 4.0, 5.0) == 13.0


def test_a_running_pool_costs_no_start(monkeypatch):
    """Workers start once per run: where a pool of that size runs, work worth
    less than starting one still uses it."""
    monkeypatch.setattr(parallel, "default_jobs", lambda: 2)
    monkeypatch.setattr(parallel, "machine_free_cores", lambda: 2.0)
    monkeypatch.setattr(parallel, "_pools", {})  # none left running by an earlier test
    work = parallel.MIN_PARALLEL_WORK  # units
    seconds = work * parallel.WORK_UNIT_S
    assert planned_workers(seconds, 0.0, 2.0, 2) == 2
    monkeypatch.setattr(parallel, "WORKER_START_S", seconds)  # dearer than the work
    with parallel.execution():
        assert parallel.workers_for(work, 2) == 1
        monkeypatch.setitem(parallel._pools, 2, object())
        assert parallel.workers_for(work, 2) == 2


def test_default_jobs_follows_the_free_cores(monkeypatch):
    monkeypatch.setattr(parallel, "default_jobs", lambda: 2)
    large = 100 * parallel.MIN_PARALLEL_WORK
    with parallel.execution():
        monkeypatch.setattr(parallel, "machine_free_cores", lambda: 2.0)
        assert parallel.workers_for(large) == 2
        assert parallel.workers_for(large, tasks=1) == 1
        monkeypatch.setattr(parallel, "machine_free_cores", lambda: 1.2)
        assert parallel.workers_for(large) == 1
    with parallel.execution(jobs=2):  # an explicit -j is obeyed whatever the load
        assert parallel.workers_for(large) == 2


def test_machine_free_cores_reads_this_machine():
    free = parallel.machine_free_cores()
    assert 1.0 <= free <= parallel.default_jobs()


def test_one_reading_serves_the_steps_of_a_job(monkeypatch):
    """Two questions a moment apart get one answer from one reading of the machine."""
    reads = []
    monkeypatch.setattr(parallel, "_free_read", None)
    monkeypatch.setattr(parallel, "_read_free_cores", lambda: reads.append(1) or 2.0)
    assert parallel.machine_free_cores() == parallel.machine_free_cores() == 2.0
    assert len(reads) == 1
    monkeypatch.setattr(parallel, "FREE_CORES_TTL", 0.0)
    parallel.machine_free_cores()
    assert len(reads) == 2


def test_scores_step_threads_are_sized_from_their_own_work(monkeypatch):
    """The threads that build scores after counting are sized from that step's
    work: none for word and char GREEN on CoNLL-2014's 1,312 lines (the case
    where the default was 1.31x slower than ``-j 1``), two for 200,000 lines."""
    from gecmetrics.scoring import SCORES_STEP_WORK

    monkeypatch.setattr(parallel, "default_jobs", lambda: 2)
    monkeypatch.setattr(parallel, "machine_free_cores", lambda: 2.0)
    with parallel.execution():
        assert parallel.workers_for(1_312 * 2 * SCORES_STEP_WORK, 2) == 1
        assert parallel.workers_for(1_312 * 2, 2) == 2  # the counting's work would
        assert parallel.workers_for(200_000 * 2 * SCORES_STEP_WORK, 2) == 2
