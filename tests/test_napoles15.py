"""Napoles et al. (ACL 2015) rankings of CoNLL-2014: reading, Expected Wins, TrueSkill.

Oracles: Expected Wins re-derived here straight from the XML with regular
expressions and a brute-force count (no code of gecmetrics.meta_eval.human);
the two-player TrueSkill update checked against ``trueskill.rate`` (the package's
factor graph) on random matches; the stored TrueSkill means recomputed.
"""

from __future__ import annotations

import json
import random
import re
from importlib import resources
from itertools import combinations

import pytest

from gecmetrics.meta_eval.benchmarks import load_benchmark
from gecmetrics.meta_eval.benchmarks.conll14 import napoles15_items, napoles15_scores
from gecmetrics.meta_eval.trueskill import (
    _environment,
    _Rating,
    comparisons,
    draw_margin,
    trueskill_scores,
    update,
)

TEAMS = ["AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC",
         "UMC"]


def desc() -> dict:
    return json.loads(resources.files("gecmetrics.data").joinpath("conll14.json").read_text())


def oracle_expected_wins(text: str) -> dict[str, float]:
    """EW (Bojar et al. 2013) from the raw XML text: every ranking-item's entries,
    each comma-separated name taking its entry's rank; ties ignored; src = INPUT."""
    wins: dict[tuple[str, str], int] = {}
    names: set[str] = set()
    for body in re.findall(r"<ranking-item[^>]*[^/]>(.*?)</ranking-item>", text, re.S):
        entries = []
        for attrs in re.findall(r"<translation ([^>]*)/>", body):
            system = re.search(r'system="([^"]*)"', attrs).group(1)
            rank = int(re.search(r'rank="([^"]*)"', attrs).group(1))
            entries += [("INPUT" if n == "src" else n, rank) for n in system.split(",")]
        for (a, ra), (b, rb) in combinations(entries, 2):
            names |= {a, b}
            if a != b and ra != rb:
                pair = (a, b) if ra < rb else (b, a)
                wins[pair] = wins.get(pair, 0) + 1
    out = {}
    for i in names:
        total = 0.0
        for j in names - {i}:
            w_ij, w_ji = wins.get((i, j), 0), wins.get((j, i), 0)
            if w_ij + w_ji:
                total += w_ij / (w_ij + w_ji)
        out[i] = total / (len(names) - 1)
    return out


def test_two_player_update_equals_the_trueskill_package():
    rng = random.Random(7)
    for matches in (10, 5000, 36000):
        env = _environment(matches)
        margin = draw_margin(env)
        for _ in range(100):
            a = _Rating(rng.uniform(-1, 1), rng.uniform(0.01, 0.25))
            b = _Rating(rng.uniform(-1, 1), rng.uniform(0.01, 0.25))
            ranks = rng.choice([(1, 2), (2, 1), (3, 3), (1, 4)])
            (ra,), (rb,) = env.rate([(env.create_rating(a.mu, a.var ** 0.5),),
                                     (env.create_rating(b.mu, b.var ** 0.5),)], ranks=ranks)
            update(env, a, b, *ranks, margin)
            assert a.mu == pytest.approx(ra.mu, rel=1e-9, abs=1e-12)
            assert b.mu == pytest.approx(rb.mu, rel=1e-9, abs=1e-12)
            assert a.var == pytest.approx(ra.sigma ** 2, rel=1e-9)
            assert b.var == pytest.approx(rb.sigma ** 2, rel=1e-9)


def test_trueskill_orders_a_clear_ranking_and_is_seeded():
    from gecmetrics.meta_eval.human import RankingItem

    # A always beats B, B always beats C, on 60 items; A = C never compared.
    items = [RankingItem(i, "u", ((1, ("A",)), (2, ("B",)))) for i in range(30)]
    items += [RankingItem(i, "u", ((1, ("B",)), (2, ("C",)))) for i in range(30)]
    items.append(RankingItem(99, "u", ((1, ("A",)), (2, ("C",)))))
    one = trueskill_scores(items, ["A", "B", "C"], runs=3, seed=5)
    assert one["A"] > one["B"] > one["C"]
    assert one == trueskill_scores(items, ["A", "B", "C"], runs=3, seed=5)
    assert one != trueskill_scores(items, ["A", "B", "C"], runs=3, seed=6)
    assert sum(len(v) for v in comparisons(items).values()) == 61


def test_napoles15_reading_and_expected_wins(shared_data):
    path = shared_data / desc()["napoles15"]["judgments"]
    text = path.read_text("utf-8")
    items = napoles15_items(shared_data)
    assert len(items) == text.count("<ranking-item")  # 1534, 78 of them skipped (empty)
    assert sum(1 for item in items if not item.groups) == text.count('skipped="')
    assert {n for item in items for n in item.systems} == {*TEAMS, "INPUT", "refmix1"}
    # 0-based ids: systems sharing one output have the same text at that line
    outputs = {t: (shared_data / "official_submissions" / t).read_text().split("\n")
               for t in TEAMS}
    for item in items:
        for _, names in item.groups:
            teams = [n for n in names if n in outputs]
            assert len({outputs[t][item.sentence].strip() for t in teams}) <= 1
    ew = napoles15_scores(shared_data, "ew")
    oracle = oracle_expected_wins(text)
    assert set(ew) == set(oracle) == {*TEAMS, "INPUT", "refmix1"}
    for name, value in oracle.items():
        assert ew[name] == pytest.approx(value, abs=1e-12), name


@pytest.mark.full
def test_stored_trueskill_means_are_recomputed(shared_data):
    """The napoles15-ts values in data/conll14.json are the mean of 10 seeded runs."""
    napoles = desc()["napoles15"]
    stored = {k: v for k, v in napoles["ts"].items() if not k.startswith("_")}
    runs, seed = napoles["trueskill_runs"], napoles["trueskill_seed"]
    again = trueskill_scores(napoles15_items(shared_data), napoles["players"], runs=runs,
                             seed=seed)
    assert set(again) == set(stored)
    for name, value in stored.items():
        assert again[name] == pytest.approx(value, abs=1e-12), name


def test_napoles15_kinds_in_the_benchmark(shared_data):
    bench = load_benchmark("conll14", shared_data)
    assert list(bench.human)[:4] == ["ew", "ts", "napoles15-ew", "napoles15-ts"]
    systems = bench.systems("all")
    assert systems == [*TEAMS, "INPUT"]  # refmix1 has no text: never correlated
    ew = bench.human_scores("napoles15-ew", systems)
    ts = bench.human_scores("napoles15-ts", systems)
    assert len(ew) == len(ts) == 13
    # the reference, ranked by the humans, beats every system in both scores
    assert bench.human["napoles15-ew"]["refmix1"] > max(ew)
    assert bench.human["napoles15-ts"]["refmix1"] > max(ts)
