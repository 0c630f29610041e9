"""Benchmark the aggregation levels (--level ew/trueskill) and --subsets.

Run from the repository root:  python bench/bench_aggregate.py
Prints, per case, the time (best of 3) and the peak memory (tracemalloc) of
gecmetrics' code and of the baseline measured in the same run, their ratio
(baseline / ours), and checks that both give the same numbers:

* Expected Wins over SEEDA-sized comparisons (14 systems, 391 sentences, every pair:
  35,581 comparisons): the count-matrix formula (aggregate.expected_wins_scores) vs
  human.expected_wins on the same comparisons as ranking items;
* TrueSkill, one run over the first 3,000 of them: the closed-form update
  (aggregate.trueskill_mus) vs the trueskill package's TrueSkill.rate per match;
  then the closed form over all comparisons, 10 runs (the default), for scale;
* --subsets: r, rho and tau of 1,000 subsets of 8 of 14 systems:
  correlation.paired_rows vs scipy.stats called once per subset.
"""

from __future__ import annotations

import warnings

import harness
import numpy as np
from scipy import stats

from gecmetrics.meta_eval.aggregate import (
    expected_wins_scores,
    trueskill_mus,
    trueskill_orders,
)
from gecmetrics.meta_eval.analyses.subsets import subset_indices
from gecmetrics.meta_eval.human import RankingItem, expected_wins
from gecmetrics.stats.correlation import paired_rows


def comparisons(n: int = 14, sentences: int = 391, seed: int = 0):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 20, (n, sentences)) / 20  # coarse: ties occur
    i, j = np.triu_indices(n, k=1)
    a = np.tile(i, sentences)
    b = np.tile(j, sentences)
    col = np.repeat(np.arange(sentences), len(i))
    outcome = np.sign(scores[a, col] - scores[b, col]).astype(np.int8)
    return n, a, b, outcome


def row(table: harness.Table, case: str, ours: harness.Timing, base: harness.Timing) -> None:
    table.baseline(f"{case}: baseline", base)
    table.row(f"{case}: ours", ours)


def main() -> None:
    harness.parser(__doc__, data=None).parse_args()
    n, a, b, outcome = comparisons()
    print(f"{len(a)} comparisons of {n} systems ({(outcome == 0).mean():.0%} ties)")

    items = [RankingItem(0, "", ((1, (str(x if o > 0 else y),)), (2, (str(y if o > 0 else x),))))
             for x, y, o in zip(a.tolist(), b.tolist(), outcome.tolist(), strict=True) if o]
    names = [str(k) for k in range(n)]
    ours = harness.measure(lambda: expected_wins_scores(n, a, b, outcome), 2, "rerun")
    base = harness.measure(lambda: expected_wins(items, names), 2, "rerun")
    want = base.value
    assert np.allclose(ours.value, [want[s] for s in names], atol=1e-15)
    table = harness.Table(width=52)
    row(table, "Expected Wins, all comparisons", ours, base)

    import trueskill

    k = 3000
    env = trueskill.TrueSkill(mu=0.0, sigma=0.5, beta=0.25, tau=0.0, draw_probability=0.25)

    def package() -> list[float]:
        players = [env.create_rating() for _ in range(n)]
        for x, y, o in zip(a[:k].tolist(), b[:k].tolist(), outcome[:k].tolist(), strict=True):
            ranks = (0, 1) if o > 0 else (1, 0) if o < 0 else (0, 0)
            (players[x],), (players[y],) = env.rate(((players[x],), (players[y],)), ranks=ranks)
        return [p.mu for p in players]

    ours = harness.measure(lambda: trueskill_mus(n, a[:k], b[:k], outcome[:k], [np.arange(k)]),
                           2, "rerun")
    base = harness.measure(package, memory="rerun")
    assert np.allclose(ours.value[0], base.value, atol=1e-12)
    row(table, f"TrueSkill, 1 run of {k} matches", ours, base)
    orders = trueskill_orders(len(a), 10, 12345)
    table.alone("TrueSkill, 10 runs of all comparisons: ours",
              harness.measure(lambda: trueskill_mus(n, a, b, outcome, orders), memory="rerun"))

    rng = np.random.default_rng(1)
    metric, human = rng.normal(size=14), rng.normal(size=14)
    idx, _ = subset_indices(14, 8, 1000, 12345)

    def scipy_loop() -> dict[str, list[float]]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {"pearson": [stats.pearsonr(metric[s], human[s])[0] for s in idx],
                    "spearman": [stats.spearmanr(metric[s], human[s])[0] for s in idx],
                    "kendall": [stats.kendalltau(metric[s], human[s])[0] for s in idx]}

    ours = harness.measure(lambda: {c: paired_rows(metric[idx], human[idx], c)
                                    for c in ("pearson", "spearman", "kendall")}, 2, "rerun")
    base = harness.measure(scipy_loop, 2, "rerun")
    for c in ("pearson", "spearman", "kendall"):
        assert np.allclose(ours.value[c], base.value[c], atol=1e-12)
    row(table, "--subsets: r, rho, tau of 1000 subsets", ours, base)


if __name__ == "__main__":
    main()
