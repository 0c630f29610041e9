"""Essay-level bounds: a 2,000-token essay rewritten throughout (tests/essay_cases.py,
shared with bench/bench_essays.py), GLEU, chrF and GREEN
each under ESSAY_SECONDS and ESSAY_MEMORY_MB (docs/multigec.md), each in its own process
so that its peak memory is its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from essay_cases import ESSAY_MEMORY_MB, ESSAY_SECONDS, run_bounded

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[2])
from essay_cases import essay_case
from gecmetrics.corpus import Corpus
from gecmetrics.registry import metric_from_spec
# the shared essay (tests/essay_cases.py): two references, every other word rewritten
source, refs, hyp = essay_case(references=2)
corpus = Corpus([" ".join(source)], [[" ".join(ref)] for ref in refs],
                {"sys": [" ".join(hyp)]})
start = time.perf_counter()
score = metric_from_spec(sys.argv[1]).evaluate(corpus)[0].score
print(json.dumps({"seconds": time.perf_counter() - start, "score": score}))
"""


@pytest.mark.full
@pytest.mark.parametrize("spec", ["gleu", "chrf", "green", "green:tokenize=char"])
def test_essay_metric_is_bounded(spec):
    tests = str(Path(__file__).resolve().parent)
    stdout, stderr, code, peak_mb = run_bounded(["-c", CHILD, spec, tests])
    assert code == 0, stderr[-2000:]
    got = json.loads(stdout)
    assert 0 <= got["score"] <= 1  # finite, in range
    assert got["seconds"] < ESSAY_SECONDS, got
    assert peak_mb < ESSAY_MEMORY_MB, (got, peak_mb)
