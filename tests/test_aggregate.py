"""--level ew / trueskill: hand cases, oracles, and gec-metrics' own aggregation on SEEDA."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED_DATA

import gecmetrics
from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.meta_eval.aggregate import (
    AggregateSettings,
    comparisons,
    expected_wins_scores,
    outcomes,
    trueskill_mus,
    trueskill_orders,
)
from gecmetrics.meta_eval.benchmarks.base import Benchmark, Judgments
from gecmetrics.meta_eval.human import RankingItem, expected_wins
from gecmetrics.meta_eval.score_files import scores_metric
from gecmetrics.meta_eval.selection import Selection

needs_shared = pytest.mark.real_data

# Three systems, two sentences. Sentence scores (rows A, B, C):
#   sentence 0: A 0.9, B 0.5, C 0.5   (B and C tie)
#   sentence 1: A 0.2, B 0.8, C 0.4
# The humans judged A and B on sentence 0 and all three on sentence 1.
SCORES = np.array([[0.9, 0.2], [0.5, 0.8], [0.5, 0.4]])
ITEMS = [RankingItem(0, "u1", ((1, ("A",)), (2, ("B",)))),
         RankingItem(1, "u1", ((1, ("B",)), (2, ("C",)), (3, ("A",))))]


def toy_selection() -> Selection:
    hyps = {"A": ["a", "b"], "B": ["a", "b"], "C": ["a", "b"]}
    corpus = Corpus(["a", "b"], [["a", "b"]], hyps)
    bench = Benchmark("toy", corpus, {"ew": {"A": 0.2, "B": 0.9, "C": 0.5}},
                      {"all": ["A", "B", "C"]}, "all", judgments=Judgments(ITEMS, "gjg15"))
    return Selection.make(bench, "all", "ew")


def ew(items: str, ties: str) -> list[float]:
    comps = comparisons(toy_selection(), items)
    outcome, keep = outcomes(SCORES, comps, ties)
    return expected_wins_scores(3, comps.a[keep], comps.b[keep], outcome[keep]).tolist()


def test_expected_wins_by_hand():
    # judged: s0 A>B; s1 B>A, C>A, B>C. A: (1/2 + 0/1)/2; B: (1/2 + 1/1)/2; C: (1/1 + 0/1)/2
    assert ew("judged", "neutral") == [0.25, 0.75, 0.5]
    # all: s0 adds A>C and the tie B=C (a draw: counts nowhere).
    # A: (1/2 + 1/2)/2 = 0.5; B: (1/2 + 1/1)/2 = 0.75; C: (1/2 + 0/1)/2 = 0.25
    assert ew("all", "neutral") == [0.5, 0.75, 0.25]
    assert ew("all", "exclude") == [0.5, 0.75, 0.25]
    # seeda: the tie is a loss for B (alphabetically earlier), so B-C is 1:1
    assert ew("all", "seeda") == [0.5, 0.5, 0.5]


def test_comparison_counts():
    assert len(comparisons(toy_selection(), "judged")) == 1 + 3
    assert len(comparisons(toy_selection(), "all")) == 2 * 3
    assert comparisons(toy_selection(), "judged").n_items == 2


def test_discordant_ties_do_not_apply():
    comps = comparisons(toy_selection(), "all")
    with pytest.raises(ConfigError, match="does not apply"):
        outcomes(SCORES, comps, "discordant")


def random_comparisons(seed: int, n: int = 6, k: int = 2000):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, k)
    b = (a + rng.integers(1, n, k)) % n
    outcome = rng.choice([-1, 0, 1], k, p=[0.4, 0.2, 0.4]).astype(np.int8)
    return n, a, b, outcome


def test_expected_wins_equals_the_item_oracle():
    n, a, b, outcome = random_comparisons(1)
    items = [RankingItem(0, "", ((1, (str(x if o > 0 else y),)), (2, (str(y if o > 0 else x),))))
             for x, y, o in zip(a, b, outcome, strict=True) if o != 0]
    want = expected_wins(items, [str(i) for i in range(n)])
    got = expected_wins_scores(n, a, b, outcome)
    assert got.tolist() == pytest.approx([want[str(i)] for i in range(n)], abs=1e-15)


def test_trueskill_equals_the_package():
    """The closed-form update against trueskill's factor graph, match by match."""
    trueskill = pytest.importorskip("trueskill")
    n, a, b, outcome = random_comparisons(2, k=600)
    env = trueskill.TrueSkill(mu=0.0, sigma=0.5, beta=0.25, tau=0.0, draw_probability=0.25)
    players = [env.create_rating() for _ in range(n)]
    for x, y, o in zip(a, b, outcome, strict=True):
        ranks = (0, 1) if o > 0 else (1, 0) if o < 0 else (0, 0)
        (players[x],), (players[y],) = env.rate(((players[x],), (players[y],)), ranks=ranks)
    got = trueskill_mus(n, a, b, outcome, [np.arange(len(a))])[0]
    assert got.tolist() == pytest.approx([p.mu for p in players], abs=1e-12)


def test_trueskill_runs_are_seeded():
    n, a, b, outcome = random_comparisons(3, k=500)
    one = trueskill_mus(n, a, b, outcome, trueskill_orders(len(a), 4, 7))
    two = trueskill_mus(n, a, b, outcome, trueskill_orders(len(a), 4, 7))
    other = trueskill_mus(n, a, b, outcome, trueskill_orders(len(a), 4, 8))
    assert np.array_equal(one, two)
    assert not np.array_equal(one, other)
    assert len({tuple(row) for row in one.round(12)}) == 4  # each run its own order
    assert np.array_equal(trueskill_orders(5, 0, 7)[0], np.arange(5))


def test_api_on_toy_scores_metric():
    """Through the whole API: a --scores metric with these sentence scores."""
    metric = scores_metric("toy", {s: SCORES[i].tolist() for i, s in enumerate("ABC")})
    sel = toy_selection()
    from gecmetrics.meta_eval.aggregate import AggregateSettings, aggregate

    scores, agg = aggregate(metric, sel, None, "ew", AggregateSettings("all", "neutral"))
    assert scores.tolist() == [0.5, 0.75, 0.25]
    assert agg.n_comparisons == 6 and agg.to_json()["aggregate_items"] == "all"


# -- options ---------------------------------------------------------------------------


@pytest.mark.parametrize("options, message", [
    ({"levels": ["ew"], "bootstrap": 100}, "--bootstrap is not available at --level ew"),
    ({"levels": ["trueskill"], "compare": True, "metrics": ["green", "gleu"]},
     "--compare is not available"),
    ({"levels": ["ew"], "grid": "0:1:0.5"}, "--sweep-beta/--plot is not available"),
    ({"levels": ["ew"], "ties": "discordant"}, "--ties discordant does not apply"),
    ({"trueskill_runs": 3}, "--trueskill-runs needs --level trueskill"),
    ({"levels": ["ew"], "trueskill_runs": 3}, "--trueskill-runs needs --level trueskill"),
    ({"aggregate_items": "all"}, "--aggregate-items needs --level ew"),
    ({"levels": ["trueskill"], "trueskill_runs": -1}, "--trueskill-runs takes"),
    ({"ties": "neutral"}, "--ties needs --sentence-level or --level ew/trueskill"),
])
def test_option_errors(options, message):
    from gecmetrics.meta_eval.options import MetaEvalOptions

    options = {"metrics": ["green"], **options}
    with pytest.raises(ConfigError, match=message.replace("/", ".")):
        MetaEvalOptions.from_keywords(benchmarks=("seeda-s",), explicit=frozenset(options),
                                      **options)


def test_ties_default_to_a_draw_unless_given():
    from gecmetrics.meta_eval.options import MetaEvalOptions

    plain = MetaEvalOptions(benchmarks=("seeda-s",), metrics=("green",), levels=("ew",),
                            explicit=frozenset({"levels"}))
    given = MetaEvalOptions(benchmarks=("seeda-s",), metrics=("green",), levels=("ew",),
                            ties="seeda", explicit=frozenset({"levels", "ties"}))
    assert plain.ties == "seeda"  # the option's own default (--sentence-level)
    assert AggregateSettings.of(plain).ties == "neutral"
    assert AggregateSettings.of(given).ties == "seeda"


def test_options_accept_the_aggregation_levels():
    from gecmetrics.meta_eval.options import MetaEvalOptions

    o = MetaEvalOptions.from_keywords(
        benchmarks=("seeda-s",), metrics=("green",), levels=("corpus", "trueskill"),
        ties="neutral", seed=3, window=4, explicit=frozenset({"levels", "ties", "seed", "window"}))
    assert o.aggregation_levels == ["trueskill"]
    assert AggregateSettings.of(o).seed == 3


# -- gec-metrics' own aggregation on SEEDA ----------------------------------------------

REFERENCE = Path(__file__).with_name("gec_metrics_aggregation_reference.json")


@pytest.mark.full
@needs_shared
@pytest.mark.parametrize("systems", ["base", "+fluency"])
def test_equals_gec_metrics_on_seeda(systems):
    """gec-metrics' rank_systems(aggregation=...) scores every sentence and every pair of
    systems and rates a tie as a draw, TrueSkill once in data order: in gecmetrics
    --aggregate-items all --ties neutral --trueskill-runs 0. The reference system scores
    and correlations were recorded by the command in the JSON file ("command")."""
    reference = json.loads(REFERENCE.read_text())
    rows = [r for r in reference["rows"] if r["systems"] == systems]
    assert len(rows) == 6
    for row in rows:
        for human in ("ew", "ts"):
            once = {"trueskill_runs": 0} if row["level"] == "trueskill" else {}
            result = gecmetrics.meta_evaluate(
                ["seeda-s", "seeda-e"], [row["spec"]], system_set=systems, human=human,
                levels=[row["level"]], ties="neutral", aggregate_items="all",
                data_dir=str(SHARED_DATA), **once)
            for res, kind in zip(result.correlations, ("sent", "edit"), strict=True):
                sel = next(s for s in result.selections if s.benchmark.name == res.benchmark)
                assert res.aggregation is not None
                got = dict(zip(sel.systems, res.aggregation.scores, strict=True))
                assert got == pytest.approx(row["scores"], abs=1e-12), row["spec"]
                want = row[f"{human.upper()}_{kind}"]
                assert [res.pearson, res.spearman] == pytest.approx(want, abs=1e-9)


@needs_shared
@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_cli_json_rows():
    from click.testing import CliRunner

    from gecmetrics.interface.cli import main

    res = CliRunner().invoke(main, [
        "meta-eval", "seeda-s", "-m", "green", "--level", "corpus", "--level", "trueskill",
        "--trueskill-runs", "3", "--seed", "5", "--window", "4",
        "--data-dir", str(SHARED_DATA), "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    ts = [r for r in rows if r["level"] == "trueskill" and "analysis" not in r]
    assert len(ts) == 1
    row = ts[0]
    assert row["trueskill_runs"] == 3 and row["trueskill_seed"] == 5
    assert row["aggregate_items"] == "judged" and row["ties"] == "neutral"
    assert row["pearson_runs_range"][0] <= row["pearson"] + 1e-9
    assert "ts_runs:3" in row["signature"] and "ts_seed:5" in row["signature"]
    windows = [r for r in rows if r.get("analysis") == "window" and r["level"] == "trueskill"]
    assert windows and all("ts_runs:3" in r["signature"] for r in windows)
