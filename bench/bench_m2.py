"""Benchmark the native M2 scorer: the 13 CoNLL-2014 outputs and adversarial sentences.

Run from the repository root:  python bench/bench_m2.py [--before DIR] [--repeat N]
Prints times; the data are read from --data-dir, else $GECMETRICS_SHARED_DATA, else
../shared/data (without them, the adversarial sentences only).
The adversarial sentences are timed on both paths in the same run: the compiled
kernel (when built) and the pure-Python code (the baseline); their counts must agree.

``--before DIR``: a checkout of the code before a change, its kernels built in place
(e.g. ``git worktree add DIR main`` and ``python setup.py build_ext --inplace`` there).
Two commands then run as fresh processes on this checkout and on DIR, interleaved,
``--repeat`` times each: the meta-evaluation main job (``meta-eval conll14 seeda-s
seeda-e`` with GREEN word and char and M2, as bench/bench_sweeps.py) and ``score -m m2``
on the 13 CoNLL-2014 outputs. It prints the medians and minima of wall and CPU seconds,
the ratio after / before, the load average before and after, and whether both trees
wrote byte-identical outputs.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import harness
from bench_sweeps import METRICS, child

from gecmetrics.corpus import Corpus
from gecmetrics.m2_format import M2Sentence
from gecmetrics.metrics.m2 import M2
from gecmetrics.metrics.m2_lattice import HAVE_KERNEL, GoldEdit, build_lattice, sentence_counts


def conll(data: Path) -> None:
    m2, hyps = harness.conll14(data, harness.OUTPUTS)
    corpus = Corpus(m2.sources, m2.references(), hyps, m2=m2)
    scored = harness.measure(lambda: M2().evaluate(corpus))
    total = scored.seconds
    for r in scored.value:
        print(f"  {r.hypothesis:6s} P {100 * r.precision:6.2f} R {100 * r.recall:6.2f} "
              f"F0.5 {100 * r.score:6.2f}")
    path = "compiled kernel" if HAVE_KERNEL else "pure Python (kernel not built)"
    # per sentence: a slowest-of scan, too fine-grained for harness.measure
    print(f"CoNLL-2014, 13 outputs x 1,312 sentences x 2 annotators: {total:.2f} s ({path})")
    worst, where = 0.0, None
    golds = [s.official_gold() for s in m2.sentences]
    seen = set()
    for name, lines in hyps.items():
        for d, line in enumerate(lines):
            src, hyp = m2.sentences[d].source.split(), line.split()
            if src == hyp or (d, tuple(hyp)) in seen:
                continue
            seen.add((d, tuple(hyp)))
            t0 = time.perf_counter()
            one_sentence(src, hyp, golds[d])
            dt = time.perf_counter() - t0
            if dt > worst:
                worst, where = dt, (name, d + 1, len(src), len(hyp))
    print(f"slowest single sentence: {worst * 1000:.1f} ms "
          f"(system, line, source/hypothesis tokens = {where})")


def one_sentence(src, hyp, gold_by_annotator):
    lat = build_lattice(src, hyp)
    for gold in gold_by_annotator.values():
        gl = [GoldEdit(e.start, e.end, " ".join(src[e.start:e.end]), e.corrections) for e in gold]
        sentence_counts(lat, gl)
    return lat


def adversarial() -> None:
    rng = random.Random(0)
    words = [f"w{i}" for i in range(500)]
    cases = {}
    src = [rng.choice(words) for _ in range(80)]
    hyp = [t if rng.random() < 0.05 else rng.choice(words) for t in src]  # ~95% rewritten
    cases["80 tokens, ~95% rewritten"] = (src, hyp)
    cases["80 tokens, all rewritten, 90 new"] = (src, [rng.choice(words) for _ in range(90)])
    rep = ["the"] * 40 + ["of", "the"] * 20
    cases["80 tokens repetitive (the / of the)"] = (rep, ["the", "of"] * 38 + ["the"] * 2)
    cases["80 tokens repetitive, shifted"] = (["a", "b"] * 40, ["b", "a"] * 41)
    table = harness.Table(width=12, peak=False)
    for label, (s, h) in cases.items():
        gold = {0: [M2Sentence(" ".join(s), ()).official_gold()[0]][0]}
        # gold edits: substitutions at every 7th token, insertion at every 11th
        edits = []
        for i in range(0, len(s), 7):
            edits.append(GoldEdit(i, i + 1, s[i], (h[i] if i < len(h) else "x",)))
        for i in range(3, len(s), 11):
            edits.append(GoldEdit(i, i, "", (h[i] if i < len(h) else "y",)))
        edits.sort(key=lambda e: (e.start, e.end))
        def counts(compiled: bool, s=s, h=h, edits=edits, gold=gold) -> tuple:
            lat = build_lattice(s, h, compiled=compiled)
            return (sentence_counts(lat, edits), sentence_counts(lat, gold[0]), lat.num_arcs,
                    lat.num_edges, len(lat.vertices))  # the lattice is freed before the next

        results = {compiled: harness.measure(lambda c=compiled: counts(c))
                   for compiled in ([False, True] if HAVE_KERNEL else [False])}
        if len({r.value for r in results.values()}) != 1:
            raise SystemExit(f"compiled and Python paths differ on {label}: {results}")
        c, c0, arcs, listed, vertices = results[False].value
        print(f"adversarial {label}: lattice {vertices} vertices, {arcs} edges, |E| {listed}; "
              f"counts {c}, without gold {c0}")
        table.baseline("  Python", results[False])
        if True in results:
            table.row("  compiled", results[True])


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def before_after(data: Path, before: Path, repeat: int) -> None:
    """The main job and M2 on 13 outputs, this checkout against ``before``, interleaved."""
    m2, _ = harness.conll14(data, ())
    source = Path(tempfile.mkdtemp(prefix="bench_m2_")) / "source"
    source.write_text("".join(f"{line}\n" for line in m2.sources), encoding="utf-8")
    cases = {
        "main job (meta-eval conll14 seeda-s seeda-e, GREEN word+char, M2)":
            ["meta-eval", "conll14", "seeda-s", "seeda-e", *METRICS, "-m", "m2",
             "--format", "json"],
        "M2, 13 CoNLL-2014 outputs (score -m m2)":
            ["score", "-m", "m2", "-s", str(source),
             "--m2", str(data / harness.CONLL_M2), "-c",
             *[str(data / harness.SUBMISSIONS / s) for s in harness.OUTPUTS], "--format", "json"],
    }
    trees = {"before": before.resolve(), "after": harness.ROOT}
    print(f"before: {trees['before']}  after: {trees['after']}  (load average {load()})")
    for title, args in cases.items():
        runs: dict[str, list[harness.Child]] = {name: [] for name in trees}
        for _ in range(repeat):
            for name, tree in trees.items():
                runs[name].append(child(tree, args, data))
        print(f"  {title}, {repeat} runs each, interleaved")
        med = {}
        for name, rs in runs.items():
            walls, cpus = [r.seconds for r in rs], [r.cpu for r in rs]
            med[name] = statistics.median(walls)
            print(f"    {name:<7} wall median {med[name]:6.2f} s  min {min(walls):6.2f} s   "
                  f"CPU median {statistics.median(cpus):6.2f} s  min {min(cpus):6.2f} s")
        cpu = {name: min(r.cpu for r in rs) for name, rs in runs.items()}
        print(f"    after / before: wall (medians) x{med['after'] / med['before']:.2f}, "
              f"CPU (minima) x{cpu['after'] / cpu['before']:.2f}; identical outputs: "
              f"{len({r.stdout for rs in runs.values() for r in rs}) == 1}")
    print(f"  load average at the end: {load()}")
    source.unlink()
    source.parent.rmdir()


if __name__ == "__main__":
    parser = harness.parser(__doc__)
    parser.add_argument("--before", type=Path, default=None,
                        help="a checkout before the change, kernels built in place")
    parser.add_argument("--repeat", type=int, default=3, help="runs per tree and case")
    parser.add_argument("--only-before-after", action="store_true",
                        help="skip the in-process timings")
    args = parser.parse_args()
    data = args.data_dir or harness.data_folder()
    if args.before is not None:
        before_after(harness.shared_data(data), args.before, args.repeat)
        if args.only_before_after:
            raise SystemExit(0)
    if (data / harness.SUBMISSIONS).is_dir():
        conll(data)
    else:
        print(f"no CoNLL-2014 data at {data}; set GECMETRICS_SHARED_DATA or --data-dir")
    adversarial()
