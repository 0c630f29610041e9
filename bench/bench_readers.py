"""Benchmark the cost of reading inputs strictly, on CoNLL-2014.

Run from the repository root:  python bench/bench_readers.py
The data are read from --data-dir, else $GECMETRICS_SHARED_DATA, else
../shared/data. Baselines, measured in the same run (ratios: time / baseline):

* strict M2 reading (:func:`gecmetrics.m2_format.read_m2`) against reading the same
  file's lines (:func:`gecmetrics.readers.read_lines`: open, decode, split),
  the part of the work every reader does;
* the shifted-output check (:func:`gecmetrics.alignment.find_shift`) on the
  12 team outputs against reading those 12 files, and against scoring them
  with wordGREEN (the cheapest metric).

Each time is the best of several repeats; peak memory is measured with
tracemalloc on one more run.
"""

from __future__ import annotations

import harness

from gecmetrics.alignment import find_shift, token_sets
from gecmetrics.corpus import Corpus
from gecmetrics.m2_format import read_m2
from gecmetrics.readers import read_lines
from gecmetrics.registry import get_metric

REPEATS = 7


def main() -> None:
    args = harness.parser(__doc__).parse_args()
    data = harness.shared_data(args.data_dir)
    m2_path = data / harness.CONLL_M2
    print("M2 reading, CoNLL-2014 (1,312 sentences, 5,873 edit lines):")
    table = harness.Table(width=46, speedup=False)
    table.baseline("read_lines (decode, split)",
                   harness.measure(lambda: read_lines(m2_path, "M2"), REPEATS, "rerun"))
    table.row("read_m2, strict", harness.measure(lambda: read_m2(m2_path), REPEATS, "rerun"))

    m2, outputs = harness.conll14(data)
    files = [data / harness.SUBMISSIONS / team for team in harness.TEAMS]

    def check() -> None:
        sources = token_sets(m2.sources)
        for lines in outputs.values():
            assert find_shift(m2.sources, lines, sources) is None

    corpus = Corpus(m2.sources, m2.references(), outputs)
    green = get_metric("green")
    print("Shifted-output check, 12 CoNLL-2014 team outputs:")
    table.baseline("read the 12 files", harness.measure(
        lambda: [read_lines(path, "hypothesis") for path in files], REPEATS, "rerun"))
    shift = harness.measure(check, REPEATS, "rerun")
    table.row("find_shift on the 12 outputs", shift)
    table.baseline("wordGREEN scoring (second baseline)", harness.measure(
        lambda: green.evaluate(Corpus(m2.sources, corpus.references, outputs)), REPEATS,
        "rerun"))
    table.row("find_shift on the 12 outputs", shift)
    print(f"  per output: {shift.seconds / 12 * 1000:.2f} ms")


if __name__ == "__main__":
    main()
