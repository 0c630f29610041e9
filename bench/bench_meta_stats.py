"""Benchmark SPA, metric clusters and the human bootstrap (meta_eval.pair_analyses).

Run from the repository root (the data folder as for the tests):

    python bench/bench_meta_stats.py [--data-dir ../shared/data] [--resamples 1000]

Prints time and peak memory (tracemalloc) of

* scoring: the metrics' statistics on SEEDA-S (all 15 systems, judged subset), once;
* baseline, same run: ``--bootstrap`` intervals of the same 8 metrics (the resampling
  that SPA and the clusters reuse: one gather of cached statistics per resample);
* ``--spa`` (metric p-values from the sentence resamples, human p-values from
  resampling the ranking items), ``--clusters spa`` and ``--clusters pearson``
  (systems x sentences resamples), and SPA + clusters in one run sharing the cache,
  as the CLI does; ratio = time / baseline;
* the human bootstrap of GJG15 (1000 resamples of 2,319 ranking items, Expected Wins
  of 13 systems): vectorised counts x sparse wins, against a loop that calls
  ``human.expected_wins`` on each resample's item list (20 resamples, scaled to the
  same count); the first 20 resamples must agree (checked, 1e-12).

Targets (docs/which-statistics.md): SPA and clusters for 8 metrics x 1000 resamples
on SEEDA under 30 s; the GJG15 human bootstrap under 10 s, on a 2-core machine.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

METRICS = ("green", "green:tokenize=char,n=6", "green:n=2", "green:tokenize=char,n=4",
           "m2", "chrf", "chrf:word_order=2", "errant")


CPU: list[float] = [0.0]  # CPU seconds of the last measure() (load-independent)


def measure(function: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall seconds, peak MiB, result) of one run; its CPU seconds go to CPU[0]."""
    tracemalloc.start()
    start, cpu = time.perf_counter(), time.process_time()
    result = function()
    seconds = time.perf_counter() - start
    CPU[0] = time.process_time() - cpu
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return seconds, peak, result


def line(name: str, seconds: float, peak: float, base: float | None = None) -> None:
    """Wall time, CPU time (on a shared machine the wall time includes waiting), peak."""
    ratio = "" if base is None else f"   x{seconds / base:5.2f} of baseline (wall)"
    print(f"{name:<56} {seconds:8.2f} s wall {CPU[0]:8.2f} s cpu {peak:8.1f} MiB{ratio}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--metrics", nargs="*", default=list(METRICS))
    args = parser.parse_args()
    n = args.resamples

    from gecmetrics.meta_eval import analyses, pair_analyses
    from gecmetrics.meta_eval.benchmarks import load_benchmark
    from gecmetrics.meta_eval.correlate import Selection
    from gecmetrics.meta_eval.correlate import meta_evaluate as correlate
    from gecmetrics.meta_eval.human import expected_wins
    from gecmetrics.meta_eval.judgment_arrays import bootstrap_expected_wins
    from gecmetrics.registry import metric_from_spec
    from gecmetrics.stats.resampling import resample_counts

    bench = load_benchmark("seeda-s", args.data_dir)
    sel = Selection.make(bench, "all")
    metrics = [metric_from_spec(spec) for spec in args.metrics]
    print(f"SEEDA-S, {len(sel.systems)} systems, {bench.corpus.num_sentences} sentences, "
          f"{len(metrics)} metrics, {n} resamples")

    def score() -> list:
        rows = correlate(sel, metrics)
        for metric in metrics:
            metric.statistics(bench.corpus).precompute(metric.resolve_betas(None))
        return rows

    seconds, peak, rows = measure(score)
    line("scoring (statistics of every metric, once)", seconds, peak)

    seconds, peak, _ = measure(lambda: analyses.add_bootstrap(rows, [sel], metrics, n, 12345,
                                                              {}))
    base = seconds
    line("baseline: --bootstrap intervals", seconds, peak)
    seconds, peak, _ = measure(lambda: pair_analyses.add_pair_stats(
        rows, [sel], metrics, spa=True, n_resamples=n, seed=12345, cache={}, human_cache={}))
    line("--spa", seconds, peak, base)
    for stat in ("spa", "pearson", "pairwise"):
        seconds, peak, _ = measure(lambda stat=stat: pair_analyses.metric_clusters(
            rows, [sel], metrics, stat, n, 12345, {}, {}))
        line(f"--clusters {stat}", seconds, peak, base)

    def both() -> None:
        cache: dict = {}
        human: dict = {}
        pair_analyses.add_pair_stats(rows, [sel], metrics, spa=True, n_resamples=n,
                                     seed=12345, cache=cache, human_cache=human)
        pair_analyses.metric_clusters(rows, [sel], metrics, "spa", n, 12345, cache, human)

    seconds, peak, _ = measure(both)
    line("--spa --clusters spa (one run, shared cache)", seconds, peak, base)

    conll = load_benchmark("conll14", args.data_dir)
    items = conll.info["judgments"]
    systems = list(conll.human["ew"])
    seconds, peak, fast = measure(lambda: bootstrap_expected_wins(items, systems, n, 12345))
    line(f"GJG15 human bootstrap, vectorised ({len(items)} items)", seconds, peak)
    loops = 20

    def loop() -> np.ndarray:
        out = []
        for counts in resample_counts(len(items), loops, 12345, block=loops):
            for row in counts:
                drawn = [it for it, c in zip(items, row.tolist(), strict=True)
                         for _ in range(c)]
                ew = expected_wins(drawn, systems)
                out.append([ew[s] for s in systems])
        return np.array(out)

    slow_seconds, slow_peak, slow = measure(loop)
    assert np.allclose(slow, bootstrap_expected_wins(items, systems, loops, 12345),
                       rtol=0, atol=1e-12), "vectorised EW differ from the loop"
    CPU[0] *= n / loops
    line(f"baseline: expected_wins loop ({loops} resamples, scaled to {n})",
         slow_seconds * n / loops, slow_peak)
    print(f"vectorised / loop: x{seconds / (slow_seconds * n / loops):.3f}")
    assert fast.shape == (n, len(systems))


if __name__ == "__main__":
    main()
