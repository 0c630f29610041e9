"""TrueSkill system scores from relative rankings, as WMT and the GEC rankings did.

The procedure is that of ``src/infer_TS.py`` of Sakaguchi, Post and Van Durme's
``keisks/wmt-trueskill`` (WMT 2014), which Napoles et al. (ACL 2015) ran on
their CoNLL-2014 rankings (``cnap/gec-ranking``: "run TrueSkill ... following
the instructions in the TrueSkill readme", i.e. ``infer_TS.py -n 2 -d 0``):

1. every ranking item becomes all its pairwise comparisons, ties included (a
   tie is a draw; systems sharing one output share its rank);
2. parameters: mu = 0, sigma = 0.5, tau = 0, draw probability 0.25, and
   beta = sigma * N / 40 where N = (number of comparisons) + 1 is also the
   number of matches played;
3. each match: system A is the one with the largest sigma (ties: the
   greatest name, as Python 2's reverse sort of ``(sigma, name)``); B is drawn
   among the others with probability proportional to exp(-|mu_A - mu_B|); a
   comparison of A and B is drawn uniformly from the data and both ratings
   are updated with the two-player TrueSkill update;
4. the score of a system is its final mu; the published rankings average
   several runs (Sakaguchi et al. 2016 publish 100 runs).

The update is the closed form of the two-player (one-vs-one, no dynamics) case
of TrueSkill (Herbrich, Minka and Graepel, 2007), with the ``v``/``w``
functions and draw margin of the ``trueskill`` package::

    c^2 = 2 beta^2 + sigma_w^2 + sigma_l^2,   t = (mu_w - mu_l) / c,  e = margin / c
    mu_w += sigma_w^2 / c * v(t, e);   mu_l -= sigma_l^2 / c * v(t, e)
    sigma^2 *= 1 - sigma^2 / c^2 * w(t, e)

(``v_win``/``w_win`` for a win, ``v_draw``/``w_draw`` for a draw). On two
players the package's factor graph is exact in one pass, so this equals
``trueskill.rate`` (a test checks it on random matches) at a fraction of the
cost: a run is ~36,000 matches on Napoles et al.'s data, and the package's
generic graph was 17x slower a match (``bench/bench_trueskill.py``).
The random draws (Python's :class:`random.Random`, seeded per run) cannot
reproduce the original Python 2 runs number for number; the averages over
runs are what is compared with published figures.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from gecmetrics.errors import InputError
from gecmetrics.stats.resampling import python_random

from .human import RankingItem

MU = 0.0
SIGMA = 0.5
TAU = 0.0
DRAW_PROBABILITY = 0.25
BETA_DIVISOR = 40.0  # beta = SIGMA * matches / 40 (infer_TS.py)

Comparison = tuple[tuple[str, str], tuple[int, int]]  # (names, ranks), 1 = best


def comparisons(items: Iterable[RankingItem],
                rename: dict[str, str] | None = None) -> dict[frozenset[str], list[Comparison]]:
    """Every pairwise comparison of every item (ties included), by unordered pair."""
    rename = rename or {}
    out: dict[frozenset[str], list[Comparison]] = defaultdict(list)
    for item in items:
        entries = [(rename.get(name, name), rank) for rank, names in item.groups
                   for name in names]
        for (a, rank_a), (b, rank_b) in combinations(entries, 2):
            if a != b:
                out[frozenset((a, b))].append(((a, b), (rank_a, rank_b)))
    return dict(out)


@dataclass
class _Rating:
    mu: float
    var: float  # sigma squared


def _environment(matches: int) -> Any:
    import trueskill

    return trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=SIGMA * matches / BETA_DIVISOR,
                               tau=TAU, draw_probability=DRAW_PROBABILITY)


def draw_margin(env: Any) -> float:
    """The draw margin of a one-vs-one match in ``env`` (the package's formula)."""
    import trueskill

    return float(trueskill.calc_draw_margin(env.draw_probability, 2, env))


def two_player(env: Any, mu_w: float, var_w: float, mu_l: float, var_l: float,
               draw: bool, margin_abs: float) -> tuple[float, float, float, float]:
    """The closed-form update above for one match: the winner's (or, for a draw,
    the first player's) new mu and sigma^2, then the loser's. ``margin_abs``:
    :func:`draw_margin` of ``env``, computed once by the caller. The one place
    the update is written; :mod:`.aggregate` (``--level trueskill``) uses it too."""
    c2 = 2 * env.beta ** 2 + var_w + var_l
    c = math.sqrt(c2)
    margin = margin_abs / c
    t = (mu_w - mu_l) / c
    if draw:
        v, w = env.v_draw(t, margin), env.w_draw(t, margin)
    else:
        v, w = env.v_win(t, margin), env.w_win(t, margin)
    return (mu_w + var_w / c * v, var_w * (1 - var_w / c2 * w),
            mu_l - var_l / c * v, var_l * (1 - var_l / c2 * w))


def update(env: Any, a: _Rating, b: _Rating, rank_a: int, rank_b: int,
           margin_abs: float | None = None) -> None:
    """The two-player TrueSkill update of ``a`` and ``b`` in place (rank 1 = best);
    ``margin_abs``: :func:`draw_margin` of ``env``, computed once by the caller."""
    if rank_b < rank_a:
        a, b = b, a
    margin = draw_margin(env) if margin_abs is None else margin_abs
    a.mu, a.var, b.mu, b.var = two_player(env, a.mu, a.var, b.mu, b.var, rank_a == rank_b,
                                          margin)


def one_run(data: dict[frozenset[str], list[Comparison]], players: Sequence[str],
            rng: random.Random) -> dict[str, float]:
    """One run of the procedure above: every player's final mu."""
    matches = sum(len(v) for v in data.values()) + 1
    env = _environment(matches)
    margin = draw_margin(env)
    ratings = {p: _Rating(MU, SIGMA ** 2) for p in players}
    for _ in range(matches):
        first = max(players, key=lambda p: (ratings[p].var, p))
        others = [p for p in players if p != first and frozenset((first, p)) in data]
        if not others:
            raise InputError(f"TrueSkill: {first} was never compared with another system")
        weights = [math.exp(-abs(ratings[first].mu - ratings[p].mu)) for p in others]
        second = rng.choices(others, weights)[0]
        (x, y), (rank_x, rank_y) = rng.choice(data[frozenset((first, second))])
        update(env, ratings[x], ratings[y], rank_x, rank_y, margin)
    return {p: r.mu for p, r in ratings.items()}


def trueskill_scores(items: Iterable[RankingItem], players: Sequence[str], runs: int = 10,
                     seed: int = 0, rename: dict[str, str] | None = None) -> dict[str, float]:
    """Mean mu over ``runs`` seeded runs (seeds ``seed`` .. ``seed + runs - 1``).

    ``players``: every system of the rankings (all take part in the matches);
    ``rename`` maps judgment names to ours (``src`` -> ``INPUT``).
    """
    data = comparisons(items, rename)
    named = {name for pair in data for name in pair}
    unknown = sorted(named - set(players))
    if unknown:
        raise InputError(f"TrueSkill: the rankings name systems outside the players: {unknown}")
    totals: dict[str, float] = defaultdict(float)
    for run in range(runs):
        for name, mu in one_run(data, players, python_random(seed + run)).items():
            totals[name] += mu
    return {p: totals[p] / runs for p in players}
