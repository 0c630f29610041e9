"""ERRANT's alignment: errant 3.0.2's own Python vs the compiled kernel, in the same run.

Run from the repository root, with the kernels built (the errant extra needed):

    python bench/bench_errant_align.py [--systems AMU,CAMB,CUUI] [--repeat 3] [--lengths 300,1000]

(i) CoNLL-2014, every changed (source, output) pair of ``--systems``, parses
made beforehand (a parse cache in memory, not timed): errant's
``Annotator.annotate`` (alignment, rule-based merging, classification: what
``errant_parallel`` does per pair) vs ``gecmetrics.edits.errant_align.annotate``
(the same with the compiled alignment), and the alignment alone (errant's
``Alignment`` vs ``align_seq``). Repetitions interleaved, medians. Checks the
edits are equal.

(ii) One pair of N x N tokens rewritten throughout (CoNLL-2014 source text cut
to N tokens against another stretch of N tokens, as bench/bench_errant_length.py
makes them), per ``--lengths``: the same two routes, once each, each in a forked
child so that its peak RSS is its own; then ``-m errant`` end to end on that pair
(``Errant.statistics`` with ``max_tokens`` raised, no caches; spaCy loaded
beforehand). errant's route at 1,000 tokens takes minutes: ``--skip-errant N``
leaves it out for lengths of N and more.
"""

from __future__ import annotations

import time

import harness

from gecmetrics.corpus import Corpus
from gecmetrics.edits import errant_align
from gecmetrics.edits.extraction import load_annotator
from gecmetrics.edits.parse_cache import ParseCache
from gecmetrics.registry import get_metric


def _edits(edits) -> list[tuple]:
    return [(e.o_start, e.o_end, e.c_start, e.c_end, e.c_str, e.type) for e in edits]



def conll_pairs(args, annotator, nlp) -> None:
    data = harness.shared_data(args.data_dir)
    systems = args.systems.split(",")
    m2, hyps = harness.conll14(data, systems)
    cache = ParseCache(nlp, root=False, progress=False)
    pairs = [(src, line) for lines in hyps.values()
             for src, line in zip(m2.sources, lines, strict=False) if src.split() != line.split()]
    cache.parse_all([t for pair in pairs for t in pair])
    docs = [(cache.get(a), cache.get(b)) for a, b in pairs]
    ours = [_edits(errant_align.annotate(annotator, o, c)) for o, c in docs]
    theirs = [_edits(annotator.annotate(o, c)) for o, c in docs]
    assert ours == theirs, "the kernel's edits differ from errant's"
    print(f"(i) CoNLL-2014, {len(docs):,} changed pairs of {', '.join(systems)}; parses "
          f"cached; median of {args.repeat} interleaved runs; edits equal", flush=True)
    from errant.alignment import Alignment

    times = harness.interleaved({
        "errant annotate": lambda: [annotator.annotate(o, c) for o, c in docs],
        "kernel annotate": lambda: [errant_align.annotate(annotator, o, c) for o, c in docs],
        "errant Alignment": lambda: [Alignment(o, c) for o, c in docs],
        "kernel align_seq": lambda: [errant_align.align_seq(o, c) for o, c in docs],
    }, args.repeat)
    table = harness.Table(peak=False)
    table.baseline("errant: alignment, merging, types", times["errant annotate"])
    table.row("kernel: alignment, merging, types", times["kernel annotate"])
    table.baseline("errant: alignment only", times["errant Alignment"])
    table.row("kernel: alignment only", times["kernel align_seq"])


def _pair_annotate(native: bool, src: str, hyp: str) -> list:
    annotator, _ = load_annotator()
    orig, cor = annotator.parse(src), annotator.parse(hyp)
    start = time.perf_counter()
    edits = _edits(errant_align.annotate(annotator, orig, cor, native=native))
    return [time.perf_counter() - start, edits]


def long_pairs(args, words: list[str]) -> None:
    print("(ii) one N x N pair rewritten throughout: seconds (peak RSS of a child process "
          "that parses and aligns it)", flush=True)
    table = harness.Table("tokens")
    for n in map(int, args.lengths.split(",")):
        src, hyp = " ".join(words[:n]), " ".join(words[5000:5000 + n])
        (took, edits), peak = harness.call_in_child(_pair_annotate, True, src, hyp)
        if n < args.skip_errant:
            (base, theirs), base_peak = harness.call_in_child(_pair_annotate, False, src, hyp)
            assert theirs == edits, f"the kernel's edits differ from errant's at {n} tokens"
            table.baseline(f"errant annotate {n}x{n}",
                           harness.Timing(None, base, base, base, base_peak), str(n))
        kernel = harness.Timing(None, took, took, took, peak)
        if n < args.skip_errant:
            table.row(f"kernel annotate {n}x{n}", kernel, str(n))
        else:
            table.alone(f"kernel annotate {n}x{n}", kernel, str(n))
        corpus = Corpus([src], [[src]], {"h": [hyp]})
        metric = get_metric("errant", cache=False, max_tokens=max(n, 300))
        timing = harness.measure(lambda m=metric, c=corpus: m.statistics(c))
        table.alone(f"-m errant end to end {n}x{n} (kernel)", timing.seconds, str(n))


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--systems", default="AMU,CAMB,CUUI")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--lengths", default="300,1000")
    ap.add_argument("--skip-errant", type=int, default=10**9,
                    help="leave errant's own route out for pairs of this many tokens or more")
    ap.add_argument("--only", choices=("conll", "long"), default=None)
    args = ap.parse_args()
    if not errant_align.compiled():
        raise SystemExit("the alignment kernel is not built: python setup.py build_ext --inplace")
    annotator, nlp = load_annotator()  # spaCy and errant once, outside the timings
    if args.only != "long":
        conll_pairs(args, annotator, nlp)
    if args.only != "conll":
        from gecmetrics.m2_format import read_m2

        m2 = read_m2(harness.shared_data(args.data_dir) / harness.CONLL_M2)
        long_pairs(args, [t for s in m2.sources for t in s.split()])


if __name__ == "__main__":
    main()
