"""Language-neutral edits: sentences per second against errant's English extraction.

Run from the repository root, with the kernels built (the errant extra needed for
the baseline):

    python bench/bench_neutral_edits.py [--systems AMU,CAMB,CUUI] [--repeat 3]

(i) CoNLL-2014, every changed (source, output) pair of ``--systems``, in the same
run (the neutral edits also once before spaCy is loaded, when the heap is
small): errant's ``Annotator.annotate`` on parses made beforehand (a parse cache in
memory, not timed: the baseline's cheapest case; parsing costs it more), errant
with the parsing timed (``Annotator.parse`` of both sides, then ``annotate``),
and :func:`gecmetrics.edits.neutral.neutral_edits` on the whitespace tokens (it
needs no parse). Repetitions interleaved, medians; sentence pairs per second and
the ratio to errant.

(ii) A 2,000-token essay rewritten throughout (tests/essay_cases.py's
``essay_pair``): the neutral edits, the M2 block ``m2-from-text`` writes for it
and ``-m m2:edits=neutral`` / ``-m errant:edits=neutral`` on it (the essay as
system output), each in a forked child so that its peak RSS is its own.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import harness

from gecmetrics.corpus import Corpus
from gecmetrics.edits import neutral
from gecmetrics.registry import get_metric

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))



def conll_pairs(args) -> None:
    from gecmetrics.edits.extraction import load_annotator
    from gecmetrics.edits.parse_cache import ParseCache

    data = harness.shared_data(args.data_dir)
    m2, hyps = harness.conll14(data, args.systems.split(","))
    pairs = [(src, line) for lines in hyps.values()
             for src, line in zip(m2.sources, lines, strict=False) if src.split() != line.split()]
    tokens = [(a.split(), b.split()) for a, b in pairs]
    alone = harness.measure(lambda: [neutral.neutral_edits(a, b) for a, b in tokens],
                            repeat=args.repeat).median  # before spaCy fills the heap
    annotator, nlp = load_annotator()  # spaCy and errant once, outside the timings
    cache = ParseCache(nlp, root=False, progress=False)
    cache.parse_all([t for pair in pairs for t in pair])
    docs = [(cache.get(a), cache.get(b)) for a, b in pairs]
    times = harness.interleaved({
        "errant parsed": lambda: [annotator.annotate(o, c) for o, c in docs],
        "errant parse+annotate": lambda: [annotator.annotate(annotator.parse(a),
                                                             annotator.parse(b))
                                          for a, b in pairs],
        "neutral": lambda: [neutral.neutral_edits(a, b) for a, b in tokens],
    }, args.repeat)
    n = len(pairs)
    print(f"(i) CoNLL-2014, {n:,} changed pairs of {args.systems}; median of {args.repeat} "
          f"interleaved runs; kernel built: {neutral.compiled()}", flush=True)
    table = harness.Table("pairs/s", peak=False)
    table.baseline("errant annotate (parses cached)", times["errant parsed"],
                   f"{n / times['errant parsed']:,.0f}")
    table.row("neutral_edits", times["neutral"], f"{n / times['neutral']:,.0f}")
    table.baseline("errant parse + annotate", times["errant parse+annotate"],
                   f"{n / times['errant parse+annotate']:,.0f}")
    table.row("neutral_edits", times["neutral"], f"{n / times['neutral']:,.0f}")
    table.alone("neutral_edits before spaCy is loaded", alone, f"{n / alone:,.0f}")


def _essay(step: str) -> float:
    from essay_cases import essay_pair

    src, tgt = essay_pair()
    hyp = essay_pair(seed=8)[1]  # another rewrite of the same essay: the system output
    start = time.perf_counter()
    if step == "edits":
        neutral.neutral_edits(src, tgt)
    elif step == "m2 block":
        neutral.m2_block(src, [tgt])
    else:
        corpus = Corpus([" ".join(src)], [[" ".join(tgt)]], {"sys": [" ".join(hyp)]})
        get_metric(step.split(":")[0], edits="neutral").statistics(corpus)
    return time.perf_counter() - start


def essay() -> None:
    print("(ii) a 2,000-token essay rewritten throughout: seconds, peak RSS of a child "
          "(process start and imports included in the peak)", flush=True)
    table = harness.Table()
    for step in ("edits", "m2 block", "m2:edits=neutral", "errant:edits=neutral"):
        took, peak = harness.call_in_child(_essay, step)
        table.alone(step, harness.Timing(None, took, took, took, peak))


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--systems", default="AMU,CAMB,CUUI")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", choices=("conll", "essay"), default=None)
    args = ap.parse_args()
    if not neutral.compiled():
        print("note: the alignment kernel is not built (python setup.py build_ext --inplace); "
              "timing the pure-Python alignment", flush=True)
    if args.only != "essay":
        conll_pairs(args)
    if args.only != "conll":
        essay()


if __name__ == "__main__":
    main()
