"""The Python API checks its arguments at the boundary (issue 33, "Python API misuse").

Every public callable (the names of ``gecmetrics.__all__`` and of the modules that
docs/api/*.md documents with ``:::`` entries) is called with each of its arguments
replaced, one at a time, by a bad value (None, a number where a list is expected, a
string where a list is expected, a list of ints where tokens or text are expected, an
empty list, an empty string) while the others stay valid. The call must either
answer or raise a :class:`GecMetricsError` whose one-line message names the argument;
never TypeError, AttributeError, KeyError, ValueError, IndexError, ZeroDivisionError
or a numpy error from inside the library.

The valid arguments come from :data:`VALID` (one row per callable); a callable that
cannot be walked here says why in :data:`SKIPPED`. A new public callable fails
:func:`test_every_public_callable_has_a_row` until it gets a row, so the walk grows
with the API.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import re
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gecmetrics
from gecmetrics.errors import GecMetricsError

ROOT = Path(__file__).resolve().parent.parent
API_DOCS = ROOT / "docs" / "api"

#: The bad values tried in place of each argument, with the words that name them.
BAD_VALUES: tuple[tuple[str, Any], ...] = (
    ("None", None), ("an int", 7), ("a string", "abc"), ("a list of ints", [1, 2]),
    ("an empty list", []), ("an empty string", ""),
)


# -- the public API, as documented ----------------------------------------------------


def _resolve(path: str) -> Any:
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part)
        return obj
    raise LookupError(path)


def documented_callables() -> dict[str, Any]:
    """{qualified name: callable} of ``gecmetrics.__all__`` and of every ``:::`` entry
    of docs/api/*.md (a module entry: its public functions and classes, those of its
    ``__all__`` if it has one; ``members: false``: none)."""
    found: dict[str, Any] = {}
    for name in gecmetrics.__all__:
        value = getattr(gecmetrics, name)
        if callable(value):
            found[f"{value.__module__}.{value.__qualname__}"] = value
    for page in sorted(API_DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for entry in re.finditer(r"^::: (\S+)\n((?:    .*\n)*)", text, re.M):
            path, options = entry.group(1), entry.group(2)
            obj = _resolve(path)
            if not isinstance(obj, types.ModuleType):
                found[path] = obj
                continue
            if "members: false" in options:
                continue
            names = getattr(obj, "__all__", None) or [n for n in vars(obj)
                                                      if not n.startswith("_")]
            for name in names:
                value = getattr(obj, name)
                if ((inspect.isfunction(value) or inspect.isclass(value))
                        and value.__module__ == obj.__name__):
                    found[f"{obj.__name__}.{name}"] = value
    return found


# -- valid arguments ---------------------------------------------------------------


@dataclass
class Row:
    """A valid call of one callable: ``make(files)`` gives its (args, kwargs), fresh for
    every call. ``names``: other words that name an argument in messages (the CLI
    flag a library check shares with the command line). ``patch``: attributes
    replaced while calling (dotted path: replacement), to keep a heavy call's
    boundary without its work. ``keep``: arguments not walked, with the reason."""

    make: Callable[[dict[str, Any]], tuple[tuple[Any, ...], dict[str, Any]]]
    names: dict[str, tuple[str, ...]] = field(default_factory=dict)
    patch: dict[str, Any] = field(default_factory=dict)
    keep: dict[str, str] = field(default_factory=dict)


def call(*args: Any, **kwargs: Any) -> Callable[[dict[str, Any]], tuple[tuple, dict]]:
    return lambda files: (args, kwargs)


SOURCES = ["He go to school .", "She like cats .", "It is fine ."]
REFS = [["He goes to school .", "She likes cats .", "It is fine ."]]
HYPS = {"a": ["He goes to school .", "She like cats .", "It is fine ."],
        "b": ["He go to school .", "She likes cats .", "It is fine ."]}


#: HYPS' edits on the source's tokens: (start, end, correction, type) per sentence.
EDITS = {"a": [[(1, 2, "goes", "R:VERB")], [], []], "b": [[], [(1, 2, "likes", "R:VERB")], []]}


def _corpus():
    from gecmetrics.corpus import Corpus

    return Corpus(SOURCES, REFS, HYPS)


def _green():
    return gecmetrics.get_metric("green")


def _score_options(files: dict[str, Any], **extra: Any):
    from gecmetrics.scoring import ScoreOptions

    return ScoreOptions(files["source"], [files["ref"]], [files["hyp_a"], files["hyp_b"]],
                        **extra)


def _system_scores(indices: np.ndarray) -> np.ndarray:
    """Three systems' corpus scores on the drawn sentences (a pure function of them)."""
    counts = np.bincount(np.asarray(indices), minlength=5)[:5].astype(float)
    return np.array([counts[0] + 1, counts[1] * 2 + 0.5, counts[2] + counts[3] * 3])


def _formula(sums: np.ndarray) -> np.ndarray:
    return sums[..., 0] / np.maximum(sums[..., 1], 1)


PER = np.array([[[1, 2], [0, 1], [2, 2]], [[2, 2], [1, 1], [0, 2]]], dtype=float)
SAMPLES = np.array([[0.1, 0.5, 0.9], [0.2, 0.4, 0.8], [0.3, 0.6, 0.7], [0.1, 0.7, 0.9]])
PAIR_SAMPLES = np.array([[0.1, 0.5, 0.9], [0.2, 0.4, 0.8], [0.3, 0.6, 0.7]])

ST = "gecmetrics.stats."
VALID: dict[str, Row] = {
    # the package and its registry
    "gecmetrics.registry.get_metric": Row(call("green", n=4), names={"name": ("metric",)}),
    "gecmetrics.registry.list_metrics": Row(call()),
    "gecmetrics.registry.register_metric": Row(
        call("boundary-test", "gecmetrics.metrics.green:Green"),
        patch={"gecmetrics.registry._registered": {}}),  # registers nothing for the others
    "gecmetrics.registry.metric_class": Row(call("green"), names={"name": ("metric",)}),
    "gecmetrics.registry.parse_spec": Row(call("green:n=4")),
    "gecmetrics.registry.metric_from_spec": Row(call("green:n=4"), names={"spec": ("metric",)}),
    "gecmetrics.corpus.Corpus": Row(call(SOURCES, REFS, HYPS)),
    # meta-evaluation: the options are checked before any data is read; run() is
    # replaced so that a call accepted at the boundary does no work here
    "gecmetrics.meta_eval.api.meta_evaluate": Row(
        call(["conll14"], ["green"]),
        patch={"gecmetrics.meta_eval.api.run": lambda options: types.SimpleNamespace(notes=()),
               "gecmetrics.meta_eval.api.save_figures": lambda *a, **k: None}),
    "gecmetrics.meta_eval.options.MetaEvalOptions": Row(
        call(("conll14",), ("green",)),
        names={"system_set": ("--systems",), "grid": ("--sweep-beta",), "plot": ("--plot",),
               "html": ("--html",), "levels": ("--level",), "betas": ("--beta",)}),
    # scoring
    "gecmetrics.scoring.ScoreOptions": Row(
        lambda f: ((f["source"], [f["ref"]], [f["hyp_a"]]), {}),
        names={"betas": ("-b/--beta",), "jobs": ("-j/--jobs",),
               "chunk_size": ("--chunk-size",), "level": ("level",),
               "breakdown": ("--breakdown",), "paired": ("paired",)}),
    "gecmetrics.scoring.score": Row(lambda f: ((_score_options(f),), {})),
    "gecmetrics.scoring.stream_sentence_scores": Row(
        lambda f: ((_score_options(f, level="sentence"),), {})),
    "gecmetrics.scoring.plan": Row(lambda f: ((_score_options(f),), {})),
    "gecmetrics.scoring.load_corpus": Row(
        lambda f: ((f["source"], [f["ref"]], [f["hyp_a"]]), {}),
        names={"hypotheses": ("hypothesis",), "m2": ("M2",)}),
    "gecmetrics.scoring.score_corpus": Row(lambda f: ((_corpus(), [_green()]), {})),
    "gecmetrics.scoring.check_paired_metrics": Row(lambda f: (([_green()], None), {})),
    "gecmetrics.scoring.jobs_note": Row(call(2, [])),
    "gecmetrics.scoring.references_field": Row(
        lambda f: ((_green(), _corpus(), 1, "text"), {})),
    # the metric interface
    "gecmetrics.metric.counting_options": Row(lambda f: ((_green().config,), {})),
    "gecmetrics.metric.check_partial_references": Row(lambda f: ((_green(), _corpus()), {})),
    "gecmetrics.metric.make_config": Row(
        lambda f: ((_green().Config, {"n": "4"}, "green"), {})),
    # statistics
    ST + "correlation.constant_rows": Row(call(np.array([[1.0, 1.0], [1.0, 2.0]]))),
    ST + "correlation.pearson_rows": Row(call([[1, 2, 3], [3, 1, 2]], [1, 2, 4])),
    ST + "correlation.spearman_rows": Row(call([[1, 2, 3], [3, 1, 2]], [1, 2, 4])),
    ST + "correlation.kendall_rows": Row(call([[1, 2, 3], [3, 1, 2]], [1, 2, 4])),
    ST + "correlation.correlation_rows": Row(call([[1, 2, 3]], [1, 2, 4], "kendall")),
    ST + "correlation.correlation_curves": Row(call([[1, 2, 3], [3, 1, 2]], [1, 2, 4])),
    ST + "correlation.paired_rows": Row(call([[1, 2, 3]], [[1, 3, 2]], "spearman")),
    ST + "correlation.pearson": Row(call([1, 2, 3], [1, 2, 4])),
    ST + "correlation.spearman": Row(call([1, 2, 3], [1, 2, 4])),
    ST + "correlation.kendall": Row(call([1, 2, 3], [1, 2, 4])),
    ST + "correlation.correlate_one": Row(call([1, 2, 3], [1, 2, 4], "pearson")),
    ST + "correlation.correlate": Row(call([1, 2, 3], [1, 2, 4])),
    ST + "correlation.known_correlation": Row(call("kendall", "correlation"),
                                              names={"value": ("correlation",)}),
    ST + "resampling.generator": Row(call(1, 0)),
    ST + "resampling.edit_orders": Row(call(3, 2, 1, (0, 1))),
    ST + "resampling.iter_edit_orders": Row(call(3, 2, 1, (0, 1))),
    ST + "resampling.python_random": Row(call(1)),
    ST + "resampling.resample_indices": Row(call(5, 3, 1)),
    ST + "resampling.bootstrap_system_scores": Row(call(_system_scores, 5, 100, 1)),
    ST + "resampling.draw_counts": Row(call(np.array([[0, 1, 1], [2, 2, 0]]), 3)),
    ST + "resampling.resample_counts": Row(call(5, 3, 1, 2)),
    ST + "resampling.system_resamples": Row(call(4, 3, 1)),
    ST + "resampling.swap_masks": Row(call(3, 5, 1)),
    ST + "resampling.permutation": Row(call(4, 1)),
    ST + "resampling.permutations": Row(call(4, 2, 1)),
    ST + "resampling.random_subsets": Row(call(5, 3, 2, 1)),
    ST + "significance.paired_p_value": Row(call(np.array([0.1, 0.3, 0.5]),
                                                 np.array([0.2, 0.1, 0.4]))),
    ST + "significance.williams_test": Row(call(0.8, 0.6, 0.5, 10)),
    ST + "significance.williams_sig_diff": Row(
        call(np.array([1.0, 2, 3, 5]), np.array([2.0, 1, 3, 4]), np.array([1.0, 2, 4, 5]))),
    ST + "significance.paired_bootstrap_test": Row(
        call(_system_scores, lambda idx: _system_scores(idx)[::-1], np.array([1.0, 2, 4]), 5,
             100, 1)),
    ST + "significance.weighted_scores": Row(call(PER, _formula, np.array([[1, 0, 2]]))),
    ST + "significance.ar_scores": Row(call(PER, _formula, 0, 4, 1)),
    ST + "significance.ar_diffs": Row(
        call(PER, _formula, 0, np.array([[True, False, True], [False, False, True]]))),
    ST + "significance.bootstrap_p_value": Row(call(np.array([0.5, 0.6, 0.4]),
                                                    np.array([0.4, 0.5, 0.5]), 0.1)),
    ST + "significance.ar_p_value": Row(call(np.array([0.1, -0.2, 0.05]), 0.1)),
    ST + "intervals.percentile_interval": Row(call(np.array([0.1, 0.5, 0.3, 0.9]), 0.9)),
    ST + "intervals.bootstrap_ci": Row(call(_system_scores, np.array([1.0, 2, 4]), 5, 100, 1)),
    ST + "intervals.expected_wins_rows": Row(
        call(np.array([[[0, 2, 1], [1, 0, 1], [1, 1, 0]]], dtype=float))),
    ST + "intervals.expected_wins_resamples": Row(
        call(np.eye(4, 9), 3, 3, 1)),
    ST + "intervals.bootstrap_ratings": Row(
        call({"x": [1.0, 2.0, None], "y": [2.0, 1.0, 3.0]}, ["x", "y"], 3, 1)),
    ST + "intervals.ranks": Row(call(SAMPLES)),
    ST + "intervals.rank_range": Row(call(np.array([[1, 2, 3], [2, 1, 3]]), 0.9)),
    ST + "intervals.rank_clusters": Row(
        call([2, 1, 0], np.array([1, 1, 3]), np.array([2, 2, 3]))),
    ST + "intervals.human_intervals": Row(
        call(["x", "y", "z"], np.array([0.1, 0.5, 0.9]), SAMPLES, 0.9)),
    ST + "pairwise_accuracy.pair_differences": Row(call([0.1, 0.5, 0.9])),
    ST + "pairwise_accuracy.pairwise_accuracy": Row(call([0.1, 0.5, 0.9], [1.0, 2.0, 3.0])),
    ST + "pairwise_accuracy.tie_calibrated_accuracy": Row(
        call([0.1, 0.0, -0.2], [0.5, 0.0, -0.1])),
    ST + "pairwise_accuracy.accuracy_at": Row(call([0.1, 0.0, -0.2], [0.5, 0.0, -0.1], 0.05)),
    ST + "pairwise_accuracy.roc_auc": Row(call([0.1, 0.5, 0.9, 0.4], [False, True, True, False])),
    ST + "spa.p_value_matrix": Row(call(PAIR_SAMPLES)),
    ST + "spa.pair_p_values": Row(call(PAIR_SAMPLES)),
    ST + "spa.spa_terms": Row(call(np.array([0.1, 0.5, 0.9]), np.array([0.2, 0.4, 0.9]))),
    ST + "spa.soft_pairwise_accuracy": Row(call(np.array([0.1, 0.5, 0.9]),
                                                np.array([0.2, 0.4, 0.9]))),
    ST + "clusters.pair_weights": Row(call(np.array([[3, 4, 5], [1, 0, 2]]))),
    ST + "clusters.weighted_pair_mean": Row(call(np.array([[0.1, 0.2], [0.3, 0.4]]),
                                                 np.array([[1.0, 2.0], [0.0, 1.0]]))),
    ST + "clusters.paired_p_values": Row(call(PAIR_SAMPLES, np.array([0.1, 0.5, 0.9]))),
    ST + "clusters.greedy_clusters": Row(
        call([0.1, 0.5, 0.9], np.array([[1, 0.01, 0.01], [0.01, 1, 0.2], [0.01, 0.2, 1]]),
             0.05)),
}

# Every built-in metric's Config: its options checked when made (get_metric's path).
for _path in ("metrics.green.GreenConfig", "metrics.gleu.GleuConfig",
              "metrics.bleu.BleuConfig", "metrics.chrf.ChrfConfig", "metrics.m2.M2Config",
              "metrics.errant.ErrantConfig", "metrics.imeasure.ImeasureConfig",
              "metrics.gotoscorer.GoToScorerConfig", "metrics.cleme.ClemeConfig",
              "metrics.cleme.Cleme2Config", "metrics.ptm2.BertScoreWeighting",
              "metrics.ptm2.PTM2Config", "metrics.pterrant.PTErrantConfig",
              "metrics.some.SomeConfig", "metrics.impara.ImparaConfig",
              "metrics.scribendi.ScribendiConfig", "neural.config.NeuralConfig"):
    VALID["gecmetrics." + _path] = Row(call())
VALID["gecmetrics.metrics.llm_judge.LlmJudgeConfig"] = Row(call(model="m"))

#: Callables not walked, with the reason.
SKIPPED: dict[str, str] = {
    # records the library returns: they hold computed values and take no user input
    **{f"gecmetrics.{name}": "a result record the library fills, not an input" for name in (
        "metric.Score", "metric.SystemResult", "metric.SentenceCounts", "metric.Counting",
        "metric.LazyDetails", "metric.quick_score", "scoring.ScoreResults",
        "scoring.SentenceStream",
        "meta_eval.results.MetaEvaluation", "stats.correlation.Correlation",
        "stats.significance.WilliamsResult", "stats.significance.PairedBootstrapResult",
        "stats.intervals.BootstrapCI", "stats.intervals.HumanIntervals",
        "stats.pairwise_accuracy.TieCalibration", "stats.clusters.Ranking")},
    **{f"gecmetrics.{name}": "an exception or warning class" for name in (
        "errors.GecMetricsError", "errors.InputError", "errors.ConfigError",
        "errors.OutputError", "errors.PartialOutputError", "scoring.MisalignmentWarning")},
    **{f"gecmetrics.metric.{name}": "an abstract base, walked through get_metric's classes"
       for name in ("Metric", "Statistics", "MetricConfig")},
    "gecmetrics.meta_eval.api.run": "takes a MetaEvalOptions, which is walked itself; "
                                    "runs a whole meta-evaluation on the real data",
    "gecmetrics.meta_eval.api.correlate_levels": "takes a loaded benchmark Selection "
                                                 "(real data) and MetaEvalOptions",
}

#: Names walked beyond the documented modules: the calls the issue found misused.
EXTRA: dict[str, Row] = {
    # the methods a script calls first, on a metric object (self: the metric, kept)
    "gecmetrics.metric.Metric.evaluate": Row(lambda f: ((_green(), _corpus()), {}),
                                             keep={"self": "the metric"}),
    "gecmetrics.metric.Metric.score": Row(lambda f: ((_green(), SOURCES, REFS, HYPS), {}),
                                          keep={"self": "the metric"},
                                          names={"hypotheses": ("hypothesis",)}),
    "gecmetrics.metric.Metric.statistics": Row(lambda f: ((_green(), _corpus()), {}),
                                               keep={"self": "the metric"}),
    "gecmetrics.corpus.Corpus.build": Row(call(SOURCES, REFS, HYPS),
                                          names={"hypotheses": ("hypothesis",)}),
    "gecmetrics.edits.neutral.neutral_edits": Row(call(["He", "go", "."], ["He", "goes", "."])),
    "gecmetrics.workflows.attribution.attribute": Row(
        lambda f: ((_green(), _corpus()), {"edits": EDITS}),
        # edits=None means ERRANT's edits: given here, so that no spaCy model loads
        patch={"gecmetrics.workflows.attribution.hypothesis_edits": lambda *a, **k: EDITS}),
    "gecmetrics.workflows.attribution.AttributionOptions": Row(call()),
    "gecmetrics.interface.score_report.render_scores": Row(
        lambda f: ((_score_results(), "json"), {})),
}


def _score_results():
    from gecmetrics.scoring import ScoreResults

    results = _green().evaluate(_corpus())
    return ScoreResults(tuple(results), tuple("sig" for _ in results))



# -- the walk -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("boundary")
    paths = {}
    for name, lines in (("source", SOURCES), ("ref", REFS[0]), ("hyp_a", HYPS["a"]),
                        ("hyp_b", HYPS["b"])):
        path = folder / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths[name] = str(path)
    return paths


def _rows() -> dict[str, Row]:
    return {**VALID, **EXTRA}


def _callable(name: str) -> Any:
    return _resolve(name)


def _consume(result: Any) -> Any:
    """An iterator's first items: a lazy function's checks run when it is first read."""
    if isinstance(result, Iterator):
        return list(itertools.islice(result, 3))
    return result


class _Patched:
    def __init__(self, patch: dict[str, Any]) -> None:
        self.patch, self.saved = patch, []

    def __enter__(self) -> None:
        for path, value in self.patch.items():
            module, _, attr = path.rpartition(".")
            owner = _resolve(module)
            self.saved.append((owner, attr, getattr(owner, attr)))
            setattr(owner, attr, value)

    def __exit__(self, *exc: Any) -> None:
        for owner, attr, value in reversed(self.saved):
            setattr(owner, attr, value)


def _variants(function: Any, row: Row, files: dict[str, Any]
              ) -> Iterator[tuple[str, str, tuple, dict]]:
    """(argument, bad value's words, args, kwargs): each argument replaced in turn."""
    signature = inspect.signature(function)
    args, kwargs = row.make(files)
    bound = signature.bind(*args, **kwargs)
    for param in signature.parameters.values():
        if param.name in row.keep or param.kind is param.VAR_POSITIONAL:
            continue
        keys = ([param.name] if param.kind is not param.VAR_KEYWORD
                else list(bound.arguments.get(param.name, {})))
        for key in keys:
            for words, bad in BAD_VALUES:
                args, kwargs = row.make(files)
                fresh = signature.bind(*args, **kwargs)
                if param.kind is param.VAR_KEYWORD:
                    fresh.arguments[param.name] = {**fresh.arguments[param.name], key: bad}
                else:
                    fresh.arguments[key] = bad
                yield key, words, fresh.args, fresh.kwargs


def _names_argument(message: str, argument: str, row: Row) -> bool:
    words = (argument, argument.replace("_", "-"), argument.replace("_", " "),
             argument.removesuffix("s"), *row.names.get(argument, ()))
    return any(word in message for word in words)


def _walk(name: str, files: dict[str, Any]) -> list[str]:
    row = _rows()[name]
    function = _callable(name)
    problems = []
    with _Patched(row.patch):
        for argument, words, args, kwargs in _variants(function, row, files):
            try:
                _consume(function(*args, **kwargs))
            except GecMetricsError as err:
                message = str(err)
                if "\n" in message or not _names_argument(message, argument, row):
                    problems.append(f"{argument}={words}: {type(err).__name__}: {message}")
            except Exception as err:  # noqa: BLE001 (any other error is the failure)
                problems.append(f"{argument}={words}: {type(err).__name__}: {err}")
    return problems


def test_every_public_callable_has_a_row():
    """Each documented callable is walked or skipped with a reason; no row is stale."""
    public = set(documented_callables())
    assert len(public) > 100
    missing = sorted(public - set(VALID) - set(SKIPPED))
    assert not missing, f"public callables without a row in VALID or SKIPPED: {missing}"
    stale = sorted((set(VALID) | set(SKIPPED)) - public)
    assert not stale, f"rows for names that are not public (any more): {stale}"


@pytest.mark.parametrize("name", sorted(_rows()))
def test_valid_row_is_valid(name, files):
    """The table's valid call answers (so the walk varies one argument of a good call)."""
    row = _rows()[name]
    args, kwargs = row.make(files)
    with _Patched(row.patch):
        _consume(_callable(name)(*args, **kwargs))


@pytest.mark.parametrize("name", sorted(_rows()))
def test_bad_arguments_get_one_line_naming_them(name, files):
    problems = _walk(name, files)
    assert not problems, f"{name}:\n" + "\n".join(problems)


# -- the rows, one by one ------------------------------------------------------


def test_corpus_without_systems_is_one_line():
    from gecmetrics.corpus import Corpus
    from gecmetrics.errors import InputError

    with pytest.raises(InputError, match=r"^hypotheses holds no system"):
        Corpus(SOURCES, REFS, {})


def test_render_scores_refuses_an_unknown_format(files):
    from gecmetrics.errors import ConfigError
    from gecmetrics.interface.score_report import render_scores

    with pytest.raises(ConfigError, match=r"^fmt must be one of table, tsv, json, markdown, "
                                          r"latex \(got 'xml'\)$"):
        render_scores(_score_results(), "xml")


def test_a_lone_metric_spec_is_one_metric(files):
    """``metrics="green"`` is read as ``["green"]`` (not as the specs "g", "r", ...)."""
    options = _score_options(files, metrics="green")
    assert options.metrics == ("green",)
    assert [m.spec for m in options.metric_objects] == ["green"]
