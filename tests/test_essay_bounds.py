"""Essay-level bounds: a 2,000-token essay rewritten throughout, GLEU, chrF and GREEN
each under ESSAY_SECONDS and ESSAY_MEMORY_MB (docs/multigec.md), each in its own process
so that its peak memory is its own."""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import pytest

ESSAY_SECONDS = 10
ESSAY_MEMORY_MB = 500

CHILD = r"""
import json, random, resource, sys, time
from gecmetrics.corpus import Corpus
from gecmetrics.registry import metric_from_spec
rng = random.Random(7)
words = [f"sõna{i}ψ" for i in range(600)]
source = [rng.choice(words) for _ in range(2000)]
# rewritten throughout: every third token changed, some inserted, some dropped
hyp = [w if i % 3 else rng.choice(words) for i, w in enumerate(source) if i % 17]
ref = [w if i % 4 else rng.choice(words) for i, w in enumerate(source)] + ["end"]
corpus = Corpus([" ".join(source)], [[" ".join(ref)], [" ".join(ref[::-1])]],
                {"sys": [" ".join(hyp)]})
start = time.perf_counter()
score = metric_from_spec(sys.argv[1]).evaluate(corpus)[0].score
print(json.dumps({"seconds": time.perf_counter() - start, "score": score,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


@pytest.mark.full
@pytest.mark.parametrize("spec", ["gleu", "chrf", "green", "green:tokenize=char"])
def test_essay_metric_is_bounded(spec):
    limit = (ESSAY_MEMORY_MB + 1500) << 20  # address space: numpy maps more than it touches

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    proc = subprocess.run([sys.executable, "-c", CHILD, spec], capture_output=True, text=True,
                          timeout=120, preexec_fn=cap)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout)
    assert 0 <= got["score"] <= 1  # finite, in range (GLEU: 0 here, no 4-gram left)
    assert got["seconds"] < ESSAY_SECONDS, got
    assert got["peak_mb"] < ESSAY_MEMORY_MB, got
