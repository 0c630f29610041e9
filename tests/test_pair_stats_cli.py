"""--pairwise, --tie-calibration, --spa, --clusters, --human-intervals end to end: the
CLI's contract (keys, one-line errors, exit 2), the API, to_frame, and the numbers
against independent recomputation from the same inputs. Metrics are sentence scores
given in memory / as files (no scoring), so these runs take seconds."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

import gecmetrics
from gecmetrics.errors import ConfigError
from gecmetrics.interface.cli import main
from gecmetrics.meta_eval.human import expected_wins, read_judgments
from gecmetrics.meta_eval.render import render_evaluation
from gecmetrics.meta_eval.score_files import scores_metric

CONLL = ["AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC",
         "UMC", "INPUT"]


def _sentence_scores(seed: int, shift: dict[str, float]) -> dict[str, list[float]]:
    """Per system 1312 sentence scores, rounded to 1 decimal (ties happen), the mean
    shifted per system so the systems differ."""
    rng = np.random.default_rng(seed)
    return {s: np.round(rng.uniform(0, 1, 1312) + shift.get(s, 0.0), 1).tolist()
            for s in CONLL}


@pytest.fixture(scope="module")
def human_ew(shared_data):
    items = read_judgments(shared_data / "GJG15" / "judgments.xml", 0)
    return expected_wins(items, CONLL)


@pytest.fixture(scope="module")
def score_files(tmp_path_factory, human_ew):
    """Two metrics: one that follows the human ranking (plus noise), one that does not."""
    folder = tmp_path_factory.mktemp("scores")
    good = _sentence_scores(1, {s: 0.5 * v for s, v in human_ew.items()})
    bad = _sentence_scores(2, {s: 0.05 * i for i, s in enumerate(CONLL)})
    paths = {}
    for name, table in (("good", good), ("bad", bad)):
        paths[name] = folder / f"{name}.json"
        paths[name].write_text(json.dumps(table))
    return paths, good, bad


def cli(*args: str):
    return CliRunner().invoke(main, ["meta-eval", *args])


@pytest.mark.full
def test_option_errors_are_one_line_and_exit_2(shared_data, score_files, tmp_path):
    paths, _, _ = score_files
    base = ["conll14", "--scores", f"good={paths['good']}", "--data-dir", str(shared_data)]
    cases = [
        (["--spa", "--sentence-level"], "--spa is a system-level statistic"),
        (["--clusters-plot", str(tmp_path / "c.png")], "--clusters-plot needs --clusters"),
        (["--human-unit", "comparisons"], "--human-unit needs --spa"),
        (["--human-intervals", "--human-plot", str(tmp_path / "h.txt")], "--human-plot"),
    ]
    for extra, message in cases:
        res = cli(*base, *extra)
        assert res.exit_code == 2, (extra, res.output)
        lines = [line for line in res.output.splitlines() if line.startswith("error:")]
        assert len(lines) == 1 and message in lines[0], (extra, res.output)
        assert "Traceback" not in res.output
    res = cli("conll14", "-m", "green", "--clusters", "pearson", "--sweep-beta")
    assert res.exit_code == 2 and "cannot be combined with --sweep-beta" in res.output
    res = cli(*base, "--clusters", "bleu")
    assert res.exit_code == 2 and "bleu" in res.output
    with pytest.raises(ConfigError, match="--spa resamples sentences"):
        gecmetrics.meta_evaluate("conll14", scores_metric("sys", {s: 1.0 * i for i, s in
                                                                enumerate(CONLL)}),
                                 spa=True, data_dir=str(shared_data))


@pytest.fixture(scope="module")
def run(shared_data, score_files):
    paths, _, _ = score_files
    res = cli("conll14", "--scores", f"good={paths['good']}", "--scores",
              f"bad={paths['bad']}", "--data-dir", str(shared_data), "--pairwise",
              "--tie-calibration", "--spa", "--clusters", "pairwise", "--human-intervals",
              "--bootstrap", "200", "--seed", "7", "--format", "json")
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _pair_accuracy_oracle(metric: dict[str, float], human: dict[str, float]) -> float:
    agree = total = 0
    for i, a in enumerate(CONLL):
        for b in CONLL[i + 1:]:
            total += 1
            dm, dh = metric[a] - metric[b], human[a] - human[b]
            agree += (dm > 0) == (dh > 0) and (dm < 0) == (dh < 0)
    return agree / total


def test_json_rows_carry_the_new_keys(run, score_files, human_ew):
    _, good, bad = score_files
    corr = [r for r in run if "analysis" not in r]
    assert {r["metric"] for r in corr} == {"good", "bad"}
    for r in corr:
        for key in ("pairwise_accuracy", "acc_eq", "epsilon", "spa", "spa_resamples",
                    "spa_seed", "signature", "pearson_ci"):
            assert key in r, key
        assert r["spa_resamples"] == 200 and r["spa_seed"] == 7
        assert "seed:7" in r["signature"] and "resamples:200" in r["signature"]
        # the system score of a sentence-score file is the mean of its sentence scores
        table = good if r["metric"] == "good" else bad
        means = {s: float(np.mean(v)) for s, v in table.items()}
        assert r["pairwise_accuracy"] == pytest.approx(_pair_accuracy_oracle(means, human_ew))
        assert r["acc_eq"] >= r["pairwise_accuracy"] - 1e-12
        assert 0 <= r["spa"] <= 1
    text = json.dumps(run)
    assert "NaN" not in text and "Infinity" not in text
    good_row = next(r for r in corr if r["metric"] == "good")
    bad_row = next(r for r in corr if r["metric"] == "bad")
    assert good_row["pairwise_accuracy"] > bad_row["pairwise_accuracy"]
    assert good_row["spa"] > bad_row["spa"]


def test_cluster_rows(run):
    rows = [r for r in run if r.get("analysis") == "cluster"]
    assert [r["rank"] for r in rows] == [1, 2]
    for key in ("benchmark", "spec", "stat", "value", "rank", "cluster", "p_vs_top",
                "p_values", "signature", "bootstrap", "seed"):
        assert key in rows[0], key
    assert rows[0]["metric"] == "good" and rows[0]["cluster"] == 1
    assert rows[0]["p_vs_top"] is None and rows[0]["p_values"] == {}
    # 'bad' orders the systems far worse: separated at 200 resamples
    assert rows[1]["p_vs_top"] < 0.05 and rows[1]["cluster"] == 2
    assert list(rows[1]["p_values"].values()) == [rows[1]["p_vs_top"]]
    corr = {r["metric"]: r for r in run if "analysis" not in r}
    assert rows[0]["value"] == corr["good"]["pairwise_accuracy"]
    assert "stat:pairwise" in rows[0]["signature"]


def test_human_interval_rows(run, human_ew):
    rows = [r for r in run if r.get("analysis") == "human_interval"]
    assert len(rows) == 13
    assert [r["rank"] for r in rows] == list(range(1, 14))
    for r in rows:
        assert r["score"] == pytest.approx(human_ew[r["system"]], abs=1e-12)
        low, high = r["score_ci"]
        assert low <= r["score"] <= high
        assert r["rank_range"][0] <= r["rank"] <= r["rank_range"][1]
        assert r["resampled"] == "ranking items" and r["bootstrap"] == 200
        assert r["signature"].startswith("human|benchmark:conll14")
    assert rows[0]["system"] == "AMU" and rows[-1]["system"] == "IPN"
    assert rows[0]["cluster"] == 1 and rows[-1]["cluster"] == max(r["cluster"] for r in rows)


@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_api_to_frame_and_tables(shared_data, score_files, tmp_path):
    _, good, bad = score_files
    result = gecmetrics.meta_evaluate(
        "conll14", [scores_metric("good", good), scores_metric("bad", bad)],
        data_dir=str(shared_data), pairwise=True, tie_calibration=True, spa=True,
        clusters="spa", human_intervals=True, bootstrap=100,
        clusters_plot=str(tmp_path / "c.png"), human_plot=str(tmp_path / "h.svg"))
    frame = result.to_frame()
    assert {"pairwise_accuracy", "acc_eq", "epsilon", "spa", "cluster", "rank",
            "score_ci_low", "score_ci_high", "value_ci_low", "system"} <= set(frame.columns)
    assert set(frame["analysis"]) == {"correlation", "cluster", "human_interval"}
    clusters = frame[frame["analysis"] == "cluster"]
    corr = frame[frame["analysis"] == "correlation"].set_index("spec")
    for _, row in clusters.iterrows():
        assert row["value"] == pytest.approx(corr.loc[row["spec"], "spa"])
    text, _ = render_evaluation(result, "table")
    assert "Pairwise statistics" in text and "Metric clusters by spa" in text
    assert "Human scores: 95% bootstrap intervals" in text
    for fmt in ("markdown", "latex", "csv"):
        assert render_evaluation(result, fmt)[0]
    assert (tmp_path / "c.png").stat().st_size > 0 and (tmp_path / "h.svg").stat().st_size > 0


def test_sentence_level_tie_calibration(shared_data, score_files):
    _, good, _ = score_files
    result = gecmetrics.meta_evaluate("conll14", scores_metric("good", good),
                                      sentence_level=True, tie_calibration=True,
                                      data_dir=str(shared_data))
    row = result.sentences[0]
    tc = row.tie_calibration
    assert tc is not None
    policies = dict(tc.accuracy_by_ties)
    assert set(policies) == {"seeda", "discordant", "neutral", "exclude"}
    assert policies["seeda"] == row.accuracy
    assert policies["discordant"] <= policies["seeda"] <= 1
    # human ties are counted (GJG15 collapses identical outputs into one rank group)
    assert tc.human_ties > 0 and tc.n_pairs > row.n_pairs
    assert not math.isnan(tc.acc_eq) and tc.epsilon >= 0
    obj = result.to_json()[0]
    assert {"acc_eq", "epsilon", "accuracy_by_ties", "human_ties"} <= set(obj)
    assert "Tie calibration" in render_evaluation(result, "table")[0]


def test_gmeg_human_resamples_are_segment_ratings(shared_data):
    """GMEG: the human bootstrap draws sentences of the segment ratings; on all
    sentences the mean rating is GMEG's published corpus rating."""
    from gecmetrics.meta_eval.benchmarks.gmeg import read_corpus_scores

    systems = ["amu", "marian", "nus", "lstm", "lstm-r", "transformer", "source"]
    rng = np.random.default_rng(5)
    metric = scores_metric("x", {s: rng.uniform(0, 1, 968).tolist() for s in systems})
    result = gecmetrics.meta_evaluate("gmeg-fce", metric, human_intervals=True, spa=True,
                                      bootstrap=100, data_dir=str(shared_data))
    published = read_corpus_scores(shared_data / "GMEG/data/test/fce-corpus-scores.csv")
    rows = result.analysis_rows("human_intervals")
    assert {h.system for h in rows} == set(systems)
    for h in rows:
        assert h.human == "rating" and h.resampled == "sentences" and h.n_resampled == 968
        assert h.score == pytest.approx(published[h.system], abs=1e-9)
        assert h.score_ci[0] <= h.score <= h.score_ci[1]
    assert result.correlations[0].pairs is not None
    assert result.correlations[0].pairs.spa_human == "rating"
