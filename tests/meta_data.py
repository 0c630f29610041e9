"""Where the real benchmark data lives for the meta-evaluation tests (no fixtures here,
so it does not clash with a conftest): ../shared/data beside the repository, or
$GECMETRICS_SHARED_DATA."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

SHARED_DATA = Path(
    os.environ.get("GECMETRICS_SHARED_DATA")
    or Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
).resolve()


def shared_data() -> Path:
    if not (SHARED_DATA / "GJG15" / "judgments.xml").is_file():
        raise AssertionError(f"real data not found at {SHARED_DATA}; set GECMETRICS_SHARED_DATA")
    return SHARED_DATA


@cache
def benchmark(name: str, seeda_corpus: str = "subset"):
    from gecmetrics.meta_eval.benchmarks import load_benchmark

    return load_benchmark(name, shared_data(), seeda_corpus=seeda_corpus)
