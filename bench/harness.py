"""What every bench script needs, written once: where the data is, how a step or a child
process is timed, and how a table of ratios to a baseline of the same run is printed.

Every ratio a script prints is against a baseline measured in the same run on the same
machine: on a shared machine a number carried over from another run measures the load,
not the code. The scripts import this module as ``harness`` (it sits beside them, and
Python puts a script's own folder first on ``sys.path``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

ROOT = Path(__file__).resolve().parents[1]
#: the 12 CoNLL-2014 teams whose outputs are in official_submissions/ (INPUT is the 13th)
TEAMS = ("AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC")
#: the 13 outputs scored on CoNLL-2014, in the order of its tables
OUTPUTS = tuple(sorted((*TEAMS, "INPUT")))
CONLL_M2 = Path("conll14st-test-data", "noalt", "official-2014.combined.m2")
SUBMISSIONS = Path("official_submissions")

T = TypeVar("T")


# ---------------------------------------------------------------- data

def data_folder() -> Path:
    """$GECMETRICS_SHARED_DATA, else ../shared/data beside the repository, as the tests
    find it (tests/conftest.py); it may not exist."""
    return Path(os.environ.get("GECMETRICS_SHARED_DATA")
                or ROOT / ".." / "shared" / "data").resolve()


def shared_data(path: str | Path | None = None) -> Path:
    """``path`` (a ``--data-dir``), else :func:`data_folder`; a one-line message and exit
    status 2 when it is not a folder, rather than a traceback from the first read."""
    folder = Path(path).resolve() if path else data_folder()
    if not folder.is_dir():
        print(f"no shared data at {folder}: set GECMETRICS_SHARED_DATA or --data-dir to a "
              "folder filled by `gecmetrics download --data-dir DIR`", file=sys.stderr)
        raise SystemExit(2)
    return folder


def conll14(data: Path, systems: Sequence[str] = TEAMS, sentences: int | None = None):
    """The CoNLL-2014 gold M2 file and the outputs of ``systems`` read from ``data``
    (``sentences``: the first N of both only)."""
    from gecmetrics.m2_format import M2File, read_m2
    from gecmetrics.readers import read_lines

    m2 = read_m2(data / CONLL_M2)
    if sentences is not None:
        m2 = M2File(m2.path, m2.sentences[:sentences])
    return m2, {s: read_lines(data / SUBMISSIONS / s, "hypothesis")[:sentences]
                for s in systems}


def parser(doc: str | None, data: str | None = "--data-dir") -> argparse.ArgumentParser:
    """A parser described by the first line of the script's docstring; with ``data``, the
    flag naming the data folder (default: :func:`data_folder`; read it with
    :func:`shared_data`)."""
    ap = argparse.ArgumentParser(description=(doc or "").strip().split("\n")[0])
    if data:
        ap.add_argument(data, dest="data_dir", type=Path, default=None,
                        help="the shared data folder (default: $GECMETRICS_SHARED_DATA, "
                             "else ../shared/data)")
    return ap


# ---------------------------------------------------------------- timing in this process

@dataclass(frozen=True)
class Timing(Generic[T]):
    """One measured step: the first run's value, the best and median wall seconds, the CPU
    seconds of the fastest run and the peak MiB of Python allocations (nan: not measured)."""

    value: T
    seconds: float
    median: float
    cpu: float
    peak: float


def measure(func: Callable[[], T], repeat: int = 1,
            memory: Literal["", "rerun", "traced"] = "") -> Timing[T]:
    """Run ``func`` ``repeat`` times on time.perf_counter (and process_time).

    ``memory="rerun"``: the peak from one more, untimed run under tracemalloc, which slows
    Python code several-fold; ``"traced"``: the timed runs themselves are traced, for a step
    that cannot run again alike (a cache it fills, a counter it moves).
    """
    walls: list[float] = []
    cpus: list[float] = []

    def once() -> T:
        start, cpu = time.perf_counter(), time.process_time()
        out = func()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        return out

    if memory == "traced":
        tracemalloc.start()
    value = once()
    for _ in range(repeat - 1):
        once()
    peak = math.nan
    if memory == "rerun":
        tracemalloc.start()
        func()
    if memory:
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    best = min(range(repeat), key=walls.__getitem__)
    return Timing(value, walls[best], statistics.median(walls), cpus[best], peak)


# ---------------------------------------------------------------- timing a child process

@dataclass(frozen=True)
class Child:
    """A finished child process: wall and CPU (user + system) seconds, its own peak RSS in
    MiB, its exit code (None: killed at the timeout), stdout and stderr."""

    seconds: float
    cpu: float
    peak: float
    code: int | None
    stdout: str
    stderr: str


def interleaved(routes: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Median wall seconds of each route, the routes run in turn ``repeat`` times (so
    that a change of machine load falls on every route alike)."""
    walls: dict[str, list[float]] = {name: [] for name in routes}
    for _ in range(repeat):
        for name, func in routes.items():
            start = time.perf_counter()
            func()
            walls[name].append(time.perf_counter() - start)
    return {name: statistics.median(w) for name, w in walls.items()}


def run_child(argv: Sequence[str], stdout: Path | None = None, *,
              env: dict[str, str] | None = None, cwd: Path | None = None,
              limits: Callable[[], None] | None = None, timeout: float | None = None) -> Child:
    """Run ``argv``; its peak RSS and CPU come from ``os.wait4``, so they are its own (not
    this process's) and a run stopped by ``limits`` (a preexec_fn setting rlimits) or by
    ``timeout`` is measured too. ``stdout``: write its output to that file, not to memory."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sink = open(stdout, "wb") if stdout else out
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(list(argv), stdout=sink, stderr=err, env=env, cwd=cwd,
                                    preexec_fn=limits)
        finally:
            if stdout:
                sink.close()
        deadline = math.inf if timeout is None else start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG if timeout else 0)
            if pid:
                code: int | None = os.waitstatus_to_exitcode(status)
                break
            if time.perf_counter() > deadline:
                proc.kill()
                _, _, usage = os.wait4(proc.pid, 0)
                code = None
                break
            time.sleep(0.05)
        proc.returncode = -9 if code is None else code  # reaped above, not again by Popen
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return Child(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                     code, out.read().decode(errors="replace"),
                     err.read().decode(errors="replace"))


def call_in_child(func: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """``func(*args)`` in a forked child, so that its peak RSS is its own: (its result,
    which must be JSON, and that peak in MiB). A failing child exits this script."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        code = 1
        try:
            os.write(write, json.dumps(func(*args)).encode())
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        text = pipe.read()
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or not text:
        raise SystemExit(f"{getattr(func, '__name__', func)}{args} failed in its child process")
    return json.loads(text), usage.ru_maxrss / 1024


# ---------------------------------------------------------------- printing

class Table:
    """Prints rows as they come: a name, the wall seconds, optionally CPU seconds and peak
    MiB, the ratio to the latest :meth:`baseline` row, then extra columns (preformatted;
    those past the ``extra`` headers are notes).

    ``speedup``: the ratio is baseline / this (above 1: faster than the baseline), else
    this / baseline (the cost relative to it). ``clock="cpu"`` takes the ratio of CPU
    seconds, the steadier measure on a loaded machine.
    """

    def __init__(self, *extra: str, width: int = 44, cpu: bool = False, peak: bool = True,
                 speedup: bool = True, clock: Literal["wall", "cpu"] = "wall") -> None:
        self.extra, self.width, self.cpu, self.peak = extra, width, cpu, peak
        self.speedup, self.clock = speedup, clock
        self.base: float | None = None
        head = f"{'':{width}} {'seconds':>10}"
        head += f" {'CPU s':>9}" if cpu else ""
        head += f" {'peak MiB':>9}" if peak else ""
        head += f" {'base/this' if speedup else 'this/base':>10}"
        print(head + "".join(f" {e:>10}" for e in extra), flush=True)

    def baseline(self, name: str, timing: Timing | Child | float, *extra: str) -> None:
        """A baseline row: the later rows' ratios are to it."""
        self.base = self._clock(timing)
        self._print(name, timing, extra, "baseline")

    def alone(self, name: str, timing: Timing | Child | float, *extra: str) -> None:
        """A row with no ratio (a step the baseline does not do)."""
        self._print(name, timing, extra, "")

    def row(self, name: str, timing: Timing | Child | float, *extra: str) -> None:
        """A row with its ratio to the latest baseline row."""
        ratio = ""
        if self.base is not None:
            this = self._clock(timing)
            value = self.base / this if self.speedup else this / self.base
            spec = ".0f" if value >= 100 else ".2f" if value >= 1 else ".3g"
            ratio = f"x{value:{spec}}"
        self._print(name, timing, extra, ratio)

    def _clock(self, timing: Timing | Child | float) -> float:
        if isinstance(timing, float | int):
            return float(timing)
        return timing.cpu if self.clock == "cpu" else timing.seconds

    def _print(self, name: str, timing: Timing | Child | float, extra: Sequence[str],
               ratio: str) -> None:
        seconds = timing if isinstance(timing, float | int) else timing.seconds
        line = f"{name:{self.width}} {seconds:10.4f}"
        if self.cpu:
            line += _number(getattr(timing, "cpu", math.nan), ".3f")
        if self.peak:
            line += _number(getattr(timing, "peak", math.nan), ".1f")
        line += f" {ratio:>10}"
        for k, text in enumerate(extra):  # under a header: aligned; beyond: as it is
            line += f" {text:>{max(10, len(self.extra[k])) if k < len(self.extra) else 0}}"
        print(line, flush=True)


def _number(value: float, spec: str) -> str:
    return f" {'-' if math.isnan(value) else format(value, spec):>9}"
