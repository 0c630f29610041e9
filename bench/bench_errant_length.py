"""How the ERRANT family's time grows with sentence length (the evidence for MAX_TOKENS).

Run from the repository root (needs the errant extra; PT-ERRANT also the neural one):

    python bench/bench_errant_length.py [--lengths 50,100,200,300,400] [--metrics ...]

One sentence pair per run, made of CoNLL-2014 source text cut to N tokens:
``few`` edits (one every 20 tokens: a deletion, an insertion or a changed word)
or ``rewritten`` throughout (another stretch of text of the same length); the
reference is the source with other few edits. Each metric computes its
statistics with ``cache=false`` and ``max_tokens`` raised, in this process
after spaCy is loaded (startup, 3 to 8 s on a loaded machine, is not counted).
PT-ERRANT uses the tiny random BERT of the tests (tests/ptm2_tiny.py), so its
time is ERRANT's plus a small BERTScore. Prints seconds per (metric, N, kind)
and the process's peak RSS so far. The last column is the default limit's
verdict: every pair is refused (in well under a second) above it.
"""

from __future__ import annotations

import random
import resource
import sys
import tempfile
import time

import harness

sys.path.insert(0, str(harness.ROOT / "tests"))

from gecmetrics.corpus import Corpus  # noqa: E402
from gecmetrics.edits.extraction import MAX_TOKENS, load_annotator  # noqa: E402
from gecmetrics.m2_format import read_m2  # noqa: E402
from gecmetrics.registry import get_metric  # noqa: E402


def few_edits(tokens: list[str], seed: int, every: int = 20) -> list[str]:
    """``tokens`` with one edit every ``every`` tokens (delete, insert 'the', add 's')."""
    rnd, out = random.Random(seed), []
    for i, t in enumerate(tokens):
        if i % every == every // 2:
            kind = rnd.randrange(3)
            if kind == 0:
                continue
            out += [t, "the"] if kind == 1 else [t + "s"]
            continue
        out.append(t)
    return out


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--lengths", default="50,100,200,300,400")
    ap.add_argument("--metrics", default="errant,cleme,gotoscorer,pterrant")
    ap.add_argument("--kinds", default="few,rewritten")
    args = ap.parse_args()
    data = harness.shared_data(args.data_dir)
    m2 = read_m2(data / harness.CONLL_M2)
    words = [t for s in m2.sources for t in s.split()]
    load_annotator()  # spaCy and errant once, outside the timings
    options: dict[str, dict] = {}
    if "pterrant" in args.metrics:
        from ptm2_tiny import tiny_bert, vocabulary  # type: ignore[import-not-found]

        folder = tiny_bert(tempfile.mkdtemp(prefix="bench-tiny-"), vocabulary(m2.sources))
        options["pterrant"] = {"model": folder, "layer": 2, "device": "cpu"}
    print("metric\ttokens\tkind\tseconds\tpeak_rss_mb\tdefault")
    for name in args.metrics.split(","):
        for n in map(int, args.lengths.split(",")):
            for kind in args.kinds.split(","):
                src = words[:n]
                hyp = few_edits(src, 1) if kind == "few" else words[5000:5000 + n]
                corpus = Corpus([" ".join(src)], [[" ".join(few_edits(src, 2))]],
                                {"h": [" ".join(hyp)]})
                metric = get_metric(name, cache=False, max_tokens=100_000,
                                    **options.get(name, {}))
                start = time.perf_counter()
                metric.statistics(corpus)
                took = time.perf_counter() - start
                peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
                verdict = "runs" if n <= MAX_TOKENS else "refused"
                print(f"{name}\t{n}\t{kind}\t{took:.2f}\t{peak}\t{verdict}", flush=True)


if __name__ == "__main__":
    main()
