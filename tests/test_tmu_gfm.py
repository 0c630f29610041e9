"""tmu-gfm: sentence-level ratings (Yoshimura et al., COLING 2020), reference-free only.

Expected numbers come from an independent route: the CSV read here with the
csv module, the annotators' ratings averaged here, and scipy's correlations;
the pairwise counts of a tiny made-up CSV are counted by hand.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import scipy.stats
from click.testing import CliRunner

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.interface.cli import main
from gecmetrics.meta_eval import meta_evaluate
from gecmetrics.meta_eval.benchmarks import load_benchmark
from gecmetrics.meta_eval.score_files import scores_metric

CSV = "TMU-GFM-Dataset/tmu-gfm-dataset.csv"
HEADER = ["source", "output", "grammer", "fluency", "meaning", "system", "ave_g", "ave_f",
          "ave_m"]


def toy_score(source: str, output: str) -> float:
    """A deterministic reference-free 'metric': shorter edits and longer outputs score higher."""
    return -abs(len(output) - len(source)) + 0.01 * len(output.split())


def real_rows(root: Path) -> list[dict[str, str]]:
    with open(root / CSV, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.full
def test_sentence_correlations_match_scipy(shared_data, tmp_path):
    rows = real_rows(shared_data)
    scores = [toy_score(r["source"], r["output"]) for r in rows]
    path = tmp_path / "toy.json"
    path.write_text(json.dumps({"rows": scores}))
    for aspect, column in (("grammaticality", "grammer"), ("fluency", "fluency"),
                           ("meaning", "meaning")):
        human = [sum(map(float, r[column].split(","))) / 5 for r in rows]
        result = meta_evaluate(["tmu-gfm"], [scores_metric("toy", path)], human=aspect,
                               data_dir=str(shared_data))
        (row,) = result.correlations
        assert (row.level, row.human, row.n_systems) == ("sentence", aspect, 4221)
        assert row.pearson == pytest.approx(scipy.stats.pearsonr(scores, human)[0], abs=1e-12)
        assert row.spearman == pytest.approx(scipy.stats.spearmanr(scores, human)[0],
                                             abs=1e-12)
        assert row.kendall == pytest.approx(scipy.stats.kendalltau(scores, human)[0],
                                            abs=1e-12)
        assert "refs:0" in row.signature and "human:" + aspect in row.signature


@pytest.mark.full
def test_order_lower_negates(shared_data, tmp_path):
    rows = real_rows(shared_data)
    path = tmp_path / "toy.json"
    path.write_text(json.dumps({"rows": [-toy_score(r["source"], r["output"]) for r in rows]}))
    lower = meta_evaluate(["tmu-gfm"], [scores_metric("toy", path, order="lower")],
                          data_dir=str(shared_data)).correlations[0]
    path2 = tmp_path / "toy2.json"
    path2.write_text(json.dumps({"rows": [toy_score(r["source"], r["output"]) for r in rows]}))
    higher = meta_evaluate(["tmu-gfm"], [scores_metric("toy", path2)],
                           data_dir=str(shared_data)).correlations[0]
    assert lower.pearson == pytest.approx(higher.pearson, abs=1e-12)


def test_loader_reads_every_rating(shared_data):
    bench = load_benchmark("tmu-gfm", shared_data)
    rows = bench.rated.rows
    assert len(rows) == 4221 and bench.corpus.num_sentences == 4221
    assert len({r.source for r in rows}) == 1378
    # CSV line 2: ratings 3,4,3,4,3 / 3,4,3,4,3 / 3,4,4,4,3 of an output of lstm and cnn
    first = rows[0]
    assert first.systems == ("lstm", "cnn")
    assert first.ratings == {"grammaticality": 3.4, "fluency": 3.4, "meaning": 3.6}
    assert sorted(bench.human["fluency"]) == ["cnn", "copy-net", "lstm", "smt", "transformer"]


def write_toy(root: Path, rows: list[list[str]]) -> None:
    folder = root / "TMU-GFM-Dataset"
    folder.mkdir(parents=True)
    with open(root / CSV, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        writer.writerows(rows)


SYSTEMS = ["cnn", "copy-net", "lstm", "smt", "transformer"]


def toy_rows() -> list[list[str]]:
    """Source A: 3 outputs; source B: 2 outputs with equal ratings (no pair); the
    last row has a missing rating (left out of the mean) and a blank one."""
    return [
        ["A", "a1", "4,4,4,4,4", "4,4,4,4,4", "4,4,4,4,4", "cnn,lstm", "", "", ""],
        ["A", "a2", "2,2,2,2,2", "3,3,3,3,3", "2,2,2,2,2", "smt", "", "", ""],
        ["A", "a3", "3,3,3,3,3", "1,1,1,1,1", "3,3,3,3,3", "copy-net,transformer", "", "", ""],
        ["B", "b1", "2,2,2,2,2", "2,2,2,2,2", "2,2,2,2,2", "cnn,lstm,smt", "", "", ""],
        ["B", "b2", "4,4,,4,0", "2,2,2,2,2", "2,2,2,2,2", "copy-net,transformer", "", "", ""],
    ]


def test_pairs_on_a_hand_counted_toy(tmp_path):
    write_toy(tmp_path, toy_rows())
    # metric: a1 > a3 > a2 on A; b1 < b2 on B
    metric = scores_metric("toy", {"rows": [0.9, 0.1, 0.5, 0.2, 0.7]})
    res = meta_evaluate(["tmu-gfm"], [metric], sentence_level=True, human="grammaticality",
                        data_dir=str(tmp_path))
    (row,) = res.sentences
    # grammaticality: A: a1 4 > a3 3 > a2 2 -> 3 pairs, all concordant;
    # B: b2 (4+4+4+0)/4 = 3 > b1 2 -> concordant. 4 pairs, 4 concordant, 2 items.
    assert (row.n_pairs, row.concordant, row.discordant, row.n_items) == (4, 4, 0, 2)
    res = meta_evaluate(["tmu-gfm"], [metric], sentence_level=True, human="fluency",
                        data_dir=str(tmp_path))
    (row,) = res.sentences
    # fluency: A: a1 4 > a2 3 > a3 1: (a1,a2) C, (a1,a3) C, (a2,a3): metric 0.1 < 0.5 -> D;
    # B: both 2 -> no pair. 3 pairs, 2 concordant, 1 item.
    assert (row.n_pairs, row.concordant, row.discordant, row.n_items) == (3, 2, 1, 1)
    assert row.accuracy == pytest.approx(2 / 3)
    assert row.kendall_like == pytest.approx(1 / 3)
    corr = meta_evaluate(["tmu-gfm"], [metric], human="grammaticality",
                         data_dir=str(tmp_path)).correlations[0]
    assert corr.pearson == pytest.approx(
        scipy.stats.pearsonr([0.9, 0.1, 0.5, 0.2, 0.7], [4, 2, 3, 2, 3])[0], abs=1e-12)


def test_reference_based_metric_is_refused_in_one_line(tmp_path):
    write_toy(tmp_path, toy_rows())
    with pytest.raises(ConfigError, match="no references, so .* cannot run.*--scores"):
        meta_evaluate(["tmu-gfm"], ["green"], data_dir=str(tmp_path))
    res = CliRunner().invoke(main, ["meta-eval", "tmu-gfm", "-m", "gleu", "--data-dir",
                                    str(tmp_path)])
    assert res.exit_code == 2
    assert res.output.startswith("error: benchmark tmu-gfm has no references")
    assert "Traceback" not in res.output


def test_wrong_scores_are_refused_before_work(tmp_path):
    write_toy(tmp_path, toy_rows())
    with pytest.raises(InputError, match="3 row scores but tmu-gfm has 5 rated outputs"):
        meta_evaluate(["tmu-gfm"], [scores_metric("toy", {"rows": [1.0, 2.0, 3.0]})],
                      data_dir=str(tmp_path))
    with pytest.raises(InputError, match="one score per rated output"):
        meta_evaluate(["tmu-gfm"], [scores_metric("toy", {"cnn": [1.0] * 5})],
                      data_dir=str(tmp_path))
    with pytest.raises(ConfigError, match="--bootstrap does not apply to tmu-gfm"):
        meta_evaluate(["tmu-gfm"], [scores_metric("toy", {"rows": [1.0] * 5})],
                      bootstrap=100, data_dir=str(tmp_path))


def test_bad_rating_cell_names_line_and_field(tmp_path):
    rows = toy_rows()
    rows[1][3] = "3,x,3,3,3"
    write_toy(tmp_path, rows)
    with pytest.raises(InputError, match=r"tmu-gfm-dataset.csv:3, field fluency: rating 'x'"):
        meta_evaluate(["tmu-gfm"], [scores_metric("toy", {"rows": [1.0] * 5})],
                      data_dir=str(tmp_path))


def test_pairs_on_the_real_data_against_a_plain_oracle(shared_data, tmp_path):
    """Pairs of different outputs of one source occurrence, counted here without the
    toolkit (ties excluded): an occurrence is a new one when an earlier row of the same
    source already named one of the row's systems."""
    rows = real_rows(shared_data)
    scores = [toy_score(r["source"], r["output"]) for r in rows]
    path = tmp_path / "toy.json"
    path.write_text(json.dumps({"rows": scores}))
    human = [sum(map(float, r["fluency"].split(","))) / 5 for r in rows]
    occurrence: dict[int, int] = {}
    by_source: dict[str, list[int]] = {}
    groups: dict[tuple[str, int], list[int]] = {}
    for i, r in enumerate(rows):
        mine = set(r["system"].split(","))
        earlier = [occurrence[j] for j in by_source.get(r["source"], [])
                   if mine & set(rows[j]["system"].split(","))]
        occurrence[i] = max(earlier) + 1 if earlier else 0
        by_source.setdefault(r["source"], []).append(i)
        groups.setdefault((r["source"], occurrence[i]), []).append(i)
    concordant = discordant = 0
    items = 0
    for members in groups.values():
        found = False
        for a in range(len(members)):
            for b in range(a + 1, len(members)):
                i, j = members[a], members[b]
                if human[i] == human[j]:
                    continue
                found = True
                if scores[i] == scores[j]:
                    continue
                if (human[i] > human[j]) == (scores[i] > scores[j]):
                    concordant += 1
                else:
                    discordant += 1
        items += found
    result = meta_evaluate(["tmu-gfm"], [scores_metric("toy", path)], human="fluency",
                           sentence_level=True, ties="exclude", data_dir=str(shared_data))
    (row,) = result.sentences
    assert (row.concordant, row.discordant, row.n_items) == (concordant, discordant, items)
    assert row.n_pairs == concordant + discordant
