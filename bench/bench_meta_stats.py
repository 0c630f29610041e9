"""Benchmark SPA, metric clusters and the human bootstrap (meta_eval.pair_stats).

Run from the repository root (the data folder as for the tests):

    python bench/bench_meta_stats.py [--data-dir DIR] [--resamples 1000]

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

import harness
import numpy as np

METRICS = ("green", "green:tokenize=char,n=6", "green:n=2", "green:tokenize=char,n=4",
           "m2", "chrf", "chrf:word_order=2", "errant")


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--metrics", nargs="*", default=list(METRICS))
    args = parser.parse_args()
    data = harness.shared_data(args.data_dir)
    n = args.resamples

    from gecmetrics.meta_eval import pair_scoring
    from gecmetrics.meta_eval.analyses.bootstrap import add_bootstrap
    from gecmetrics.meta_eval.analyses.clusters import metric_clusters
    from gecmetrics.meta_eval.benchmarks import load_benchmark
    from gecmetrics.meta_eval.human import expected_wins
    from gecmetrics.meta_eval.judgment_arrays import bootstrap_expected_wins
    from gecmetrics.meta_eval.selection import Selection, correlate_selection
    from gecmetrics.registry import metric_from_spec
    from gecmetrics.stats.resampling import resample_counts

    bench = load_benchmark("seeda-s", data)
    sel = Selection.make(bench, "all")
    metrics = [metric_from_spec(spec) for spec in args.metrics]
    print(f"SEEDA-S, {len(sel.systems)} systems, {bench.corpus.num_sentences} sentences, "
          f"{len(metrics)} metrics, {n} resamples")

    def score() -> list:
        rows = correlate_selection(sel, metrics)
        for metric in metrics:
            metric.statistics(bench.corpus).precompute(metric.resolve_betas(None))
        return rows

    # one run each, traced: a step here is too slow to run twice for the memory
    table = harness.Table(width=56, cpu=True, speedup=False)
    scored = harness.measure(score, memory="traced")
    rows = scored.value
    table.alone("scoring (statistics of every metric, once)", scored)
    table.baseline("--bootstrap intervals", harness.measure(
        lambda: add_bootstrap(rows, [sel], metrics, n, 12345, {}),
        memory="traced"))
    table.row("--spa", harness.measure(lambda: pair_scoring.add_pair_stats(
        rows, [sel], metrics, spa=True, resampling=pair_scoring.Resampling(n, 12345)),
        memory="traced"))
    for stat in ("spa", "pearson", "pairwise"):
        table.row(f"--clusters {stat}", harness.measure(
            lambda stat=stat: metric_clusters(
                rows, [sel], metrics, stat, pair_scoring.Resampling(n, 12345)), memory="traced"))

    def both() -> None:
        shared = pair_scoring.Resampling(n, 12345)  # one run: its caches shared
        pair_scoring.add_pair_stats(rows, [sel], metrics, spa=True, resampling=shared)
        metric_clusters(rows, [sel], metrics, "spa", shared)

    table.row("--spa --clusters spa (one run, shared cache)",
              harness.measure(both, memory="traced"))

    conll = load_benchmark("conll14", data)
    items = conll.judgments.items
    systems = list(conll.human["ew"])
    fast = harness.measure(lambda: bootstrap_expected_wins(items, systems, n, 12345),
                           memory="traced")
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

    slow = harness.measure(loop, memory="traced")
    assert np.allclose(slow.value, bootstrap_expected_wins(items, systems, loops, 12345),
                       rtol=0, atol=1e-12), "vectorised EW differ from the loop"
    scale = n / loops
    table.baseline(f"expected_wins loop ({loops} resamples, scaled to {n})", harness.Timing(
        None, slow.seconds * scale, slow.median * scale, slow.cpu * scale, slow.peak))
    table.row(f"GJG15 human bootstrap, vectorised ({len(items)} items)", fast)
    assert fast.value.shape == (n, len(systems))


if __name__ == "__main__":
    main()
