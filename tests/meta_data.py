"""The real benchmark data for the meta-evaluation tests, as plain functions (usable
at any scope). The folder and the skip without it are conftest's (one gate)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from conftest import require_shared_data


def shared_data() -> Path:
    """The data folder; skips the calling test when the data is not there."""
    return require_shared_data()


@cache
def benchmark(name: str, seeda_corpus: str = "subset"):
    from gecmetrics.meta_eval.benchmarks import load_benchmark

    return load_benchmark(name, shared_data(), seeda_corpus=seeda_corpus)
