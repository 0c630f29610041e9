"""The meta-evaluation as typed data: a toy analysis and a toy benchmark, each one module
plus one registry line, run end to end; a run saved to JSON and run again."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass

import click
import pytest
from click.testing import CliRunner

import gecmetrics
from gecmetrics.errors import ConfigError
from gecmetrics.meta_eval import analyses
from gecmetrics.meta_eval.analysis import Analysis
from gecmetrics.meta_eval.benchmarks import registry
from gecmetrics.meta_eval.options import MetaEvalOptions
from gecmetrics.meta_eval.saved_run import MetaEvalRun


@pytest.fixture
def toy_registries(monkeypatch):
    """The toy analysis added to the analyses' registry (as one line in
    meta_eval/analyses/__init__.py would) and the toy benchmark's description to the
    benchmarks' (as data/toybench.json would)."""
    from toy_meta.toy_analysis import TOY

    import gecmetrics.interface.cli
    import gecmetrics.interface.html_report
    import gecmetrics.meta_eval.api  # noqa: F401  (the entry points load every reader)

    original = analyses.ANALYSES
    extended = (*original, TOY)
    for module in list(sys.modules.values()):  # every module that reads the registry
        if getattr(module, "ANALYSES", None) is original:
            monkeypatch.setattr(module, "ANALYSES", extended)
    monkeypatch.setattr(registry, "PACKAGES", [*registry.PACKAGES, "toy_meta"])
    registry.reset()
    yield TOY
    registry.reset()


def test_toy_analysis_and_benchmark_end_to_end(toy_registries, tmp_path):
    result = gecmetrics.meta_evaluate("toybench", ["gleu"], toy=True, seed=7,
                                      data_dir=str(tmp_path))
    (row,) = result.correlations
    assert row.benchmark == "toybench" and row.n_systems == 4
    assert row.pearson == pytest.approx(1.0, abs=0.2)
    obj = row.to_json()
    assert list(obj)[-2:] == ["lucky", "signature"]  # the column, before the signature
    assert result.analysis_rows("toy") == ()  # a column analysis: no rows of its own
    assert f"gleu {obj['lucky']:.3f}" in result.render("table")[0]
    assert json.loads(result.render("json")[0])[0]["lucky"] == obj["lucky"]
    assert result.to_frame()["lucky"].tolist() == [obj["lucky"]]
    with pytest.raises(ConfigError, match="--toy"):  # its randomness is declared
        gecmetrics.meta_evaluate("toybench", ["gleu"], seed=7, data_dir=str(tmp_path))


def test_metric_of_another_language_is_noted_and_marked(toy_registries, tmp_path):
    """A metric made for another language than the benchmark's (English ERRANT on
    sv-gec; here Chinese characters on the English toy) is scored, with one note and
    metric_lang in its rows' signatures; a language-neutral metric gets neither."""
    result = gecmetrics.meta_evaluate("toybench", ["green:tokenize=zh-char", "green"],
                                      data_dir=str(tmp_path))
    marked, plain = result.correlations
    assert "|metric_lang:zh|" in marked.signature and "metric_lang" not in plain.signature
    notes = [n for n in result.notes if "uses tools made for" in n]
    assert len(notes) == 1 and notes[0].startswith("note: ") and "\n" not in notes[0]
    assert "(green:tokenize=zh-char) uses tools made for 'zh' but toybench is in 'en'" \
        in notes[0]


def test_constant_scores_have_a_note(toy_registries, tmp_path):
    """The README: an undefined value is null (with a note on stderr): constant --scores
    gave null / - and no note."""
    from click.testing import CliRunner

    from gecmetrics.interface.cli import main

    scores = tmp_path / "const.tsv"
    scores.write_text("system\tscore\n" + "".join(f"s{k}\t0.5\n" for k in range(4)),
                      encoding="utf-8")
    for fmt in ("table", "json"):
        out = CliRunner().invoke(main, ["meta-eval", "toybench", "--scores",
                                        f"mine={scores}", "--data-dir", str(tmp_path),
                                        "--format", fmt])
        assert out.exit_code == 0, out.output
        assert ("note: mine (scores:mine) on toybench, level corpus: no correlation (every "
                "system has the same score), written as null in JSON and - in tables") \
            in out.output
    varied = gecmetrics.meta_evaluate("toybench", ["green"], data_dir=str(tmp_path))
    assert not [n for n in varied.notes if "no correlation" in n]


def test_meta_signature_keeps_the_metrics_seed(toy_registries, tmp_path):
    """GLEU's seed:official and the bootstrap's seed: the row signature overwrote the
    first with the second; now both, under two keys."""
    result = gecmetrics.meta_evaluate("toybench", ["gleu"], bootstrap=100, seed=7,
                                      data_dir=str(tmp_path))
    sig = result.correlations[0].signature
    assert "|seed:official|" in sig and "|meta_seed:7|" in sig
    keys = [f.split(":", 1)[0] for f in sig.split("|")[1:]]
    assert len(keys) == len(set(keys))


def test_a_row_without_signature_fails_at_registration():
    @dataclass(frozen=True)
    class BestRow:
        spec: str

        def to_json(self) -> dict[str, str]:
            return {"spec": self.spec}

    @dataclass(frozen=True)
    class BestSettings:
        best: bool = False

    with pytest.raises(ConfigError, match="'best'.*signature"):
        Analysis("best", BestSettings, lambda s: s.best, lambda c, s: [],  # type: ignore[misc]
                 row=BestRow)  # type: ignore[arg-type]


def test_run_round_trips_through_json(toy_registries, tmp_path):
    options = gecmetrics.meta_eval.options.MetaEvalOptions.from_keywords(
        benchmarks=("toybench",), metrics=("gleu", "green"), toy=True, seed=3,
        levels=("corpus", "mean"), data_dir=str(tmp_path),
        explicit=frozenset({"toy", "seed", "levels", "data_dir"}))
    saved = MetaEvalRun.of(options, "json")
    again = MetaEvalRun.from_json(json.loads(json.dumps(saved.to_json())))
    assert again == saved
    assert again.meta_eval_options() == options
    assert again.execute().to_json() == saved.execute().to_json()


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_save_run_then_run_gives_the_same_output(tmp_path):
    from meta_data import shared_data

    from gecmetrics.interface.cli import main

    path = tmp_path / "run.json"
    args = ["meta-eval", "seeda-s", "-m", "green", "-m", "gleu", "--bootstrap", "100",
            "--seed", "5", "--window", "--data-dir", str(shared_data())]
    first = CliRunner().invoke(main, [*args, "--save-run", str(path)])
    assert first.exit_code == 0, first.output
    assert json.loads(path.read_text())["analyses"]["window"] == {"window": 4}
    second = CliRunner().invoke(main, ["meta-eval", "--run", str(path)])
    assert second.exit_code == 0, second.output
    assert second.output == first.output
    alone = CliRunner().invoke(main, ["meta-eval", "--run", str(path), "-m", "m2"])
    assert alone.exit_code == 2 and "give it alone" in alone.output


@pytest.mark.parametrize("obj, message", [
    ({"benchmarks": []}, "not a saved meta-evaluation run"),
    ({"meta_eval_run": 1, "benchmarks": ["seeda-s"]}, "missing or malformed"),
])
def test_bad_run_files_are_one_line(obj, message):
    with pytest.raises(ConfigError, match=message):
        MetaEvalRun.from_json(obj)


def test_a_run_with_metric_objects_cannot_be_saved():
    from gecmetrics.registry import metric_from_spec

    options = gecmetrics.meta_eval.options.MetaEvalOptions(
        benchmarks=("seeda-s",), metrics=(metric_from_spec("gleu"),))
    with pytest.raises(ConfigError, match="spec string"):
        MetaEvalRun.of(options)


def test_a_benchmarks_own_option_needs_no_field(toy_registries, tmp_path):
    """toybench declares --toy-systems in its description only: the Python API, the
    applicability check, the saved run and the CLI's flag all come from there."""
    from gecmetrics.interface.commands.meta_eval import with_options

    result = gecmetrics.meta_evaluate("toybench", ["gleu"], toy=True, seed=7,
                                      data_dir=str(tmp_path),
                                      benchmark_settings={"toy_systems": "3"})
    assert result.correlations[0].n_systems == 3
    default = gecmetrics.meta_evaluate("toybench", ["gleu"], toy=True, seed=7,
                                       data_dir=str(tmp_path))
    assert default.correlations[0].n_systems == 4
    with pytest.raises(ConfigError, match=r"^--toy-systems applies only to toybench, not to "
                                          r"conll14; drop --toy-systems"):
        MetaEvalOptions(benchmarks=("conll14",), metrics=("gleu",),
                        benchmark_settings={"toy_systems": "3"})
    with pytest.raises(ConfigError, match="benchmark_settings: 'split' is not"):
        MetaEvalOptions(benchmarks=("toybench",), metrics=("gleu",),
                        benchmark_settings={"split": "dev"})
    options = MetaEvalOptions.from_keywords(benchmarks=("toybench",), metrics=("gleu",),
                                            toy=True, seed=7, toy_systems="3",
                                            data_dir=str(tmp_path))
    assert options.benchmark_options("toybench") == {"toy_systems": "3"}
    again = MetaEvalRun.from_json(MetaEvalRun.of(options).to_json()).meta_eval_options()
    assert again.benchmark_options("toybench") == {"toy_systems": "3"}
    command = with_options(click.command()(lambda **kw: None))
    flag = next(p for p in command.params if p.name == "toy_systems")
    assert flag.opts == ["--toy-systems"] and "how many of its systems" in flag.help
