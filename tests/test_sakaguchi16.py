"""Sakaguchi et al. (TACL 2016, keisks/reassess-gec): reference sets of conll14
(--references) and the expert / crowd TrueSkill rankings (--human sakaguchi16-*).

Independent routes: the reference files and the TrueSkill runs are read here
with plain file and json code; the published metric scores
(data/published/sakaguchi16-metric-scores.json, transcribed from the
repository's metric_scores file, which a test compares with the file) are what
our GLEU and M2 are held against, with the differences docs/benchmarks.md
explains.
"""

from __future__ import annotations

import json
import statistics
from importlib import resources

import pytest
from click.testing import CliRunner
from scipy.stats import spearmanr

from gecmetrics.errors import ConfigError
from gecmetrics.interface.cli import main
from gecmetrics.meta_eval.benchmarks import load_benchmark
from gecmetrics.meta_eval.options import MetaEvalOptions
from gecmetrics.registry import metric_from_spec

PUBLISHED = json.loads(resources.files("gecmetrics.data").joinpath(
    "published/sakaguchi16-metric-scores.json").read_text())
SETS = ("expert-fluency", "expert-minimal", "turker-fluency", "turker-minimal")
FILES = {
    "expert-fluency": "expert_annotations/expert_fluency/expert_fluency",
    "expert-minimal": "expert_annotations/expert_minimal/expert_minimal",
    "turker-fluency": "turker_annotations/turkers_fluency/turker_fluency",
    "turker-minimal": "turker_annotations/turkers_minimal/turker_minimal",
}


def test_options_accept_and_refuse_references():
    opts = MetaEvalOptions(benchmarks=("conll14",), metrics=("gleu",))
    assert opts.references == ("nucle",)
    opts = MetaEvalOptions(benchmarks=("conll14",), metrics=("gleu",),
                           references=["expert-fluency", "nucle", "expert-fluency"])
    assert opts.references == ("expert-fluency", "nucle")
    assert opts.benchmark_options("conll14") == {"references": ("expert-fluency", "nucle")}
    with pytest.raises(ConfigError, match="--references must be one of nucle, expert-fluency"):
        MetaEvalOptions(benchmarks=("conll14",), metrics=("gleu",), references=("bn15",))
    with pytest.raises(ConfigError, match="--references applies only to conll14, not to "
                                          "gmeg-fce"):
        MetaEvalOptions(benchmarks=("gmeg-fce",), metrics=("gleu",),
                        references=("expert-fluency",), explicit=frozenset({"references"}))


@pytest.mark.full
def test_reference_sets_are_the_files(shared_data):
    root = shared_data / "reassess-gec" / "annotations"
    default = load_benchmark("conll14", shared_data)
    assert default.corpus.m2 is not None and len(default.corpus.references) == 2
    assert default.corpus_label == "conll14-test"  # today's corpus, unchanged
    for name in SETS:
        bench = load_benchmark("conll14", shared_data, references=(name,))
        expected = [(root / f"{FILES[name]}{x}").read_text("utf-8").split("\n")[:1312]
                    for x in "AB"]
        assert [list(r) for r in bench.corpus.references] == expected, name
        assert bench.corpus.m2 is None  # text references only: no M2 gold edits
        assert bench.corpus_label == f"conll14-test+{name}"
    both = load_benchmark("conll14", shared_data, references=("nucle", "expert-minimal"))
    assert len(both.corpus.references) == 4
    assert [list(r) for r in both.corpus.references[:2]] == [
        list(r) for r in default.corpus.references]


def test_published_file_is_the_repository_file(shared_data):
    raw = {}
    for line in (shared_data / "reassess-gec" / "metric_scores").read_text().splitlines():
        metric, refs, system, value = line.split("\t")
        raw[(metric, refs, "INPUT" if system == "source" else system)] = float(value)
    for metric, by_refs in PUBLISHED["values"].items():
        for refs, scores in by_refs.items():
            assert len(scores) == 13
            for system, value in scores.items():
                assert raw[(metric, refs, system)] == value


def ours_and_published(shared_data, spec: str, label: str, refs: tuple[str, ...]):
    bench = load_benchmark("conll14", shared_data, references=refs)
    stats = metric_from_spec(spec).statistics(bench.corpus)
    beta = 0.5 if spec == "m2" else None
    ours = dict(zip(stats.systems, (float(x) for x in stats.corpus_scores(beta)), strict=True))
    published = {("INPUT" if k == "source" else k): v
                 for k, v in PUBLISHED["values"]["M2" if spec == "m2" else "GLEU"][label].items()}
    return ours, published


@pytest.mark.full
def test_m2_on_nucle_against_the_published_scores(shared_data):
    """Ours is the official scorer (CoNLL-2014 overview, tests/test_m2.py); the paper's
    file differs by up to 0.013 (RAC), AMU and CAMB within 0.0002 (docs/benchmarks.md)."""
    ours, published = ours_and_published(shared_data, "m2", "NUCLE", ("nucle",))
    diffs = {s: abs(ours[s] - published[s]) for s in published}
    assert diffs["AMU"] < 2e-4 and diffs["CAMB"] < 3e-4 and diffs["INPUT"] == 0
    assert max(diffs.values()) == pytest.approx(0.0128, abs=5e-4)  # RAC: 0.2668 / 0.2796
    systems = sorted(published)
    rho = spearmanr([ours[s] for s in systems], [published[s] for s in systems])[0]
    assert rho > 0.98


@pytest.mark.full
@pytest.mark.parametrize("label,refs,max_diff", [
    ("NUCLE", ("nucle",), 0.0109), ("E-fluency", ("expert-fluency",), 0.0096),
    ("E-minimal", ("expert-minimal",), 0.0176), ("NE-fluency", ("turker-fluency",), 0.0156),
    ("NE-minimal", ("turker-minimal",), 0.0099)])
def test_gleu_per_reference_set_against_the_published_scores(shared_data, label, refs,
                                                            max_diff):
    """Not reproduced (another GLEU version; docs/benchmarks.md): the largest
    difference is recorded, and the system orders agree closely."""
    ours, published = ours_and_published(shared_data, "gleu", label, refs)
    diffs = {s: abs(ours[s] - published[s]) for s in published}
    assert max(diffs.values()) == pytest.approx(max_diff, abs=5e-4)
    systems = sorted(published)
    rho = spearmanr([ours[s] for s in systems], [published[s] for s in systems])[0]
    assert rho > 0.8


@pytest.mark.parametrize("kind,prefix", [("sakaguchi16-expert", "AMU"),
                                         ("sakaguchi16-turker", "ctrl")])
def test_sakaguchi16_rankings_are_the_mean_of_the_runs(shared_data, kind, prefix):
    folder = shared_data / "reassess-gec" / "trueskill_rankings" / "result"
    runs = [json.loads((folder / f"{prefix}_{i}_mu_sigma.json").read_text())
            for i in range(100)]
    bench = load_benchmark("conll14", shared_data)
    scores = bench.human[kind]
    assert set(scores) == set(bench.systems("all"))
    for system in scores:
        assert scores[system] == pytest.approx(statistics.fmean(r[system][0] for r in runs),
                                               abs=1e-12)


def test_expert_ranking_is_the_gjg15_ranking(shared_data):
    """The expert runs (AMU_*) rank the judgments of Grundkiewicz et al. (2015):
    the mean over 100 runs orders the systems almost as GJG15's published TrueSkill."""
    bench = load_benchmark("conll14", shared_data)
    systems = bench.systems("all")
    rho = spearmanr(bench.human_scores("sakaguchi16-expert", systems),
                    bench.human_scores("ts", systems))[0]
    assert rho > 0.95


@pytest.mark.full
def test_cli_references_and_human_kinds(shared_data):
    res = CliRunner().invoke(main, [
        "meta-eval", "conll14", "-m", "gleu", "--references", "expert-fluency",
        "--references", "turker-fluency", "--human", "sakaguchi16-expert",
        "--data-dir", str(shared_data), "--format", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)
    assert row["human"] == "sakaguchi16-expert"
    assert row["corpus"] == "conll14-test+expert-fluency+turker-fluency"
    assert row["n_systems"] == 13
    res = CliRunner().invoke(main, [
        "meta-eval", "conll14", "-m", "m2", "--references", "expert-fluency",
        "--data-dir", str(shared_data)])
    assert res.exit_code == 2
    assert len(res.output.strip().splitlines()) == 1 and "error:" in res.output
