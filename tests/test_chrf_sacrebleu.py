"""chrF and chrF++ equal sacrebleu's CHRF on the 13 CoNLL-2014 outputs, both references.

sacrebleu's per-sentence statistics are computed with its own segment
function once per distinct (sentence, output line) (the 13 outputs share many
lines), then turned into corpus and sentence scores by its own aggregation;
a public-API check shows this shortcut equals ``corpus_score``/``sentence_score``.
Live in the full tier; the fast tier compares with sacrebleu's recorded public-API
scores (tests/data/sacrebleu_chrf_reference.json, made by
tests/reference/oracle_outputs.py): every corpus score, every tenth sentence.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from gleu_chrf_data import SYSTEMS, conll14
from sacrebleu.metrics import CHRF

from gecmetrics.corpus import Corpus
from gecmetrics.metrics.chrf import Chrf


@cache
def sacrebleu_scores(word_order: int):
    """{system: (corpus score, [sentence scores])} from sacrebleu, 0-100."""
    sources, refs, outputs = conll14()
    chrf = CHRF(word_order=word_order, references=refs)
    seen: dict[tuple[int, str], list[int]] = {}
    out = {}
    for name in SYSTEMS:
        stats = []
        for i, line in enumerate(outputs[name]):
            key = (i, line)
            if key not in seen:
                seen[key] = chrf._compute_segment_statistics(
                    chrf._preprocess_segment(line), chrf._ref_cache[i])
            stats.append(seen[key])
        out[name] = (chrf._aggregate_and_compute(stats).score,
                     [chrf._compute_f_score(s) for s in stats])
    return out


@cache
def our_results(word_order: int):
    sources, refs, outputs = conll14()
    corpus = Corpus(sources, refs, {name: outputs[name] for name in SYSTEMS})
    metric = Chrf(word_order=word_order)
    return metric.evaluate(corpus), metric.evaluate(corpus, "sentence")


RECORDED = json.loads((Path(__file__).parent / "data" / "sacrebleu_chrf_reference.json")
                      .read_text(encoding="utf-8"))


@pytest.mark.parametrize("word_order", [0, 2])
@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_equals_recorded_sacrebleu(word_order):
    want = RECORDED["word_order"][str(word_order)]
    corpus_results, sentence_results = our_results(word_order)
    assert [r.hypothesis for r in corpus_results] == list(want)
    for c, s in zip(corpus_results, sentence_results, strict=True):
        assert 100 * c.score == pytest.approx(want[c.hypothesis]["corpus"], abs=1e-9)
        got = 100 * np.array(s.scores[::RECORDED["stride"]])
        assert np.max(np.abs(got - want[s.hypothesis]["sentence"])) <= 1e-9, s.hypothesis


@pytest.mark.full
@pytest.mark.parametrize("word_order", [0, 2])
def test_corpus_level_equals_sacrebleu(word_order):
    expected = sacrebleu_scores(word_order)
    corpus_results, _ = our_results(word_order)
    assert [r.hypothesis for r in corpus_results] == list(SYSTEMS)
    for r in corpus_results:
        assert 100 * r.score == pytest.approx(expected[r.hypothesis][0], abs=1e-9), r.hypothesis


@pytest.mark.full
@pytest.mark.parametrize("word_order", [0, 2])
def test_sentence_level_equals_sacrebleu(word_order):
    expected = sacrebleu_scores(word_order)
    _, sentence_results = our_results(word_order)
    for r in sentence_results:
        got = 100 * np.array(r.scores)
        assert np.max(np.abs(got - expected[r.hypothesis][1])) <= 1e-9, r.hypothesis


@pytest.mark.full
def test_shortcut_equals_sacrebleu_public_api():
    sources, refs, outputs = conll14()
    chrf = CHRF(word_order=2)
    expected = sacrebleu_scores(2)["AMU"]
    assert chrf.corpus_score(outputs["AMU"], refs).score == expected[0]
    for i in range(0, len(sources), 25):
        public = chrf.sentence_score(outputs["AMU"][i], [ref[i] for ref in refs]).score
        assert public == expected[1][i]
