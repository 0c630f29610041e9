"""Whole-process BLEU of the 13 CoNLL-2014 outputs: `gecmetrics score -m bleu` against
sacrebleu 2.6.0's command line, as a user runs them (issue 32: at most 0.15 x).

Run from the repository root, with sacrebleu installed in a venv of its own (never a
project dependency)::

    python bench/bench_bleu_process.py --sacrebleu /work/scratch/sacrebleu-venv/bin/sacrebleu
        [--repeat 7] [--tree DIR ...]

Both read the same files: the two references of the M2 file and the 13 outputs (the
12 teams and the sources as INPUT), written to a temporary folder as in
bench_green.py. gecmetrics: ``score -m bleu -s SRC -r REF0 REF1 -c ...`` (a table);
sacrebleu: ``sacrebleu REF0 REF1 -i ... -m bleu`` (its multi-system mode). A third
process, ``python -c pass``, is the interpreter's own floor, and a fourth imports
what the BLEU run imports and stops (``--stop-after-imports``: the part of the run that
is import time). The cases run in turn ``--repeat`` times; printed: the median and
minimum wall seconds and the median CPU seconds (user + system) of each, the ratio
of the minima and of the medians against sacrebleu, and the load average. ``--tree``
times the gecmetrics cases of another checkout too (e.g. the code before a change).
The corpus BLEU of every output is checked equal to sacrebleu's (to its one decimal).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

import harness
from bench_green import prepare

#: The modules a BLEU `score` run imports before it reads a file (the CLI, scoring,
#: rendering), under the OpenBLAS setting the CLI makes first: timed alone, they are
#: the run's import share (a ``--tree`` from before that setting: without it).
IMPORTS = ("import os, gecmetrics.interface.cli as cli; "
           "spin = getattr(cli, 'BLAS_THREAD_TIMEOUT', None); "
           "spin and os.environ.setdefault('OPENBLAS_THREAD_TIMEOUT', spin); "
           "import gecmetrics.interface.commands.score, "
           "gecmetrics.scoring, gecmetrics.interface.score_report, gecmetrics.metrics.bleu")


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--sacrebleu", required=True, help="sacrebleu's console script")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--tree", type=Path, action="append", default=[])
    args = ap.parse_args()
    data = harness.shared_data(args.data_dir)
    with tempfile.TemporaryDirectory(prefix="bench-bleu-") as name:
        folder = Path(name)
        refs, hyps = prepare(data, folder)
        cases: dict[str, tuple[list[str], dict[str, str]]] = {
            "sacrebleu 2.6.0": ([args.sacrebleu, *refs, "-i", *hyps, "-m", "bleu", "-b"],
                                dict(os.environ)),
            "python -c pass": ([sys.executable, "-c", "pass"], dict(os.environ))}
        for tree in [harness.ROOT, *args.tree]:
            env = {**os.environ, "PYTHONPATH": str(tree)}
            label = "" if tree == harness.ROOT else f"{tree.name}: "
            cases[f"{label}gecmetrics score -m bleu"] = (
                [sys.executable, "-m", "gecmetrics.interface.cli", "score", "-m", "bleu",
                 "-s", str(folder / "source"), "-r", *refs, "-c", *hyps], env)
            cases[f"{label}  (its imports only)"] = ([sys.executable, "-c", IMPORTS], env)
        runs: dict[str, list[harness.Child]] = {case: [] for case in cases}
        for _ in range(args.repeat):
            for case, (argv, env) in cases.items():
                child = harness.run_child(argv, env=env, cwd=folder)
                if child.code != 0:
                    sys.exit(f"{case} failed: {child.stderr.strip()[-500:]}")
                runs[case].append(child)
        check(runs["gecmetrics score -m bleu"][0].stdout,
              runs["sacrebleu 2.6.0"][0].stdout, len(hyps))
        base = runs["sacrebleu 2.6.0"]
        base_min = min(c.seconds for c in base)
        base_med = statistics.median(c.seconds for c in base)
        print(f"{len(hyps)} outputs x 1,312 lines, 2 references; {args.repeat} runs in turn "
              "(wall s: median, min; CPU s: median; ratio to sacrebleu: min, median)")
        for case, children in runs.items():
            walls = [c.seconds for c in children]
            cpu = statistics.median(c.cpu for c in children)
            print(f"  {case:36s} {statistics.median(walls):6.3f} {min(walls):6.3f}  CPU "
                  f"{cpu:6.3f}   x{min(walls) / base_min:.3f}"
                  f"  x{statistics.median(walls) / base_med:.3f}")
        print(f"target: gecmetrics <= 0.15 x sacrebleu; load average "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def check(ours: str, theirs: str, systems: int) -> None:
    """Every output's BLEU in our table (two decimals) is sacrebleu's (one decimal)."""
    scores = [float(line.split()[-1]) for line in ours.splitlines()[2:2 + systems]]
    sacre = [float(row["BLEU"]) for row in json.loads(theirs)]
    if len(scores) != len(sacre) or any(abs(a - b) > 0.05 + 1e-9
                                        for a, b in zip(scores, sacre, strict=True)):
        sys.exit(f"scores differ: {scores} vs {sacre}")


if __name__ == "__main__":
    main()
