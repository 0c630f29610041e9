"""Small inputs: the default ``-j`` against ``-j 1`` on three lines, and
``gecmetrics list`` against ``gecmetrics --help``.

Run from the repository root:  python bench/bench_small.py [--runs 21]

Targets (issue 23): ``score -m green -m green:tokenize=char`` on the 3-line
example (data/example) with the default ``-j`` within 5% of ``-j 1``;
``gecmetrics list`` at most 1.3x ``gecmetrics --help``. Each case runs as a
fresh process (the console entry, as users run it), the cases interleaved
(a, b, a, b, ...) ``--runs`` times; printed: the median and minimum wall
seconds of each and their ratio (median over median, the second case over the
first), with the load average. The 3-line case is also timed in one process
(``cli.main`` called again and again, interpreter start-up and imports left
out), where the workers' start-up is a larger part of the time.
"""

from __future__ import annotations

import contextlib
import io
import os
import statistics
import sys
import time

import harness

EXAMPLE = harness.ROOT / "data" / "example"
SCORE = ["score", "-m", "green", "-m", "green:tokenize=char", "-s",
         str(EXAMPLE / "source.txt"), "-r", str(EXAMPLE / "ref0.txt"),
         str(EXAMPLE / "ref1.txt"), "-c", str(EXAMPLE / "system_a.txt"),
         str(EXAMPLE / "system_b.txt")]
# the console script's entry (gecmetrics.interface.console:main), on this checkout's code
CLI = [sys.executable, "-c", "import sys; from gecmetrics.interface.console import main; "
       "sys.argv[0] = 'gecmetrics'; main()"]


def interleaved(cases: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    walls: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, args in cases.items():
            child = harness.run_child([*CLI, *args])
            if child.code != 0:
                sys.exit(f"{name} failed: {child.stderr.strip()[-500:]}")
            walls[name].append(child.seconds)
    return walls


def report(walls: dict[str, list[float]]) -> None:
    (base, first), (name, second) = walls.items()
    ratio = statistics.median(second) / statistics.median(first)
    for label, times in walls.items():
        print(f"  {label:34s} median {statistics.median(times):.4f} s, "
              f"min {min(times):.4f} s")
    print(f"  {name} / {base}: {ratio:.3f} (min/min {min(second) / min(first):.3f})")


def in_process(runs: int) -> dict[str, list[float]]:
    from gecmetrics.interface.cli import main

    def once(extra: list[str]) -> float:
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            main([*SCORE, *extra], standalone_mode=False)
        return time.perf_counter() - start

    cases = {"-j 1 (in one process)": ["-j", "1"], "default -j (in one process)": []}
    for extra in cases.values():
        once(extra)  # warm: imports, caches
    walls: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs * 3):
        for name, extra in cases.items():
            walls[name].append(once(extra))
    return walls


def main() -> None:
    parser = harness.parser(__doc__, data=None)
    parser.add_argument("--runs", type=int, default=21)
    opts = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    print("score -m green -m green:tokenize=char, 3 lines, 2 systems, 2 references:")
    report(interleaved({"-j 1": [*SCORE, "-j", "1"], "default -j": SCORE}, opts.runs))
    report(in_process(opts.runs))
    print("start-up:")
    report(interleaved({"gecmetrics --help": ["--help"], "gecmetrics list": ["list"]},
                       opts.runs))
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
