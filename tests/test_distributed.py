"""gecmetrics.workflows.distributed (the dask extra) on a dask.distributed LocalCluster in
this process: bit-identical to the single-process path on real CoNLL-2014 data.

The oracle is the single-process path itself (``metric.evaluate`` on the whole
corpus), whose numbers the oracle and real-data tests of each metric pin
(GREEN's official tool, GLEU's original code, sacrebleu's chrF, the official
M2 scorer). Partitions of 97 and 500 sentences put chunk boundaries where the
whole-corpus count has none, and small M2 partitions lack an annotator.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

pytestmark = [pytest.mark.dask, pytest.mark.real_data]
pytest_plugins = ["pytester"]

SPECS = ["green", "green:tokenize=char", "gleu", "gleu:mode=max", "chrf", "m2"]
SYSTEMS = ["AMU", "CAMB", "NULL"]


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def corpus(conll):
    from conftest import CONLL_M2

    from gecmetrics.corpus import Corpus
    from gecmetrics.m2_format import read_m2

    sources, refs, hyps = conll
    return Corpus(sources, refs, {s: hyps[s] for s in SYSTEMS}, m2=read_m2(CONLL_M2))


@pytest.fixture(scope="module")
def metrics():
    from gecmetrics.registry import metric_from_spec

    return [metric_from_spec(s) for s in SPECS]


def _by_key(results):
    return {(r.spec, r.hypothesis, r.beta): r for r in results}


def _single(metrics, corpus, level, betas=None):
    from gecmetrics.corpus import Corpus

    fresh = Corpus(corpus.sources, corpus.references, corpus.hypotheses, m2=corpus.m2)
    return [r for m in metrics for r in m.evaluate(fresh, level, betas)]


@pytest.mark.full
@pytest.mark.parametrize("partitions", [14, 3])
def test_bag_bit_identical_to_single_process(client, corpus, metrics, partitions):
    import dask.bag as db

    from gecmetrics.workflows.distributed import records, score_bag, signed_json

    bag = db.from_sequence(records(corpus), npartitions=partitions)
    frame, corpus_results = score_bag(bag, metrics, SYSTEMS).compute()
    expected = _by_key(_single(metrics, corpus, "corpus"))
    got = _by_key(corpus_results)
    assert got.keys() == expected.keys()
    for key, want in expected.items():
        have = got[key]
        assert (have.score, have.precision, have.recall) == \
            (want.score, want.precision, want.recall), key
        assert dict(have.details) == dict(want.details), key
    assert list(frame.index) == list(range(len(corpus.sources)))
    if partitions == 3:  # the JSON objects and signatures of `gecmetrics score`
        from gecmetrics.scoring import score_corpus
        from gecmetrics.signature import score_signature

        single = score_corpus(corpus, metrics, "corpus", None)
        want = [{**r.to_json(), "signature": str(score_signature(
            next(m for m in metrics if m.spec == r.spec), 2, "text", "corpus", r.beta))}
            for r in single]
        assert signed_json(corpus_results, metrics, references=2) == want
    for want in _single(metrics, corpus, "sentence"):
        column = frame[f"{want.spec}|{want.hypothesis}"].to_numpy()
        np.testing.assert_array_equal(column, np.array(want.scores), err_msg=want.spec)


@pytest.mark.full
def test_m2_partitions_lacking_an_annotator_are_aligned(client, corpus):
    """Annotator 1's edits dropped from the first 300 sentences: the partitions there
    know annotator 0 only, and the join must align the columns on annotator ids."""
    import dataclasses

    import dask.bag as db

    from gecmetrics.corpus import Corpus
    from gecmetrics.m2_format import M2File
    from gecmetrics.registry import metric_from_spec
    from gecmetrics.workflows.distributed import count_partition, records, score_bag

    sentences = [dataclasses.replace(s, edits=tuple(e for e in s.edits if e.annotator == 0))
                 if d < 300 else s for d, s in enumerate(corpus.m2.sentences)]
    thinned = Corpus(corpus.sources, corpus.references, corpus.hypotheses,
                     m2=M2File("thinned", sentences))
    m2 = [metric_from_spec("m2")]
    recs = records(thinned)
    sets = {count_partition(recs[i:i + 100], m2, SYSTEMS).counts[0].annotators
            for i in range(0, len(recs), 100)}
    assert sets == {(0,), (0, 1)}
    _, results = score_bag(db.from_sequence(recs, npartitions=13), m2, SYSTEMS).compute()
    expected = _single(m2, thinned, "corpus")
    assert [(r.score, r.precision, r.recall) for r in results] == \
        [(r.score, r.precision, r.recall) for r in expected]
    assert expected[0].score != _single(m2, corpus, "corpus")[0].score  # the change matters


@pytest.mark.full
def test_dataframe_keeps_index_and_several_betas(client, corpus, metrics):
    import dask.dataframe as dd
    import pandas as pd
    from conftest import CONLL_M2

    from gecmetrics.workflows.distributed import score_dataframe

    n = len(corpus.sources)
    blocks = [b for b in CONLL_M2.read_text(encoding="utf-8").split("\n\n") if b.strip()]
    assert len(blocks) == n
    pdf = pd.DataFrame({"src": list(corpus.sources),
                        "r0": list(corpus.references[0]), "r1": list(corpus.references[1]),
                        **{f"out_{s}": list(corpus.hypotheses[s]) for s in SYSTEMS},
                        "gold": blocks},  # each sentence's M2 block as text
                       index=pd.RangeIndex(1000, 1000 + n, name="line"))
    ddf = dd.from_pandas(pdf, npartitions=4)
    result = score_dataframe(ddf, metrics, source="src", references=["r0", "r1"],
                             hypotheses={s: f"out_{s}" for s in SYSTEMS}, m2="gold",
                             betas=[0.5, 2.0])
    assert result.sentence.divisions == ddf.divisions
    frame, corpus_results = result.compute()
    assert list(frame.index) == list(pdf.index)
    got = _by_key(corpus_results)
    for want in _single(metrics, corpus, "corpus", [0.5, 2.0]):
        assert got[(want.spec, want.hypothesis, want.beta)].score == want.score
    for want in _single(metrics, corpus, "sentence", [0.5, 2.0]):
        tag = f"|beta={want.beta}" if want.beta is not None else ""
        np.testing.assert_array_equal(frame[f"{want.spec}{tag}|{want.hypothesis}"].to_numpy(),
                                      np.array(want.scores))


@pytest.mark.full
def test_sum_reduction_equals_corpus_scores(client, corpus):
    """corpus='sum': integer sums of each partition's chosen statistics, one formula."""
    import dask.bag as db

    from gecmetrics.registry import metric_from_spec
    from gecmetrics.workflows.distributed import records, score_bag

    summable = [metric_from_spec(s) for s in ("green", "green:tokenize=char", "gleu:mode=max",
                                              "chrf")]
    bag = db.from_sequence(records(corpus), npartitions=9)
    results = score_bag(bag, summable, SYSTEMS, betas=[0.5, 2.0], corpus="sum").corpus.compute()
    got = _by_key(results)
    for want in _single(summable, corpus, "corpus", [0.5, 2.0]):
        have = got[(want.spec, want.hypothesis, want.beta)]
        assert have.score == want.score, (want.spec, want.hypothesis)
        assert have.precision is None and have.recall is None


@pytest.mark.full
def test_refusals_are_one_line(corpus):
    import dask.bag as db

    from gecmetrics.errors import ConfigError, InputError
    from gecmetrics.registry import metric_from_spec
    from gecmetrics.workflows.distributed import records, score_bag

    bag = db.from_sequence(records(corpus)[:20], npartitions=2)
    cases = [(["m2"], "sum", "running corpus totals"), (["gleu"], "sum", "sampling"),
             (["bleu"], "gather", "not per-sentence counts"), ([], "gather", "no metric")]
    for specs, reduction, words in cases:
        with pytest.raises(ConfigError, match=words) as err:
            score_bag(bag, [metric_from_spec(s) for s in specs], ["AMU"], corpus=reduction)
        assert "\n" not in str(err.value)
    without_m2 = [{k: v for k, v in r.items() if k != "m2"} for r in records(corpus)[:5]]
    scores = score_bag(db.from_sequence(without_m2, npartitions=1), [metric_from_spec("m2")],
                       ["AMU"])
    with pytest.raises(InputError, match="'m2' field"):
        scores.corpus.compute(scheduler="sync")


def test_core_paths_never_import_dask(tmp_path):
    """Scoring with chunks and --jobs 2 (the multiprocessing path) loads no dask."""
    src = tmp_path / "src"
    src.write_text("a b c\n" * 30)
    hyp = tmp_path / "hyp"
    hyp.write_text("a b d\n" * 30)
    code = ("import sys\nfrom gecmetrics.interface.cli import main\ntry:\n"
            f"    main(['score', '-m', 'green', '-m', 'chrf', '-s', {str(src)!r}, '-r', "
            f"{str(src)!r}, '-c', {str(hyp)!r}, '--jobs', '2', '--chunk-size', '7'])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in ('dask', 'distributed', 'pyarrow') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert proc.stdout.strip().endswith("[]"), proc.stdout + proc.stderr


@pytest.mark.full
def test_without_the_extra_ci_fails_instead_of_skipping(pytester, tmp_path, monkeypatch):
    """A stand-in ``dask`` that cannot be imported: the marked test skips with the
    install hint, and fails under GECMETRICS_REQUIRE_DATA=1."""
    import shutil
    from pathlib import Path

    for helper in ("conftest.py", "tiers.py"):  # the conftest imports tiers
        shutil.copyfile(Path(__file__).with_name(helper), pytester.path / helper)
    pytester.makepyfile(test_probe="import pytest\n\n@pytest.mark.dask\ndef test_x():\n    pass\n")
    fake = tmp_path / "fake"
    (fake / "dask").mkdir(parents=True)
    (fake / "dask" / "__init__.py").write_text("raise ImportError('no dask here')\n")
    monkeypatch.setenv("PYTHONPATH", f"{fake}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    monkeypatch.delenv("GECMETRICS_REQUIRE_DATA", raising=False)
    with warnings.catch_warnings():
        skipped = pytester.runpytest_subprocess("-rs", "-p", "no:cacheprovider")
    skipped.assert_outcomes(skipped=1)
    assert 'pip install ".[dask]"' in skipped.stdout.str()
    monkeypatch.setenv("GECMETRICS_REQUIRE_DATA", "1")
    failed = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    failed.assert_outcomes(errors=1)  # the gate fails the test's setup
    assert "GECMETRICS_REQUIRE_DATA=1: not skipped" in failed.stdout.str()


def test_without_dask_the_api_says_how_to_install(monkeypatch):
    from gecmetrics.errors import ConfigError
    from gecmetrics.registry import metric_from_spec
    from gecmetrics.workflows.distributed import score_bag

    monkeypatch.setitem(sys.modules, "dask", None)  # import dask -> ImportError
    with pytest.raises(ConfigError,
                       match=r'^gecmetrics.workflows.distributed needs the dask extra: '
                             r'pip install "\.\[dask\]" in the gecmetrics checkout'):
        score_bag(object(), [metric_from_spec("green")], ["AMU"])


@pytest.mark.full
def test_engine_agnostic_pieces_as_in_the_spark_sketch(corpus):
    """docs/scale.md's mapInPandas sketch without Spark: batches in any grouping,
    pickled int64 sums added on the driver, equal to the single-process scores."""
    import pickle

    from gecmetrics.corpus import Corpus
    from gecmetrics.registry import metric_from_spec
    from gecmetrics.workflows.distributed import (
        add_sums,
        corpus_from_sums,
        count_partition,
        partial_sums,
        records,
        sentence_scores,
    )

    metrics, systems = [metric_from_spec("green"), metric_from_spec("chrf")], ["AMU"]
    one = Corpus(corpus.sources, corpus.references, {"AMU": corpus.hypotheses["AMU"]})
    recs = records(one)
    batches = [recs[i:i + 300] for i in range(0, len(recs), 300)]
    tasks = [batches[:1], batches[1:3], batches[3:]]  # a task sums its batches
    rows = []
    for task in tasks:
        sums = [partial_sums(count_partition(b, metrics, systems), metrics, systems)
                for b in task]
        rows.append(pickle.dumps(add_sums(sums)))
    total = add_sums([pickle.loads(r) for r in reversed(rows)])  # any order
    example = count_partition(recs[:1], metrics, systems)
    got = [r.score for r in corpus_from_sums(total, metrics, systems, example)]
    assert got == [r.score for m in metrics for r in m.evaluate(one)]
    frames = [sentence_scores(count_partition(b, metrics, systems), metrics, systems)
              for b in batches]
    column = np.concatenate([f["green|AMU"].to_numpy() for f in frames])
    np.testing.assert_array_equal(column, metrics[0].evaluate(one, "sentence")[0].scores)
