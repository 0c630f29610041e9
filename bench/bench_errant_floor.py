"""ERRANT cold on CoNLL-2014 next to its floor: spaCy loading + parsing the sentences it must parse.

Run from the repository root (needs the errant extra):

    python bench/bench_errant_floor.py [--systems N] [--rounds R] [--tools] [--jobs J]

Each run is a new process with an empty ``$GECMETRICS_CACHE``, on one core (``-j 1``)
unless ``--jobs`` says otherwise:

* **full**: gecmetrics ERRANT on the first ``--systems`` CoNLL-2014 outputs against the
  M2 file (``errant_m2 -gold`` re-annotation included), as ``score -m errant -j 1`` does;
* **floor**: the same process without ERRANT: spaCy imported and the pipeline loaded
  as gecmetrics loads it, then ``nlp.pipe`` over exactly the distinct sentences the
  full run parses (sources, M2 corrections and system outputs of the pairs with
  different tokens; unchanged outputs are never parsed), in the same batches;
* **lower floor**: the same with the attribute ruler answered from memory
  (:func:`gecmetrics.edits.ruler.pipe`, what the full run now does): the same
  annotations for less spaCy work.

With ``--tools``, each round also times errant 3.0.2's own tools on the same input
(``errant_m2 -gold``, ``errant_parallel`` per output, ``errant_compare`` per output,
each a process as a user runs them; ``tests/errant_oracle.py``'s runner gives
``errant.load`` the installed pipeline), for the ratio gecmetrics /
errant (CPU seconds of all their processes against the full run's whole process).

With ``--jobs J``, each round also runs the full case with ``-j J`` (a new process,
empty cache) and both floors on J cores: the pipeline loaded once, then J forked
processes parse the same sentences, spaCy's batches dealt out in turn (nothing sent
back: the least a J-core run can do). Their *wall* seconds from the start of the
ERRANT work give the ratio full ``-j J`` / floor on J cores. With ``--tools`` too, the
full ``-j J`` run's whole-process wall seconds are set against errant's tools' CPU
seconds: what a user with J free cores waits, against one core's work for errant's
tools (their commands are one process each, one after another).

Both are timed in CPU seconds from the start of the ERRANT work (reading the files
and importing gecmetrics are left out of both), interleaved per round, and the
floor is split into loading and parsing: the parse-only time of the changed
sentences is the physical floor of a cold run. Printed: medians and minima, the
ratio full / floor, and the load average (the 2-core machine is shared: say so
when quoting the numbers).
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

sys.path.insert(0, str(harness.ROOT / "tests"))

import errant_oracle  # noqa: E402

from gecmetrics.edits.extraction import MODEL_CANDIDATES  # noqa: E402

COMMON = r"""
import json, sys, time
sys.path.insert(0, {bench!r})
import harness
from gecmetrics import parallel
from gecmetrics.corpus import Corpus
m2, hyps = harness.conll14(harness.shared_data({data!r}), {systems!r})
corpus = Corpus(m2.sources, m2.references(), hyps, m2=m2)
"""

FULL = COMMON + r"""
from gecmetrics.metrics.errant import Errant
c0, w0 = time.process_time(), time.perf_counter()
with parallel.execution(jobs={jobs}):
    metric = Errant()
    results = metric.evaluate(corpus)
cpu, wall = time.process_time() - c0, time.perf_counter() - w0
print(json.dumps({{"cpu": cpu, "wall": wall, "parsed": metric.parse_cache.parsed,
                  "scores": [repr(r.score) for r in results]}}))
"""

FLOOR = COMMON + r"""
from gecmetrics.edits import extraction as ex
from gecmetrics.edits.parse_cache import ParseCache, sentence_key
gold = ex.m2_corrections(corpus)
refs, golds = ex.reference_items(corpus, gold)
texts = {{}}
for src, other in refs + ex.hypothesis_pairs(corpus):
    if ex.pair_key(src, other) is not None:
        texts.update(dict.fromkeys((sentence_key(src), sentence_key(other))))
for src, item in golds:
    texts.update(dict.fromkeys((sentence_key(src), sentence_key(item[0]))))
import os, resource
c0, w0 = time.process_time(), time.perf_counter()
annotator, nlp = ex.load_annotator()
from spacy.tokens import Doc
from gecmetrics.edits import ruler
c1 = time.process_time()
batch = ParseCache(nlp, root=False).batch_size

def parse(some):
    words = (Doc(nlp.vocab, words=t.split()) for t in some)
    if {lower!r}:
        return sum(1 for _ in ruler.pipe(nlp, words, batch))
    return sum(1 for _ in nlp.pipe(words, batch_size=batch))

jobs = {jobs}
if jobs == 1:
    parsed = parse(texts)
else:  # the loaded pipeline forked into `jobs` processes, batches dealt out in turn
    texts = list(texts)
    batches = [texts[i:i + batch] for i in range(0, len(texts), batch)]
    children = []
    for j in range(jobs):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            n = parse([t for b in batches[j::jobs] for t in b])
            os.write(write, str(n).encode())
            os._exit(0)
        os.close(write)
        children.append((pid, read))
    parsed = 0
    for pid, read in children:
        with os.fdopen(read) as f:
            parsed += int(f.read())
        os.waitpid(pid, 0)
c2, w2 = time.process_time(), time.perf_counter()
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = c2 - c0 + kids.ru_utime + kids.ru_stime
print(json.dumps({{"cpu": cpu, "wall": w2 - w0, "load": c1 - c0, "parse": cpu - (c1 - c0),
                  "parsed": parsed}}))
"""


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--systems", type=int, default=3,
                    help="how many CoNLL-2014 outputs (default 3: AMU, CAMB, CUUI)")
    ap.add_argument("--rounds", type=int, default=2, help="interleaved repetitions")
    ap.add_argument("--tools", action="store_true",
                    help="also time errant's own tools (a minute or more a round)")
    ap.add_argument("--jobs", type=int, default=0,
                    help="also the full run with -j JOBS and the floors on JOBS cores, wall "
                         "times (with --tools: the full run's against errant's tools)")
    args = ap.parse_args()
    data = harness.shared_data(args.data_dir)
    systems = harness.OUTPUTS[:args.systems]
    work = Path(tempfile.mkdtemp(prefix="bench-errant-floor-"))
    print(f"ERRANT cold, {len(systems)} CoNLL-2014 outputs ({', '.join(systems)}), -j 1, "
          f"{args.rounds} round(s); load before: {os.getloadavg()}", flush=True)

    def run(template: str, r: int, lower: bool, jobs: int = 1) -> dict:
        code = template.format(bench=str(harness.ROOT / "bench"), data=str(data),
                               systems=systems, lower=lower, jobs=jobs)
        cache = work / f"cache-{r}-{len(template)}-{lower}-{jobs}"
        shutil.rmtree(cache, ignore_errors=True)
        env = dict(os.environ, GECMETRICS_CACHE=str(cache))
        proc = harness.run_child([sys.executable, "-c", code], cwd=harness.ROOT, env=env)
        if proc.code != 0:
            sys.exit(f"a run failed: {proc.stderr.strip()[-800:]}")
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        out["process_cpu"], out["process_wall"] = proc.cpu, proc.seconds
        return out

    def tools() -> float:
        """CPU seconds of errant's own tools scoring the same outputs."""
        from gecmetrics.m2_format import read_m2

        binary = Path(sys.executable).parent
        m2 = data / harness.CONLL_M2
        src = work / "src.txt"
        src.write_text("".join(s + "\n" for s in read_m2(m2).sources), encoding="utf-8")

        def tool(*argv: str) -> list[str]:
            # errant.load("en") wants en_core_web_sm by that name: the oracle's runner
            # gives it the installed pipeline, one process per command as a user runs it
            return [sys.executable, "-c", errant_oracle.RUNNER, json.dumps(MODEL_CANDIDATES),
                    json.dumps([list(argv)])]

        runs = [tool("errant_m2", "-gold", str(m2), "-out", str(work / "gold.m2"))]
        for system in systems:
            out = str(work / f"{system}.m2")
            runs.append(tool("errant_parallel", "-orig", str(src), "-cor",
                             str(data / harness.SUBMISSIONS / system), "-out", out))
            runs.append([str(binary / "errant_compare"), "-hyp", out, "-ref",
                         str(work / "gold.m2")])
        total = 0.0
        for argv in runs:
            proc = harness.run_child(argv, cwd=work)
            if proc.code != 0:
                sys.exit(f"{argv[0]} failed: {proc.stderr.strip()[-800:]}")
            total += proc.cpu
        return total

    errant_cpu: list[float] = []
    parallel_runs: list[dict] = []
    floor_jobs: list[dict] = []
    lower_jobs: list[dict] = []
    full: list[dict] = []
    floor: list[dict] = []
    lower: list[dict] = []
    for r in range(args.rounds):
        for name, template, into in (("full", FULL, full), ("floor", FLOOR, floor),
                                     ("lower floor", FLOOR, lower)):
            got = run(template, r, name == "lower floor")
            into.append(got)
            extra = (f" (load {got['load']:.2f} s + parse {got['parse']:.2f} s)"
                     if name != "full" else "")
            print(f"  round {r + 1} {name:11}: {got['cpu']:7.2f} s CPU{extra}, "
                  f"{got['parsed']} sentences parsed, process {got['process_cpu']:.2f} s CPU, "
                  f"load {os.getloadavg()[0]:.2f}", flush=True)
        if args.jobs:
            parallel_runs.append(run(FULL, r, False, args.jobs))
            got = parallel_runs[-1]
            print(f"  round {r + 1} full -j {args.jobs}  : {got['wall']:7.2f} s wall "
                  f"({got['process_wall']:.2f} s whole process), load "
                  f"{os.getloadavg()[0]:.2f}", flush=True)
            for name, into in (("floor", floor_jobs), ("lower floor", lower_jobs)):
                into.append(run(FLOOR, r, name == "lower floor", args.jobs))
                got = into[-1]
                print(f"  round {r + 1} {name} on {args.jobs} cores: {got['wall']:7.2f} s wall "
                      f"({got['cpu']:.2f} s CPU), load {os.getloadavg()[0]:.2f}", flush=True)
        if args.tools:
            errant_cpu.append(tools())
            print(f"  round {r + 1} errant 3.0.2 tools: {errant_cpu[-1]:7.2f} s CPU, "
                  f"load {os.getloadavg()[0]:.2f}", flush=True)
    assert len({json.dumps(g["scores"]) for g in full + parallel_runs}) == 1, \
        "the scores differ between runs"
    assert {g["parsed"] for g in full} == {g["parsed"] for g in floor + lower + floor_jobs
                                           + lower_jobs}, \
        "the floor parsed other sentences than the full run"

    def stat(runs: list[dict], key: str) -> tuple[float, float]:
        values = [g[key] for g in runs]
        return statistics.median(values), min(values)

    f_med, f_min = stat(full, "cpu")
    n = floor[0]["parsed"]
    print(f"full run (ERRANT, -j 1)            median {f_med:7.2f} s  min {f_min:7.2f} s CPU")
    for name, runs in (("floor", floor), ("lower floor", lower)):
        b_med, b_min = stat(runs, "cpu")
        p_med, p_min = stat(runs, "parse")
        l_med, l_min = stat(runs, "load")
        print(f"{name}: load + parse {'':>{17 - len(name)}} median {b_med:7.2f} s  "
              f"min {b_min:7.2f} s CPU")
        print(f"  of which loading spaCy           median {l_med:7.2f} s  min {l_min:7.2f} s")
        print(f"  parse-only, {n:,} changed sentences  median {p_med:7.2f} s  "
              f"min {p_min:7.2f} s")
        print(f"  full / {name}: x{f_med / b_med:.3f} (medians), x{f_min / b_min:.3f} "
              f"(minima); full / parse-only: x{f_med / p_med:.3f}")
    if errant_cpu:
        t_med, t_min = statistics.median(errant_cpu), min(errant_cpu)
        w_med, w_min = stat(full, "process_cpu")
        print(f"errant 3.0.2's tools                median {t_med:7.2f} s  min {t_min:7.2f} s CPU;"
              f" gecmetrics (whole process) / errant: {w_med / t_med:.3f} (medians), "
              f"{w_min / t_min:.3f} (minima)")
        if parallel_runs:
            p_med, p_min = stat(parallel_runs, "process_wall")
            print(f"gecmetrics -j {args.jobs} (whole process, wall)  median {p_med:7.2f} s  "
                  f"min {p_min:7.2f} s; / errant's tools' CPU: {p_med / t_med:.3f} (medians), "
                  f"{p_min / t_min:.3f} (minima)")
    if parallel_runs:
        j_med, j_min = stat(parallel_runs, "wall")
        print(f"full run, -j {args.jobs} (wall from the start of the ERRANT work)  "
              f"median {j_med:7.2f} s  min {j_min:7.2f} s")
        for name, runs in (("floor", floor_jobs), ("lower floor", lower_jobs)):
            b_med, b_min = stat(runs, "wall")
            print(f"{name} on {args.jobs} cores: load once, then {args.jobs} forked processes "
                  f"parse (wall)  median {b_med:7.2f} s  min {b_min:7.2f} s; full -j "
                  f"{args.jobs} / it: x{j_med / b_med:.3f} (medians), x{j_min / b_min:.3f} "
                  "(minima)")
    print(f"load after: {os.getloadavg()}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
