"""Benchmark: MBR selection on CoNLL-2014, 1,312 sentences x 13 candidates (docs/mbr.md).

The candidates of each sentence are the 12 official outputs and the source; they are
also the pseudo-references (mbrs's setting). Rows, each against a baseline of the same
run, the routes interleaved (``--repeat`` rounds, medians and minima printed):

* chrF: ``gecmetrics.mbr.select`` against mbrs's ``DecoderMBR`` with ``MetricChrF``
  (its default config: sacrebleu's chrF per pair, in a process pool started per
  sentence, so on the first ``--mbrs-sentences`` only), against the same with its
  ``fastchrf=True`` and against fastChrF itself (``fastchrf.pairwise_chrf``, Rust), each
  run in a child process of the venv given by ``--mbrs-python`` and compared with
  gecmetrics on the same sentences; "same" counts the sentences whose chosen texts are
  equal (never a dependency of gecmetrics: ``python3 -m venv V && V/bin/pip
  install mbrs fastchrf``);
* GLEU and ERRANT F0.5 (and GREEN, BLEU): ``select`` against the naive N x N loop over
  gecmetrics' own sentence scores (per pair of candidate sets (i, j), the sentence scores
  of the corpus with set i as the system and set j as the reference), whose expected
  utilities must equal select's bit for bit.

    python bench/bench_mbr.py --mbrs-python /work/scratch/mbrs-venv/bin/python
    python bench/bench_mbr.py --sentences 200 --metrics gleu   # a quick look

ERRANT's parses and edits are cached on disk (its ``cache`` option), so both ERRANT
routes are warmed once, untimed, and then compare the matching and scoring only.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

import harness
import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.mbr import MbrOptions, select
from gecmetrics.registry import metric_from_spec

#: the child's script: time mbrs (and fastChrF) on the JSON of sources and candidates
CHILD = r"""
import json, sys, time
data = json.load(open(sys.argv[1]))
what, count = sys.argv[2], int(sys.argv[3])
sources, cands = data["sources"][:count], [c[:count] for c in data["candidates"]]
rows = [[c[d] for c in cands] for d in range(len(sources))]
if what.startswith("mbrs"):
    from mbrs.decoders import DecoderMBR
    from mbrs.metrics import MetricChrF
    metric = MetricChrF(MetricChrF.Config(fastchrf=what == "mbrs-fastchrf"))
    decoder = DecoderMBR(DecoderMBR.Config(), metric)
    start = time.perf_counter()
    chosen = [int(decoder.decode(r, r, source=s, nbest=1).idx[0])
              for s, r in zip(sources, rows)]
else:
    import fastchrf
    start = time.perf_counter()
    scores = fastchrf.pairwise_chrf(rows, rows, char_order=6, beta=2.0,
                                    remove_whitespace=True, eps_smoothing=False)
    chosen = [max(range(len(r)), key=lambda i: sum(m[i]) / len(r))
              for r, m in zip(rows, scores)]
print(json.dumps({"wall": time.perf_counter() - start, "chosen": chosen}))
"""


def naive(spec: str, sources, candidates) -> np.ndarray:
    """E[d, i] from the N x N loop: one corpus per (candidate set i, pseudo-reference j)."""
    metric = metric_from_spec(spec)
    n = len(candidates)
    pair = np.empty((len(sources), n, n))
    for i in range(n):
        for j in range(n):
            corpus = Corpus(sources, [candidates[j]], {"h": candidates[i]})
            pair[:, i, j] = metric.statistics(corpus).sentence(None)[0]
    return pair.mean(axis=2)


def child(python: str, path: str, what: str, count: int) -> dict:
    done = subprocess.run([python, "-c", CHILD, path, what, str(count)], check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def chrf_rows(args, sources, candidates, table) -> None:
    """mbrs (its default: sacrebleu's chrF per pair in a process pool per sentence) on
    the first ``--mbrs-sentences``, mbrs with fastChrF and fastChrF itself on all, each
    against gecmetrics on the same sentences, interleaved round by round."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump({"sources": sources, "candidates": candidates}, handle)
    few = min(args.mbrs_sentences, len(sources))
    routes = (("mbrs", few, f"mbrs DecoderMBR chrF, {few} sentences"),
              ("mbrs-fastchrf", len(sources), "mbrs DecoderMBR chrF (fastchrf=True)"),
              ("fastchrf", len(sources), "fastChrF pairwise_chrf (Rust)"))
    walls: dict[str, list[float]] = {}
    chosen: dict[str, list[int]] = {}
    ours: dict[int, list[float]] = {few: [], len(sources): []}
    results = {}
    for _ in range(args.repeat):
        for what, count, _name in routes:
            got = child(args.mbrs_python, handle.name, what, count)
            walls.setdefault(what, []).append(got["wall"])
            chosen[what] = got["chosen"]
        for count in ours:
            start = time.perf_counter()
            results[count] = select(sources[:count], [c[:count] for c in candidates],
                                    MbrOptions("chrf"))
            ours[count].append(time.perf_counter() - start)
    os.unlink(handle.name)
    for what, count, name in routes:
        mine = results[count]
        texts = [[c[d] for c in candidates] for d in range(count)]
        same = sum(texts[d][a] == texts[d][b] for d, (a, b) in
                   enumerate(zip(chosen[what], mine.chosen, strict=True)))
        table.baseline(name, statistics.median(walls[what]), f"{min(walls[what]):.3f}",
                       f"{same}/{count}")
        table.row(f"gecmetrics.mbr.select chrf, {count} sentences",
                  statistics.median(ours[count]), f"{min(ours[count]):.3f}", "")


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--mbrs-python", default=None,
                    help="python of a venv with mbrs and fastchrf (no chrF baseline without)")
    ap.add_argument("--sentences", type=int, default=None, help="the first N only")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mbrs-sentences", type=int, default=200,
                    help="sentences for mbrs's default chrF (about a second each here)")
    ap.add_argument("--metrics", nargs="+", default=["chrf", "gleu", "errant", "green", "bleu"])
    args = ap.parse_args()
    data = harness.shared_data(args.data_dir)
    m2, outputs = harness.conll14(data, harness.TEAMS, args.sentences)
    sources = list(m2.sources)
    candidates = [list(outputs[t]) for t in harness.TEAMS] + [sources]
    print(f"{len(sources)} sentences x {len(candidates)} candidates; load average "
          f"{os.getloadavg()[0]:.2f} at the start", flush=True)
    for spec in args.metrics:
        print(f"\n{spec}")
        table = harness.Table("min s", "same")
        if spec == "chrf":
            if not args.mbrs_python:
                print("  (no --mbrs-python: no mbrs/fastChrF baseline)")
                continue
            chrf_rows(args, sources, candidates, table)
            continue
        if spec == "errant":  # fill the parse and edit caches for both routes
            select(sources, candidates, MbrOptions(spec))
            naive(spec, sources, candidates)
        walls: dict[str, list[float]] = {"naive": [], "select": []}
        for _ in range(args.repeat):
            start = time.perf_counter()
            want = naive(spec, sources, candidates)
            walls["naive"].append(time.perf_counter() - start)
            start = time.perf_counter()
            got = select(sources, candidates, MbrOptions(spec)).expected
            walls["select"].append(time.perf_counter() - start)
        same = "yes" if got.tobytes() == want.tobytes() else "NO"
        table.baseline(f"naive N x N loop ({len(candidates) ** 2} corpora)",
                       statistics.median(walls["naive"]), f"{min(walls['naive']):.3f}", same)
        table.row(f"gecmetrics.mbr.select {spec}", statistics.median(walls["select"]),
                  f"{min(walls['select']):.3f}", same)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end", flush=True)


if __name__ == "__main__":
    sys.exit(main())
