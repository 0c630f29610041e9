"""How counting is split: chunks of sentences, and how many processes count them.

The n-gram metrics need, per sentence, a few integers per order, reference and
hypothesis. So the corpus is counted a chunk of sentences at a time
(:data:`DEFAULT_CHUNK_SIZE`), each chunk returns compact integer arrays, and
only those are kept: the token lists and hash tables of a chunk are freed
before the next one. With ``jobs > 1`` the chunks are counted by a pool of
worker processes (the tokenisation is Python code, which holds the GIL, so
threads would not help); results come back in input order, so the numbers do
not depend on ``jobs`` or on the chunk size (tests/test_scale.py checks both).

The settings are one process-wide :class:`Execution`, changed with
:func:`execution` (the CLI's ``--jobs`` and ``--chunk-size`` set it). They are
not part of any metric's config or cache key: they change how fast and in how
much memory, never what is computed. The pool is made on first use, reused,
and never made for a corpus that fits in one chunk, so that importing this
module (or ``gecmetrics --help``) costs nothing. It never has more workers
than chunks to count, nor than the cores this process may use
(:func:`pool_size`): ``-j 1000`` on a 3-line file forked about 860 processes
(19.8 s instead of 0.7 s).

With the default ``--jobs`` (none given), how many workers (processes, and the
threads that build each metric's scores) start is one rule,
:func:`planned_workers`, a pure function of three numbers: the work's estimate
in seconds of one core (each caller states its work in units of
:data:`WORK_UNIT_S`), what starting one worker costs (:data:`WORKER_START_S`;
nothing where a pool of that size already runs: workers start once per run),
and the cores free now (:func:`free_cores`, from the load average and the
run queue). Workers start only where they are expected to finish the work
sooner than one process alone, the cost of shipping work to them
(:data:`PARALLEL_OVERHEAD`) included, and never more than the cores free: on
2 cores shared by other work, 2 workers were up to 1.3x slower than one. An
explicit ``--jobs N`` is obeyed whatever the size and load (capped by
:func:`pool_size`). The rule and its measurements: docs/scale.md.

Signals: the parent handles Ctrl-C and SIGTERM for the whole process group.
Workers are forked with both signals blocked, then ignore SIGINT (a Ctrl-C
reaches every process of the terminal's group: the parent alone acts on it)
and take SIGTERM's default action, a quiet exit; a parent stopped by either
signal kills its workers (:func:`map_ordered`). So no worker prints a
traceback, and none outlives the parent.
"""

from __future__ import annotations

import atexit
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import chain, islice
from typing import Any, TypeVar

from .errors import GecMetricsError
from .validate import check_chunk_size, check_jobs

#: Sentences per chunk. Large enough that per-chunk overhead (a pool task, a
#: few numpy calls) is negligible; small enough that a chunk's texts, token
#: lists and arrays (measured: about 20 KB per line at word level with 5 texts
#: a line, as Python strings and lists) stay near 40 MB per process.
DEFAULT_CHUNK_SIZE = 2_000

#: The unit in which callers state their work (:func:`workers_for`), in seconds of
#: one core: a sentence x metric of GREEN, which counts and scores about 5,000
#: of them a second on one core (2 systems, 2 references; bench/bench_small.py).
#: Other work states its weight in this unit (ERRANT's ``PAIR_WORK``, M2's
#: ``M2_PAIR_WORK``).
WORK_UNIT_S = 0.0002

#: What one worker costs to start and to feed its first task, in seconds: the
#: fork (about 15 ms idle, 30-50 ms at load 6-8 for a process holding numpy,
#: more for one holding a spaCy pipeline) and its first round trip. Set to
#: the loaded measurements, so that the rule errs towards one process.
WORKER_START_S = 0.05

#: The share of the work that parallel running adds: pickling tasks and results,
#: the last task's wait, caches cold in a new process (ERRANT ships parses both
#: ways: 6% of a cold run).
PARALLEL_OVERHEAD = 0.15

#: The least work (in :data:`WORK_UNIT_S`) for which the default ``--jobs`` may
#: start 2 workers on 2 free cores, by :func:`planned_workers`: about 0.4 s of
#: one core. ``-j 2`` was slower than ``-j 1`` up to 1,000 lines x 2 metrics.
MIN_PARALLEL_WORK = 2_000

T = TypeVar("T")
R = TypeVar("R")


def default_jobs() -> int:
    """The number of cores this process may use (``--jobs`` default)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Execution:
    """``jobs``: processes that count (None: :func:`default_jobs`; 1: no pool);
    ``chunk_size``: sentences per chunk (0: the whole corpus as one chunk)."""

    jobs: int | None = None
    chunk_size: int = DEFAULT_CHUNK_SIZE

    @property
    def workers(self) -> int:
        return default_jobs() if self.jobs is None else self.jobs


_current = Execution()


def current() -> Execution:
    """The settings in force."""
    return _current


@contextmanager
def execution(jobs: int | None = None, chunk_size: int | None = None) -> Iterator[Execution]:
    """Use ``jobs`` / ``chunk_size`` (those given) inside the block.

    Values are checked like the CLI options (:func:`gecmetrics.validate.check_jobs`,
    :func:`gecmetrics.validate.check_chunk_size`).
    """
    global _current
    before = _current
    changes: dict[str, Any] = {}
    if jobs is not None:
        changes["jobs"] = check_jobs(jobs)
    if chunk_size is not None:
        changes["chunk_size"] = check_chunk_size(chunk_size)
    _current = replace(before, **changes)
    try:
        yield _current
    finally:
        _current = before


def chunk_bounds(total: int, chunk_size: int | None = None) -> list[tuple[int, int]]:
    """``(start, stop)`` of each chunk of ``total`` sentences (one chunk for size 0)."""
    size = current().chunk_size if chunk_size is None else chunk_size
    if size <= 0 or total <= size:
        return [(0, total)]
    return [(start, min(start + size, total)) for start in range(0, total, size)]


def planned_workers(work_s: float, start_s: float, free: float, limit: int) -> int:
    """The workers (1: none, run in this process) that finish ``work_s`` seconds of
    one core's work soonest, the default ``--jobs``'s rule.

    ``start_s``: the cost of starting one worker (0 where they already run);
    ``free``: the cores free now (:func:`free_cores`); ``limit``: the most
    workers that could be busy (cores, tasks). ``w`` workers are expected to
    take ``w * start_s + work_s * (1 + PARALLEL_OVERHEAD) / w`` seconds, one
    process ``work_s``; more workers than whole free cores are never started
    (they would share a core with other work, and lose the overhead). Work
    shorter than starting its workers thus runs in this process.
    """
    best, best_s = 1, work_s
    whole = int(free + 1e-9)
    for w in range(2, min(limit, whole) + 1):
        expected = w * start_s + work_s * (1 + PARALLEL_OVERHEAD) / w
        if expected < best_s:
            best, best_s = w, expected
    return best


def free_cores(cores: int, load: float, running: float) -> float:
    """The cores of ``cores`` not busy with other work, given the 1-minute load
    average ``load`` and the processes running now, ``running`` (both count this
    process, which is running: one of them is ours).

    The smaller of the two is believed: the load average lags by a minute (it
    still counts the work of a run that just ended, this program's earlier
    runs among them), the run queue is one instant's. So a core counts as busy
    only where both say it is.
    """
    others = max(0.0, min(load, running) - 1.0)
    return max(1.0, min(float(cores), cores - others))


#: How many times, and how far apart (s), :func:`machine_free_cores` reads the run queue.
RUN_QUEUE_SAMPLES = (4, 0.003)


#: How long (s) a reading of :func:`machine_free_cores` is reused: the steps of one
#: job that ask one after another (ERRANT asks before its pool and again in
#: :func:`map_ordered`) get one answer, and the run queue is read once for them.
FREE_CORES_TTL = 1.0

_free_read: tuple[float, float] | None = None  # (when, free cores)


def machine_free_cores() -> float:
    """:func:`free_cores` of this machine now: the load average, and the mean of a
    few readings of the run queue (``procs_running`` of ``/proc/stat``, Linux);
    where neither can be read, every core is taken as free. A reading is reused
    for :data:`FREE_CORES_TTL` seconds."""
    global _free_read
    import time

    now = time.monotonic()
    if _free_read is not None and now - _free_read[0] < FREE_CORES_TTL:
        return _free_read[1]
    free = _read_free_cores()
    _free_read = (time.monotonic(), free)
    return free


def _read_free_cores() -> float:
    """:func:`machine_free_cores`'s reading, every time."""
    cores = default_jobs()
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):  # pragma: no cover - not POSIX
        return float(cores)
    readings: list[int] = []
    count, pause = RUN_QUEUE_SAMPLES
    import time

    for i in range(count):
        try:
            with open("/proc/stat", "rb") as f:
                for line in f:
                    if line.startswith(b"procs_running"):
                        readings.append(int(line.split()[1]))
                        break
        except (OSError, ValueError):  # pragma: no cover - not Linux
            break
        if i + 1 < count:
            time.sleep(pause)
    running = sum(readings) / len(readings) if readings else load
    # Both readings are the whole machine's: its free cores, of which this
    # process may use at most its own (an affinity mask may hold fewer).
    machine = max(cores, os.cpu_count() or cores)
    return min(float(cores), free_cores(machine, load, running))


def workers_for(work: float | None, tasks: int | None = None) -> int:
    """The processes (or threads) the settings in force give to ``work`` units
    (:data:`WORK_UNIT_S`; None: not known) in ``tasks`` pieces (None: not
    known): an explicit ``jobs`` as given; the default :func:`planned_workers`
    of the work, the start cost (none for a pool of that size already running)
    and the cores free now. Callers still cap it with :func:`pool_size`."""
    settings = current()
    if settings.jobs is not None:
        return settings.jobs
    cores = default_jobs()
    if work is None:
        return cores
    limit = cores if tasks is None else max(1, min(cores, tasks))
    if limit <= 1 or work < MIN_PARALLEL_WORK:
        return 1
    start = 0.0 if limit in _pools else WORKER_START_S
    return planned_workers(work * WORK_UNIT_S, start, machine_free_cores(), limit)


def pool_size(jobs: int, tasks: int) -> int:
    """The workers a pool needs for ``tasks`` chunks asked of ``jobs`` processes: at
    most one per chunk and one per core (:func:`default_jobs`); 1 means no pool.

    More workers than chunks would only be forked to sit idle, and more than the
    cores would share them: neither counts faster, each costs a process.
    """
    return max(1, min(jobs, tasks, default_jobs()))


def map_ordered(func: Callable[[T], R], items: Iterable[T], jobs: int | None = None,
                work: int | None = None) -> Iterator[R]:
    """``map(func, items)`` in input order, over ``jobs`` processes.

    At most two tasks per worker are in flight, so a lazy ``items`` (chunks
    read from files) is read only as fast as it is counted and memory stays
    bounded. ``func`` and the items must be picklable (a module-level function).
    The pool has :func:`pool_size` workers (the first items are read to count
    them); for a single item no pool is made. Stopped by Ctrl-C or SIGTERM (a
    ``BaseException`` that is not an ``Exception``), the workers are killed
    before the signal's exception goes on up. ``work``: the work of all the
    items in units of :data:`WORK_UNIT_S`, from which the default ``jobs``
    sizes the pool (:func:`workers_for`: none for small work or busy cores).
    """
    items = iter(items)
    first = list(islice(items, max(1, min(current().workers if jobs is None else jobs,
                                          default_jobs()))))
    wanted = workers_for(work, len(first)) if jobs is None else jobs
    workers = pool_size(wanted, len(first))
    if workers <= 1:
        yield from map(func, chain(first, items))
        return
    from concurrent.futures.process import BrokenProcessPool

    pool = _pool(workers)
    pending: deque[Any] = deque()
    try:
        for item in chain(first, items):
            pending.append(pool.submit(func, item))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    except BrokenProcessPool:
        _pools.pop(workers, None)
        _await_group_signal()

        raise GecMetricsError(
            f"one of the {workers} worker processes (-j/--jobs) was killed (out of memory?) "
            "and its work is lost; nothing was written for it: run again, with -j 1 or a "
            "smaller --chunk-size if memory is short") from None
    except (Exception, GeneratorExit):
        raise
    except BaseException:  # Ctrl-C, SIGTERM: no worker goes on counting, none outlives us
        stop_pools()
        raise
    finally:
        for future in pending:
            future.cancel()


#: How long a broken pool waits for the parent's own signal (:func:`_await_group_signal`).
GROUP_SIGNAL_WAIT = 1.0


def _await_group_signal() -> None:
    """Give a signal sent to the whole process group (Ctrl-C, ``kill -TERM -PGID``)
    time to reach this process's handler.

    The workers die of it at once, and the pool's manager thread may report them
    broken a moment before the main thread runs its own handler; without this
    pause such a run would end as a crashed worker (exit 2) instead of as the
    signal (130, 143). The handler raises out of the sleep. Only a worker that
    really died alone (out of memory) costs the pause.
    """
    import time

    deadline = time.monotonic() + GROUP_SIGNAL_WAIT
    while time.monotonic() < deadline:
        time.sleep(0.01)


_pools: dict[int, Any] = {}


def _pool(workers: int) -> Any:
    """One process pool per size, made on first use and closed at exit.

    Workers are forked where the platform allows it (they start in
    milliseconds and inherit the imported modules); elsewhere spawned.
    """
    pool = _pools.get(workers)
    if pool is None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        pool = _pools[workers] = ProcessPoolExecutor(workers, mp_context=context,
                                                     initializer=_worker_init)
        if len(_pools) == 1:
            atexit.register(_close_pools)
        # A forking pool starts all its workers at the first submit: do it with the
        # signals blocked, so that none lands in a worker before _worker_init has set
        # its handlers (it would run the parent's, and print a traceback); and with
        # the parent's objects frozen out of the garbage collector's reach, so that
        # a worker's collections do not write to (and so copy) every inherited page
        # (M2 on CoNLL-2014: a third of the page faults).
        import gc

        gc.freeze()
        try:
            with _signals_blocked():
                pool.submit(int)
        finally:
            gc.unfreeze()
    return pool


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _signals_blocked() -> Iterator[None]:
    """Ctrl-C and SIGTERM held back (not lost) inside the block, where the platform
    can; a signal that arrived meanwhile is delivered when the block ends."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not POSIX
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _worker_init() -> None:
    """A worker counts its chunk itself: no pool inside a pool. It leaves Ctrl-C to the
    parent (which kills it) and dies quietly on SIGTERM (no Python handler, no
    traceback); both signals were blocked while it was forked, and are let in here."""
    global _current
    _current = replace(_current, jobs=1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    return_freed_memory()


_heap_bounded = False


def return_freed_memory() -> None:
    """Make glibc give large freed blocks back to the system (once per process).

    Counting by chunks allocates large temporaries per chunk and keeps small
    count arrays. glibc raises its mmap threshold after the first large free
    (up to 32 MB), so later temporaries come from the heap, and the kept arrays
    allocated between them pin it: resident memory then grew by about twice
    the kept counts. A fixed threshold (128 KB, glibc's initial value) keeps
    large blocks in their own mappings, returned on free. No effect elsewhere.
    """
    global _heap_bounded
    if _heap_bounded:
        return
    _heap_bounded = True
    _mmap_threshold(BOUNDED_MMAP_THRESHOLD)


#: glibc's mmap threshold set by :func:`return_freed_memory` (its initial value).
BOUNDED_MMAP_THRESHOLD = 128 * 1024

#: glibc's mmap threshold inside :func:`transient_heap`: above the largest
#: temporaries of spaCy's parser on a batch of sentences, so they are reused
#: from the heap instead of mapped and unmapped each time.
TRANSIENT_MMAP_THRESHOLD = 32 * 2**20


@contextmanager
def transient_heap() -> Iterator[None]:
    """Inside the block, large blocks come from the heap again, in a process whose
    heap :func:`return_freed_memory` bounded (a worker); elsewhere, nothing changes.

    For work whose large allocations are all short-lived (spaCy parsing
    ERRANT's sentences: every batch allocates and frees arrays of a few
    hundred KB): with the bounded threshold each was a new mapping, and a
    worker parsing CoNLL-2014 spent about 1 s of system time on 300,000 page
    faults (0.2 s with the heap). The bound is back when the block ends, for
    the counting that needs it.
    """
    if not _heap_bounded:
        yield
        return
    _mmap_threshold(TRANSIENT_MMAP_THRESHOLD)
    try:
        yield
    finally:
        _mmap_threshold(BOUNDED_MMAP_THRESHOLD)


def _mmap_threshold(size: int) -> None:
    """glibc's ``M_MMAP_THRESHOLD`` (fixed, no longer adjusted); no effect elsewhere."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-3, size)  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):  # not glibc
        pass


def _close_pools() -> None:
    for pool in _pools.values():
        pool.shutdown(wait=True, cancel_futures=True)
    _pools.clear()


def _quiet_pool_threads() -> None:
    """After :func:`stop_pools` the run is ending: an error in the pool's own threads,
    whose pipes were just closed under them (``OSError: Bad file descriptor``), is
    not the user's business and must not print a traceback."""
    import threading

    previous = threading.excepthook

    def hook(args: Any) -> None:
        if type(args.thread).__module__ != "concurrent.futures.process":
            previous(args)

    threading.excepthook = hook


def stop_pools() -> None:
    """Kill every worker now and forget the pools (a signal stops the run): SIGKILL,
    so that a worker in the middle of a chunk neither finishes it nor prints a word.

    ProcessPoolExecutor has no public way to stop its workers before Python 3.14
    (``kill_workers``), so its process table is used, and so are its two pipes: a
    worker killed while it sent a result leaves the pool's manager thread waiting
    for the rest of the message, and its feeder thread waiting to hand over the
    next chunk. Both would wait for ever, and the interpreter joins them at exit
    (a hang, seen once in four Ctrl-C's). Closing the parent's ends of the pipes
    (the workers' ends died with them) ends both waits: the pool finds itself
    broken and its threads finish.
    """
    pools = list(_pools.values())
    _pools.clear()
    if pools:
        _quiet_pool_threads()
    for pool in pools:
        processes = getattr(pool, "_processes", None) or {}
        for process in list(processes.values()):
            try:
                process.kill()
                process.join(5)
            except (OSError, ValueError, AssertionError):  # gone, closed, or not ours
                pass
        for queue, end in (("_result_queue", "_writer"), ("_call_queue", "_reader")):
            connection = getattr(getattr(pool, queue, None), end, None)
            try:
                if connection is not None:
                    connection.close()
            except OSError:
                pass
        pool.shutdown(wait=False, cancel_futures=True)  # forgets the queues: after them
