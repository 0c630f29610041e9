"""Per-core throughput of gecmetrics.workflows.distributed (the dask extra), for the
capacity estimate of docs/scale.md ("On a cluster").

Run from the repository root, with the dask extra installed, capped and niced::

    prlimit --as=4000000000 nice -n 10 python bench/bench_dask.py [--lines 40000]

The corpus: CoNLL-2014 (source, the two annotators' references and M2 gold
edits, the AMU output) repeated to ``--lines`` sentences. For word GREEN, GLEU,
chrF and M2, each case runs in its own process (peak RSS from ``os.wait4``):

* ``single``: the single-process path, ``metric.evaluate`` at corpus and at
  sentence level on the whole corpus with ``--jobs 1`` (the baseline,
  measured in this run);
* ``dask``: ``score_bag`` over partitions of ``--partition`` records on a
  ``LocalCluster`` of one worker with one thread (one core), sentence scores
  and corpus results computed together; each partition's records are made by
  its task (as a cluster reads them from storage), not shipped in the graph;
* ``partition``: the work of one task without the scheduler,
  ``count_partition`` + ``sentence_scores`` of one partition (the
  per-partition throughput of the capacity estimate).

It prints wall and CPU seconds, sentences per CPU second (the per-core
throughput: CPU time is what a loaded machine inflates least), peak RSS, the
ratio dask / single, and whether the numbers are identical.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import time

import harness

METRICS = {"word GREEN": "green", "GLEU": "gleu", "chrF": "chrf", "M2": "m2"}


@functools.lru_cache(maxsize=1)
def corpus(lines: int):
    from gecmetrics.corpus import Corpus
    from gecmetrics.m2_format import M2File

    m2, hyps = harness.conll14(harness.shared_data(), ["AMU"])
    hyp = hyps["AMU"]
    reps = -(-lines // len(m2.sentences))
    sentences = (m2.sentences * reps)[:lines]
    gold = M2File("repeated", sentences)
    return Corpus([s.source for s in sentences], gold.references(), {"AMU": (hyp * reps)[:lines]},
                  m2=gold)


def load_partition(lines: int, start: int, stop: int, with_m2: bool) -> list[dict]:
    """Records ``start:stop`` of the corpus, made where the task runs (as a real
    cluster reads its partitions from storage; the corpus itself is read once
    per process, before the clock starts)."""
    return [dict(record) for record in all_records(lines, with_m2)[start:stop]]


@functools.lru_cache(maxsize=1)
def all_records(lines: int, with_m2: bool) -> list[dict]:
    """Every record of the corpus (made once per process, before the clock starts)."""
    from gecmetrics.workflows.distributed import records

    out = records(corpus(lines))
    if not with_m2:
        for record in out:
            del record["m2"]
    return out


def case(kind: str, spec: str, lines: int, partition: int) -> dict:
    """One measurement, in this (child) process; returns the results' digest."""
    from gecmetrics.parallel import execution
    from gecmetrics.registry import metric_from_spec

    with execution(jobs=1):  # one core: no counting pool
        return _case(kind, spec, lines, partition, metric_from_spec)


def _case(kind: str, spec: str, lines: int, partition: int, metric_from_spec) -> dict:
    data = corpus(lines)
    metric = metric_from_spec(spec)
    with_m2 = spec == "m2"
    if kind != "single":
        all_records(lines, with_m2)
    start_cpu, start = time.process_time(), time.perf_counter()
    if kind == "single":
        corpus_results = metric.evaluate(data, "corpus")
        sentence = [r.scores for r in metric.evaluate(data, "sentence")]
    elif kind == "partition":  # the work of one task: count and score one partition
        import pandas  # noqa: F401  (imported once per worker: not timed)

        from gecmetrics.workflows.distributed import count_partition, sentence_scores

        recs = load_partition(lines, 0, partition, with_m2)
        start_cpu, start = time.process_time(), time.perf_counter()
        part = count_partition(recs, [metric], ["AMU"])
        sentence_scores(part, [metric], ["AMU"])
        cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start
        return {"cpu": cpu, "wall": wall, "digest": "-", "sentences": partition}
    else:
        import dask.bag as db
        import dask.dataframe  # noqa: F401  (imported once per worker: not timed)
        from distributed import Client, LocalCluster

        from gecmetrics.workflows.distributed import score_bag

        with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                          dashboard_address=None) as cluster, Client(cluster):
            start_cpu, start = time.process_time(), time.perf_counter()  # cluster up, imported
            from dask import delayed

            bag = db.from_delayed([delayed(load_partition)(lines, i, min(i + partition, lines),
                                                           with_m2)
                                   for i in range(0, lines, partition)])
            frame, corpus_results = score_bag(bag, [metric], ["AMU"]).compute()
            sentence = [frame.iloc[:, 0].tolist()]
    cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start
    digest = hashlib.sha256(json.dumps(
        [[r.score, r.precision, r.recall] for r in corpus_results] + sentence).encode())
    return {"cpu": cpu, "wall": wall, "digest": digest.hexdigest()[:12], "sentences": lines}


def main() -> None:
    parser = harness.parser(__doc__, data=None)
    parser.add_argument("--lines", type=int, default=40_000)
    parser.add_argument("--partition", type=int, default=2_000,
                        help="records per dask partition (default: the CLI's chunk size)")
    parser.add_argument("--only", default="", help="comma-separated metric names")
    opts = parser.parse_args()
    wanted = [m for m in METRICS if not opts.only or m in opts.only.split(",")]
    print(f"{opts.lines:,} sentences, 2 references, 1 system; partitions of {opts.partition:,}")
    print(f"{'metric':11s} {'path':9s} {'wall s':>8s} {'CPU s':>8s} {'sent/CPU s':>11s} "
          f"{'peak MB':>8s}  digest")
    for name in wanted:
        rows = {}
        for kind in ("single", "dask", "partition"):
            res, peak = harness.call_in_child(case, kind, METRICS[name], opts.lines,
                                              opts.partition)
            rows[kind] = res
            rows[kind]["rate"] = res["sentences"] / res["cpu"]
            print(f"{name:11s} {kind:9s} {res['wall']:8.2f} {res['cpu']:8.2f} "
                  f"{rows[kind]['rate']:11,.0f} {peak:8.0f}  {res['digest']}", flush=True)
        single = rows["single"]["rate"]
        print(f"{name:11s} throughput / single: dask x{rows['dask']['rate'] / single:.2f}, one "
              f"partition x{rows['partition']['rate'] / single:.2f}; identical numbers: "
              f"{rows['single']['digest'] == rows['dask']['digest']}")
    print(f"cores: {os.cpu_count()}; load average at the end: {os.getloadavg()}; "
          f"python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
