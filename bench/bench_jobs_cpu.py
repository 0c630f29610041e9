"""CPU time per process of ``gecmetrics score --jobs N``: the speed-up ``--jobs``
can give, measured on a shared machine where wall-clock ratios mean nothing.

Run from the repository root after ``bench/bench_scale.py`` has built its
corpora (or let this script build the 200,000-line one), capped and niced::

    prlimit --as=4000000000 nice -n 10 python bench/bench_jobs_cpu.py [--jobs 1 2]

Each run is the ``four`` case of bench_scale.py (word GREEN + char GREEN +
GLEU + chrF, 200,000 lines, 2 references, 2 systems, corpus level, JSON) in a
child process that calls the CLI in-process; before the pool closes it reads
each counting worker's user + system CPU time from ``/proc/PID/stat``, and its
own from ``getrusage``. On an idle machine with C cores the run cannot take
less than the critical path ``max(busiest process, total CPU / C)``; the
speed-up bound printed is the ``--jobs 1`` CPU time over that path. The
real wall-clock ratio must still be measured on an idle machine.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import bench_scale  # corpus builder and case definition
import harness


def worker_cpu(pid: int) -> float:
    """User + system seconds of a live process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child(jobs: int, output: str) -> dict:
    import resource

    from gecmetrics import parallel
    from gecmetrics.interface.cli import main

    files = bench_scale.build(200_000)
    args = ["score", *bench_scale.FOUR, "-s", str(files["source"]),
            "-r", str(files["ref0"]), str(files["ref1"]),
            "-c", *(str(files[s]) for s in harness.TEAMS[:2]),
            "--format", "json", "--jobs", str(jobs)]
    start = time.perf_counter()
    with open(output, "w") as out:
        saved = os.dup(1)
        os.dup2(out.fileno(), 1)
        try:
            main(args, standalone_mode=False)
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
    wall = time.perf_counter() - start
    workers = [worker_cpu(pid) for pool in parallel._pools.values()
               for pid in pool._processes]
    parallel._close_pools()  # the workers must not outlive this child (they hold its pipe)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"wall": wall, "parent": usage.ru_utime + usage.ru_stime, "workers": workers}


def main() -> None:
    parser = harness.parser(__doc__, data=None)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    opts = parser.parse_args()
    bench_scale.build(200_000)
    results = {}
    for jobs in opts.jobs:
        res, peak = harness.call_in_child(child, jobs,
                                          str(bench_scale.WORK / f"out_jobs_cpu_{jobs}"))
        results[jobs] = res
        total = res["parent"] + sum(res["workers"])
        path = max([res["parent"], *res["workers"], total / opts.cores])
        res["path"] = path
        workers = ", ".join(f"{w:.1f}" for w in res["workers"]) or "-"
        print(f"--jobs {jobs}: wall {res['wall']:7.1f} s; CPU parent {res['parent']:6.1f} s, "
              f"workers [{workers}] s, total {total:6.1f} s; critical path on {opts.cores} idle "
              f"cores >= {path:6.1f} s; parent peak RSS {peak:.0f} MiB", flush=True)
        digest = bench_scale.digest(bench_scale.WORK / f"out_jobs_cpu_{jobs}")
        print(f"          output {digest}")
    if 1 in results:
        base = results[1]["path"]
        for jobs, res in results.items():
            if jobs != 1:
                print(f"--jobs {jobs}: speed-up bound on an idle machine x{base / res['path']:.2f} "
                      f"(--jobs 1 CPU {base:.1f} s / critical path {res['path']:.1f} s)")
    print(f"load average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
