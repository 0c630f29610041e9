"""The default ``--jobs`` against ``-j 1`` and ``-j 2``, every metric, as a user runs it.

Run from the repository root (ERRANT's case needs the errant extra)::

    python bench/bench_jobs_default.py [--rounds R] [--cases green m2 ...]

Each case is one ``gecmetrics score`` command on the 13 CoNLL-2014 outputs (ERRANT:
the first 3, empty caches, so its workers have real parsing to do), run as a new
process three ways per round, interleaved, each round starting with the next way:
the default ``-j`` (none given), ``-j 1`` and ``-j 2`` (the console script's
``run()`` in a wrapper that records the CPU time of the parent and of each worker).
The goal of issue 32: the default is never more than 5% slower than ``-j 1``
(ratio default / ``-j 1`` at most 1.05), whatever the load; ``-j 2`` gains where
two cores are free. Each run prints its wall and CPU seconds with the 1-minute
load average and the cores the default's rule would see free then
(:func:`gecmetrics.parallel.machine_free_cores`); each row gives medians and
minima over the rounds, and the critical path (the parent's CPU plus its busiest
worker's: the wall time on idle cores). On a shared machine the wall ratios
measure the free cores as much as the code: read them with the load printed
beside them. Every run's output must be byte-identical (checked).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import harness

from gecmetrics.parallel import machine_free_cores

#: (name, metrics, systems: None for all 13, whether it reads the M2 file)
CASES = {
    "green": (("green", "green:tokenize=char"), None, False),
    "gleu": (("gleu",), None, False),
    "bleu": (("bleu",), None, False),
    "chrf": (("chrf",), None, False),
    "m2": (("m2",), None, True),
    "errant": (("errant",), 3, True),
}
WAYS = (("default", ()), ("-j 1", ("-j", "1")), ("-j 2", ("-j", "2")))


#: Runs the CLI as the console script does, then writes to the file named by
#: ``$BENCH_CPU_FILE`` its own CPU seconds and each worker's (read from /proc before
#: the pool closes): the critical path on idle cores is the first plus the largest
#: of the others, as in bench_errant_jobs.py.
WRAPPER = r"""
import json, os, resource, sys
from gecmetrics import parallel
from gecmetrics.interface.cli import run

def record():
    tick = os.sysconf("SC_CLK_TCK")
    workers = []
    for pool in parallel._pools.values():
        for pid in list(getattr(pool, "_processes", None) or {}):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                workers.append((int(fields[11]) + int(fields[12])) / tick)
            except OSError:
                pass
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["BENCH_CPU_FILE"], "w") as f:
        json.dump({"parent": usage.ru_utime + usage.ru_stime, "workers": workers}, f)

sys.argv[0] = "gecmetrics"
try:
    run()
finally:  # before the exit handlers close the pools
    record()
"""


def write_inputs(data: Path, folder: Path) -> tuple[Path, list[Path], dict[str, Path]]:
    """The CoNLL-2014 source, its two annotators' texts and the 13 outputs as files."""
    m2, hyps = harness.conll14(data, harness.OUTPUTS)
    source = folder / "source.txt"
    source.write_text("\n".join(m2.sources) + "\n", encoding="utf-8")
    refs = []
    for k, ref in enumerate(m2.references()):
        refs.append(folder / f"ref{k}.txt")
        refs[-1].write_text("\n".join(ref) + "\n", encoding="utf-8")
    outputs = {}
    for name, lines in hyps.items():
        outputs[name] = folder / f"{name}.txt"
        outputs[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return source, refs, outputs


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved repetitions")
    ap.add_argument("--cases", nargs="+", choices=tuple(CASES), default=list(CASES))
    args = ap.parse_args()
    data = harness.shared_data(args.data_dir)
    folder = Path(tempfile.mkdtemp(prefix="bench-jobs-default-"))
    source, refs, outputs = write_inputs(data, folder)
    gold = data / harness.CONLL_M2
    cpu_file = folder / "cpu.json"
    print(f"default -j vs -j 1 vs -j 2, {args.rounds} round(s) interleaved; "
          f"{os.cpu_count()} cores; load before: {os.getloadavg()}", flush=True)
    for case in args.cases:
        metrics, systems, reads_m2 = CASES[case]
        names = list(outputs)[:systems] if systems else list(outputs)
        argv = [sys.executable, "-c", WRAPPER, "score",
                *(a for m in metrics for a in ("-m", m)), "-s", str(source),
                *(["--m2", str(gold)] if reads_m2 else ["-r", *map(str, refs)]),
                "-c", *(str(outputs[n]) for n in names), "--format", "json"]
        walls: dict[str, list[float]] = {way: [] for way, _ in WAYS}
        cpus: dict[str, list[float]] = {way: [] for way, _ in WAYS}
        paths: dict[str, list[float]] = {way: [] for way, _ in WAYS}
        loads: list[float] = []
        digests = set()
        for r in range(args.rounds):
            for way, extra in WAYS[r % 3:] + WAYS[:r % 3]:  # each way first in turn
                cache = folder / f"cache-{case}-{r}-{way.replace(' ', '')}"
                shutil.rmtree(cache, ignore_errors=True)
                env = dict(os.environ, GECMETRICS_CACHE=str(cache),
                           BENCH_CPU_FILE=str(cpu_file))
                free = machine_free_cores()
                load = os.getloadavg()[0]
                out = folder / "out.json"
                got = harness.run_child([*argv, *extra], out, env=env)
                if got.code != 0:
                    sys.exit(f"{case} {way} failed: {got.stderr.strip()[-800:]}")
                digests.add(hashlib.sha256(out.read_bytes()).hexdigest())
                split = json.loads(cpu_file.read_text())
                critical = split["parent"] + max(split["workers"], default=0.0)
                walls[way].append(got.seconds)
                cpus[way].append(got.cpu)
                paths[way].append(critical)
                loads.append(load)
                print(f"  {case:6} round {r + 1} {way:8} {got.seconds:7.2f} s wall "
                      f"{got.cpu:7.2f} s CPU, {len(split['workers'])} workers, critical path "
                      f"{critical:6.2f} s   load {load:5.2f}, free cores seen {free:.2f}",
                      flush=True)
        assert len(digests) == 1, f"{case}: the outputs differ between -j settings"
        base_med = statistics.median(walls["-j 1"])
        base_min = min(walls["-j 1"])
        row = [f"{case:6}"]
        for way, _ in WAYS:
            med, low = statistics.median(walls[way]), min(walls[way])
            row.append(f"{way} {med:6.2f}/{low:6.2f} s (x{med / base_med:.2f}/"
                       f"x{low / base_min:.2f})")
        print("  ".join(row) + f"   load {min(loads):.1f}-{max(loads):.1f}; "
              "same output every run", flush=True)
        medians = {way: statistics.median(paths[way]) for way, _ in WAYS}
        print(f"{'':6} critical path (idle cores): " + "  ".join(
            f"{way} {path:6.2f} s (x{path / medians['-j 1']:.2f})"
            for way, path in medians.items()) + "   CPU: " + "  ".join(
            f"{way} {statistics.median(cpus[way]):6.2f} s" for way, _ in WAYS), flush=True)
    print("rows: median/min wall, and its ratio to -j 1 (below 1: faster than -j 1); the "
          "critical path: the parent's CPU plus its busiest worker's (the wall time on idle "
          "cores), and its ratio to -j 1's; the whole CPU time of each")
    print(f"load after: {os.getloadavg()}")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
