"""Start-up time of ``gecmetrics --help`` and ``gecmetrics list`` against a bare
``python -c pass`` (target: at most 3 x its wall time), and of ``score --help``.

Run from the repository root, with the project installed::

    python bench/bench_startup.py [--runs 15] [--tree DIR ...]

First, whole processes run in turn (so that a change of load falls on all alike):
the bare interpreter, then each command through the console script's code, for this
checkout and for each ``--tree`` (another checkout, e.g. the code before a change,
imported first on the path); printed: the minimum and median wall time, the minimum
CPU time (user + system, ``os.wait4``) and the ratio of the minima to the bare
interpreter's. Then the imports:

Each run is ``python -X importtime GECMETRICS_SCRIPT --help`` in a fresh
process; the import time of a run is the sum of the "self" column of its
``-X importtime`` report (every module once). The baseline, measured in the
same run, is the bare interpreter (``python -X importtime -c pass``: site and
the modules Python itself loads). Printed: the minimum and median over the
runs (the minimum is what the code costs; a loaded machine only adds to it),
the CPU seconds of the whole process (``os.wait4``), the ten slowest modules
by cumulative time, and whether numpy, pandas, scipy, matplotlib or dask
were imported (they must not be).
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

import harness

HEAVY = ("numpy", "pandas", "scipy", "matplotlib", "dask", "distributed", "pyarrow")


def one(args: list[str]) -> tuple[float, dict[str, tuple[int, int]]]:
    """(sum of self import times in s, {module: (self, cumulative) us}) of one run."""
    child = harness.run_child([sys.executable, "-X", "importtime", *args])
    if child.code != 0:
        sys.exit(f"{' '.join(args)} failed: {child.stderr.strip()[-500:]}")
    err = child.stderr
    modules: dict[str, tuple[int, int]] = {}
    for line in err.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cumulative, name = line[len("import time:"):].split("|")
        modules[name.strip()] = (int(own), int(cumulative))
    return sum(own for own, _ in modules.values()) / 1e6, modules


COMMANDS = {"--help": ["--help"], "list": ["list"], "score --help": ["score", "--help"]}


def console(tree: Path | None, args: list[str]) -> list[str]:
    """The console script's code (gecmetrics.interface.console), from ``tree`` if given."""
    first = f"sys.path.insert(0, {str(tree)!r}); " if tree else ""
    return [sys.executable, "-c", f"import sys; {first}sys.argv[0] = 'gecmetrics'; "
            "from gecmetrics.interface.console import main; main()", *args]


def whole_processes(trees: list[Path | None], runs: int) -> None:
    cases: dict[str, list[str]] = {"python -c pass": [sys.executable, "-c", "pass"]}
    for tree in trees:
        for name, args in COMMANDS.items():
            cases[f"{tree.name + ': ' if tree else ''}gecmetrics {name}"] = console(tree, args)
    walls: dict[str, list[float]] = {name: [] for name in cases}
    cpus: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, argv in cases.items():
            child = harness.run_child(argv, cwd=Path("/"))
            if child.code != 0:
                sys.exit(f"{name} failed: {child.stderr.strip()[-500:]}")
            walls[name].append(child.seconds)
            cpus[name].append(child.cpu)
    base = min(walls["python -c pass"])
    print(f"whole processes, {runs} runs each, in turn (wall s: min, median; CPU s: min):")
    for name in cases:
        print(f"  {name:40s} {min(walls[name]):6.3f} {statistics.median(walls[name]):6.3f} "
              f"{min(cpus[name]):6.3f}   x{min(walls[name]) / base:4.1f} of python -c pass")
    print(f"load average: {os.getloadavg()}")


def main() -> None:
    parser = harness.parser(__doc__, data=None)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="another checkout to time alongside (its kernels need not be built)")
    opts = parser.parse_args()
    whole_processes([None, *[tree.resolve() for tree in opts.tree]], opts.runs)
    script = str(Path(sys.executable).with_name("gecmetrics"))
    cases = {"bare python (baseline)": ["-c", "pass"], "gecmetrics --help": [script, "--help"]}
    summary = {}
    print(f"imports, min over {opts.runs} runs:")
    table = harness.Table("median", width=24, peak=False, speedup=False)
    for name, args in cases.items():
        totals = [one(args)[0] for _ in range(opts.runs)]
        summary[name] = min(totals)
        (table.row if table.base else table.baseline)(name, min(totals),
                                                      f"{statistics.median(totals):.3f}")
    cpu = sorted(harness.run_child([sys.executable, script, "--help"]).cpu
                 for _ in range(opts.runs))
    print(f"{'gecmetrics --help':24s} whole process CPU (user+sys): min {cpu[0]:.3f} s, "
          f"median {statistics.median(cpu):.3f} s")
    extra = summary["gecmetrics --help"] - summary["bare python (baseline)"]
    print(f"gecmetrics' own imports (min, minus the bare interpreter): {extra:.3f} s")
    _, modules = min((one([script, "--help"]) for _ in range(3)), key=lambda r: r[0])
    print("slowest by cumulative time (us):")
    for name, (own, cumulative) in sorted(modules.items(), key=lambda kv: -kv[1][1])[:10]:
        print(f"  {cumulative:8d} {own:8d}  {name}")
    print(f"heavy modules imported: {[m for m in HEAVY if m in modules] or 'none'}")
    print(f"load average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
