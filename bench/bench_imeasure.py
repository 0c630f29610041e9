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

import os
import re
import sys
import tempfile
from pathlib import Path

import harness

from gecmetrics.corpus import Corpus
from gecmetrics.metrics.imeasure import Imeasure, imeasure_counts


def official(tool: Path, python2: str, path: str | None, systems: list[str],
             hyps: dict[str, list[str]], n: int) -> harness.Timing[dict[str, float]]:
    """The timed runs of the official tool; their value: the corpus correction I of
    each system (percent, as printed)."""
    text = (tool / "conll14.ixml").read_text(encoding="utf-8")
    ends = [m.end() for m in re.finditer("</sentence>", text)]
    gold = text[:ends[n - 1]] + "</script></scripts>\n"
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "gold.xml").write_text(gold, encoding="utf-8")

        def run() -> dict[str, float]:
            out = {}
            for name in systems:
                (Path(tmp) / name).write_text("\n".join(hyps[name]) + "\n", encoding="utf-8")
                res = harness.run_child([python2, str(tool / "ieval.py"), f"-ref:{tmp}/gold.xml",
                                         f"-hyp:{tmp}/{name}", "-nomix"],
                                        env={**os.environ, "PYTHONPATH": path or ""})
                if res.code != 0:
                    sys.exit(f"ieval.py failed: {res.stderr.strip()[-500:]}")
                row = [line for line in res.stdout.splitlines()
                       if line.startswith("Correction")][-1]
                out[name] = float(row.split()[-1])
            return out

        return harness.measure(run)


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--tool-dir", type=Path)
    ap.add_argument("--python2", default="python2")
    ap.add_argument("--python2-path", help="PYTHONPATH for the official tool (its numpy)")
    ap.add_argument("--sentences", type=int, default=100)
    ap.add_argument("--systems", default="AMU,CAMB,UFC")
    args = ap.parse_args()
    n = args.sentences
    systems = args.systems.split(",")
    sub, hyps = harness.conll14(harness.shared_data(args.data_dir), systems, n)

    def corpus() -> Corpus:  # a fresh corpus: no cached statistics
        return Corpus(sub.sources, [sub.sources], hyps, m2=sub)

    fast = harness.measure(lambda: {r.hypothesis: r.score
                                    for r in Imeasure(mix=False).evaluate(corpus())},
                           memory="traced")
    ours = fast.value
    slow = harness.measure(lambda: imeasure_counts(corpus(), mix=False, fast=False))
    print(f"{n} sentences x {len(systems)} systems, -nomix")
    table = harness.Table(width=26)
    table.baseline("gecmetrics (pure Python)", slow)
    table.row("gecmetrics (kernel)", fast)
    if args.tool_dir:
        tool = official(args.tool_dir, args.python2, args.python2_path, systems, hyps, n)
        theirs = tool.value
        table.baseline("official ieval.py", tool)
        table.row("gecmetrics (kernel)", fast)
        for s in systems:
            agree = f"{ours[s] * 100:.2f}" == f"{theirs[s]:.2f}"
            print(f"  {s:6s} I = {ours[s] * 100:7.2f} (official {theirs[s]:7.2f}) "
                  f"{'same' if agree else 'DIFFERENT'}")


if __name__ == "__main__":
    sys.exit(main())
