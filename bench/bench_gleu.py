"""Benchmark: gecmetrics GLEU against the `gleu` package (1.1.0) on CoNLL-2014.

The `gleu` package is the GLEU README's own implementation (shotakoyama/gleu);
it is not a dependency of gecmetrics. Install it by hand first:

    pip install gleu==1.1.0
    python bench/bench_gleu.py                 # AMU CAMB INPUT REF0, as in its README
    python bench/bench_gleu.py --systems all   # the 13 CoNLL-2014 outputs

Both run in this process on the same strings (sources and REF0/REF1 from the
M2 file), from raw text to scores, cold (no cache shared between runs). The
`gleu` side calls the package's own functions in the order its `corpus`
command does, so the scores are its full-precision values. The script prints
both timings, the ratio, and the largest score difference (expected: 0).
"""

from __future__ import annotations

import os
import sys

import harness
import numpy as np

sys.path.insert(0, str(harness.ROOT / "tests"))

from gleu_chrf_data import SYSTEMS, conll14  # noqa: E402

from gecmetrics.corpus import Corpus  # noqa: E402
from gecmetrics.metrics.gleu import Gleu  # noqa: E402


def run_gleu_package(sources, refs, hyps, n, tokenize, iterations, max_mode):
    from gleu.aggreg import make_hdrn_accum
    from gleu.corpus_main import drn_accum_to_gleu
    from gleu.count import make_dx_xlen, set_tokenization
    from gleu.score import (
        drn_accum_to_d_rmax,
        drn_accum_to_n_accum,
        n_accum_to_gleu,
        rindex_to_rhlen,
    )
    from gleu.util import make_id_rindex

    set_tokenization(tokenize)
    rs_dat = list(zip(*refs, strict=True))
    hs_dat = list(zip(*hyps, strict=True))
    dr_rlen = make_dx_xlen(rs_dat)
    dh_hlen = make_dx_xlen(hs_dat)
    hdrn_accum = make_hdrn_accum(n, sources, rs_dat, list(zip(*hs_dat, strict=True)))
    out = []
    if max_mode:
        for h, drn_accum in enumerate(hdrn_accum):
            d_hlen = dh_hlen[:, h]
            d_rmax = drn_accum_to_d_rmax(drn_accum, dr_rlen, d_hlen)
            rlen, hlen = rindex_to_rhlen(dr_rlen, d_hlen, d_rmax)
            out.append(n_accum_to_gleu(drn_accum_to_n_accum(drn_accum, d_rmax), rlen, hlen))
        return out
    id_rindex = make_id_rindex(iterations, len(sources), len(refs), True)
    for h, drn_accum in enumerate(hdrn_accum):
        d_hlen = dh_hlen[:, h]
        gleus = [drn_accum_to_gleu(drn_accum, d_rindex, dr_rlen, d_hlen)
                 for d_rindex in id_rindex]
        out.append(np.mean(gleus))
    return out


def run_gecmetrics(sources, refs, hyps, names, n, tokenize, iterations, max_mode):
    corpus = Corpus(sources, refs, dict(zip(names, hyps, strict=True)))
    metric = Gleu(n=n, tokenize=tokenize, iterations=iterations,
                  mode="max" if max_mode else "sampling")
    return [r.score for r in metric.evaluate(corpus)]


def main() -> None:
    parser = harness.parser(__doc__, data=None)
    parser.add_argument("--systems", default="readme", help="readme (default) or all")
    parser.add_argument("--tokenize", default="word", choices=["word", "char"])
    parser.add_argument("-n", type=int, default=None, help="max order (4 word, 6 char)")
    parser.add_argument("--iterations", type=int, default=500)
    parser.add_argument("--max", action="store_true", help="max mode instead of sampling")
    args = parser.parse_args()
    n = args.n or (4 if args.tokenize == "word" else 6)
    try:
        import gleu  # noqa: F401
    except ImportError:
        sys.exit("the gleu package is missing: pip install gleu==1.1.0")
    sources, refs, outputs = conll14()
    outputs = dict(outputs, REF0=refs[0])
    names = list(SYSTEMS) if args.systems == "all" else ["AMU", "CAMB", "INPUT", "REF0"]
    hyps = [outputs[name] for name in names]
    print(f"CoNLL-2014: {len(sources)} sentences, {len(refs)} references, systems "
          f"{' '.join(names)}; {args.tokenize} n={n}, "
          f"{'max mode' if args.max else f'sampling {args.iterations} rounds, official seed'}; "
          f"cpu count {os.cpu_count()}")

    mine = harness.measure(lambda: run_gecmetrics(sources, refs, hyps, names, n, args.tokenize,
                                                  args.iterations, args.max))
    package = harness.measure(lambda: run_gleu_package(sources, refs, hyps, n, args.tokenize,
                                                       args.iterations, args.max))
    ours, theirs = mine.value, package.value

    for name, a, b in zip(names, ours, theirs, strict=True):
        print(f"  {name:6s} gecmetrics {100 * a:.10f}  gleu 1.1.0 {100 * b:.10f}")
    diff = max(abs(a - b) for a, b in zip(ours, theirs, strict=True))
    identical = all(a == b for a, b in zip(ours, theirs, strict=True))
    print(f"max |difference| {diff:.3g} ({'bit-identical' if identical else 'NOT identical'})")
    table = harness.Table(width=12, peak=False)
    table.baseline("gleu 1.1.0", package)
    table.row("gecmetrics", mine)


if __name__ == "__main__":
    main()
