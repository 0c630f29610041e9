"""SOME, IMPARA and the Scribendi Score equal gec-metrics with the same tiny models.

tests/data/neural_reference.json was written by gec-metrics 0.1.1 in its own
venv (the command and versions are in the file; the script is
tests/reference/gec_metrics_neural.py) on the first 50 CoNLL-2014 sources and
the outputs of AMU, CAMB, UFC and the unchanged input, with the seeded tiny
models of tests/neural_models.py, rebuilt here bit for bit. Scores must agree
to 1e-6 (Scribendi's -1/0/1 exactly); the reference pads every batch to 128
tokens in batches of 8, gecmetrics pads to the longest sentence in batches
of 5, so the check covers batching and padding too. The published checkpoints
cannot be loaded here (no hub; SOME's are on Google Drive only), so the
published correlations are not checked (docs/metrics/*.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecmetrics.corpus import Corpus

REFERENCE = json.loads((Path(__file__).parent / "data" / "neural_reference.json")
                       .read_text(encoding="utf-8"))
TOL = 1e-6

pytestmark = [pytest.mark.real_data]


@pytest.fixture(scope="module")
def texts(shared_data):
    from conftest import CONLL_M2, SUBMISSIONS

    from gecmetrics.m2_format import read_m2

    sources = read_m2(CONLL_M2).sources
    n = REFERENCE["n_sentences"]
    hyps = {}
    for team in REFERENCE["systems"]:
        lines = (list(sources) if team == "INPUT" else
                 (SUBMISSIONS / team).read_text(encoding="utf-8").split("\n"))
        hyps[team] = lines[:n]
    return list(sources), hyps


@pytest.fixture(scope="module")
def corpus(texts):
    sources, hyps = texts
    n = REFERENCE["n_sentences"]
    return Corpus(sources[:n], [sources[:n]], hyps)  # sources stand in for references


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    from conftest import require_extra

    require_extra("neural")
    from neural_models import save_bert, save_gpt2

    root = tmp_path_factory.mktemp("tiny")
    seeds = REFERENCE["seeds"]
    return {
        "g": save_bert(root / "g", seeds["some_g"]),
        "f": save_bert(root / "f", seeds["some_f"]),
        "m": save_bert(root / "m", seeds["some_m"]),
        "qe": save_bert(root / "qe", seeds["impara_qe"]),
        "se": save_bert(root / "se", seeds["impara_se"], head="encoder"),
        "lm": save_gpt2(root / "lm", seeds["scribendi_lm"]),
    }


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path / "cache"))


def _some(models, **kw):
    from gecmetrics.metrics.some import Some

    return Some(model_g=str(models["g"]), model_f=str(models["f"]), model_m=str(models["m"]),
                tokenizer=str(models["g"]), device="cpu", batch_size=5, **kw)


def _close(ours, theirs):
    assert len(ours) == len(theirs)
    worst = max(abs(a - b) for a, b in zip(ours, theirs, strict=True))
    assert worst <= TOL, worst


# ---- the fuzzy ratios (no model) ------------------------------------------------------

def test_fuzzy_ratios_equal_fuzzywuzzy_and_the_reference_dp(texts):
    from conftest import SUBMISSIONS

    from gecmetrics.metrics.scribendi import levenshtein_ratio, token_sort_ratio

    sources, _ = texts
    outputs: dict[str, list[str]] = {}
    for (i, team), tsr, ldr in zip(REFERENCE["fuzzy_pairs"], REFERENCE["token_sort_ratio"],
                                   REFERENCE["levenshtein_ratio"], strict=True):
        if team not in outputs:
            outputs[team] = (SUBMISSIONS / team).read_text(encoding="utf-8").split("\n")
        src, hyp = sources[i], outputs[team][i]
        assert token_sort_ratio(src, hyp) == tsr, (i, team)
        if ldr is not None:
            assert levenshtein_ratio(src, hyp) == ldr, (i, team)
    assert len(REFERENCE["fuzzy_pairs"]) >= 1000
    assert any(t < 1 for t in REFERENCE["token_sort_ratio"])


def test_fuzzy_ratios_on_edge_cases():
    from gecmetrics.metrics.scribendi import lcs_length, levenshtein_ratio, token_sort_ratio

    for (a, b), tsr, ldr in zip(REFERENCE["extra_pairs"], REFERENCE["extra_token_sort_ratio"],
                                REFERENCE["extra_levenshtein_ratio"], strict=True):
        assert token_sort_ratio(a, b) == tsr, (a, b)
        assert levenshtein_ratio(a, b) == ldr, (a, b)
    # the bit-parallel LCS against the textbook table
    import random

    rng = random.Random(5)
    for _ in range(300):
        a = "".join(rng.choice("abc ") for _ in range(rng.randrange(0, 70)))
        b = "".join(rng.choice("abcd") for _ in range(rng.randrange(0, 70)))
        table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
        for i in range(len(a)):
            for j in range(len(b)):
                table[i + 1][j + 1] = (table[i][j] + 1 if a[i] == b[j]
                                       else max(table[i][j + 1], table[i + 1][j]))
        assert lcs_length(a, b) == table[-1][-1]


# ---- the metrics ----------------------------------------------------------------------

@pytest.mark.full
@pytest.mark.neural
def test_some_equals_gec_metrics(models, corpus):
    metric = _some(models, cache=False)
    stats = metric.statistics(corpus)
    for k, team in enumerate(stats.systems):
        _close(stats.sentence()[k], REFERENCE["some"][team])
    ref_means = [sum(v) / len(v) for v in (REFERENCE["some"][t] for t in stats.systems)]
    _close([r.score for r in metric.evaluate(corpus)], ref_means)
    assert [r.score for r in metric.evaluate(corpus, "mean")] == \
        [r.score for r in metric.evaluate(corpus)]


@pytest.mark.full
@pytest.mark.neural
def test_impara_equals_gec_metrics(models, corpus):
    from gecmetrics.metrics.impara import Impara

    common = dict(model_qe=str(models["qe"]), model_se=str(models["se"]), device="cpu",
                  batch_size=5, cache=False)
    stats = Impara(**common).statistics(corpus)
    gated = Impara(threshold=REFERENCE["impara_threshold"], **common).statistics(corpus)
    zeroed = 0
    for k, team in enumerate(stats.systems):
        _close(stats.sentence()[k], REFERENCE["impara"][team])
        _close(stats.details["similarity"][k], REFERENCE["impara_similarity"][team])
        _close(gated.sentence()[k], REFERENCE["impara_at_threshold"][team])
        zeroed += sum(v == 0 for v in REFERENCE["impara_at_threshold"][team])
    assert zeroed > 20  # the gate was exercised


@pytest.mark.full
@pytest.mark.neural
def test_scribendi_equals_gec_metrics(models, corpus):
    from gecmetrics.metrics.scribendi import Scribendi

    metric = Scribendi(model=str(models["lm"]), device="cpu", batch_size=5, cache=False)
    stats = metric.statistics(corpus)
    for k, team in enumerate(stats.systems):
        assert stats.sentence()[k].tolist() == REFERENCE["scribendi"][team]
    results = metric.evaluate(corpus)
    sums = {r.hypothesis: r.details["sum"] for r in results}
    assert sums == {t: float(sum(REFERENCE["scribendi"][t])) for t in stats.systems}
    n = REFERENCE["n_sentences"]  # the corpus score is the mean: the paper's sum / n
    assert {r.hypothesis: r.score for r in results} == {t: sums[t] / n for t in sums}
    assert {1, 0, -1} <= set(REFERENCE["scribendi"]["CAMB"])


@pytest.mark.full
@pytest.mark.neural
def test_a_cached_rerun_runs_no_model(models, corpus, monkeypatch):
    """Second run, fresh metric objects: every output comes from the disk cache;
    no model is even loaded."""
    from gecmetrics.metrics.impara import Impara
    from gecmetrics.metrics.scribendi import Scribendi
    from gecmetrics.neural import batching
    from gecmetrics.neural import models as model_module

    def make():
        return [_some(models), Scribendi(model=str(models["lm"]), device="cpu"),
                Impara(model_qe=str(models["qe"]), model_se=str(models["se"]),
                       device="cpu")]

    first = [m.evaluate(Corpus(corpus.sources, corpus.references, corpus.hypotheses))
             for m in make()]
    computed = batching.TOTALS.computed

    def refuse(*args, **kwargs):
        raise AssertionError("a model was loaded on a cached rerun")

    monkeypatch.setattr(model_module, "load_model", refuse)
    monkeypatch.setattr(model_module, "load_tokenizer", refuse)
    again = [m.evaluate(Corpus(corpus.sources, corpus.references, corpus.hypotheses))
             for m in make()]
    assert batching.TOTALS.computed == computed
    assert [[r.score for r in rs] for rs in again] == [[r.score for r in rs] for rs in first]


@pytest.mark.neural
def test_some_without_checkpoints_says_where_to_get_them(corpus):
    from gecmetrics.errors import ConfigError
    from gecmetrics.metrics.some import Some

    with pytest.raises(ConfigError, match="Google Drive.*kokeman/SOME"):
        Some(device="cpu").statistics(corpus)


@pytest.mark.full
@pytest.mark.neural
def test_meta_evaluation_on_seeda_every_level(models, shared_data):
    """A reference-free neural metric goes through meta-eval like any metric:
    system level, --sentence-level, --level ew/trueskill on SEEDA-S."""
    from gecmetrics.meta_eval import meta_evaluate
    from gecmetrics.metrics.scribendi import Scribendi

    def metric():
        return Scribendi(model=str(models["lm"]), device="cpu")

    system = meta_evaluate(["seeda-s"], [metric()], data_dir=str(shared_data))
    assert system.correlations and all(-1 <= r.pearson <= 1 for r in system.correlations)
    levels = meta_evaluate(["seeda-s"], [metric()], data_dir=str(shared_data),
                           levels=("ew", "trueskill"))
    assert {r.level for r in levels.correlations} >= {"ew", "trueskill"}
    sentence = meta_evaluate(["seeda-s"], [metric()], data_dir=str(shared_data),
                             sentence_level=True)
    assert sentence.sentences and all(0 <= s.accuracy <= 1 for s in sentence.sentences)


@pytest.mark.full  # builds small models with torch: seconds of import
@pytest.mark.neural
def test_tmu_gfm_takes_reference_free_metrics(models, tmp_path):
    """tmu-gfm has no references and refuses reference-based metrics; these run."""
    from test_tmu_gfm import toy_rows, write_toy

    from gecmetrics.meta_eval import meta_evaluate
    from gecmetrics.metrics.scribendi import Scribendi

    write_toy(tmp_path, toy_rows())
    gfm = meta_evaluate(["tmu-gfm"], [Scribendi(model=str(models["lm"]), device="cpu")],
                        data_dir=str(tmp_path))
    (row,) = gfm.correlations
    assert row.level == "sentence" and row.n_systems == 5 and "refs:0" in row.signature
