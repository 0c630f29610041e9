"""A toy benchmark: four systems whose outputs copy more or less of the reference."""

from __future__ import annotations

from typing import Any

from gecmetrics.corpus import Corpus
from gecmetrics.meta_eval.benchmarks.base import Benchmark

SOURCES = ["he go to school", "she like apples", "they was here", "it rain yesterday"]
REFERENCE = ["he goes to school", "she likes apples", "they were here", "it rained yesterday"]


def load(root: Any, name: str = "toybench", toy_systems: str = "4") -> Benchmark:
    """Systems ``s0``..``s3``: ``sK`` corrects the first K sentences (human score K);
    ``toy_systems`` (its own option, declared in toybench.json): how many to load."""
    hyps = {f"s{k}": [REFERENCE[i] if i < k else SOURCES[i] for i in range(4)]
            for k in range(int(toy_systems))}
    corpus = Corpus(SOURCES, [REFERENCE], hyps)
    human = {"ew": {f"s{k}": float(k) for k in range(int(toy_systems))}}
    return Benchmark(name, corpus, human, {"all": list(hyps)}, "all",
                     setting="toy (4 sentences)")
