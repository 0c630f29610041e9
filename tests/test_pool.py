"""--pool: the pooled leaderboard (mean rank, weighted average) against hand calculation."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from gecmetrics.errors import ConfigError
from gecmetrics.interface.cli import main
from gecmetrics.meta_eval.analyses.pool import fractional_ranks, kind_type, parse_weights, pool
from gecmetrics.meta_eval.render import render_evaluation
from gecmetrics.meta_eval.results import MetaResult, SentenceAgreement


def row(bench: str, human: str, metric: str, r: float) -> MetaResult:
    return MetaResult(bench, human, "all", f"{bench}-test", metric, metric.lower(), None,
                      "corpus", 5, r, 0.0, 0.0, signature=f"{metric.lower()}|refs:1|x|version:1")


# X has two human kinds (two columns), Y one; C has no value on Y (undefined r).
ROWS = [row("X", "ew", "A", 0.9), row("X", "ew", "B", 0.8), row("X", "ew", "C", 0.8),
        row("X", "ts", "A", 0.5), row("X", "ts", "B", 0.7), row("X", "ts", "C", 0.6),
        row("Y", "rating", "A", 0.4), row("Y", "rating", "B", 0.9),
        row("Y", "rating", "C", math.nan)]


def test_mean_rank_and_weighted_average_by_hand():
    notes: list[str] = []
    out = {r.metric: r for r in pool(ROWS, parse_weights(None, ["X", "Y"]), notes)}
    # ranks: X:ew A 1, B and C tied for 2-3 -> 2.5 each; X:ts B 1, C 2, A 3; Y: B 1, A 2
    assert out["A"].ranks == (1, 3, 2)
    assert out["B"].ranks == (2.5, 1, 1)
    assert out["C"].ranks == (2.5, 2, None)
    assert out["A"].mean_rank == pytest.approx(2.0)
    assert out["B"].mean_rank == pytest.approx(1.5)
    assert out["C"].mean_rank == pytest.approx(2.25)
    # equal weight per benchmark: X's two columns 1/2 each, Y's one column 1; sum of w = 2
    assert out["A"].weights == (0.5, 0.5, 1.0)
    assert out["A"].weighted == pytest.approx((0.5 * 0.9 + 0.5 * 0.5 + 0.4) / 2)  # 0.55
    assert out["B"].weighted == pytest.approx((0.5 * 0.8 + 0.5 * 0.7 + 0.9) / 2)  # 0.825
    assert out["C"].weighted is None
    assert notes == ["note: pool: c has no value in Y:rating(rating):corpus:pearson; its "
                     "weighted average is null"]
    # best weighted average first, the entry without one last
    assert [r.metric for r in pool(ROWS)] == ["B", "A", "C"]


def test_weights_are_adjustable():
    out = {r.metric: r for r in pool(ROWS, parse_weights("X=2", ["X", "Y"]))}
    assert out["A"].weights == (1.0, 1.0, 1.0)
    assert out["A"].weighted == pytest.approx((0.9 + 0.5 + 0.4) / 3)
    # a zero weight drops a benchmark from the average (C is then complete)
    out = {r.metric: r for r in pool(ROWS, parse_weights("Y=0", ["X", "Y"]))}
    assert out["C"].weighted == pytest.approx((0.8 + 0.6) / 2)
    assert out["C"].mean_rank == pytest.approx(2.25)  # ranks ignore weights


def test_json_and_frame_rows():
    (first, *_) = pool(ROWS, parse_weights(None, ["X", "Y"]))
    obj = first.to_json()
    assert obj["analysis"] == "pool" and obj["metric"] == "B"
    assert obj["columns"] == {"X:ew(ranking):corpus:pearson": 0.8,
                              "X:ts(ranking):corpus:pearson": 0.7,
                              "Y:rating(rating):corpus:pearson": 0.9}
    assert obj["signature"].startswith("b|pool:X:ew(ranking)")
    c = next(r for r in pool(ROWS) if r.metric == "C").to_json()
    assert c["weighted"] is None and c["columns"]["Y:rating(rating):corpus:pearson"] is None


def test_sentence_agreement_rows_pool_accuracy():
    def agree(metric: str, acc: float) -> SentenceAgreement:
        return SentenceAgreement("S", "sent", "base", "subset", metric, metric, None, 12,
                                 "seeda", acc, 2 * acc - 1, 10, 0, 0, 0, 1)

    out = pool([agree("A", 0.6), agree("B", 0.7)])
    assert [r.metric for r in out] == ["B", "A"]
    assert out[0].columns[0].label == "S:sent(ranking):sentence:accuracy"
    assert out[0].weighted == pytest.approx(0.7)


def test_fractional_ranks_and_kinds():
    assert fractional_ranks([3.0, 1.0, 3.0, None, 2.0]) == [1.5, 4.0, 1.5, None, 3.0]
    assert kind_type("fluency") == "rating" and kind_type("napoles15-ts") == "ranking"


@pytest.mark.parametrize(("text", "message"), [
    ("X", "is not BENCH=W"), ("Z=1", "'Z' is not a benchmark of this run"),
    ("X=-1", "must be a number >= 0"), ("X=nan", "must be a number >= 0"),
    ("X=1,X=2", "X is given twice"), ("X=0,Y=0", "every weight is 0"),
])
def test_bad_weights_are_one_line_errors(text, message):
    with pytest.raises(ConfigError, match=message):
        parse_weights(text, ["X", "Y"])


def test_cli_checks_pool_options_before_work():
    res = CliRunner().invoke(main, ["meta-eval", "conll14", "-m", "green", "--pool-weights",
                                    "conll14=2"])
    assert res.exit_code == 2 and "--pool-weights needs --pool" in res.output
    res = CliRunner().invoke(main, ["meta-eval", "conll14", "-m", "green", "--pool",
                                    "--pool-weights", "gmeg-fce=2"])
    assert res.exit_code == 2 and "'gmeg-fce' is not a benchmark of this run" in res.output


@pytest.mark.full
def test_end_to_end_on_the_real_data(shared_data, tmp_path):
    res = CliRunner().invoke(main, [
        "meta-eval", "conll14", "seeda-s", "gmeg-fce", "-m", "green", "-m", "gleu", "--pool",
        "--pool-weights", "conll14=2", "--pool-plot", str(tmp_path / "pool.png"),
        "--format", "json", "--data-dir", str(shared_data)])
    assert res.exit_code == 0, res.output
    objs = json.loads(res.stdout)
    corr = {(o["benchmark"], o["spec"]): o["pearson"] for o in objs if "analysis" not in o}
    pools = [o for o in objs if o.get("analysis") == "pool"]
    assert len(pools) == 2 and all(o["signature"] for o in pools)
    for o in pools:
        values = [corr[(b, o["spec"])] for b in ("conll14", "seeda-s", "gmeg-fce")]
        assert list(o["columns"].values()) == values
        assert o["weighted"] == pytest.approx((2 * values[0] + values[1] + values[2]) / 4)
    assert (tmp_path / "pool.png").stat().st_size > 0


def test_frame_rows_and_text_table_on_a_toy_ratings_benchmark(tmp_path):
    from test_tmu_gfm import toy_rows, write_toy

    from gecmetrics.meta_eval import meta_evaluate
    from gecmetrics.meta_eval.score_files import scores_metric

    write_toy(tmp_path, toy_rows())
    metrics = [scores_metric("good", {"rows": [4.0, 2.0, 3.0, 2.0, 3.0]}),
               scores_metric("flat", {"rows": [1.0, 1.0, 1.0, 1.0, 2.0]})]
    result = meta_evaluate(["tmu-gfm"], metrics, pool=True, data_dir=str(tmp_path))
    frame = result.to_frame()
    pooled = frame[frame["analysis"] == "pool"]
    # one frame row per (entry, column): 2 metrics x 1 column
    assert list(pooled["metric"]) == ["good", "flat"]
    assert list(pooled["level"]) == ["sentence", "sentence"]
    assert set(pooled["measure"]) == {"pearson"} and list(pooled["rank"]) == [1.0, 2.0]
    assert pooled["value"].iloc[0] == pytest.approx(1.0)  # equals the human means
    text, _ = render_evaluation(result, "table")
    assert "Pooled leaderboard" in text and "tmu-gfm:grammaticality(rating):sentence" in text
