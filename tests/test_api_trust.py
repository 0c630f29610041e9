"""The Python API checks its arguments as the CLI does (issue 22, "Trust at the edges").

* n-gram orders and GLEU's rounds have a documented maximum, checked when the
  metric's options are parsed (before any file is read);
* every metric's statistics refuse a beta that is NaN, infinite, negative, above
  MAX_BETA or a bool, and ``sentences=`` that are floats, bools, negative, out of
  range or empty, with the CLI's words; ``Metric.evaluate`` and ``ScoreOptions``
  refuse a lone beta given for a list;
* a Corpus refuses a line that is not a string, naming the field and the line;
* meta-evaluation's on/off options must be booleans;
* a model folder that is not a model says which files it lacks, in full;
* a beta sweep or cross-validated beta* whose optimum is on the grid's edge says so.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import require_extra

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, GecMetricsError, InputError
from gecmetrics.m2_format import read_m2
from gecmetrics.metric import _CHECKED_METHODS, Statistics
from gecmetrics.ngrams import MAX_NGRAM_ORDER
from gecmetrics.registry import get_metric, list_metrics, metric_class
from gecmetrics.validate import MAX_BETA

ROOT = Path(__file__).resolve().parent.parent

M2_TEXT = """S the cat sat on mat .
A 4 4|||M:DET|||the|||REQUIRED|||-NONE-|||0
A 1 2|||R:NOUN|||dog|||REQUIRED|||-NONE-|||0

S he go to school yesterday .
A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||0
A 5 6|||R:OTHER|||today|||REQUIRED|||-NONE-|||1

S it is fine .

"""
HYPS = {
    "good": ["the cat sat on the mat .", "he went to school yesterday .", "it is fine ."],
    "noisy": ["a cat sat in the mat !", "he went to the school today .", "it is fine ."],
}
N_SENTENCES = 3


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("m2") / "gold.m2"
    path.write_text(M2_TEXT, encoding="utf-8")
    m2 = read_m2(path)
    return Corpus(m2.sources, m2.references(), HYPS, m2=m2)


# -- row: n-gram orders and counts have a maximum ------------------------------------

ORDER_OPTIONS = [("green", "n", 1), ("gleu", "n", 1), ("bleu", "max_ngram_order", 1),
                 ("chrf", "char_order", 1), ("chrf", "word_order", 0)]


@pytest.mark.parametrize("metric,option,low", ORDER_OPTIONS)
def test_ngram_orders_are_bounded(metric, option, low):
    get_metric(metric, **{option: MAX_NGRAM_ORDER})  # the maximum itself is valid
    for bad in (MAX_NGRAM_ORDER + 1, 100_000_000, low - 1, 4.0, True):
        with pytest.raises(ConfigError) as err:
            get_metric(metric, **{option: bad})
        message = str(err.value)
        assert f"{metric} option {option} must be an integer >= {low} and <= " \
               f"{MAX_NGRAM_ORDER} (got {bad!r})" in message
        assert "\n" not in message


@pytest.mark.parametrize("metric,options,message", [
    ("some", {"weight_g": float("nan")}, "some option weight_g=nan must be a finite number"),
    ("some", {"weight_m": float("inf")}, "some option weight_m=inf must be a finite number"),
    ("llm-judge", {"model": "m", "timeout": float("inf")},
     "llm-judge option timeout must be a finite number >= 0.001 (got inf)"),
    ("llm-judge", {"model": "m", "backoff": float("inf")},
     "llm-judge option backoff must be a finite number >= 0.0 (got inf)"),
    ("llm-judge", {"model": "m", "temperature": float("nan")},
     "llm-judge option temperature must be a finite number >= 0.0 (got nan)"),
])
def test_float_options_must_be_finite(metric, options, message):
    """A NaN weight made every SOME score NaN; an infinite timeout never ends."""
    with pytest.raises(ConfigError) as err:
        get_metric(metric, **options)
    assert str(err.value) == message


def test_gleu_iterations_are_bounded():
    from gecmetrics.metrics.gleu import MAX_ITERATIONS

    get_metric("gleu", iterations=MAX_ITERATIONS)
    for bad in (MAX_ITERATIONS + 1, 0, 5.0, True):
        with pytest.raises(ConfigError, match=r"gleu option iterations must be an integer "
                                              rf">= 1 and <= {MAX_ITERATIONS}"):
            get_metric("gleu", iterations=bad)


@pytest.mark.parametrize("spec", ["green:n=100000000", "chrf:char_order=100000000",
                                  "gleu:iterations=100000000", "bleu:max_ngram_order=101"])
@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_cli_refuses_huge_orders_before_reading_any_file(tmp_path, spec):
    """The files do not exist: the option is what is refused, at once, in one line."""
    missing = str(tmp_path / "nothing.txt")
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "gecmetrics.interface.cli", "score", "-m", spec, "-s", missing,
         "-r", missing, "-c", missing],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2, proc.stderr
    assert time.monotonic() - start < 30
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "<=" in lines[0]
    assert spec.split(":")[1].split("=")[0] in lines[0] and "Traceback" not in proc.stderr


# -- row: beta and sentences= checked in every metric's statistics ----------------------

#: Metrics whose statistics need a model or an endpoint: their Statistics class, filled
#: with fixed numbers through the metric's own cache path (as its statistics() does).
def _model_statistics(name: str, corpus: Corpus) -> Statistics:
    systems = tuple(corpus.hypotheses)
    H, D = len(systems), corpus.num_sentences
    rng = np.random.default_rng(0)
    if name == "llm-judge":
        from gecmetrics.metrics.llm_judge import LlmJudgeStatistics

        make = lambda: LlmJudgeStatistics(systems, rng.integers(1, 6, (H, D)))  # noqa: E731
    elif name in ("ptm2", "pterrant"):
        from gecmetrics.metrics.ptm2 import WeightedCounts, WeightedEditStatistics

        weights = rng.random((H, D, 2, 3)) + 0.1
        make = lambda: WeightedEditStatistics(WeightedCounts(  # noqa: E731
            systems, weights, weights, np.ones((D, 2), dtype=bool), (0, 1)))
    else:
        from gecmetrics.neural.statistics import SentenceScores

        make = lambda: SentenceScores(systems, rng.random((H, D)))  # noqa: E731
    metric = get_metric(name, model="m") if name == "llm-judge" else get_metric(name)
    return metric.cached_statistics(corpus, make)


#: The metrics stubbed above (each needs its own fake statistics); every other
#: registered metric computes its own, so a new metric needs no line here.
MODEL_METRICS = ("some", "impara", "scribendi", "llm-judge", "ptm2", "pterrant")


def _statistics(name: str, corpus: Corpus) -> Statistics:
    if name in MODEL_METRICS:
        return _model_statistics(name, corpus)
    if "errant" in metric_class(name).extras:
        require_extra("errant")
    return get_metric(name).statistics(corpus)


BAD_BETAS = [(float("nan"), "finite number >= 0"), (float("inf"), "finite number >= 0"),
             (-1, "finite number >= 0"), (1e200, f"at most {MAX_BETA:g}"),
             (True, "a number (got True)"), ("two", "a number (got 'two')")]
BAD_SENTENCES = [(np.array([0.0, 1.0]), "whole-number sentence indices"),
                 ([0.5], "whole-number sentence indices"),
                 (np.array([True, False, True]), "got bools"),
                 ([True], "got bools"),
                 ([-1], "index -1 is out of range"),
                 ([0, N_SENTENCES], f"index {N_SENTENCES} is out of range"),
                 ([], "selects no sentence"),
                 ([[0, 1]], "1-D"), (2, "1-D")]


def test_every_registered_metric_is_covered():
    """The tests below run over the registry (:func:`list_metrics`); the stubs must
    name registered metrics, so that none is stubbed under a stale name."""
    assert set(MODEL_METRICS) <= set(list_metrics())


def _subclasses(cls: type) -> list[type]:
    return [c for sub in cls.__subclasses__() for c in (sub, *_subclasses(sub))]


def test_every_statistics_class_checks_its_arguments():
    """Structural: each public method of each metric's Statistics class is the checked
    one (wrapped when the class is made), whatever the metric."""
    for name in list_metrics():
        metric_class(name)
    classes = _subclasses(Statistics)
    assert len(classes) >= 10
    for cls in classes:
        for method in _CHECKED_METHODS:
            assert getattr(getattr(cls, method), "_checks_arguments", False), (cls, method)


def _tier(name: str) -> list[pytest.MarkDecorator]:
    """A metric that needs an extra runs in the full tier (spaCy or torch cost a second or
    more to load) and skips, naming the extra, where that extra is not installed."""
    extras = metric_class(name).extras
    return [pytest.mark.full, *(pytest.mark.extra(extra) for extra in extras)] if extras else []


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=_tier(name)) for name in sorted(list_metrics())])
def test_statistics_refuse_bad_betas(name, corpus):
    stats = _statistics(name, corpus)
    good = stats.corpus_scores(None)
    assert np.all(np.isfinite(good)) and stats.num_sentences == N_SENTENCES
    for beta, words in BAD_BETAS:
        for call in (lambda b: stats.corpus_scores(b), lambda b: stats.corpus(b),
                     lambda b: stats.mean(b), lambda b: stats.sentence(b),
                     lambda b: stats.corpus_many([1.0, b])):
            with pytest.raises(ConfigError, match="beta must be .*" + re.escape(words)):
                call(beta)
    # Valid input is unchanged: the same numbers as before the checks.
    np.testing.assert_array_equal(stats.corpus_scores(None), good)


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=_tier(name)) for name in sorted(list_metrics())])
def test_statistics_refuse_bad_sentence_indices(name, corpus):
    stats = _statistics(name, corpus)
    idx = np.array([0, 2, 2])
    expected = stats.corpus_scores(None, idx)
    np.testing.assert_array_equal(stats.corpus_scores(None, [0, 2, 2]), expected)
    for sentences, words in BAD_SENTENCES:
        for call in (lambda s: stats.corpus_scores(None, s),
                     lambda s: stats.corpus(None, sentences=s), lambda s: stats.mean(None, s)):
            with pytest.raises(ConfigError, match=re.escape(words)):
                call(sentences)


@pytest.mark.parametrize("name", [name for name in sorted(list_metrics())
                                  if not metric_class(name).extras and name not in MODEL_METRICS])
def test_evaluate_checks_betas_for_every_metric(name, corpus):
    """With a beta or without one: a NaN beta is a mistake (the CLI's -b refuses it too)."""
    metric = get_metric(name)
    with pytest.raises(ConfigError, match=r"beta must be a finite number >= 0 \(got nan\)"):
        metric.evaluate(corpus, betas=[float("nan")])
    with pytest.raises(ConfigError, match=r"betas= takes a list of numbers"):
        metric.evaluate(corpus, betas=2.0)


def test_same_words_as_the_cli(tmp_path):
    """The API's beta message is the CLI's, but for the option's name (given the same
    value: the CLI hands on the text it read)."""
    src = tmp_path / "s"
    src.write_text("a b\n")
    proc = subprocess.run(
        [sys.executable, "-m", "gecmetrics.interface.cli", "score", "-b", "nan", "-s", str(src),
         "-r", str(src), "-c", str(src)], capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    cli = proc.stderr.strip().removeprefix("error: ")
    with pytest.raises(ConfigError) as err:
        get_metric("green").statistics(Corpus(["a b"], [["a b"]], {"h": ["a b"]})
                                       ).corpus_scores("nan")
    assert cli == str(err.value).replace("beta", "-b/--beta", 1)


def test_score_options_and_paired_options_refuse_what_the_cli_cannot_give(tmp_path):
    from gecmetrics.paired import PairedOptions
    from gecmetrics.scoring import ScoreOptions

    path = tmp_path / "s"
    path.write_text("a b\n")
    files = dict(references=[str(path)], hypotheses=[str(path), str(path)])
    with pytest.raises(ConfigError, match=r"betas= takes a list of numbers"):
        ScoreOptions(str(path), **files, betas=2.0)
    with pytest.raises(ConfigError, match=r"--seed takes an integer seed .*\(got 1\.5\)"):
        ScoreOptions(str(path), **files, paired=PairedOptions("bs", 1000, seed=1.5))
    with pytest.raises(ConfigError, match=r"--paired-bootstrap takes .*\(got 1000\.0\)"):
        ScoreOptions(str(path), **files, paired=PairedOptions("bs", 1000.0))


# -- row: Corpus lines must be strings ------------------------------------------------------

@pytest.mark.parametrize("sources,references,hypotheses,message", [
    ([1], [["a"]], {"s": ["a"]}, "the source, line 1: expected a string (one sentence), got int"),
    (["a", None], [["a", "b"]], {"s": ["a", "b"]}, "the source, line 2: expected a string"),
    (["a", "b"], [["a", 3]], {"s": ["a", "b"]}, "reference 0, line 2: expected a string"),
    (["a"], [["a"]], {"sys": [b"a"]}, "hypothesis sys, line 1: expected a string (one "
                                      "sentence), got bytes"),
    ("a b", [["a b"]], {"s": ["a b"]}, "sources must be a list of lines"),
    (["a b"], ["a b"], {"s": ["a b"]}, "reference 0 must be a list of lines"),
    (["a"], [["a"]], {"s": "a"}, "hypothesis s must be a list of lines"),
    (["a"], [["a"]], ["a"], "hypotheses must be a mapping"),
    ([], [[]], {"s": []}, "the corpus has no sentence"),
])
def test_corpus_lines_are_strings(sources, references, hypotheses, message):
    with pytest.raises(InputError) as err:
        Corpus(sources, references, hypotheses)
    assert message in str(err.value) and "\n" not in str(err.value)
    assert isinstance(err.value, GecMetricsError)


def test_corpus_build_reports_the_line_too():
    with pytest.raises(InputError, match="hypothesis sys0, line 2: expected a string"):
        get_metric("green").score(["a", "b"], ["a", "b"], ["a", None])


# -- meta-evaluation: on/off options ------------------------------------------------------

@pytest.mark.parametrize("option", ["pairwise", "spa", "rank_pairs", "sentence_level",
                                    "human_intervals", "pool", "tie_calibration"])
def test_meta_switches_must_be_booleans(option):
    from gecmetrics.meta_eval.options import MetaEvalOptions

    for bad in (float("nan"), "no", 1):
        with pytest.raises(ConfigError, match=rf"is on or off: give {option}=True or False"):
            MetaEvalOptions.from_keywords(benchmarks=("conll14",), metrics=("green",),
                                          explicit=frozenset({option}), **{option: bad})


@pytest.mark.parametrize("option,value,message", [
    ("betas", 2.0, "betas= takes a list of numbers, e.g. betas=[0.5, 2.0] (got 2.0)"),
    ("levels", 5, 'levels= takes a list (or one name as a string), e.g. levels=["corpus", '
                  '"mean"] (got 5)'),
    ("benchmarks", 5, "benchmarks= takes a list"),
])
def test_meta_lists_refuse_a_lone_value(option, value, message):
    from gecmetrics.meta_eval.options import MetaEvalOptions

    given = {"benchmarks": ("conll14",), "metrics": ("green",), option: value}
    with pytest.raises(ConfigError) as err:
        MetaEvalOptions.from_keywords(explicit=frozenset({option}), **given)
    assert message in str(err.value)


# -- row: a folder that is not a model -------------------------------------------------------

@pytest.mark.full  # loads transformers: seconds of import
def test_folder_that_is_not_a_model_says_what_it_lacks(tmp_path):
    require_extra("neural")
    from gecmetrics.neural.models import ModelRef, load_model, load_tokenizer

    (tmp_path / "notes.txt").write_text("not a model")
    with pytest.raises(ConfigError) as err:
        load_tokenizer(ModelRef(str(tmp_path)), "some")
    message = str(err.value)
    assert "has no tokenizer files (tokenizer.json or vocab.txt)" in message
    assert "save_pretrained" in message and not message.rstrip().endswith(":")
    assert "\n" not in message
    with pytest.raises(ConfigError, match=r"has no config\.json, no weights"):
        load_model(ModelRef(str(tmp_path)), "some")


def test_loader_messages_are_kept_whole():
    from gecmetrics.neural.models import MESSAGE_CHARS, _one_line

    text = _one_line(ValueError("Couldn't instantiate the backend tokenizer from one of: \n"
                                "(1) a `tokenizers` library serialization file, \n(2) more"))
    assert text.endswith("(2) more") and "\n" not in text
    assert len(_one_line(ValueError("x" * 1000))) == MESSAGE_CHARS


# -- row: an optimum on the grid's edge ----------------------------------------------------

def test_grid_edge():
    from gecmetrics.meta_eval.sweep import grid_edge

    grid = np.arange(0, 5.5, 0.5)
    assert grid_edge(5.0, grid) == "upper"
    assert grid_edge(0.0, grid) is None  # no beta below 0
    assert grid_edge(2.5, grid) is None
    assert grid_edge(0.5, grid[1:]) == "lower"
    assert grid_edge(1.0, [1.0]) is None  # one point: nothing was searched


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_sweep_notes_an_optimum_on_the_edge(shared_data):
    """On CoNLL-2014 wordGREEN's r rises up to beta 2 (sweep 0:5:0.5 peaks inside), so a
    grid ending at 1.5 has its optimum on its upper end, and a grid to 5 has none."""
    from gecmetrics import meta_evaluate

    narrow = meta_evaluate(["conll14"], ["green", "gleu"], grid="0:1.5:0.5",
                           data_dir=str(shared_data))
    (sweep,) = [s for s in narrow.sweeps if s.metric.name == "green"]
    assert sweep.best("pearson")[0] == 1.5
    assert ("note: conll14 wordGREEN (corpus, r): the best beta, 1.5, is the upper end of "
            "the grid (--sweep-beta 0:1.5:0.5); the optimum may lie above it: widen the grid"
            in narrow.notes)
    assert not any("GLEU" in note for note in narrow.notes)  # no beta, no edge
    wide = meta_evaluate(["conll14"], ["green"], grid="0:5:0.5", data_dir=str(shared_data))
    assert 0 < wide.sweeps[0].best("pearson")[0] < 5
    assert not any("end of the grid" in note for note in wide.notes)
    _, stderr = narrow.render("table")
    assert any("upper end of the grid" in line for line in stderr)


def test_cv_beta_notes_fold_optima_on_the_edge(shared_data):
    from gecmetrics import meta_evaluate

    cv = meta_evaluate(["conll14"], ["green"], cv_folds=3, cv_grid="0:1.5:0.5",
                       data_dir=str(shared_data))
    folds = cv.correlations[0].cv.beta_star_folds
    on_edge = sum(1 for b in folds if b == 1.5)
    assert on_edge > 0
    assert any(f"{on_edge} of 3 fold optima of --cv-beta are 1.5, the upper end of the grid "
               "(--cv-grid 0:1.5:0.5)" in note for note in cv.notes)
