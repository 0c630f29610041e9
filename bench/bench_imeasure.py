"""I-measure: gecmetrics vs the official ieval.py on the same CoNLL-2014 sentences, same run.

Run from the repository root:

    python bench/bench_imeasure.py [--tool-dir DIR --python2 PY2 --python2-path P]
                                   [--sentences N] [--systems A,B]

``--tool-dir`` is a checkout of mfelice/imeasure holding the converted gold
(``conll14.ixml``, from ``m2_to_ixml.py``); ``--python2`` a Python 2.7 with
numpy (``--python2-path``: a PYTHONPATH for it, e.g. where numpy was
installed with ``pip install --target``). Both tools score the first N
sentences (default 100) of the given systems with ``-nomix``; gecmetrics is
timed with the compiled kernel and with its pure-Python alignment. Prints
seconds, peak memory of gecmetrics and the ratios, and checks that the corpus
I agrees.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from gecmetrics.corpus import Corpus  # noqa: E402
from gecmetrics.m2 import M2File, read_m2  # noqa: E402
from gecmetrics.metrics.imeasure import Imeasure, imeasure_counts  # noqa: E402
from gecmetrics.readers import read_lines  # noqa: E402


def shared_data() -> Path:
    env = os.environ.get("GECMETRICS_SHARED_DATA")
    return Path(env) if env else ROOT / ".." / "shared" / "data"


def official(tool: Path, python2: str, path: str | None, systems: list[str],
             hyps: dict[str, list[str]], n: int) -> tuple[float, dict[str, float]]:
    """Seconds and corpus correction I (percent, as printed) of the official tool."""
    text = (tool / "conll14.ixml").read_text(encoding="utf-8")
    ends = [m.end() for m in re.finditer("</sentence>", text)]
    gold = text[:ends[n - 1]] + "</script></scripts>\n"
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "gold.xml").write_text(gold, encoding="utf-8")
        start = time.perf_counter()
        for name in systems:
            (Path(tmp) / name).write_text("\n".join(hyps[name]) + "\n", encoding="utf-8")
            res = subprocess.run([python2, str(tool / "ieval.py"), f"-ref:{tmp}/gold.xml",
                                  f"-hyp:{tmp}/{name}", "-nomix"], capture_output=True,
                                 text=True, check=True,
                                 env={**os.environ, "PYTHONPATH": path or ""})
            row = [line for line in res.stdout.splitlines() if line.startswith("Correction")][-1]
            out[name] = float(row.split()[-1])
        return time.perf_counter() - start, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool-dir", type=Path)
    ap.add_argument("--python2", default="python2")
    ap.add_argument("--python2-path", help="PYTHONPATH for the official tool (its numpy)")
    ap.add_argument("--sentences", type=int, default=100)
    ap.add_argument("--systems", default="AMU,CAMB,UFC")
    args = ap.parse_args()
    data = shared_data()
    m2 = read_m2(data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2")
    n = args.sentences
    systems = args.systems.split(",")
    sub = M2File(m2.path, m2.sentences[:n])
    hyps = {s: read_lines(data / "official_submissions" / s)[:n] for s in systems}

    def corpus() -> Corpus:  # a fresh corpus: no cached statistics
        return Corpus(sub.sources, [sub.sources], hyps, m2=sub)

    tracemalloc.start()
    start = time.perf_counter()
    ours = {r.hypothesis: r.score for r in Imeasure(mix=False).evaluate(corpus())}
    fast = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    start = time.perf_counter()
    imeasure_counts(corpus(), mix=False, fast=False)
    slow = time.perf_counter() - start
    print(f"{n} sentences x {len(systems)} systems, -nomix")
    print(f"gecmetrics (kernel)      {fast:8.2f} s   peak {peak:.1f} MiB")
    print(f"gecmetrics (pure Python) {slow:8.2f} s   kernel speed-up {slow / fast:.1f}x")
    if args.tool_dir:
        seconds, theirs = official(args.tool_dir, args.python2, args.python2_path, systems, hyps, n)
        print(f"official ieval.py        {seconds:8.2f} s   ratio official / gecmetrics "
              f"{seconds / fast:.0f}x")
        for s in systems:
            agree = f"{ours[s] * 100:.2f}" == f"{theirs[s]:.2f}"
            print(f"  {s:6s} I = {ours[s] * 100:7.2f} (official {theirs[s]:7.2f}) "
                  f"{'same' if agree else 'DIFFERENT'}")


if __name__ == "__main__":
    sys.exit(main())
