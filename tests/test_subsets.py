"""--subsets K: enumeration counts, the paired correlations, and a hand-computed case."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.meta_eval.analyses.subsets import subset_indices, subset_rows, subsets_figure
from gecmetrics.meta_eval.options import MetaEvalOptions
from gecmetrics.meta_eval.score_files import scores_metric
from gecmetrics.meta_eval.selection import Selection, correlate_selection
from gecmetrics.stats.correlation import correlate, paired_rows


def test_every_subset_once_in_lexicographic_order():
    idx, exhaustive = subset_indices(6, 3, max_subsets=1000)
    assert exhaustive and idx.shape == (math.comb(6, 3), 3) == (20, 3)
    assert [tuple(r) for r in idx] == sorted({tuple(r) for r in idx})
    assert tuple(idx[0]) == (0, 1, 2) and tuple(idx[-1]) == (3, 4, 5)


def test_random_subsets_when_there_are_too_many():
    idx, exhaustive = subset_indices(15, 7, max_subsets=100, seed=3)
    assert not exhaustive and idx.shape == (100, 7)  # C(15, 7) = 6435 > 100
    assert all(len(set(r)) == 7 and list(r) == sorted(r) for r in idx.tolist())
    again, _ = subset_indices(15, 7, max_subsets=100, seed=3)
    other, _ = subset_indices(15, 7, max_subsets=100, seed=4)
    assert np.array_equal(idx, again) and not np.array_equal(idx, other)
    assert subset_indices(15, 7, max_subsets=6435)[1]  # exactly C(n, k): enumerated


@pytest.mark.parametrize("name, oracle", [
    ("pearson", lambda x, y: stats.pearsonr(x, y)[0]),
    ("spearman", lambda x, y: stats.spearmanr(x, y)[0]),
    ("kendall", lambda x, y: stats.kendalltau(x, y)[0]),
])
def test_paired_rows_against_scipy(name, oracle):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, (50, 6)).astype(float)  # ties included
    y = rng.normal(size=(50, 6))
    x[0] = 2.0  # a constant row: undefined
    got = paired_rows(x, y, name)
    assert np.isnan(got[0])
    want = [oracle(a, b) for a, b in zip(x[1:], y[1:], strict=True)]
    assert got[1:].tolist() == pytest.approx(want, abs=1e-12)


def test_paired_rows_of_one_row_equal_the_plain_correlation():
    x = np.array([0.3, 0.1, 0.7, 0.2, 0.9])
    y = np.array([1.0, 0.2, 0.4, 0.3, 0.8])
    plain = correlate(x, y)
    for name in ("pearson", "spearman", "kendall"):
        assert paired_rows(x[None], y[None], name)[0] == pytest.approx(getattr(plain, name),
                                                                       abs=1e-15)


def toy():
    """Four systems, human 1 < 2 < 3 < 4; M1 agrees exactly, M2 swaps C and D."""
    from gecmetrics.meta_eval.benchmarks.base import Benchmark

    names = ["A", "B", "C", "D"]
    corpus = Corpus(["x"], [["x"]], {n: ["x"] for n in names})
    bench = Benchmark("toy", corpus, {"ew": dict(zip(names, [1.0, 2.0, 3.0, 4.0], strict=True))},
                      {"all": names}, "all")
    sel = Selection.make(bench, "all", "ew")
    metrics = [scores_metric("M1", dict(zip(names, [1.0, 2.0, 3.0, 4.0], strict=True))),
               scores_metric("M2", dict(zip(names, [1.0, 2.0, 4.0, 3.0], strict=True)))]
    return sel, metrics, correlate_selection(sel, metrics)


def test_hand_case():
    sel, metrics, results = toy()
    rows = subset_rows(results, [sel], metrics, 3)
    m1, m2 = rows
    assert (m2.n_subsets, m2.exhaustive, m2.seed) == (4, True, None)
    # M2 on {A,B,C} and {A,B,D}: the same order as the humans (rho = tau = 1);
    # on {A,C,D} and {B,C,D} one pair of three swapped: rho = 0.5, tau = (2 - 1) / 3.
    assert m2.summary["spearman"] == pytest.approx(
        {"min": 0.5, "q1": 0.5, "median": 0.75, "q3": 1.0, "max": 1.0})
    assert m2.summary["kendall"]["min"] == pytest.approx(1 / 3)
    assert m1.summary["spearman"] == pytest.approx(dict.fromkeys(m1.summary["spearman"], 1.0))
    # M1 is best everywhere; M2 ties it on two of the four subsets
    assert m1.best_share["spearman"] == 1.0 and m2.best_share["spearman"] == 0.5
    # M2's Pearson r is below 1 on every subset ((1, 2, 4) vs (1, 2, 3): r = 0.98),
    # so M1 alone is best in r
    assert m2.best_share["pearson"] == 0.0 and m1.best_share["pearson"] == 1.0
    obj = m2.to_json()
    assert obj["analysis"] == "subsets" and obj["subset_size"] == 3
    assert obj["spearman_median"] == pytest.approx(0.75)
    assert "subsets:3" in obj["signature"]
    json.dumps(obj, allow_nan=False)


def test_constant_scores_give_null_not_nan():
    from gecmetrics.meta_eval.benchmarks.base import Benchmark

    names = ["A", "B", "C"]
    corpus = Corpus(["x"], [["x"]], {n: ["x"] for n in names})
    bench = Benchmark("toy", corpus, {"ew": dict(zip(names, [1.0, 2.0, 3.0], strict=True))},
                      {"all": names}, "all")
    sel = Selection.make(bench, "all", "ew")
    metric = scores_metric("flat", dict.fromkeys(names, 0.5))
    (row,) = subset_rows(correlate_selection(sel, [metric]), [sel], [metric], 3)
    obj = row.to_json()
    assert obj["pearson_median"] is None and obj["pearson_nan_subsets"] == 1
    assert obj["pearson_best_share"] == 0.0
    json.dumps(obj, allow_nan=False)


def test_figure():
    pytest.importorskip("matplotlib")
    sel, metrics, results = toy()
    fig = subsets_figure(subset_rows(results, [sel], metrics, 3), "spearman")
    assert len(fig.axes) == 1
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["M1", "M2"]


@pytest.mark.parametrize("options, message", [
    ({"subsets": 2}, "--subsets takes"),
    ({"subsets_max": 10}, "--subsets-max needs --subsets K"),
    ({"subsets_plot": "x.png"}, "--subsets-plot needs --subsets K"),
    ({"subsets": 4, "sentence_level": True}, "--subsets works on system-level"),
    ({"subsets": 4, "subsets_max": 0}, "--subsets-max takes"),
    ({"subsets": 4, "subsets_plot": "x.txt"}, "--subsets-plot"),
])
def test_option_errors(options, message):
    options = {"metrics": ["green"], **options}
    with pytest.raises(ConfigError, match=message):
        MetaEvalOptions.from_keywords(benchmarks=("seeda-s",), explicit=frozenset(options),
                                      **options)


def test_more_systems_than_the_benchmark_has():
    sel, metrics, results = toy()
    with pytest.raises(ConfigError, match="between 3 and the number of systems"):
        subset_rows(results, [sel], metrics, 5)


@pytest.mark.real_data
def test_leave_one_out_on_seeda_against_scipy():
    """K = n - 1: the n subsets each leave one system out; their r, from scipy."""
    from conftest import SHARED_DATA

    import gecmetrics
    from gecmetrics.meta_eval.selection import system_scores

    result = gecmetrics.meta_evaluate(["seeda-s"], ["green"], levels=["corpus", "ew"],
                                      subsets=11, data_dir=str(SHARED_DATA))
    sel = result.selections[0]
    corpus_row, ew_row = result.analysis_rows("subsets")
    assert corpus_row.n_subsets == 12 and corpus_row.exhaustive
    scores = system_scores(result.options.metric_objects[0], sel, None, "corpus")
    want = sorted(stats.pearsonr(np.delete(scores, i), np.delete(sel.human, i))[0]
                  for i in range(12))
    assert sorted(corpus_row.values["pearson"]) == pytest.approx(want, abs=1e-12)
    assert corpus_row.summary["pearson"]["min"] == pytest.approx(want[0], abs=1e-12)
    ew_scores = np.array(result.correlations[1].aggregation.scores)
    want_ew = [stats.pearsonr(np.delete(ew_scores, i), np.delete(sel.human, i))[0]
               for i in range(12)]
    assert ew_row.summary["pearson"]["max"] == pytest.approx(max(want_ew), abs=1e-12)
    assert corpus_row.best_share["pearson"] + ew_row.best_share["pearson"] >= 1.0
    frame = result.to_frame()
    assert set(frame["analysis"]) == {"correlation", "subsets"}
    assert set(frame.loc[frame["analysis"] == "subsets", "level"]) == {"corpus", "ew"}
    assert frame["pearson_median"].notna().sum() == 2
    ew = frame[(frame["analysis"] == "correlation") & (frame["level"] == "ew")]
    assert len(ew) == 1 and ew["n_comparisons"].iloc[0] > 0 and ew["ties"].iloc[0] == "neutral"
