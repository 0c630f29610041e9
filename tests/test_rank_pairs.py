"""--rank-pairs (meta_eval/analyses/rank_pairs.py): a hand-computed toy, the options, and
SEEDA, where its cells must add up to the sentence-level agreement's counts."""

from __future__ import annotations

import json

import pytest

import gecmetrics
from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.meta_eval.analyses import ANALYSES
from gecmetrics.meta_eval.analyses.rank_pairs import RankPairsSettings, run
from gecmetrics.meta_eval.analysis import Context
from gecmetrics.meta_eval.benchmarks.base import Benchmark, Judgments
from gecmetrics.meta_eval.human import RankingItem
from gecmetrics.meta_eval.options import MetaEvalOptions
from gecmetrics.meta_eval.render import render_evaluation
from gecmetrics.meta_eval.score_files import scores_metric
from gecmetrics.meta_eval.selection import Selection

# Four systems; human system scores rank them A (1), B (2), C (3), D (4).
# Judged: s0 A > B > C; s1 B > A; s1 C > {A, B} (A and B share rank 2: not compared).
# D is never judged.  Metric sentence scores (s0, s1):
#   A (0.9, 0.2), B (0.5, 0.2), C (0.5, 0.8), D (0.1, 0.1)
# Cells (i, j): comparisons, agree, metric ties
#   (1, 2) A-B: s0 A>B 0.9>0.5 agree; s1 B>A 0.2=0.2 tie       -> 2, 1, 1
#   (1, 3) A-C: s0 A>C 0.9>0.5 agree; s1 C>A 0.8>0.2 agree      -> 2, 2, 0
#   (2, 3) B-C: s0 B>C 0.5=0.5 tie;   s1 C>B 0.8>0.2 agree      -> 2, 1, 1
#   (1, 4), (2, 4), (3, 4): never compared                       -> 0, 0, 0
ITEMS = [RankingItem(0, "u1", ((1, ("A",)), (2, ("B",)), (3, ("C",)))),
         RankingItem(1, "u1", ((1, ("B",)), (2, ("A",)))),
         RankingItem(1, "u2", ((1, ("C",)), (2, ("A", "B"))))]
SCORES = {"A": [0.9, 0.2], "B": [0.5, 0.2], "C": [0.5, 0.8], "D": [0.1, 0.1]}
EXPECTED = {(1, 2): (2, 1, 1, 0.5), (1, 3): (2, 2, 0, 1.0), (2, 3): (2, 1, 1, 0.5),
            (1, 4): (0, 0, 0, None), (2, 4): (0, 0, 0, None), (3, 4): (0, 0, 0, None)}


def toy_context() -> Context:
    hyps = {name: ["a", "b"] for name in "CADB"}  # corpus order is not the human order
    corpus = Corpus(["a", "b"], [["a", "b"]], hyps)
    bench = Benchmark("toy", corpus, {"ew": {"A": 0.9, "B": 0.6, "C": 0.3, "D": 0.0}},
                      {"all": ["C", "A", "D", "B"]}, "all",
                      judgments=Judgments(ITEMS, "toy-judgments"))
    options = MetaEvalOptions(benchmarks=("seeda-s",), metrics=("green",))  # only betas read
    return Context(options, (Selection.make(bench, "all", "ew"),),
                   (scores_metric("toy", SCORES),))


def test_cells_by_hand():
    rows = run(toy_context(), RankPairsSettings(rank_pairs=True))
    got = {(r.rank_a, r.rank_b): (r.n_pairs, r.agree, r.metric_ties, r.accuracy) for r in rows}
    assert got == EXPECTED
    assert [(r.rank_a, r.rank_b) for r in rows] == sorted(EXPECTED)
    by_ranks = {(r.rank_a, r.rank_b): (r.system_a, r.system_b) for r in rows}
    assert by_ranks[(1, 2)] == ("A", "B") and by_ranks[(3, 4)] == ("C", "D")
    first = rows[0].to_json()
    assert list(first)[:9] == ["analysis", "benchmark", "human", "systems", "corpus",
                               "metric", "spec", "beta", "level"]
    assert first["analysis"] == "rank_pairs" and first["human"] == "toy-judgments"
    assert first["level"] == "sentence" and first["accuracy"] == 0.5
    assert rows[-1].to_json()["accuracy"] is None


def test_registered_once_with_its_flags():
    assert [a.name for a in ANALYSES].count("rank_pairs") == 1
    with pytest.raises(ConfigError, match="--rank-pairs-plot needs --rank-pairs; add it"):
        MetaEvalOptions.from_keywords(benchmarks=("seeda-s",), metrics=("green",),
                                      rank_pairs_plot="x.png")
    with pytest.raises(ConfigError, match="--rank-pairs works at the given betas; it cannot "
                                          "be combined with --sweep-beta/--plot"):
        MetaEvalOptions.from_keywords(benchmarks=("seeda-s",), metrics=("green",),
                                      rank_pairs=True, grid="1:2:0.5")
    with pytest.raises(ConfigError, match="--rank-pairs-plot file must end in"):
        MetaEvalOptions.from_keywords(benchmarks=("seeda-s",), metrics=("green",),
                                      rank_pairs=True, rank_pairs_plot="x.txt")


@pytest.mark.real_data
@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_seeda_cells_add_up_to_the_sentence_agreement(shared_data, tmp_path):
    plot = tmp_path / "pairs.png"
    result = gecmetrics.meta_evaluate(["seeda-s"], ["green"], sentence_level=True,
                                      ties="discordant", rank_pairs=True,
                                      rank_pairs_plot=str(plot), data_dir=str(shared_data))
    (sentence,) = result.sentences
    rows = result.analysis_rows("rank_pairs")
    assert len(rows) == 12 * 11 // 2  # the 12 systems of the base set
    assert sum(r.n_pairs for r in rows) == sentence.n_pairs
    assert sum(r.agree for r in rows) == sentence.concordant
    assert sum(r.metric_ties for r in rows) == sentence.metric_ties
    assert [r.system_a for r in rows if r.rank_b == r.rank_a + 1][0] == "TransGEC"  # EW best
    assert plot.stat().st_size > 0
    objects = result.to_json()
    assert objects[0].get("analysis") == "sentence" and objects[-1]["analysis"] == "rank_pairs"
    frame = result.to_frame()
    assert (frame["analysis"] == "rank_pairs").sum() == len(rows)
    text, _ = render_evaluation(result, "table")
    assert "Human-rank-pair agreement" in text and "TransGEC" in text
    assert json.loads(render_evaluation(result, "json")[0])[-1]["rank_b"] == 12


# --rank-pairs-by judgment: the same comparisons keyed by the ranks given within each item
#   (1, 2): s0 A>B agree; s1/u1 B>A 0.2=0.2 tie; s1/u2 C>A agree, C>B agree  -> 4, 3, 1
#   (1, 3): s0 A>C 0.9>0.5 agree                                              -> 1, 1, 0
#   (2, 3): s0 B>C 0.5=0.5 tie                                                -> 1, 0, 1
BY_ITEM = {(1, 2): (4, 3, 1, 0.75), (1, 3): (1, 1, 0, 1.0), (2, 3): (1, 0, 1, 0.0)}


def test_cells_by_judgment_rank_by_hand():
    rows = run(toy_context(), RankPairsSettings(rank_pairs=True, rank_pairs_by="judgment"))
    got = {(r.rank_a, r.rank_b): (r.n_pairs, r.agree, r.metric_ties, r.accuracy) for r in rows}
    assert got == BY_ITEM
    assert all(r.system_a == r.system_b == "" for r in rows)
    assert rows[0].to_json()["by"] == "judgment" and "by:judgment" in rows[0].signature
    assert "by" not in run(toy_context(), RankPairsSettings(rank_pairs=True))[0].to_json()
    with pytest.raises(ConfigError, match="--rank-pairs-by needs --rank-pairs"):
        MetaEvalOptions.from_keywords(benchmarks=("seeda-s",), metrics=("green",),
                                      rank_pairs_by="judgment",
                                      explicit=frozenset({"rank_pairs_by"}))


def gec_metrics_pairwise(xml, systems, score):
    """gec-metrics' MetaEvalSEEDA.pairwise_analysis, restated (gotutiyan/gec-metrics
    src/gec_metrics/meta_eval/base.py at 320c830): per ranking item, every pair of the
    system set (in its order) with different ranks, keyed by the two ranks; a metric tie is
    read as "the second system wins". Returns (better rank, worse rank) ->
    [comparisons, gec-metrics agreements, strict agreements, metric ties]."""
    import itertools
    import xml.etree.ElementTree as ET

    out = {}
    for item in ET.parse(xml).getroot().iter("ranking-item"):
        sentence = int(item.attrib["src-id"]) - 1  # SEEDA's src-id is 1-based
        h = [None] * len(systems)
        for t in item.iter("translation"):
            for name in t.attrib["system"].split():
                if name in systems:
                    h[systems.index(name)] = -int(t.attrib["rank"])
        for i, j in itertools.combinations(range(len(systems)), 2):
            if h[i] is None or h[j] is None or h[i] == h[j]:
                continue
            human = 1 if h[i] > h[j] else -1
            diff = score(systems[i], sentence) - score(systems[j], sentence)
            metric = 1 if diff > 0 else -1  # a tie (0) is -1 there
            cell = out.setdefault((-max(h[i], h[j]), -min(h[i], h[j])), [0, 0, 0, 0])
            cell[0] += 1
            cell[1] += metric == human
            cell[2] += diff != 0 and (diff > 0) == (human > 0)
            cell[3] += diff == 0
    return out


@pytest.mark.full
@pytest.mark.real_data
def test_judgment_cells_are_gec_metrics_pairwise_analysis(shared_data):
    """Same comparisons and cells as gec-metrics on SEEDA-S; gec-metrics' accuracy counts
    the ties where the humans preferred the later system of the pair as agreements, ours
    none of them (metric_ties), so theirs lies in [agree, agree + ties] / n."""
    import numpy as np

    result = gecmetrics.meta_evaluate(["seeda-s"], ["green"], rank_pairs=True,
                                      rank_pairs_by="judgment", data_dir=str(shared_data))
    rows = result.analysis_rows("rank_pairs")
    (sel,) = result.selections
    bench = sel.benchmark
    metric = gecmetrics.get_metric("green")
    stats = metric.statistics(bench.corpus)
    matrix = np.asarray(stats.sentence(2.0), dtype=float)
    columns = bench.sentence_columns()
    row_of = {name: k for k, name in enumerate(stats.systems)}

    def score(system, sentence):
        return float(matrix[row_of[system], columns[sentence]])

    oracle = gec_metrics_pairwise(shared_data / "SEEDA/data/judgments_sent.xml",
                                  sorted(sel.systems), score)
    ours = {(r.rank_a, r.rank_b): r for r in rows if r.n_pairs}
    assert set(ours) == set(oracle) and len(ours) == 10  # SEEDA ranks 1..5
    for key, (n, theirs, strict, ties) in oracle.items():
        r = ours[key]
        assert (r.n_pairs, r.agree, r.metric_ties) == (n, strict, ties), key
        assert r.agree <= theirs <= r.agree + r.metric_ties
