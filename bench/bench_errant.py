"""ERRANT on the 13 CoNLL-2014 outputs (+ NULL): timings and agreement with errant's tools.

Run from the repository root (needs the errant extra):

    python bench/bench_errant.py [--tools-dir DIR]

1. gecmetrics ERRANT with empty caches (a temporary $GECMETRICS_CACHE): total
   time; then reruns: with the parse cache only (the edit cache moved away: a
   rerun before the edit cache existed), with the edit cache in the same
   process, and with the edit cache in a new process (a user's rerun), with
   the ratios to the first run (``--skip-tools`` stops here).
2. errant 3.0.2's own tools (``errant_m2 -gold``, ``errant_parallel`` per output,
   ``errant_compare``), timed, unless ``--tools-dir`` holds their M2 files from an
   earlier run (gold.m2 and SYSTEM.m2); then TP/FP/FN/P/R/F are compared per system.
3. The text-reference mode (references derived from the M2 file), for comparison
   with the GREEN paper's Table 4, which gives AMU 31.97, INPUT 0.00, IPN 5.95, NULL 0.20.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import harness

sys.path.insert(0, str(harness.ROOT / "tests"))

import errant_oracle  # noqa: E402

from gecmetrics.corpus import Corpus  # noqa: E402
from gecmetrics.edits.extraction import MODEL_CANDIDATES  # noqa: E402
from gecmetrics.m2_format import read_m2  # noqa: E402
from gecmetrics.metrics.errant import Errant  # noqa: E402
from gecmetrics.readers import read_lines  # noqa: E402

SYSTEMS = (*harness.OUTPUTS, "NULL")
PAPER = {"AMU": 31.97, "INPUT": 0.00, "IPN": 5.95, "NULL": 0.20}


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--tools-dir", help="reuse (or keep) errant's M2 outputs here")
    ap.add_argument("--skip-tools", action="store_true",
                    help="only the timings of gecmetrics (no errant tools, no text references)")
    args = ap.parse_args()
    data = harness.shared_data(args.data_dir)
    m2_path = data / harness.CONLL_M2
    m2 = read_m2(m2_path)
    n = len(m2.sentences)
    work = Path(tempfile.mkdtemp(prefix="bench-errant-"))
    os.environ["GECMETRICS_CACHE"] = str(work / "cache")
    files = {s: data / harness.SUBMISSIONS / s for s in SYSTEMS if s != "NULL"}
    files["NULL"] = work / "NULL"
    files["NULL"].write_text("\n" * n, encoding="utf-8")
    src = work / "src.txt"
    src.write_text("".join(s + "\n" for s in m2.sources), encoding="utf-8")
    hyps = {s: read_lines(files[s]) for s in SYSTEMS}

    def corpus() -> Corpus:
        return Corpus(m2.sources, m2.references(), hyps, m2=m2)

    def evaluate(metric: Errant) -> dict:
        return {r.hypothesis: r for r in metric.evaluate(corpus())}

    metric = Errant()
    cold = harness.measure(lambda: evaluate(metric))
    print(f"gecmetrics ERRANT, {len(SYSTEMS)} outputs x {n} sentences, empty caches: "
          f"{metric.parse_cache.parsed} sentences parsed, "
          f"{metric.extractor.computed} pairs extracted")
    db = next((work / "cache" / "edits").glob("*.sqlite"))
    print(f"  edit cache: {db.name}, {db.stat().st_size / 1e6:.1f} MB")
    table = harness.Table(width=48, peak=False)
    table.baseline("empty caches", cold)

    # Before the edit cache, a rerun read the parses and ran ERRANT again: that
    # is a run with the parse cache warm and the edit cache empty.
    moved = db.with_suffix(".off")
    db.rename(moved)
    metric = Errant()
    parses = harness.measure(lambda: evaluate(metric))
    db.unlink()
    moved.rename(db)
    table.row("rerun, parse cache only (the old rerun)", parses,
              f"{metric.parse_cache.parsed} parsed, {metric.extractor.computed} extracted")
    metric = Errant()
    warm = harness.measure(lambda: evaluate(metric))
    table.row("rerun, edit cache, same process", warm,
              f"{metric.extractor.computed} extracted, {metric.extractor.edit_cache.hits} read")
    # A rerun as a user makes it: a new process (imports included, spaCy not loaded).
    code = ("import sys, time; t0 = time.perf_counter(); sys.path.insert(0, 'tests');"
            "from gecmetrics.scoring import load_corpus;"
            "from gecmetrics.metrics.errant import Errant;"
            f"c = load_corpus({str(src)!r}, [], {[str(files[s]) for s in SYSTEMS]!r}, "
            f"{str(m2_path)!r}); m = Errant(); r = m.evaluate(c);"
            "print(time.perf_counter() - t0, m.extractor.computed, "
            "'spacy' in sys.modules, repr([x.score for x in r]))")
    proc = harness.run_child([sys.executable, "-c", code], cwd=harness.ROOT,
                             env=dict(os.environ))
    if proc.code != 0:
        sys.exit(f"the rerun in a new process failed: {proc.stderr.strip()[-500:]}")
    out = proc.stdout.split(maxsplit=3)
    table.row("rerun, edit cache, new process", proc,
              f"{float(out[0]):.2f} s after start-up; {out[1]} extracted; "
              f"spaCy imported: {out[2]}")
    cold, parses_only, warm = cold.value, parses.value, warm.value
    assert all(warm[s].score == cold[s].score == parses_only[s].score
               and warm[s].details["per_type"] == cold[s].details["per_type"] for s in SYSTEMS)
    assert out[3].strip() == repr([cold[s].score for s in SYSTEMS])
    print("  same scores and per-type counts in every run")
    if args.skip_tools:
        return

    tools = Path(args.tools_dir) if args.tools_dir else work / "tools"
    tools.mkdir(parents=True, exist_ok=True)
    jobs = []
    if not (tools / "gold.m2").exists():
        jobs.append(["errant_m2", "-gold", str(m2_path), "-out", str(tools / "gold.m2")])
    jobs += [["errant_parallel", "-orig", str(src), "-cor", str(files[s]),
              "-out", str(tools / f"{s}.m2")] for s in SYSTEMS if not (tools / f"{s}.m2").exists()]
    if jobs:
        tools_run = harness.measure(
            lambda: errant_oracle.finish(errant_oracle.start(jobs, MODEL_CANDIDATES)))
        print(f"errant's own tools ({len(jobs)} runs): {tools_run.seconds:.1f} s")
    agree = 0
    print(f"  {'system':6s} {'TP':>5s} {'FP':>5s} {'FN':>5s}  P       R       F0.5    "
          "errant_compare")
    for s in SYSTEMS:
        theirs = errant_oracle.compare(str(tools / f"{s}.m2"), str(tools / "gold.m2"))
        r = cold[s]
        mine = (r.details["TP"], r.details["FP"], r.details["FN"],
                round(r.precision, 4), round(r.recall, 4), round(r.score, 4))
        same = mine == tuple(theirs[k] for k in ("TP", "FP", "FN", "P", "R", "F"))
        agree += same
        print(f"  {s:6s} {mine[0]:5d} {mine[1]:5d} {mine[2]:5d}  {mine[3]:.4f}  {mine[4]:.4f}  "
              f"{mine[5]:.4f}  {'same' if same else 'DIFFERS: ' + str(theirs)}")
    print(f"agreement with errant_compare: {agree}/{len(SYSTEMS)} systems")

    text = Corpus(m2.sources, m2.references(), {s: hyps[s] for s in PAPER})
    auto = harness.measure(lambda: {r.hypothesis: r
                                    for r in Errant(references="text").evaluate(text)})
    print(f"text references (edits extracted from the two reference texts), "
          f"{auto.seconds:.1f} s; F0.5 x 100, GREEN paper Table 4 in brackets:")
    for s, paper in PAPER.items():
        print(f"  {s:6s} M2 gold re-annotated {100 * cold[s].score:6.2f}   "
              f"text references {100 * auto.value[s].score:6.2f}   [{paper:.2f}]")


if __name__ == "__main__":
    main()
