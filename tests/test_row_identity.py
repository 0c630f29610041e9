"""The rows of a meta-evaluation share one identity (meta_eval/rows.py), and their
JSON keys keep the contract's order: benchmark, human, systems, corpus, metric,
spec, beta, level first (after "analysis" where a row has one), then the row's
own keys. The expected key lists are written out here by hand from the JSON
contract (docs/meta-eval.md), so a change of order or name fails."""

from __future__ import annotations

import dataclasses
import math

import pytest

from gecmetrics.meta_eval.pair_stats_rows import ClusterRow
from gecmetrics.meta_eval.results import MetaResult, WindowRow
from gecmetrics.meta_eval.rows import RowIdentity, num, num_list
from gecmetrics.meta_eval.subsets import SubsetRow

IDENTITY = ["benchmark", "human", "systems", "corpus", "metric", "spec", "beta", "level"]
ID_VALUES = dict(benchmark="conll14", human="ew", systems="all", corpus="conll14-test",
                 metric="wordGREEN", spec="green", beta=2.0, level="corpus")


def _rows():
    summary = {c: dict.fromkeys(("min", "q1", "median", "q3", "max"), 0.5)
               for c in ("pearson", "spearman", "kendall")}
    return {
        MetaResult: (MetaResult(**ID_VALUES, n_systems=13, pearson=0.7, spearman=float("nan"),
                                kendall=0.5, signature="sig"),
                     [*IDENTITY, "n_systems", "pearson", "spearman", "kendall", "signature"]),
        WindowRow: (WindowRow(**ID_VALUES, window=4, window_start=1,
                              systems_in_window=("A", "B", "C", "D"), pearson=0.1,
                              spearman=0.2, signature="sig"),
                    ["analysis", *IDENTITY, "window", "window_start", "systems_in_window",
                     "pearson", "spearman", "signature"]),
        ClusterRow: (ClusterRow(**ID_VALUES, stat="pearson", value=0.7, rank=1, cluster=1,
                                cluster_top="green", p_vs_top=None, p_values=(),
                                value_ci=(0.6, 0.8), resamples=1000, seed=1, signature="s"),
                     ["analysis", *IDENTITY, "stat", "value", "rank", "cluster",
                      "cluster_top", "p_vs_top", "p_values", "value_ci", "resample",
                      "bootstrap", "seed", "signature"]),
        SubsetRow: (SubsetRow(**ID_VALUES, n_systems=13, k=4, n_subsets=715,
                              exhaustive=True, seed=None, summary=summary,
                              best_share=dict.fromkeys(summary, 1.0),
                              nan_subsets=dict.fromkeys(summary, 0), signature="s"),
                    ["analysis", *IDENTITY, "n_systems", "subset_size", "n_subsets",
                     "exhaustive", "seed"]),
    }


@pytest.mark.parametrize("cls", [MetaResult, WindowRow, ClusterRow, SubsetRow])
def test_rows_share_the_identity_and_keep_the_key_order(cls):
    row, keys = _rows()[cls]
    assert issubclass(cls, RowIdentity)
    assert [f.name for f in dataclasses.fields(cls)][:8] == IDENTITY
    out = row.to_json()
    assert list(out)[:len(keys)] == keys
    assert {k: out[k] for k in IDENTITY} == ID_VALUES


def test_identity_json_and_nan_to_null():
    row, _ = _rows()[MetaResult]
    assert row.to_json()["spearman"] is None
    assert list(RowIdentity(**ID_VALUES).identity_json()) == IDENTITY
    assert num(math.inf) is None and num(0.25) == 0.25
    assert num_list([math.nan, 1.0]) == [None, 1.0]
