"""The scoring library: ScoreOptions checked once, the execution plan chosen from the
metrics' capabilities, typed results that the CLI only renders."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.interface.score_report import render_scores, write_sentence_stream
from gecmetrics.metric import SentenceCounts
from gecmetrics.paired import PairedOptions
from gecmetrics.registry import get_metric
from gecmetrics.scoring import ScoreOptions, load_corpus, plan, score, stream_sentence_scores

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"


@pytest.fixture()
def files():
    return dict(source=str(EXAMPLE / "source.txt"),
                references=[str(EXAMPLE / "ref0.txt"), str(EXAMPLE / "ref1.txt")],
                hypotheses=[str(EXAMPLE / "system_a.txt"), str(EXAMPLE / "system_b.txt")])


def test_options_are_checked_when_made(files):
    with pytest.raises(ConfigError, match="-b/--beta"):
        ScoreOptions(**files, betas=[-1.0])
    with pytest.raises(ConfigError, match="-j/--jobs"):
        ScoreOptions(**files, jobs=0)
    with pytest.raises(ConfigError, match="--chunk-size"):
        ScoreOptions(**files, chunk_size=-1)
    with pytest.raises(ConfigError, match="unknown level 'doc'"):
        ScoreOptions(**files, level="doc")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="needs at least 2 after -c/--hypothesis"):
        ScoreOptions(**dict(files, hypotheses=files["hypotheses"][:1]),
                     paired=PairedOptions("bs", 100))
    with pytest.raises(ConfigError, match="unknown metric 'nope'"):
        ScoreOptions(**files, metrics=["nope"])
    with pytest.raises(ConfigError, match="--breakdown splits corpus scores"):
        ScoreOptions(**files, metrics=["m2"], level="sentence", breakdown="annotator")
    with pytest.raises(ConfigError, match="--paired-ar: gleu:mode=sampling"):
        ScoreOptions(**files, metrics=["gleu"], paired=PairedOptions("ar", 100))


def test_options_take_metric_objects_and_keep_the_checks_notes(files):
    green = get_metric("green", n=3)
    options = ScoreOptions(**files, metrics=[green, "gleu"], betas=[1])
    assert options.metric_objects[0] is green and options.metric_objects[1].name == "gleu"
    assert options.betas == (1.0,) and isinstance(options.hypotheses, tuple)
    assert options.notes == ("note: -b/--beta applies to green:n=3 only, not to gleu",)


def test_the_plan_follows_the_metrics_capabilities_and_the_inputs(files, tmp_path):
    assert plan(ScoreOptions(**files, metrics=["green", "gleu", "chrf"])) == "chunked"
    assert plan(ScoreOptions(**files, metrics=["green", "bleu"])) == "corpus"
    assert plan(ScoreOptions(**files, paired=PairedOptions("bs", 100))) == "corpus"
    assert plan(ScoreOptions(**dict(files, source="-"))) == "corpus"
    assert plan(ScoreOptions(**files, m2=str(tmp_path / "gold.m2"))) == "corpus"


def test_counting_capabilities():
    for name in ("green", "chrf"):
        counting = get_metric(name).counting()
        assert counting is not None and counting.not_additive is None
        assert not counting.needs_gold and counting.join == SentenceCounts.concat
    sampling = get_metric("gleu").counting()
    assert sampling is not None and "sampling" in (sampling.not_additive or "")
    assert sampling.additive_variant == "gleu:mode=max"
    maximum = get_metric("gleu", mode="max").counting()
    assert maximum is not None and maximum.not_additive is None
    m2 = get_metric("m2").counting()
    assert m2 is not None and m2.needs_gold and "running corpus totals" in (m2.not_additive or "")
    assert get_metric("bleu").counting() is None


def test_counting_by_parts_equals_the_whole_corpus(files):
    corpus = load_corpus(**files)
    half = corpus.num_sentences // 2 or 1
    for name in ("green", "gleu", "chrf"):
        metric = get_metric(name)
        counting = metric.counting()
        assert counting is not None
        parts = []
        for start, stop in ((0, half), (half, corpus.num_sentences)):
            part = Corpus(corpus.sources[start:stop],
                          [ref[start:stop] for ref in corpus.references],
                          {h: lines[start:stop] for h, lines in corpus.hypotheses.items()})
            parts.append(counting.count(part))
        stats = counting.statistics(tuple(corpus.hypotheses), counting.join(parts))
        whole = metric.statistics(corpus)
        assert [s.score for s in stats.corpus(None)] == [s.score for s in whole.corpus(None)]


def test_results_are_typed_and_equal_the_metrics_own(files):
    options = ScoreOptions(**files, metrics=["green", "gleu"], betas=[1, 2])
    results = score(options)
    corpus = load_corpus(**files)
    want = [r.to_json() for m in options.metric_objects
            for r in m.evaluate(corpus, "corpus", [1, 2])]
    assert [r.to_json() for r in results.results] == want
    rows = results.to_json()
    assert [{k: v for k, v in row.items() if k != "signature"} for row in rows] == want
    assert all(row["signature"].startswith(row["spec"].split(":")[0]) for row in rows)
    frame = results.to_frame()
    assert list(frame.columns) == ["metric", "spec", "hypothesis", "beta", "level", "score",
                                   "precision", "recall", "signature"]
    assert list(frame["score"]) == [row["score"] for row in rows]
    text, notes = render_scores(results, "json")
    assert json.loads(text) == rows and notes == list(options.notes)


def test_sentence_frame_has_one_row_per_sentence(files):
    results = score(ScoreOptions(**files, level="sentence"))
    frame = results.to_frame()
    lines = len(Path(files["source"]).read_text(encoding="utf-8").splitlines())
    assert len(frame) == 2 * lines and list(frame["sentence"])[:lines] == list(range(lines))
    assert list(frame["score"])[:lines] == results.results[0].scores


def test_stream_is_only_for_sentence_level_chunked_runs(files):
    assert stream_sentence_scores(ScoreOptions(**files)) is None
    assert stream_sentence_scores(ScoreOptions(**files, metrics=["bleu"],
                                               level="sentence")) is None
    options = ScoreOptions(**files, level="sentence", chunk_size=2)
    stream = stream_sentence_scores(options)
    assert stream is not None and len(stream.columns) == 2
    out = io.StringIO()
    write_sentence_stream(out, stream, "json")
    assert json.loads(out.getvalue()) == score(options).to_json()
