"""GMEG benchmarks and the meta-eval analyses wired into the CLI (bootstrap intervals,
metric comparisons, sentence level, windows, cross-validated beta*).

Checks are independent re-computations: GMEG files read with the csv module and
plain ``open``, metric scores from a freshly built corpus (resampled sentences
rescored from scratch, not gathered from cached statistics), correlations from
scipy, Williams' t from its formula.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from click.testing import CliRunner
from meta_data import benchmark, shared_data
from scipy import stats
from test_pairwise import SEEDA_SYSTEMS, corr_sentence_reference

from gecmetrics.corpus import Corpus
from gecmetrics.interface.cli import main
from gecmetrics.meta_eval.benchmarks import load_benchmark
from gecmetrics.meta_eval.benchmarks.gmeg import segment_items
from gecmetrics.registry import metric_from_spec

SYSTEMS = ["amu", "lstm", "lstm-r", "marian", "nus", "transformer"]


def run(*args: str):
    return CliRunner().invoke(main, ["meta-eval", *args, "--data-dir", str(shared_data())])


def rows_of(res, analysis=None):
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    return [r for r in rows if r.get("analysis") == analysis]


def lines(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read().split("\n")[:-1]


def gmeg(domain, split="test"):
    return load_benchmark(f"gmeg-{domain}", shared_data(), split=split)


def independent_gmeg(domain, split="test"):
    """Sources, references, outputs and human ratings read without the benchmark code."""
    folder = shared_data() / "GMEG" / "data" / split
    src = lines(folder / domain / "source")
    refs = [lines(folder / domain / f"ref{k}") for k in range(4)]
    hyps = {s: lines(folder / domain / s) for s in SYSTEMS}
    hyps["source"] = src
    with open(folder / f"{domain}-corpus-scores.csv", encoding="utf-8") as handle:
        human = {row["system"]: float(row["score"]) for row in csv.DictReader(handle)}
    return src, refs, hyps, human


# -- the benchmark ---------------------------------------------------------------------


@pytest.mark.parametrize(("domain", "split", "n"), [
    ("fce", "test", 968), ("wiki", "test", 992), ("fce", "dev", 968), ("wiki", "dev", 992),
])
def test_gmeg_loads_seven_systems_four_references_and_the_csv_ratings(domain, split, n):
    bench = gmeg(domain, split)
    src, refs, hyps, human = independent_gmeg(domain, split)
    assert bench.corpus.num_sentences == n == len(src)
    assert [list(ref) for ref in bench.corpus.references] == refs  # tuples: immutable corpus
    assert set(bench.corpus.hypotheses) == set(SYSTEMS) | {"source"}
    assert "source+error" not in bench.corpus.hypotheses and "ref" not in bench.systems()
    assert bench.systems() == [*SYSTEMS, "source"] and bench.systems("base") == SYSTEMS
    assert bench.systems("+source") == bench.systems("+INPUT") == bench.systems("all")
    assert bench.human["rating"] == {s: human[s] for s in [*SYSTEMS, "source"]}
    assert bench.default_human == "rating"


def test_gmeg_published_rating_by_hand():
    # fce test: marian 77.31783241853346, source 68.70614955743453 (corpus-scores.csv)
    bench = gmeg("fce")
    assert bench.human["rating"]["marian"] == 77.31783241853346
    assert bench.human["rating"]["source"] == 68.70614955743453


def test_segment_items_by_hand():
    segment = {"a": [80.0, 50.0, None], "b": [80.0, 60.0, 10.0], "c": [70.0, None, 20.0]}
    items = segment_items(segment, ["a", "b", "c"])
    assert [(i.sentence, i.groups) for i in items] == [
        (0, ((1, ("a", "b")), (2, ("c",)))),
        (1, ((1, ("b",)), (2, ("a",)))),
        (2, ((1, ("c",)), (2, ("b",)))),
    ]
    assert segment_items({"a": [5.0], "b": [5.0]}, ["a", "b"]) == []  # no comparison


@pytest.mark.full
@pytest.mark.parametrize("domain", ["fce", "wiki"])
def test_gmeg_correlations_equal_scipy_on_independently_scored_systems(domain):
    src, refs, hyps, human = independent_gmeg(domain)
    corpus = Corpus(src, refs, hyps)
    res = run(f"gmeg-{domain}", "-m", "green", "-m", "chrf", "--format", "json")
    rows = rows_of(res)
    for row, spec in zip(rows, ["green", "chrf"], strict=True):
        metric = metric_from_spec(spec)
        scores = {r.hypothesis: r.score for r in metric.evaluate(corpus)}
        order = [*SYSTEMS, "source"]
        x, y = [scores[s] for s in order], [human[s] for s in order]
        assert row["benchmark"] == f"gmeg-{domain}" and row["human"] == "rating"
        assert row["n_systems"] == 7 and row["corpus"] == f"gmeg-{domain}-test"
        assert row["pearson"] == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
        assert row["spearman"] == pytest.approx(stats.spearmanr(x, y)[0], abs=1e-12)
        assert row["kendall"] == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-12)


def test_gmeg_dev_split_and_yahoo_and_missing_files(tmp_path):
    dev = rows_of(run("gmeg-fce", "-m", "green", "--split", "dev", "--format", "json"))
    assert dev[0]["corpus"] == "gmeg-fce-dev"
    res = run("gmeg-yahoo", "-m", "green")
    assert res.exit_code == 2 and "not public" in res.output and res.output.count("\n") == 1
    res = CliRunner().invoke(main, ["meta-eval", "gmeg-wiki", "-m", "green",
                                    "--data-dir", str(tmp_path)])
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert "gecmetrics download gmeg" in res.output and "--data-dir" in res.output


# -- bootstrap intervals ------------------------------------------------------------------


@pytest.mark.full
def test_bootstrap_interval_equals_rescoring_the_resampled_corpora():
    """Gathering cached statistics == rescoring a corpus made of the resampled sentences."""
    n_boot, seed = 100, 3  # the CLI minimum
    res = run("gmeg-fce", "-m", "green", "--bootstrap", str(n_boot), "--seed", str(seed),
              "--format", "json")
    row = rows_of(res)[0]
    assert row["bootstrap"] == n_boot and row["seed"] == seed
    src, refs, hyps, human = independent_gmeg("fce")
    order = [*SYSTEMS, "source"]
    y = [human[s] for s in order]
    rng = np.random.default_rng(seed)  # the documented resampling scheme
    values = {"pearson": [], "spearman": [], "kendall": []}
    metric = metric_from_spec("green")
    for _ in range(n_boot):
        idx = rng.integers(0, len(src), size=len(src))
        corpus = Corpus([src[i] for i in idx], [[r[i] for i in idx] for r in refs],
                        {s: [hyps[s][i] for i in idx] for s in order})
        scores = {r.hypothesis: r.score for r in metric.evaluate(corpus)}
        x = [scores[s] for s in order]
        values["pearson"].append(stats.pearsonr(x, y)[0])
        values["spearman"].append(stats.spearmanr(x, y)[0])
        values["kendall"].append(stats.kendalltau(x, y)[0])
    for name, vals in values.items():
        expected = np.quantile(vals, [0.025, 0.975])
        assert row[f"{name}_ci"] == pytest.approx(list(expected), abs=1e-9), name


@pytest.mark.full
def test_bootstrap_default_is_1000_reproducible_and_shown_in_the_table():
    first = rows_of(run("conll14", "-m", "green", "--bootstrap", "--format", "json"))[0]
    again = rows_of(run("conll14", "-m", "green", "--bootstrap", "--format", "json"))[0]
    assert first["bootstrap"] == 1000 and first["seed"] == 12345
    assert first == again
    for key in ("pearson_ci", "spearman_ci", "kendall_ci"):
        low, high = first[key]
        assert len(first[key]) == 2 and low <= high
    assert first["pearson_ci"][0] <= first["pearson"] <= first["pearson_ci"][1]
    table = run("conll14", "-m", "green", "--bootstrap", "100")
    assert table.exit_code == 0 and "r 95% CI" in table.output and "100 resamples" in table.output


# -- comparing metrics ------------------------------------------------------------------------


@pytest.mark.full
def test_compare_objects_and_williams_from_its_formula():
    res = run("gmeg-wiki", "-m", "green", "-m", "chrf", "-m", "green:tokenize=char,n=6",
              "--compare", "--bootstrap", "100", "--format", "json")
    pairs = rows_of(res, "compare")
    assert [(p["metric_a"], p["metric_b"]) for p in pairs] == [
        ("wordGREEN", "chrF"), ("wordGREEN", "charGREEN"), ("chrF", "charGREEN")]
    src, refs, hyps, human = independent_gmeg("wiki")
    corpus = Corpus(src, refs, hyps)
    order = [*SYSTEMS, "source"]
    y = np.array([human[s] for s in order])

    def scores(spec):
        got = {r.hypothesis: r.score for r in metric_from_spec(spec).evaluate(corpus)}
        return np.array([got[s] for s in order])

    a, b = scores("green"), scores("chrf")
    r12, r13, r23 = (stats.pearsonr(a, y)[0], stats.pearsonr(b, y)[0], stats.pearsonr(a, b)[0])
    n = len(y)
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    t = (r12 - r13) * np.sqrt((n - 1) * (1 + r23)) / np.sqrt(
        2 * (n - 1) / (n - 3) * det + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3)
    first = pairs[0]
    assert {"benchmark", "metric_a", "metric_b", "williams_p", "bootstrap_p"} <= set(first)
    assert first["benchmark"] == "gmeg-wiki" and first["bootstrap"] == 100
    assert first["williams_t"] == pytest.approx(t, rel=1e-9)
    assert first["williams_p"] == pytest.approx(stats.t.sf(abs(t), n - 3), rel=1e-9)
    assert 0 <= first["bootstrap_p"] <= 1
    table = run("gmeg-wiki", "-m", "green", "-m", "chrf", "--compare", "--bootstrap", "100")
    assert "Williams p" in table.output and "bootstrap p" in table.output


# -- sentence level -------------------------------------------------------------------------------


@pytest.mark.parametrize("granularity, name", [("sent", "seeda-s"), ("edit", "seeda-e")])
@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_seeda_sentence_level_equals_corr_sentence_with_real_scores(granularity, name):
    res = run(name, "-m", "green", "--sentence-level", "--format", "json")
    row = rows_of(res, "sentence")[0]
    assert {"benchmark", "human", "systems", "spec", "accuracy", "kendall_like",
            "n_pairs"} <= set(row)
    assert (row["benchmark"], row["human"], row["systems"], row["ties"]) == (
        name, granularity, "base", "seeda")
    # reference: SEEDA's matrix computation on the full-corpus sentence scores
    full = benchmark("seeda-s", "all").corpus
    st = metric_from_spec("green").statistics(full)
    matrix = st.sentence(2.0)
    scores = {s: matrix[i] for i, s in enumerate(st.systems)}
    targets = [s for s in SEEDA_SYSTEMS if s not in {"GPT-3.5", "INPUT", "REF-F"}]
    path = shared_data() / "SEEDA" / "data" / f"judgments_{granularity}.xml"
    acc, ken, total = corr_sentence_reference(path, targets, 1, scores)
    assert row["n_pairs"] == total
    assert row["accuracy"] == pytest.approx(acc, abs=1e-12)
    assert row["kendall_like"] == pytest.approx(ken, abs=1e-12)


@pytest.mark.full
def test_sentence_level_conll14_ties_and_system_sets():
    seeda = rows_of(run("conll14", "-m", "green", "--sentence-level", "--format", "json"),
                    "sentence")[0]
    excl = rows_of(run("conll14", "-m", "green", "--sentence-level", "--ties", "exclude",
                       "--format", "json"), "sentence")[0]
    base = rows_of(run("conll14", "-m", "green", "--sentence-level", "--systems", "base",
                       "--format", "json"), "sentence")[0]
    assert seeda["human"] == "gjg15" and seeda["n_systems"] == 13
    assert excl["n_pairs"] == seeda["n_pairs"] - seeda["metric_ties"]
    assert excl["concordant"] + excl["discordant"] == excl["n_pairs"]
    assert base["n_systems"] == 12 and base["n_pairs"] < seeda["n_pairs"]


# -- windows and cross-validated beta* ---------------------------------------------------------


def test_window_objects_equal_scipy_within_each_window():
    res = run("gmeg-fce", "-m", "green", "--window", "--format", "json")
    wins = rows_of(res, "window")
    assert [w["window_start"] for w in wins] == [1, 2, 3, 4] and wins[0]["window"] == 4
    src, refs, hyps, human = independent_gmeg("fce")
    got = {r.hypothesis: r.score
           for r in metric_from_spec("green").evaluate(Corpus(src, refs, hyps))}
    ranked = sorted([*SYSTEMS, "source"], key=lambda s: -human[s])
    for w in wins:
        names = ranked[w["window_start"] - 1:w["window_start"] + 3]
        assert w["systems_in_window"] == names
        x, y = [got[s] for s in names], [human[s] for s in names]
        assert w["pearson"] == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
        assert w["spearman"] == pytest.approx(stats.spearmanr(x, y)[0], abs=1e-12)


def test_cv_beta_keys_and_mean_of_fold_optima(tmp_path):
    res = run("gmeg-fce", "-m", "green", "-m", "gleu", "--cv-beta", "3", "--cv-grid",
              "0.5:2.5:0.5", "--format", "json")
    green, gleu = rows_of(res)
    assert len(green["beta_star_folds"]) == 3
    assert set(green["beta_star_folds"]) <= {0.5, 1.0, 1.5, 2.0, 2.5}
    assert green["beta_star"] == pytest.approx(np.mean(green["beta_star_folds"]))
    assert {"pearson_at_beta_star", "spearman_at_beta_star"} <= set(green)
    assert gleu["beta_star"] is None  # GLEU has no beta


@pytest.mark.parametrize(("args", "message"), [
    (("gmeg-fce", "-m", "green", "--compare"), "at least two metrics"),
    (("gmeg-fce", "-m", "green", "--sentence-level", "--bootstrap", "10"), "cannot be combined"),
    (("gmeg-fce", "-m", "green", "--bootstrap", "10", "--sweep-beta", "0:1:0.5"),
     "cannot be combined"),
    (("gmeg-fce", "-m", "green", "--window-plot", "w.png"), "needs --window"),
    (("gmeg-fce", "-m", "green", "--window", "9"), "--window must be between"),
    (("gmeg-fce", "-m", "green", "--human", "ew"), "no human scores 'ew'"),
])
def test_errors_are_one_line(args, message):
    res = run(*args)
    assert res.exit_code == 2, res.output
    assert message in res.output and res.output.count("\n") == 1


@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_window_plot(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "w.png"
    res = run("gmeg-wiki", "-m", "green", "-m", "chrf", "--window", "3", "--window-plot",
              str(path))
    assert res.exit_code == 0, res.output
    assert path.stat().st_size > 1000
