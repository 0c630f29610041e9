"""Benchmark the cost of reading inputs strictly, on CoNLL-2014.

Run from the repository root:  python bench/bench_readers.py
The data are read from ../shared/data (or $GECMETRICS_SHARED_DATA). Baselines,
measured in the same run:

* strict M2 reading (:func:`gecmetrics.m2.read_m2`) against reading the same
  file's lines (:func:`gecmetrics.readers.read_lines`: open, decode, split),
  the part of the work every reader does;
* the shifted-output check (:func:`gecmetrics.alignment.find_shift`) on the
  12 team outputs against reading those 12 files, and against scoring them
  with wordGREEN (the cheapest metric).

Each time is the best of several repeats; peak memory is measured with
tracemalloc on one more run.
"""

from __future__ import annotations

import os
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gecmetrics.alignment import find_shift, token_sets
from gecmetrics.corpus import Corpus
from gecmetrics.m2 import read_m2
from gecmetrics.readers import read_lines
from gecmetrics.registry import get_metric

TEAMS = "AMU CAMB CUUI IITB IPN NTHU PKU POST RAC SJTU UFC UMC".split()
REPEATS = 7


def shared_data() -> Path:
    env = os.environ.get("GECMETRICS_SHARED_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def measure(func: Callable[[], Any]) -> tuple[float, int]:
    """(best wall time in seconds over REPEATS runs, peak traced memory in bytes)."""
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    tracemalloc.start()
    func()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return best, peak


def row(label: str, seconds: float, peak: int, baseline: float | None = None) -> None:
    ratio = f"{seconds / baseline:8.2f}x" if baseline else " baseline"
    print(f"  {label:46s} {seconds * 1000:9.2f} ms {peak / 2**20:8.2f} MiB {ratio}")


def main() -> None:
    data = shared_data()
    m2_path = data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"
    print("M2 reading, CoNLL-2014 (1,312 sentences, 5,873 edit lines):")
    base, peak = measure(lambda: read_lines(m2_path, "M2"))
    row("read_lines (decode, split)", base, peak)
    t, peak = measure(lambda: read_m2(m2_path))
    row("read_m2, strict", t, peak, base)

    m2 = read_m2(m2_path)
    files = [data / "official_submissions" / team for team in TEAMS]
    outputs = {t: read_lines(p, "hypothesis") for t, p in zip(TEAMS, files, strict=True)}

    def check() -> None:
        sources = token_sets(m2.sources)
        for lines in outputs.values():
            assert find_shift(m2.sources, lines, sources) is None

    corpus = Corpus(m2.sources, m2.references(), outputs)
    green = get_metric("green")
    print("Shifted-output check, 12 CoNLL-2014 team outputs:")
    base, peak = measure(lambda: [read_lines(path, "hypothesis") for path in files])
    row("read the 12 files (baseline)", base, peak)
    t, peak = measure(check)
    row("find_shift on the 12 outputs", t, peak, base)
    score, score_peak = measure(lambda: green.evaluate(Corpus(
        m2.sources, corpus.references, outputs)))
    row("wordGREEN scoring (second baseline)", score, score_peak)
    print(f"  check / wordGREEN scoring: {t / score:.2f}x; per output: {t / 12 * 1000:.2f} ms")


if __name__ == "__main__":
    main()
