"""--attacks (meta_eval/analyses/attacks.py): the placement and correlations computed by
hand, the alignment of the attack lines to a subset corpus, the refusals, and the real
adversarial outputs of Goto et al. (2025) on CoNLL-2014 and SEEDA."""

from __future__ import annotations

import json
import math

import pytest

import gecmetrics
from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.meta_eval.analyses import ANALYSES
from gecmetrics.meta_eval.analyses.attacks import (
    AttacksSettings,
    attack_corpus,
    attack_lines,
    on_load,
    place,
)
from gecmetrics.meta_eval.benchmarks import load_benchmark
from gecmetrics.meta_eval.benchmarks.base import Benchmark, SourceSet, description
from gecmetrics.meta_eval.options import MetaEvalOptions
from gecmetrics.meta_eval.render import render_evaluation
from gecmetrics.meta_eval.selection import Selection
from gecmetrics.registry import metric_from_spec

ON = AttacksSettings(attacks=True)


def test_placement_by_hand():
    # real systems X, Y, Z: metric 0.9, 0.5, 0.1; humans 3, 2, 1 (X best); attack 0.6.
    p = place([0.9, 0.5, 0.1], [3.0, 2.0, 1.0], 0.6)
    assert (p.rank, p.beats, p.ties, p.beats_best) == (2, 2, 0, False)
    assert p.spearman == pytest.approx(1.0) and p.kendall == pytest.approx(1.0)
    # admitted as the humans' last: metric ranks (4 best) X4 Y2 Z1 A3, humans X4 Y3 Z2 A1
    # d = 0, -1, -1, 2 -> sum d^2 = 6 -> rho = 1 - 6 * 6 / (4 * 15) = 0.4
    assert p.spearman_admitted == pytest.approx(0.4)
    # pairs: XY XZ XA YZ concordant; YA, ZA discordant -> tau = (4 - 2) / 6
    assert p.kendall_admitted == pytest.approx(1 / 3)


def test_placement_ties_and_best():
    # the attack ties Y and is above the human-best Z (humans: Z 5, X 4, Y 1)
    p = place([0.2, 0.5, 0.4], [4.0, 1.0, 5.0], 0.5)
    assert (p.rank, p.beats, p.ties, p.beats_best) == (1, 2, 1, True)
    # ranked last by the metric: the rank correlations can only rise
    q = place([0.2, 0.5, 0.4], [4.0, 1.0, 5.0], 0.0)
    assert (q.rank, q.beats, q.beats_best) == (4, 0, False)
    assert q.spearman_admitted > q.spearman and q.kendall_admitted > q.kendall


def toy_bench(source_set: SourceSet | None) -> Benchmark:
    corpus = Corpus(["s0", "s2"], [["r0", "r2"]], {name: ["s0", "s2"] for name in "ABC"})
    return Benchmark("toy", corpus, {"ew": {"A": 3.0, "B": 2.0, "C": 1.0}},
                     {"all": ["A", "B", "C"]}, "all", source_set=source_set)


def test_attack_lines_follow_the_source_positions():
    bench = toy_bench(SourceSet("conll14-test", [0, 2]))
    fakes = attack_corpus(bench, {"Attack-X": ["x0", "x1", "x2"]})
    assert fakes.hypotheses["Attack-X"] == ("x0", "x2")
    assert fakes.sources == bench.corpus.sources and fakes.references == bench.corpus.references
    on_load(ON, Selection.make(bench))  # a CoNLL-2014 corpus: accepted
    with pytest.raises(ConfigError, match="--attacks needs a benchmark on the CoNLL-2014 test "
                                          "set .*; toy is not one"):
        on_load(ON, Selection.make(toy_bench(None)))


def fake_attack_folder(tmp_path, short: str | None = None):
    """The four attack files, 1,312 lines each (``short``: that one a line shorter)."""
    for name, rel in description("attacks")["systems"].items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        n = 1312 - (name == short)
        path.write_text("".join(f"{name} {i}\n" for i in range(n)))
    attack_lines.cache_clear()
    return tmp_path


def test_a_short_attack_file_is_refused_before_any_work(tmp_path):
    root = fake_attack_folder(tmp_path, short="Attack-IMPARA")
    with pytest.raises(InputError) as info:
        MetaEvalOptions.from_keywords(benchmarks=("conll14",), metrics=("green",),
                                      attacks=True, data_dir=str(root))
    message = str(info.value)
    assert "conll14-impara.txt: 1,311 lines" in message or "conll14-impara.txt: 1311 lines" \
        in message
    assert "the CoNLL-2014 test set has 1312 sentences" in message and "\n" not in message


def test_missing_attack_files_name_the_download(tmp_path):
    attack_lines.cache_clear()
    with pytest.raises(InputError, match="run `gecmetrics download attacks`"):
        MetaEvalOptions.from_keywords(benchmarks=("conll14",), metrics=("green",),
                                      attacks=True, data_dir=str(tmp_path))


def test_registered_once_and_its_refusals(tmp_path):
    root = str(fake_attack_folder(tmp_path))
    assert [a.name for a in ANALYSES].count("attacks") == 1
    common = {"benchmarks": ("conll14",), "metrics": ("green",), "attacks": True,
              "data_dir": root}
    with pytest.raises(ConfigError, match="--attacks works at the given betas"):
        MetaEvalOptions.from_keywords(**common, grid="1:2:0.5")
    with pytest.raises(ConfigError, match="--attacks is not available at --level ew"):
        MetaEvalOptions.from_keywords(**common, levels=("ew",))
    with pytest.raises(ConfigError, match="--attacks ranks systems; it cannot be combined "
                                          "with --sentence-level"):
        MetaEvalOptions.from_keywords(**common, sentence_level=True)
    (tmp_path / "toy.json").write_text('{"AMU": 0.5}')
    with pytest.raises(ConfigError, match="which toy \\(scores from --scores\\) cannot"):
        MetaEvalOptions.from_keywords(**{**common, "metrics": ()},
                                      scores=(f"toy={tmp_path / 'toy.json'}",))


def test_cli_one_line_error(tmp_path):
    from click.testing import CliRunner

    from gecmetrics.interface.cli import main

    root = fake_attack_folder(tmp_path, short="Attack-SOME")
    out = CliRunner().invoke(main, ["meta-eval", "conll14", "-m", "green", "--attacks",
                                    "--data-dir", str(root)])
    assert out.exit_code == 2
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "conll14-some.txt" in lines[0]


# -- the real data -------------------------------------------------------------------------


@pytest.mark.full
@pytest.mark.real_data
def test_seeda_subset_takes_the_attack_line_of_each_judged_sentence(shared_data):
    """The subset's positions equal attack-gec-metrics' own mapping (BenchmarkSEEDA.subsetalize:
    ``all_srcs.index(subset_src)`` on SEEDA's outputs/all and outputs/subset INPUT files)."""
    attack_lines.cache_clear()
    lines = attack_lines(shared_data.resolve())
    bench = load_benchmark("seeda-s", shared_data, seeda_corpus="subset")
    subset = (shared_data / "SEEDA/outputs/subset/INPUT.txt").read_text().rstrip().split("\n")
    full = (shared_data / "SEEDA/outputs/all/INPUT.txt").read_text().rstrip().split("\n")
    assert bench.source_set is not None
    assert list(bench.source_set.positions) == [full.index(s) for s in subset]
    fakes = attack_corpus(bench, lines)
    some = fakes.hypotheses["Attack-SOME"]
    assert len(some) == len(subset) and some[5] == lines["Attack-SOME"][full.index(subset[5])]
    conll = load_benchmark("conll14", shared_data)
    assert conll.source_set is not None and list(conll.source_set.positions) == list(range(1312))
    # SEEDA's outputs/all INPUT is the CoNLL-2014 source: the full numbering is the same
    assert full == list(conll.corpus.sources)


@pytest.mark.full
@pytest.mark.real_data
def test_real_attacks_rank_low_under_reference_based_metrics(shared_data):
    attack_lines.cache_clear()
    result = gecmetrics.meta_evaluate(["conll14", "seeda-s"], ["green"], attacks=True,
                                      data_dir=str(shared_data))
    rows = result.analysis_rows("attacks")
    assert len(rows) == 2 * 4  # two benchmarks, four attacks
    assert [r.attack for r in rows[:4]] == ["Attack-SOME", "Attack-Scribendi", "Attack-IMPARA",
                                            "Attack-LLM"]
    by_bench = {r.benchmark: r for r in rows}
    assert by_bench["conll14"].n_systems == 13 and by_bench["seeda-s"].n_systems == 12
    # each attack scored by an independent route: in one corpus with a real system
    green = metric_from_spec("green")
    lines = attack_lines(shared_data.resolve())
    conll = load_benchmark("conll14", shared_data).corpus
    for r in rows[:4]:
        together = Corpus(conll.sources, conll.references,
                          {"AMU": conll.hypotheses["AMU"], r.attack: lines[r.attack]})
        stats = green.statistics(together)
        assert r.score == pytest.approx(float(stats.corpus_scores(2.0)[1]), abs=1e-12)
        assert r.rank == 14 and r.beats == 0  # GREEN ranks every attack last
        assert r.spearman == pytest.approx(result.correlations[0].spearman)
    assert all(r.spearman_admitted >= r.spearman for r in rows)
    objects = [o for o in result.to_json() if o.get("analysis") == "attacks"]
    assert list(objects[0])[:10] == ["analysis", "benchmark", "human", "systems", "corpus",
                                     "metric", "spec", "beta", "level", "attack"]
    assert not any(isinstance(v, float) and math.isnan(v) for o in objects for v in o.values())
    for fmt in ("table", "markdown", "latex", "csv"):
        assert "Attack-Scribendi" in render_evaluation(result, fmt)[0]
    assert json.loads(render_evaluation(result, "json")[0])[-1]["attack"] == "Attack-LLM"
    assert (result.to_frame()["analysis"] == "attacks").sum() == len(rows)


@pytest.mark.full
@pytest.mark.errant
def test_a_metric_weighing_by_the_systems_scores_each_attack_in_the_pool(tmp_path):
    """GoToScorer's weights come from the systems scored together (its extra_signature
    says so): each attack is scored with the benchmark's systems; GREEN alone."""
    from gecmetrics.meta_eval.analyses.attacks import run as run_attacks
    from gecmetrics.meta_eval.analysis import Context

    root = fake_attack_folder(tmp_path)
    sources = ["He go to school .", "She like apples ."]
    refs = [["He goes to school .", "She likes apples ."]]
    hyps = {"A": ["He goes to school .", "She likes apples ."],
            "B": ["He goes to school .", "She like apples ."],
            "C": sources}
    corpus = Corpus(sources, refs, hyps)
    bench = Benchmark("toy", corpus, {"ew": {"A": 3.0, "B": 2.0, "C": 1.0}},
                      {"all": ["A", "B", "C"]}, "all", source_set=SourceSet("conll14-test", [0, 5]))
    specs = ("gotoscorer:references=text", "green")
    options = MetaEvalOptions.from_keywords(benchmarks=("conll14",), metrics=specs,
                                            attacks=True, data_dir=str(root))
    context = Context(options, (Selection.make(bench),), options.metric_objects)
    rows = run_attacks(context, ON)
    lines = attack_lines(root.resolve())
    assert len(rows) == 2 * 4
    for r in rows:
        metric = metric_from_spec(r.spec)
        attack = [lines[r.attack][0], lines[r.attack][5]]
        alone = Corpus(sources, refs, {r.attack: attack})
        pooled = Corpus(sources, refs, {**hyps, r.attack: attack})
        beta = r.beta
        want_alone = float(metric.statistics(alone).corpus_scores(beta)[0])
        together = metric.statistics(pooled).corpus_scores(beta)
        assert r.score == pytest.approx(float(together[3]), abs=1e-12)
        if r.spec == "green":
            assert r.score == pytest.approx(want_alone, abs=1e-12)
        real = [float(v) for v in together[:3]]
        assert r.rank == 1 + sum(v > r.score for v in real)
