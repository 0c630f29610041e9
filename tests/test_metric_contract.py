"""The contracts every metric shares: the beta rule, derived cache keys, an immutable corpus.

* ``beta=None`` given to a metric's statistics means the beta of the metric
  instance (not its class default): ``statistics(c).corpus_scores(None)``
  equals ``evaluate(c)`` for an instance with a non-default beta, and equals
  F_beta computed by hand from the reported precision and recall.
* Changing any config option changes the statistics' cache key, unless the
  option is marked as last-step only (beta), which is bound to the statistics.
* A corpus cannot be changed after it is made; another corpus scores afresh.
"""

from __future__ import annotations

import dataclasses
import pickle
import typing

import numpy as np
import pytest
from conftest import missing_module, require_extra

from gecmetrics.corpus import Corpus
from gecmetrics.errors import GecMetricsError
from gecmetrics.m2_format import read_m2
from gecmetrics.meta_eval.score_files import scores_metric
from gecmetrics.metric import LAST_STEP, Metric
from gecmetrics.registry import get_metric, metric_class, metric_from_spec

# Two sentences, two annotators; the hypotheses make precision and recall differ,
# so F_beta depends on beta.
M2_TEXT = """S the cat sat on mat .
A 4 4|||M:DET|||the|||REQUIRED|||-NONE-|||0
A 1 2|||R:NOUN|||dog|||REQUIRED|||-NONE-|||0

S he go to school yesterday .
A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||1
A 5 6|||R:OTHER|||today|||REQUIRED|||-NONE-|||1
"""
HYPS = {
    "good": ["the cat sat on the mat .", "he went to school yesterday ."],
    "noisy": ["a cat sat in the mat !", "he went to the school today ."],
    "source": ["the cat sat on mat .", "he go to school yesterday ."],
}
BETA_METRICS = ("green", "chrf", "m2", "errant", "gotoscorer")
ALL_METRICS = (*BETA_METRICS, "gleu", "imeasure")


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "gold.m2"
    path.write_text(M2_TEXT, encoding="utf-8")
    m2 = read_m2(path)
    return Corpus(m2.sources, m2.references(), HYPS, m2=m2)


def _metric(name: str, **options) -> Metric:
    if name in ("errant", "gotoscorer"):
        require_extra("errant")
    return get_metric(name, **options)


def _f_beta(p: float, r: float, beta: float) -> float:
    """F_beta written out from its definition (0 when P and R are both 0)."""
    b2 = beta * beta
    return 0.0 if p == 0 and r == 0 else (1 + b2) * p * r / (b2 * p + r)


@pytest.mark.parametrize("name", BETA_METRICS)
def test_beta_none_means_the_instance_beta(name, corpus):
    default = metric_class(name).Config().beta
    beta = 1.3
    assert beta != default
    metric = _metric(name, beta=beta)
    stats = metric.statistics(corpus)
    via_evaluate = [r.score for r in metric.evaluate(corpus)]
    assert [r.beta for r in metric.evaluate(corpus)] == [beta] * len(HYPS)
    np.testing.assert_array_equal(stats.corpus_scores(None), via_evaluate)
    np.testing.assert_array_equal(stats.corpus_scores(beta), via_evaluate)
    assert [s.score for s in stats.corpus(None)] == via_evaluate
    np.testing.assert_array_equal(stats.mean(None),
                                  [r.score for r in metric.evaluate(corpus, "mean")])
    np.testing.assert_array_equal(stats.sentence(None),
                                  [r.scores for r in metric.evaluate(corpus, "sentence")])
    # The class default really gives other numbers here, so the test can fail.
    assert not np.allclose(stats.corpus_scores(default), via_evaluate)
    if name in ("green", "m2", "errant"):  # corpus F is F_beta of the corpus P and R
        for res in metric.evaluate(corpus):
            assert res.score == pytest.approx(_f_beta(res.precision, res.recall, beta), abs=1e-12)


@pytest.mark.parametrize("name", BETA_METRICS)
def test_instances_differing_in_beta_share_nothing_wrong(name, corpus):
    """Statistics are shared through the corpus cache, but each instance keeps its beta."""
    first = _metric(name, beta=2.5)
    second = _metric(name, beta=0.7)
    a = first.statistics(corpus).corpus_scores(None)
    b = second.statistics(corpus).corpus_scores(None)
    assert first.cache_key() == second.cache_key()
    np.testing.assert_array_equal(a, first.statistics(corpus).corpus_scores(2.5))
    np.testing.assert_array_equal(b, second.statistics(corpus).corpus_scores(0.7))
    assert not np.allclose(a, b)


def test_green_beta_on_conll14_amu(conll):
    """The case that used to differ: 0.808 (class default) against 0.828 (instance beta)."""
    sources, references, hyps = conll
    corpus = Corpus(sources, references, {"AMU": hyps["AMU"]})
    metric = get_metric("green", beta=1)
    via_evaluate = metric.evaluate(corpus)[0].score
    assert metric.statistics(corpus).corpus_scores(None)[0] == via_evaluate
    assert via_evaluate != metric.statistics(corpus).corpus_scores(2.0)[0]


def test_metrics_without_beta_ignore_it(corpus):
    metric = get_metric("gleu", mode="max")
    stats = metric.statistics(corpus)
    scores = [r.score for r in metric.evaluate(corpus)]
    np.testing.assert_array_equal(stats.corpus_scores(None), scores)
    np.testing.assert_array_equal(stats.corpus_scores(3.0), scores)
    given = scores_metric("given", {"good": 0.9, "noisy": 0.1, "source": 0.5})
    file_stats = given.statistics(corpus)
    assert file_stats.corpus_scores(None).tolist() == [0.9, 0.1, 0.5]
    assert file_stats.corpus_scores(4.0).tolist() == [0.9, 0.1, 0.5]


def _other_value(field: dataclasses.Field, hint, value):
    """A valid value of ``field`` other than ``value``."""
    if field.name == "tokenize":  # any registered name (no Literal): another, needing no extra
        from gecmetrics import tokenizers

        return next(name for name in tokenizers.REGISTRY
                    if name != value and not tokenizers.required_extras(name))
    if typing.get_origin(hint) is typing.Literal:
        return next(v for v in typing.get_args(hint) if v != value)
    if isinstance(value, str) and int in typing.get_args(hint):  # e.g. gleu seed="official"
        return 7
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    raise AssertionError(f"no other value known for {field.name}={value!r}")


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.extra(*metric_class(name).extras))
    for name in ALL_METRICS])
def test_every_option_changes_the_cache_key(name, corpus):
    cls = metric_class(name)
    base = cls()
    hints = typing.get_type_hints(cls.Config)
    fields = dataclasses.fields(cls.Config)
    assert fields
    for field in fields:
        value = getattr(base.config, field.name)
        changed = cls(dataclasses.replace(base.config, **{
            field.name: _other_value(field, hints[field.name], value)}))
        if field.metadata.get("counting", True):
            assert changed.cache_key() != base.cache_key(), field.name
        else:  # last-step only: same statistics, bound to the new value
            assert field.metadata == LAST_STEP and field.name == "beta"
            assert changed.cache_key() == base.cache_key()
            if name in ("errant", "gotoscorer"):
                require_extra("errant")
            assert changed.statistics(corpus).default_beta == changed.config.beta
            assert base.statistics(corpus).default_beta == base.config.beta


def test_score_metrics_with_equal_configs_do_not_share_statistics(corpus):
    one = scores_metric("given", {"good": 0.9, "noisy": 0.1, "source": 0.5})
    two = scores_metric("given", {"good": 0.2, "noisy": 0.3, "source": 0.4})
    assert one.config == two.config and one.cache_key() != two.cache_key()
    assert two.statistics(corpus).corpus_scores(None).tolist() == [0.2, 0.3, 0.4]


def test_corpus_cannot_be_changed(corpus):
    with pytest.raises(dataclasses.FrozenInstanceError):
        corpus.hypotheses = {}  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        corpus.m2 = None  # type: ignore[misc]
    with pytest.raises(TypeError):
        corpus.hypotheses["new"] = corpus.sources  # type: ignore[index]
    with pytest.raises(TypeError):
        corpus.hypotheses["good"][0] = "x"  # type: ignore[index]
    with pytest.raises(TypeError):
        corpus.references[0][0] = "x"  # type: ignore[index]
    with pytest.raises(TypeError):
        Corpus(["a"], [["a"]], {}, None, {})  # type: ignore[call-arg]  # no cache argument


def test_corpus_copies_its_inputs():
    sources = ["the cat sat on mat .", "he go to school ."]
    refs = ["the cat sat on the mat .", "he goes to school ."]
    hyp = list(sources)
    corpus = Corpus.build(sources, refs, {"s": hyp})
    metric = get_metric("green")
    before = metric.evaluate(corpus)[0].score
    hyp[1] = refs[1]  # changes the caller's list, not the corpus
    assert corpus.hypotheses["s"] == tuple(sources)
    assert metric.evaluate(corpus)[0].score == before
    fresh = metric.evaluate(Corpus.build(sources, refs, {"s": hyp}))[0].score
    assert fresh > before  # the new output makes the reference's correction


def test_a_new_corpus_with_another_system_scores_freshly(corpus):
    metric = get_metric("green")
    old = {r.hypothesis: r.score for r in metric.evaluate(corpus)}
    ref = list(corpus.references[0])
    grown = Corpus(corpus.sources, corpus.references, {**corpus.hypotheses, "ref": ref},
                   m2=corpus.m2)
    new = {r.hypothesis: r.score for r in metric.evaluate(grown)}
    assert set(new) == set(HYPS) | {"ref"}
    assert {k: new[k] for k in old} == old
    alone = Corpus(corpus.sources, corpus.references, {"ref": ref})
    assert new["ref"] == metric.evaluate(alone)[0].score


def test_corpus_pickles_with_its_texts(corpus):
    copy = pickle.loads(pickle.dumps(corpus))
    assert copy.sources == corpus.sources and dict(copy.hypotheses) == dict(corpus.hypotheses)
    assert copy.references == corpus.references and copy.m2 is not None
    metric = get_metric("m2")
    assert [r.score for r in metric.evaluate(copy)] == [r.score for r in metric.evaluate(corpus)]


def test_text_references_problem_says_which_metrics_need_an_m2_file():
    """A metric that names no problem scores a corpus of texts alone; one that names a
    problem refuses that corpus (so rewards and MBR can refuse it up front)."""
    corpus = Corpus(["He go ."], [["He goes ."]], {"h": ["He goes ."]})
    specs = ["m2", "m2:edits=neutral", "imeasure", "gleu", "chrf", "bleu", "green"]
    if missing_module("errant") is None:  # these refuse before any parse
        specs += ["errant:references=m2", "cleme:references=m2", "gotoscorer:references=m2"]
    for spec in specs:
        metric = metric_from_spec(spec)
        problem = metric.text_references_problem()
        try:
            metric.statistics(corpus)
        except GecMetricsError:
            assert problem is not None, spec
        else:
            assert problem is None, spec


def test_a_corpus_result_is_the_one_the_constructor_makes():
    """evaluate_statistics makes its corpus-level results without the dataclass's
    __init__ (metric._corpus_result): the same fields, values, equality, hash of the
    frozen class, and frozen still; a field added to SystemResult fails here."""
    from gecmetrics.metric import Score, SystemResult, _corpus_result

    details = {"tp": 3}
    sc = Score(0.5, 0.25, 0.75, details)
    made = _corpus_result("GREEN", "green:n=3", "sys", 2.0, "corpus", sc)
    plain = SystemResult("GREEN", "green:n=3", "sys", 2.0, "corpus", 0.5, 0.25, 0.75,
                         details=details)
    assert made == plain and made.details is details
    assert sorted(vars(made)) == sorted(f.name for f in dataclasses.fields(SystemResult))
    assert made.to_json() == plain.to_json()
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.score = 1.0  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(made)) == plain


def test_a_quick_score_is_the_one_the_constructor_makes():
    from gecmetrics.metric import Score, quick_score

    details = {"tp": 1}
    made = quick_score(0.5, None, 0.25, details)
    assert made == Score(0.5, None, 0.25, details) and made.details is details
    assert sorted(vars(made)) == sorted(f.name for f in dataclasses.fields(Score))
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.score = 1.0  # type: ignore[misc]
