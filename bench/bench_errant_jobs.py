"""ERRANT on CoNLL-2014 with ``-j 1`` and ``-j 2``: cold (empty caches) and parses cached.

Run from the repository root (needs the errant extra):

    python bench/bench_errant_jobs.py [--systems N] [--rounds R] [--jobs J]

Each run is a new process that scores the first ``--systems`` CoNLL-2014 outputs
with ERRANT against the M2 file (``errant_m2 -gold`` re-annotation included), as
``gecmetrics score -m errant -j J`` does:

* **cold**: an empty ``$GECMETRICS_CACHE`` (every sentence parsed, every pair aligned);
* **parses cached**: the parse cache of a cold run, the edit cache removed (a new
  system output against cached sources and references: every pair aligned again).

The runs are interleaved (``-j 1`` cold, ``-j J`` cold, ``-j 1`` cached, ``-j J``
cached, per round) and each row gives the median of its rounds, with the ratio
``-j 1`` / ``-j J`` (above 1: ``-j J`` is faster). On a shared machine the wall ratio
measures the free cores as much as the code, so each run also reports its CPU
seconds and its *critical path*: the parent's CPU plus the busiest worker's CPU
(what the wall time would be with a free core per process); the load average is
printed before and after. Every run's scores must be equal (checked).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import harness

CHILD = r"""
import json, os, sys, time
sys.path.insert(0, {bench!r})
import harness
from gecmetrics import parallel
from gecmetrics.corpus import Corpus
from gecmetrics.metrics.errant import Errant

m2, hyps = harness.conll14(harness.shared_data({data!r}), {systems!r})
corpus = Corpus(m2.sources, m2.references(), hyps, m2=m2)
t0, c0 = time.perf_counter(), time.process_time()
with parallel.execution(jobs={jobs}):
    metric = Errant()
    results = metric.evaluate(corpus)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
tick = os.sysconf("SC_CLK_TCK")
workers, peaks = [], []
for pool in parallel._pools.values():
    for proc in getattr(pool, "_processes", {{}}).values():
        with open(f"/proc/{{proc.pid}}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        workers.append((int(fields[11]) + int(fields[12])) / tick)
        with open(f"/proc/{{proc.pid}}/status") as f:
            peaks.append(max(int(line.split()[1]) for line in f if line.startswith("VmHWM")))
print(json.dumps({{"wall": wall, "cpu": cpu, "workers": workers,
                  "worker_peak": max(peaks, default=0) / 1024,
                  "parsed": metric.parse_cache.parsed if metric.parse_cache else 0,
                  "computed": metric.extractor.computed,
                  "scores": [repr(r.score) for r in results]}}))
"""


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--systems", type=int, default=len(harness.OUTPUTS),
                    help="how many CoNLL-2014 outputs (default: all 13)")
    ap.add_argument("--rounds", type=int, default=1, help="interleaved repetitions")
    ap.add_argument("--jobs", type=int, default=2, help="the -j compared with -j 1")
    args = ap.parse_args()
    data = harness.shared_data(args.data_dir)
    systems = harness.OUTPUTS[:args.systems]
    work = Path(tempfile.mkdtemp(prefix="bench-errant-jobs-"))
    print(f"ERRANT, {len(systems)} CoNLL-2014 outputs, -j 1 vs -j {args.jobs}, "
          f"{args.rounds} round(s); load before: {os.getloadavg()}", flush=True)

    def run(jobs: int, cache: Path) -> dict:
        code = CHILD.format(bench=str(harness.ROOT / "bench"), data=str(data),
                            systems=systems, jobs=jobs)
        env = dict(os.environ, GECMETRICS_CACHE=str(cache))
        proc = harness.run_child([sys.executable, "-c", code], cwd=harness.ROOT, env=env)
        if proc.code != 0:
            sys.exit(f"a run with -j {jobs} failed: {proc.stderr.strip()[-800:]}")
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        out["child_cpu"], out["peak"] = proc.cpu, proc.peak
        out["critical"] = out["cpu"] + max(out["workers"], default=0.0)
        return out

    runs: dict[tuple[str, int], list[dict]] = {}
    for r in range(args.rounds):
        parses = work / f"parses-{r}"
        for case in ("cold", "parses cached"):
            for jobs in (1, args.jobs):
                cache = work / f"{case[:4]}-{r}-{jobs}"
                if case == "cold":
                    shutil.rmtree(cache, ignore_errors=True)
                else:  # the parses of this round's -j 1 cold run, no edit cache
                    shutil.copytree(parses, cache)
                got = run(jobs, cache)
                if case == "cold" and jobs == 1:
                    shutil.copytree(cache, parses)
                    shutil.rmtree(parses / "edits")
                runs.setdefault((case, jobs), []).append(got)
                print(f"  round {r + 1} {case:14} -j {jobs}: {got['wall']:7.2f} s wall, "
                      f"{got['child_cpu']:7.2f} s CPU, critical path {got['critical']:6.2f} s, "
                      f"peak RSS {got['peak']:.0f} MiB (a worker {got['worker_peak']:.0f} MiB), "
                      f"{got['parsed']} parsed, {got['computed']} aligned, "
                      f"load {os.getloadavg()[0]:.2f}", flush=True)
    scores = {json.dumps(g["scores"]) for rs in runs.values() for g in rs}
    assert len(scores) == 1, "the scores differ between runs"
    print("  same scores in every run")
    for case in ("cold", "parses cached"):
        one, many = runs[(case, 1)], runs[(case, args.jobs)]
        for what in ("wall", "critical"):
            a = statistics.median(g[what] for g in one)
            b = statistics.median(g[what] for g in many)
            print(f"{case:14} {what:9} -j 1 {a:7.2f} s   -j {args.jobs} {b:7.2f} s   "
                  f"ratio x{a / b:.2f}")
    print(f"load after: {os.getloadavg()}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
