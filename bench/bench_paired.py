"""Time and peak memory of paired significance on the 13 CoNLL-2014 outputs.

Run from the repository root:  python bench/bench_paired.py [N]

For GREEN and M2 (and chrF, BLEU), INPUT as the baseline and the 12 teams compared
with it: the scoring itself (statistics, counted once), then N (default 1000)
paired-bootstrap resamples and N AR trials from the summed sentence statistics
(:mod:`gecmetrics.paired`), against the baseline measured in the same run: the
same N resamples scored one ``corpus_scores`` gather each (how meta-evaluation
bootstraps). Peak memory (paired steps): tracemalloc's peak (numpy arrays
included) in a second, untimed run. Data: --data-dir, else $GECMETRICS_SHARED_DATA,
else ../shared/data.
"""

from __future__ import annotations

import harness


def main() -> None:
    from gecmetrics.corpus import Corpus
    from gecmetrics.paired import PairedOptions, compare_with_baseline
    from gecmetrics.registry import get_metric
    from gecmetrics.stats.resampling import bootstrap_system_scores

    ap = harness.parser(__doc__)
    ap.add_argument("n", type=int, nargs="?", default=1000, help="resamples (default 1000)")
    args = ap.parse_args()
    n = args.n
    gold, teams = harness.conll14(harness.shared_data(args.data_dir))
    hyps = {"INPUT": gold.sources, **teams}
    corpus = Corpus(gold.sources, gold.references(), hyps, m2=gold)
    print(f"{len(hyps)} systems, {corpus.num_sentences} sentences, N = {n}")
    table = harness.Table(width=44)
    for name in ("green", "m2", "chrf", "bleu"):
        metric = get_metric(name)
        stats = harness.measure(lambda m=metric: m.statistics(corpus))
        scores = stats.value.corpus_scores(None)
        table.alone(f"{name}: statistics (scoring, once)", stats)
        table.baseline(f"{name}: bootstrap by gathers", harness.measure(
            lambda s=stats.value: bootstrap_system_scores(
                lambda idx: s.corpus_scores(None, idx), corpus.num_sentences, n, 12345)))
        for test in ("bs", "ar"):
            options = PairedOptions(test, n)
            label = f"paired {'bootstrap' if test == 'bs' else 'AR (+1000 bs for CI)'}"
            table.row(f"{name}: {label}", harness.measure(
                lambda s=stats.value, o=options, sc=scores: compare_with_baseline(
                    s, list(sc), "corpus", None, o), memory="rerun"))


if __name__ == "__main__":
    main()
