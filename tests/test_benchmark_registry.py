"""The benchmark registry: a benchmark declared in one place (its module + its data
description) is offered by the CLI and accepted by MetaEvalOptions, and every
applicability check follows the descriptions."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from gecmetrics.errors import ConfigError
from gecmetrics.interface.cli import main
from gecmetrics.meta_eval.benchmarks import load_benchmark, registry
from gecmetrics.meta_eval.options import MetaEvalOptions

FAKE_DESCRIPTION = {
    "name": "fake",
    "title": "a benchmark that exists only in this test",
    "meta_eval": {
        "benchmarks": {
            "fake-one": {"order": 99, "module": "fakebench.loader",
                         "system_sets": ["every", "fake-set"], "default_set": "every",
                         "set_aliases": {"+fake": "fake-set"},
                         "human": ["fake-kind"], "default_human": "fake-kind",
                         "options": ["split"]}}},
}

# Four sentences with one error each; system k corrects the first k of them, and
# the humans agree: human score k / 3. Any sensible metric orders them the same.
FAKE_LOADER = '''
from gecmetrics.corpus import Corpus
from gecmetrics.meta_eval.benchmarks.base import Benchmark

SOURCES = ["He go home .", "She like tea .", "They is here .", "It are red ."]
REFERENCE = ["He goes home .", "She likes tea .", "They are here .", "It is red ."]
CALLS = []


def load(root, name, split="test", **rest):
    CALLS.append((name, split, rest))
    systems = {f"sys{k}": REFERENCE[:k] + SOURCES[k:] for k in range(4)}
    corpus = Corpus(SOURCES, [REFERENCE], systems)
    return Benchmark(name=name, corpus=corpus,
                     human={"fake-kind": {f"sys{k}": k / 3 for k in range(4)}},
                     system_sets={"every": list(systems), "fake-set": ["sys1", "sys2", "sys3"]},
                     default_set="every", default_human="fake-kind",
                     setting=f"fake ({split})")
'''


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A plugin package holding the fake's description and loader, registered."""
    package = tmp_path / "fakebench"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "fake.json").write_text(json.dumps(FAKE_DESCRIPTION))
    (package / "loader.py").write_text(FAKE_LOADER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "PACKAGES", [*registry.PACKAGES, "fakebench"])
    registry.reset()
    yield sys.modules.get("fakebench.loader")
    registry.reset()
    for name in ("fakebench.loader", "fakebench"):
        sys.modules.pop(name, None)


def invoke(*args: str):
    return CliRunner().invoke(main, ["meta-eval", *args])


def test_unregistered_fake_is_refused():
    assert "fake-one" not in registry.benchmark_names()
    res = invoke("fake-one", "-m", "green")
    assert res.exit_code == 2 and "fake-one" in res.output


def test_fake_benchmark_shows_up_in_the_cli_choices(fake):
    assert registry.benchmark_names()[-1] == "fake-one"  # order 99: last
    assert registry.benchmark_names()[0] == "conll14"
    wrong = invoke("nope", "-m", "green")  # the BENCHMARK choice lists it
    assert wrong.exit_code == 2 and "'fake-one'" in wrong.output, wrong.output
    help_text = " ".join(invoke("--help").output.split())
    assert "fake-kind" in help_text  # --human
    assert "fake-set" in help_text and "+fake" in help_text  # --systems and its alias


def test_fake_benchmark_in_options_validation(fake):
    opts = MetaEvalOptions(benchmarks=("fake-one",), metrics=("green",), human="fake-kind",
                           split="dev", system_set="+fake", explicit=frozenset({"split"}))
    assert opts.benchmark_options("fake-one") == {"split": "dev"}
    assert opts.benchmark_options("seeda-s") == {"seeda_corpus": "subset"}
    notes: list[str] = []
    both = MetaEvalOptions(benchmarks=("fake-one", "gmeg-fce"), metrics=("green",),
                           split="dev", explicit=frozenset({"split"}))
    notes = list(both.notes)
    assert not any("--split" in n for n in notes)  # both take --split
    with pytest.raises(ConfigError, match="--seeda-corpus applies only to seeda-s and seeda-e, "
                                          "not to fake-one"):
        MetaEvalOptions(benchmarks=("fake-one",), metrics=("green",), seeda_corpus="all",
                        explicit=frozenset({"seeda_corpus"}))
    with pytest.raises(ConfigError, match="benchmark conll14 has no human scores 'fake-kind'"):
        MetaEvalOptions(benchmarks=("fake-one", "conll14"), metrics=("green",),
                        human="fake-kind")
    with pytest.raises(ConfigError, match="benchmark fake-one has no human scores 'ew'; "
                                          "choose one of: fake-kind"):
        MetaEvalOptions(benchmarks=("fake-one",), metrics=("green",), human="ew")
    with pytest.raises(ConfigError, match="benchmark fake-one has no system set 'base'"):
        MetaEvalOptions(benchmarks=("fake-one",), metrics=("green",), system_set="base")


def test_fake_benchmark_runs_end_to_end(fake, tmp_path):
    res = invoke("fake-one", "-m", "gleu", "--split", "dev", "--systems", "+fake",
                 "--data-dir", str(tmp_path), "--format", "json")
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)
    assert (row["benchmark"], row["human"], row["systems"], row["n_systems"]) == (
        "fake-one", "fake-kind", "fake-set", 3)
    assert row["spearman"] == pytest.approx(1.0)  # the systems are ordered as the humans
    loader = sys.modules["fakebench.loader"]
    assert loader.CALLS == [("fake-one", "dev", {})]  # only the options it takes
    res = invoke("fake-one", "-m", "gleu", "--seeda-corpus", "all", "--data-dir", str(tmp_path))
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "error: --seeda-corpus applies only to seeda-s and seeda-e, not to fake-one; "
        "drop --seeda-corpus"]


def test_declared_specs_match_the_loaded_benchmarks(shared_data):
    """What a description declares (system sets, human kinds, defaults) is what its
    loader builds, so the checks made before reading the data are the right ones."""
    for name in ("conll14", "seeda-s", "seeda-e", "gmeg-fce", "gmeg-wiki"):
        spec = registry.spec(name)
        bench = load_benchmark(name, shared_data)
        assert tuple(bench.system_sets) == spec.system_sets, name
        assert tuple(bench.human) == spec.human, name
        assert (bench.default_set, bench.default_human) == (spec.default_set,
                                                            spec.default_human), name


def test_conflicting_descriptions_are_refused(tmp_path, monkeypatch):
    package = tmp_path / "clash"
    package.mkdir()
    (package / "__init__.py").write_text("")
    clash = {"meta_eval": {"benchmarks": {"conll14": FAKE_DESCRIPTION["meta_eval"]
                                          ["benchmarks"]["fake-one"]}}}
    (package / "clash.json").write_text(json.dumps(clash))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "PACKAGES", [*registry.PACKAGES, "clash"])
    registry.reset()
    try:
        with pytest.raises(ConfigError, match="benchmark 'conll14' is declared twice"):
            registry.benchmark_names()
    finally:
        monkeypatch.undo()
        registry.reset()
        sys.modules.pop("clash", None)
