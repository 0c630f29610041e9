"""Time and peak memory of paired significance on the 13 CoNLL-2014 outputs.

Run from the repository root:  python bench/bench_paired.py [N]

For GREEN and M2 (and chrF, BLEU), INPUT as the baseline and the 12 teams compared
with it: the scoring itself (statistics, counted once), then N (default 1000)
paired-bootstrap resamples and N AR trials from the summed sentence statistics
(:mod:`gecmetrics.paired`), against the baseline measured in the same run: the
same N resamples scored one ``corpus_scores`` gather each (how meta-evaluation
bootstraps). Peak memory (paired steps): tracemalloc's peak (numpy arrays
included) in a second, untimed run. Data: ../shared/data or $GECMETRICS_SHARED_DATA.
"""

from __future__ import annotations

import os
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEAMS = "AMU CAMB CUUI IITB IPN NTHU PKU POST RAC SJTU UFC UMC".split()


def shared_data() -> Path:
    env = os.environ.get("GECMETRICS_SHARED_DATA")
    return Path(env) if env else ROOT / ".." / "shared" / "data"


def measured(func, memory: bool = False):
    """Result, seconds, and (``memory``: from a second run under tracemalloc, which
    slows Python code several-fold, so it is never timed) the peak MiB, else nan."""
    start = time.perf_counter()
    value = func()
    seconds = time.perf_counter() - start
    peak = float("nan")
    if memory:
        tracemalloc.start()
        func()
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return value, seconds, peak


def main() -> None:
    from gecmetrics.corpus import Corpus
    from gecmetrics.m2 import read_m2
    from gecmetrics.paired import PairedOptions, compare_with_baseline
    from gecmetrics.readers import read_lines
    from gecmetrics.registry import get_metric
    from gecmetrics.stats.resampling import bootstrap_system_scores

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    data = shared_data()
    gold = read_m2(data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2")
    hyps = {"INPUT": gold.sources}
    hyps.update({t: read_lines(str(data / "official_submissions" / t), "hypothesis")
                 for t in TEAMS})
    corpus = Corpus(gold.sources, gold.references(), hyps, m2=gold)
    print(f"{len(hyps)} systems, {corpus.num_sentences} sentences, N = {n}")
    print(f"{'metric':8} {'step':34} {'seconds':>8} {'peak MiB':>9} {'vs gathers':>10}")
    for name in ("green", "m2", "chrf", "bleu"):
        metric = get_metric(name)
        stats, t_stats, m_stats = measured(lambda m=metric: m.statistics(corpus))
        scores = stats.corpus_scores(None)
        print(f"{name:8} {'statistics (scoring, once)':34} {t_stats:8.2f} {'-':>9}")
        _, t_slow, m_slow = measured(lambda s=stats: bootstrap_system_scores(
            lambda idx: s.corpus_scores(None, idx), corpus.num_sentences, n, 12345))
        print(f"{name:8} {'baseline: bootstrap by gathers':34} {t_slow:8.2f} {'-':>9}")
        for test in ("bs", "ar"):
            options = PairedOptions(test, n)
            _, t, m = measured(lambda s=stats, o=options, sc=scores: compare_with_baseline(
                s, list(sc), "corpus", None, o), memory=True)
            label = f"paired {'bootstrap' if test == 'bs' else 'AR (+1000 bs for CI)'}"
            print(f"{name:8} {label:34} {t:8.2f} {m:9.1f} {t_slow / t:9.1f}x")



if __name__ == "__main__":
    main()
