"""Essay-level scoring: what a 2,000-token essay costs over the same text in sentences.

Run from the repository root, with the kernels built (python setup.py build_ext --inplace):

    python bench/bench_essays.py [--repeat 3] [--only SPEC] [--markdown]

(``--markdown``: also the table of docs/multigec.md, with the load average.)

The essay is tests/essay_cases.py's (the one tests/test_essay_bounds.py and
tests/test_neutral_edits.py bound): 2,000 tokens, one reference and a system output
that each rewrite about every other word, token for token. Per metric, in the same
run, the baseline scores the same three texts cut into 100 sentences of 20 tokens
(the cut is clean: every rewrite keeps the source's length), then the essay as one
item; the ratio (essay / sentences) is what essay level costs over sentence level.

Each case runs in a forked child (the harness's ``call_in_child``), so that its peak
RSS is its own (the parent's imports, shared at the fork, included: the same for
both sides); the time is one ``evaluate`` on a fresh corpus and metric, best of
``--repeat`` runs in that child (the ``first`` column: the first run, which also
imports what the metric needs). ERRANT runs with ``cache=false``: its disk cache of edits would make
every run after the first a lookup.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import harness

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

#: the metrics timed: (row name, spec)
SPECS = (
    ("GLEU", "gleu"),
    ("chrF", "chrf"),
    ("GREEN word", "green"),
    ("GREEN char", "green:tokenize=char"),
    ("errant:edits=neutral", "errant:edits=neutral,cache=false"),
    ("m2:edits=neutral", "m2:edits=neutral"),
)
#: the baseline's sentences: SENTENCES of SENTENCE_TOKENS tokens (the essay's 2,000)
SENTENCES, SENTENCE_TOKENS = 100, 20


def _texts(tokens: list[str], sentences: bool) -> list[str]:
    """The essay as one item, or cut into sentences of SENTENCE_TOKENS tokens."""
    if not sentences:
        return [" ".join(tokens)]
    return [" ".join(tokens[i:i + SENTENCE_TOKENS])
            for i in range(0, len(tokens), SENTENCE_TOKENS)]


def _case(spec: str, sentences: bool, repeat: int) -> dict[str, float]:
    from essay_cases import essay_case

    from gecmetrics.corpus import Corpus
    from gecmetrics.registry import metric_from_spec

    src, refs, hyp = essay_case()
    assert len(_texts(src, True)) == SENTENCES
    walls: list[float] = []
    score = float("nan")
    for _ in range(repeat):
        corpus = Corpus(_texts(src, sentences), [_texts(ref, sentences) for ref in refs],
                        {"sys": _texts(hyp, sentences)})  # a fresh corpus: no cached counts
        metric = metric_from_spec(spec)
        start = time.perf_counter()
        score = float(metric.evaluate(corpus)[0].score or 0.0)
        walls.append(time.perf_counter() - start)
    return {"seconds": min(walls), "first": walls[0], "score": score}


def main() -> None:
    ap = harness.parser(__doc__, data=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=None, metavar="SPEC",
                    help="one metric of the table, by its spec (e.g. gleu)")
    ap.add_argument("--markdown", action="store_true",
                    help="also print the rows of docs/multigec.md's table")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    from gecmetrics.edits import neutral

    if not neutral.compiled():
        print("note: the alignment kernel is not built (python setup.py build_ext --inplace); "
              "timing the pure-Python alignment", flush=True)
    print(f"one 2,000-token essay vs the same text as {SENTENCES} sentences of "
          f"{SENTENCE_TOKENS} tokens: best of {args.repeat} evaluate() runs, peak RSS of a "
          "forked child (imports included); ratio essay / sentences", flush=True)
    table = harness.Table("first", "score", width=46, speedup=False)
    rows: list[str] = []
    for name, spec in SPECS:
        if args.only and spec.split(",")[0] != args.only and spec != args.only:
            continue
        measured = []
        for sentences in (True, False):
            got, peak = harness.call_in_child(_case, spec, sentences, args.repeat)
            measured.append((got["seconds"], peak))
            timing = harness.Timing(None, got["seconds"], got["seconds"], got["seconds"], peak)
            label = f"{name}: {SENTENCES} x {SENTENCE_TOKENS}" if sentences else \
                f"{name}: one essay"
            add = table.baseline if sentences else table.row
            add(label, timing, f"{got['first']:.4f}", f"{got['score']:.4f}")
        (base, base_peak), (essay, essay_peak) = measured
        rows.append(f"| {name} (`{spec}`) | {base:.3f} s, {base_peak:.0f} MiB | "
                    f"{essay:.3f} s, {essay_peak:.0f} MiB | {essay / base:.1f}x |")
    if args.markdown:
        load = max(load, os.getloadavg()[0])
        print(f"\n| metric | {SENTENCES} sentences of {SENTENCE_TOKENS} tokens | one "
              f"2,000-token essay | essay / sentences |\n| --- | --- | --- | --- |")
        print("\n".join(rows))
        print(f"\n(load average up to {load:.1f}: `uptime` before and after the run)")


if __name__ == "__main__":
    main()
