"""Benchmark the two-player TrueSkill update of meta_eval.trueskill.

Run from the repository root:  python bench/bench_trueskill.py [MATCHES]
Plays the same random sequence of MATCHES one-vs-one matches (default 2,000;
wins, losses and draws) between 14 players, in the environment of a Napoles
et al. (2015) run (35,590 matches: beta = 0.5 * 35590 / 40), twice: with the
closed-form update of gecmetrics.meta_eval.trueskill, and with the baseline,
``trueskill.TrueSkill.rate`` (the package's generic factor graph), measured in
the same run. Prints time and peak memory (tracemalloc) of each and the ratio
baseline / ours; the final ratings must agree (checked, 1e-9 relative).
"""

from __future__ import annotations

import random

import harness

from gecmetrics.meta_eval.trueskill import SIGMA, _environment, _Rating, draw_margin, update

PLAYERS = 14
RUN_MATCHES = 35590  # one run on the Napoles et al. (2015) judgments


def schedule(n: int) -> list[tuple[int, int, int, int]]:
    rng = random.Random(1)
    out = []
    for _ in range(n):
        a, b = rng.sample(range(PLAYERS), 2)
        out.append((a, b, *rng.choice([(1, 2), (2, 1), (1, 1), (3, 4)])))
    return out


def ours(matches: list[tuple[int, int, int, int]]) -> list[tuple[float, float]]:
    env = _environment(RUN_MATCHES)
    margin = draw_margin(env)
    ratings = [_Rating(0.0, SIGMA ** 2) for _ in range(PLAYERS)]
    for a, b, rank_a, rank_b in matches:
        update(env, ratings[a], ratings[b], rank_a, rank_b, margin)
    return [(r.mu, r.var) for r in ratings]


def package(matches: list[tuple[int, int, int, int]]) -> list[tuple[float, float]]:
    env = _environment(RUN_MATCHES)
    ratings = [env.create_rating() for _ in range(PLAYERS)]
    for a, b, rank_a, rank_b in matches:
        (ratings[a],), (ratings[b],) = env.rate([(ratings[a],), (ratings[b],)],
                                                ranks=[rank_a, rank_b])
    return [(r.mu, r.sigma ** 2) for r in ratings]


def main() -> None:
    ap = harness.parser(__doc__, data=None)
    ap.add_argument("matches", type=int, nargs="?", default=2000)
    n = ap.parse_args().matches
    matches = schedule(n)
    mine = harness.measure(lambda: ours(matches), memory="traced")
    base = harness.measure(lambda: package(matches), memory="traced")
    for (mu, var), (mu_b, var_b) in zip(mine.value, base.value, strict=True):
        assert abs(mu - mu_b) <= 1e-9 * max(1.0, abs(mu_b)), (mu, mu_b)
        assert abs(var - var_b) <= 1e-9 * var_b, (var, var_b)
    print(f"{n} matches, {PLAYERS} players (ratings agree to 1e-9)")
    table = harness.Table("per match", width=24)
    table.baseline("trueskill.rate (base)", base, f"{base.seconds / n * 1e6:.0f} us")
    table.row("closed form (ours)", mine, f"{mine.seconds / n * 1e6:.0f} us")
    print(f"one run of {RUN_MATCHES} matches: ~{base.seconds / n * RUN_MATCHES:.0f} s with the "
          f"package, ~{mine.seconds / n * RUN_MATCHES:.1f} s of updates with ours")


if __name__ == "__main__":
    main()
