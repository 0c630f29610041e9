"""The LLM judge against gec-metrics' own logic on 60 real CoNLL-2014 sentences.

tests/gec_metrics_llm_judge_reference.json was recorded by
tests/reference/gec_metrics_llm_judge.py: gec-metrics 0.1.1's
``LLMKobayashi24.score_pairwise`` with its client answering the stub server's
rule (1 + len(target) % 5 per target). Here gecmetrics' llm-judge asks the stub
server (tests/llm_stub.py) about the same sentences and 13 systems (12 teams +
INPUT). Where the two agree by design they must agree exactly:

* a sentence with at most five distinct hypotheses is one prompt in both, with
  the same targets in the same (sorted) order;
* every pairwise verdict gec-metrics records (win/tie/loss between two systems)
  equals the order of gecmetrics' sentence scores. gec-metrics leaves pairs
  unjudged (None) when a sentence has more than five distinct hypotheses (it
  asks about the five most frequent only); gecmetrics asks about all of them in
  several prompts, so it judges a superset: only gec-metrics' judged pairs are
  compared, and the count of unjudged ones is pinned.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from llm_stub import Stub

from gecmetrics.corpus import Corpus
from gecmetrics.metrics.llm_judge import LlmJudge
from gecmetrics.metrics.llm_prompts import group_targets

REFERENCE = Path(__file__).with_name("gec_metrics_llm_judge_reference.json")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path / "cache"))


def test_equals_gec_metrics_where_they_agree(conll):
    ref = json.loads(REFERENCE.read_text(encoding="utf-8"))
    sources, _, all_hyps = conll
    n, systems = ref["sentences"], ref["systems"]
    hyps = {s: list(all_hyps[s][:n]) for s in systems}
    corpus = Corpus.build(list(sources[:n]), [list(sources[:n])], hyps)
    with Stub() as stub:
        metric = LlmJudge(model="stub", base_url=stub.base_url, backoff=0.0, workers=4)
        sent = np.array([r.scores for r in metric.evaluate(corpus, level="sentence")])
        asked = sorted(stub.prompts())
    # same targets, same order, for every sentence of at most five distinct hypotheses
    theirs = iter(ref["targets"])
    small = 0
    for d in range(n):
        groups = group_targets([hyps[s][d] for s in systems], 5)
        their_targets = next(theirs)
        if len(groups) == 1:
            small += 1
            assert groups[0] == their_targets, d
    assert small == 24 and len(asked) > n  # the other 36 need 2-3 prompts
    # every pairwise verdict gec-metrics made
    compared = unjudged = 0
    for d, table in enumerate(ref["pairwise"]):
        for i in range(len(systems)):
            for j in range(len(systems)):
                if table[i][j] is None:
                    unjudged += 1
                    continue
                ours = int(np.sign(sent[i, d] - sent[j, d]))
                assert ours == table[i][j], (d, systems[i], systems[j])
                compared += 1
    assert unjudged == 3244 and compared == n * len(systems) ** 2 - unjudged
