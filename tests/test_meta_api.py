"""Meta-evaluation as a library: gecmetrics.meta_evaluate, MetaEvalOptions, the typed
result, to_frame, signatures; the CLI's JSON is the API's rows, unchanged."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats
from snapshot import TOLERANCE, assert_matches

import gecmetrics
from gecmetrics import __version__
from gecmetrics.errors import ConfigError
from gecmetrics.interface.cli import main
from gecmetrics.meta_eval.analyses.compare import Comparison
from gecmetrics.meta_eval.analyses.window import WindowRow
from gecmetrics.meta_eval.options import MetaEvalOptions
from gecmetrics.meta_eval.render import render_evaluation
from gecmetrics.meta_eval.results import MetaEvaluation, MetaResult


def cli_json(data, *args: str) -> list[dict]:
    res = CliRunner().invoke(main, ["meta-eval", *args, "--data-dir", str(data),
                                    "--format", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def two(shared_data) -> tuple[MetaEvaluation, list[dict]]:
    """conll14 + seeda-s, two metrics, both levels: from Python and from the CLI."""
    result = gecmetrics.meta_evaluate(["conll14", "seeda-s"], ["green", "m2"],
                                      levels=["corpus", "mean"], data_dir=str(shared_data))
    rows = cli_json(shared_data, "conll14", "seeda-s", "-m", "green", "-m", "m2",
                    "--level", "corpus", "--level", "mean")
    return result, rows


@pytest.mark.full
def test_api_rows_equal_cli_json(two):
    result, rows = two
    assert isinstance(result, MetaEvaluation)
    assert all(isinstance(r, MetaResult) for r in result.correlations)
    assert result.to_json() == rows
    assert len(rows) == 2 * 2 * 2
    assert [s.benchmark.name for s in result.selections] == ["conll14", "seeda-s"]


@pytest.mark.full
def test_to_frame_columns_and_values(two):
    result, rows = two
    frame = result.to_frame()
    for column in ("benchmark", "human", "systems", "corpus", "metric", "spec", "beta",
                   "level", "analysis", "pearson", "spearman", "kendall", "signature"):
        assert column in frame.columns
    assert len(frame) == len(rows)
    assert set(frame["analysis"]) == {"correlation"}
    for (_, got), want in zip(frame.iterrows(), rows, strict=True):
        for key in ("benchmark", "spec", "beta", "level", "pearson", "spearman", "kendall"):
            assert got[key] == want[key], key


@pytest.mark.full
def test_frame_correlations_from_scipy(two, shared_data):
    """An independent route: the metric's corpus scores and the human EW through scipy."""
    result, _ = two
    frame = result.to_frame()
    sel = result.selections[0]
    green = gecmetrics.get_metric("green")
    stats_ = green.statistics(sel.benchmark.corpus)
    by_name = dict(zip(stats_.systems, stats_.corpus_scores(2.0), strict=True))
    scores = np.array([by_name[s] for s in sel.systems])
    row = frame[(frame.benchmark == "conll14") & (frame.spec == "green")
                & (frame.level == "corpus")].iloc[0]
    assert row["pearson"] == pytest.approx(stats.pearsonr(scores, sel.human)[0], abs=1e-12)
    assert row["spearman"] == pytest.approx(stats.spearmanr(scores, sel.human)[0], abs=1e-12)
    assert row["kendall"] == pytest.approx(stats.kendalltau(scores, sel.human)[0], abs=1e-12)


@pytest.mark.full
def test_minimal_call_and_metric_objects(shared_data):
    plain = gecmetrics.meta_evaluate(["conll14"], ["green"], data_dir=str(shared_data))
    assert [(r.spec, r.beta, r.level) for r in plain.correlations] == [("green", 2.0, "corpus")]
    from gecmetrics.meta_eval import evaluate

    obj = evaluate("conll14", gecmetrics.get_metric("green"), data_dir=str(shared_data))
    assert obj.to_json() == plain.to_json()


# Pinned from `gecmetrics meta-eval conll14 -m green -m chrf --bootstrap 100 --compare
# --cv-beta 3 --window 4 --seed 7 --format json` before the library refactoring: the
# JSON contract (keys, order, values) may only grow by new keys (`signature`). Values
# compare to 1e-12 (tests/snapshot.py): the last bits follow the numpy/scipy version.
PINNED = {
    None: {"benchmark": "conll14", "human": "ew", "systems": "all", "corpus": "conll14-test",
           "metric": "wordGREEN", "spec": "green", "beta": 2.0, "level": "corpus",
           "n_systems": 13, "pearson": 0.7405914512810596, "spearman": 0.6978021978021978,
           "kendall": 0.5641025641025641, "pearson_ci": [0.6693623010323679, 0.79476422382938],
           "spearman_ci": [0.5989010989010989, 0.7804945054945054],
           "kendall_ci": [0.46153846153846156, 0.6288461538461537], "bootstrap": 100,
           "seed": 7, "beta_star": 1.6933333333333334, "beta_star_folds": [1.79, 1.63, 1.66],
           "beta_star_std": 0.0694422221866656, "pearson_at_beta_star": 0.7893203130801142,
           "spearman_at_beta_star": 0.532967032967033,
           "kendall_at_beta_star": 0.46153846153846156, "cv_folds": 3, "cv_seed": 7,
           "cv_criterion": "pearson"},
    "compare": {"analysis": "compare", "benchmark": "conll14", "human": "ew", "systems": "all",
                "corpus": "conll14-test", "level": "corpus", "n_systems": 13,
                "metric_a": "wordGREEN", "spec_a": "green", "beta_a": 2.0, "metric_b": "chrF",
                "spec_b": "chrf", "beta_b": 2.0, "pearson_a": 0.7405914512810596,
                "pearson_b": -0.2645644427635844, "pearson_ab": -0.7556522705120475,
                "williams_t": 2.2949408637162496, "williams_p": 0.022318460815016455,
                "bootstrap_p": 0.0, "delta_ci": [0.939747092001041, 1.0653272503172788],
                "bootstrap": 100, "seed": 7, "one_sided": True},
    "window": {"analysis": "window", "benchmark": "conll14", "human": "ew", "systems": "all",
               "corpus": "conll14-test", "metric": "wordGREEN", "spec": "green", "beta": 2.0,
               "level": "corpus", "window": 4, "window_start": 1,
               "systems_in_window": ["AMU", "RAC", "CAMB", "CUUI"],
               "pearson": 0.11684334359561316, "spearman": 0.0},
}


@pytest.fixture(scope="module")
def analyses(shared_data) -> tuple[MetaEvaluation, list[dict], str]:
    """The analyses from Python and as the CLI's JSON; the table is the Python result's,
    rendered as the CLI renders it (a third run of the same work would add nothing)."""
    args = ["conll14", "-m", "green", "-m", "chrf", "--bootstrap", "100", "--compare",
            "--cv-beta", "3", "--window", "4", "--seed", "7"]
    result = gecmetrics.meta_evaluate(["conll14"], ["green", "chrf"], bootstrap=100,
                                      compare=True, cv_folds=3, window=4, seed=7,
                                      data_dir=str(shared_data))
    table, _ = render_evaluation(result, "table")
    return result, cli_json(shared_data, *args), table


@pytest.mark.full
def test_json_contract_pinned(analyses):
    _, rows, _ = analyses
    for kind, want in PINNED.items():
        got = next(r for r in rows if r.get("analysis") == kind)
        assert list(got)[:len(want)] == list(want)  # the old keys first, in their order
        assert_matches({k: got[k] for k in want}, want)
        assert set(got) - set(want) == {"signature"}


@pytest.mark.full
def test_render_is_the_cli_output(analyses):
    """result.render(fmt) (docs/own-metric.md) is report.render_evaluation, which the
    CLI prints."""
    result, _, _ = analyses
    for fmt in ("table", "json", "markdown", "latex", "csv"):
        assert result.render(fmt) == render_evaluation(result, fmt)


@pytest.mark.full
def test_analyses_are_typed_and_equal_cli(analyses):
    result, rows, _ = analyses
    assert result.to_json() == rows
    comparisons = result.analysis_rows("compare")
    assert all(isinstance(c, Comparison) for c in comparisons) and comparisons
    windows = result.analysis_rows("window")
    assert all(isinstance(w, WindowRow) for w in windows) and windows
    # the result's documented fields name the same rows
    assert (result.comparisons, result.windows) == (comparisons, windows)
    assert result.subsets == result.clusters == result.human_intervals == result.pools == ()
    first = result.correlations[0]
    assert first.intervals is not None and first.intervals.resamples == 100
    assert first.cv is not None and first.cv.folds == 3 and first.cv.beta_star == \
        pytest.approx(np.mean([1.79, 1.63, 1.66]))
    frame = result.to_frame()
    assert set(frame["analysis"]) == {"correlation", "compare", "window"}
    corr = frame[frame.analysis == "correlation"].iloc[0]
    assert (corr["pearson_ci_low"], corr["pearson_ci_high"]) == pytest.approx(
        tuple(PINNED[None]["pearson_ci"]), abs=TOLERANCE)
    compare = frame[frame.analysis == "compare"].iloc[0]
    assert compare["williams_p"] == pytest.approx(PINNED["compare"]["williams_p"], abs=TOLERANCE)
    assert compare["spec"] == "green" and compare["spec_b"] == "chrf"


@pytest.mark.full
def test_signature_in_every_row_and_under_tables(analyses):
    result, rows, table = analyses
    for row in rows:
        sig = row["signature"]
        assert isinstance(sig, str) and sig.endswith(f"|version:{__version__}")
        assert "|benchmark:conll14|" in sig and "|refs:2|refs_from:m2-lenient|" in sig
        if row.get("analysis") != "window":  # window correlations draw nothing at random
            assert "|resamples:100|seed:7|" in sig
    green = rows[0]["signature"]
    assert green == ("green|tokenize:word|n:4|beta:2.0|refs:2|refs_from:m2-lenient|"
                     "level:corpus|benchmark:conll14|systems:all|corpus:conll14-test|"
                     "human:ew|resamples:100|seed:7|cv_folds:3|cv_seed:7|cv_grid:0:5:0.01|"
                     f"version:{__version__}")
    window = next(r for r in rows if r.get("analysis") == "window")
    assert "|window:4|" in window["signature"]
    compare = next(r for r in rows if r.get("analysis") == "compare")
    assert compare["signature"].startswith("green|") and " vs chrf|" in compare["signature"]
    printed = [line.removeprefix("signature: ") for line in table.splitlines()
               if line.startswith("signature: ")]
    assert printed == list(dict.fromkeys(r["signature"] for r in rows))


def test_signature_sentence_level_and_sweep(shared_data):
    sent = gecmetrics.meta_evaluate("seeda-s", "green", sentence_level=True,
                                    data_dir=str(shared_data))
    assert sent.sentences and all("|level:sentence|" in r.signature and "|ties:seeda|"
                                  in r.signature and "|human:sent|" in r.signature
                                  for r in sent.sentences)
    assert sent.to_json()[0]["signature"] == sent.sentences[0].signature
    swept = gecmetrics.meta_evaluate("seeda-s", ["green", "gleu"], grid="1:2:0.5",
                                     data_dir=str(shared_data))
    rows = swept.to_json()
    assert len(rows) == 3 + 1 and all(r["signature"] for r in rows)
    assert len(swept.signatures()) == 2  # one per metric, not one per beta
    assert "|beta:1:2:0.5|" in rows[0]["signature"] and "|refs:" in rows[-1]["signature"]
    assert set(swept.to_frame()["analysis"]) == {"sweep"}


# (API keywords, the same options as CLI arguments): both refuse with one identical line.
INVALID = [
    ({"bootstrap": 5}, ["--bootstrap", "5"]),
    ({"window": 1}, ["--window", "1"]),
    ({"seed": 3}, ["--seed", "3"]),
    ({"compare": True}, ["--compare"]),
    ({"split": "dev"}, ["--split", "dev"]),
    ({"ties": "neutral"}, ["--ties", "neutral"]),
    ({"betas": [1.0], "grid": "0:1:0.5"}, ["-b", "1", "--sweep-beta", "0:1:0.5"]),
    ({"cv_grid": "0:1:0.1"}, ["--cv-grid", "0:1:0.1"]),
    ({"human": "rating"}, ["--human", "rating"]),
    ({"grid": "0:5:0"}, ["--sweep-beta", "0:5:0"]),
    ({"sentence_level": True, "bootstrap": 100}, ["--sentence-level", "--bootstrap", "100"]),
    ({"levels": ["mean"], "sentence_level": True}, ["--level", "mean", "--sentence-level"]),
    ({"plot": "figure.txt"}, ["--plot", "figure.txt"]),
]


@pytest.mark.parametrize(("options", "args"), INVALID)
def test_options_refused_from_python_as_from_cli(tmp_path, options, args):
    missing = str(tmp_path / "no-data")  # checked before any data is read
    with pytest.raises(ConfigError) as err:
        gecmetrics.meta_evaluate(["conll14"], ["green"], data_dir=missing, **options)
    res = CliRunner().invoke(main, ["meta-eval", "conll14", "-m", "green", *args,
                                    "--data-dir", missing])
    assert res.exit_code != 0
    stderr = res.stderr.strip().splitlines()
    assert stderr == [f"error: {err.value}"]
    assert "\n" not in str(err.value)


def test_options_checks_for_python_callers():
    for kwargs, words in [({"levels": ["sentence"]}, "--level must be one of corpus, mean"),
                          ({"benchmarks": ("conll15",)}, "benchmark must be one of"),
                          ({"window": "4"}, "--window takes a whole number"),
                          ({"metrics": (42,)}, "metrics takes spec strings or Metric objects"),
                          ({"metrics": ()}, "no metric given")]:
        base = {"benchmarks": ("conll14",), "metrics": ("green",)}
        with pytest.raises(ConfigError, match=words):
            MetaEvalOptions.from_keywords(**{**base, **kwargs})
    with pytest.raises(ConfigError, match="unknown meta-evaluation option 'bootstraps'"):
        MetaEvalOptions(benchmarks=("conll14",), metrics=("green",),
                        explicit=frozenset({"bootstraps"}))
    opts = MetaEvalOptions.from_keywords(benchmarks=("conll14", "conll14"), metrics=["green"],
                                         bootstrap=True, levels=["mean", "mean"], plot=None)
    assert opts.benchmarks == ("conll14",) and opts.levels == ("mean",)
    assert opts.settings["bootstrap"].bootstrap == 1000 and opts.seed_value == 12345
    assert opts.stat_resamples == opts.compare_resamples == 1000
    with pytest.raises(AttributeError):
        opts.seed = 3  # type: ignore[misc]  # frozen


def test_library_import_stays_light():
    code = ("import sys, gecmetrics; gecmetrics.meta_evaluate; "
            "import gecmetrics.meta_eval.options, gecmetrics.interface.cli; "
            "print(sorted(m for m in ('pandas', 'scipy', 'matplotlib') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True)
    assert proc.stdout.strip().endswith("[]"), proc.stdout + proc.stderr


@pytest.mark.full
def test_readme_dataframe_example(shared_data):
    """The README's three lines run as shown (data folder replaced) and give the frame."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = next(b.split("```", 1)[0] for b in readme.split("```python\n")[1:]
                 if "meta_evaluate" in b)
    assert len(block.strip().splitlines()) == 3
    scope: dict = {}
    exec(block.replace("~/gec-data", str(shared_data)), scope)  # noqa: S102
    frame = scope["frame"]
    rows = cli_json(shared_data, "conll14", "-m", "green", "-m", "m2", "--level", "corpus",
                    "--level", "mean")
    assert frame[["benchmark", "spec", "beta", "level", "pearson", "spearman", "kendall"]
                 ].to_dict("records") == [
        {k: r[k] for k in ("benchmark", "spec", "beta", "level", "pearson", "spearman",
                           "kendall")} for r in rows]
