"""Time of the HTML report of the 13 CoNLL-2014 outputs, against `gecmetrics score`.

Run from the repository root:  python bench/bench_report.py [--edits diff|errant|auto]
    [--attribution shapley|sampling|add|remove|none]

`gecmetrics score` of the 13 outputs with 4 metrics (m2, gleu, green, chrf: the gold M2
file, its sources) is the baseline, run in the same process tree and on the same
inputs; then `gecmetrics report` of the same inputs writes the page (scores at both
levels, the paired bootstrap of every system against every baseline, the edits of
13 x 1,312 outputs and 2 x 1,312 references). Each command is a child process (its
start-up included); the ratio is of wall seconds. The report's target: under 10 s,
and a few MB. With --edits errant, ERRANT's edits come from its disk cache after the
first run (the first run of a machine aligns about 10,000 pairs: minutes). With
--attribution METHOD (default shapley), a third row writes the same report with the
edit attributions of every metric (the cost of `report --attribution`). Data:
--data-dir, else $GECMETRICS_SHARED_DATA, else ../shared/data.

--metrics errant --edits errant --attribution none --repeat 5 is issue 32's case
(`report` at most 1.5 x `score -m errant`, ERRANT's caches warm): with --repeat N the
two commands also run N more times in turn and the medians of wall and CPU seconds
and their ratios are printed with the load average. --tree DIR runs that on another
checkout too (e.g. the code before a change, its kernels built in place).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

import harness

METRICS = ("m2", "gleu", "green", "chrf")


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--edits", default="diff", choices=("diff", "errant", "auto"),
                    help="the report's edits (default diff: no extra needed)")
    ap.add_argument("--attribution", default="shapley",
                    choices=("none", "shapley", "sampling", "add", "remove"),
                    help="the third row's attribution method (none: no third row)")
    ap.add_argument("--metrics", nargs="+", default=list(METRICS),
                    help=f"the metrics of both commands (default {' '.join(METRICS)})")
    ap.add_argument("--repeat", type=int, default=0,
                    help="interleaved runs of score and report for median ratios")
    ap.add_argument("--tree", type=Path, action="append", default=[],
                    help="also time the interleaved runs on this checkout")
    args = ap.parse_args()
    data = harness.shared_data(args.data_dir)
    m2 = data / harness.CONLL_M2
    outputs = [str(data / harness.SUBMISSIONS / name) for name in harness.OUTPUTS]
    env = {**os.environ, "PYTHONPATH": str(harness.ROOT)}
    with tempfile.TemporaryDirectory(prefix="bench-report-") as folder:
        source = Path(folder, "source.txt")
        with open(m2, encoding="utf-8") as f:
            source.write_text("".join(line[2:] for line in f if line.startswith("S ")),
                              encoding="utf-8")
        common = [sys.executable, "-m", "gecmetrics.interface.cli"]
        inputs = [a for m in args.metrics for a in ("-m", m)]
        inputs += ["-s", str(source), "--m2", str(m2), "-c", *outputs]
        page = Path(folder, "report.html")
        print(f"{len(outputs)} outputs, metrics {', '.join(args.metrics)}, edits {args.edits}")
        table = harness.Table("MB", width=44, cpu=True, speedup=False)
        score = harness.run_child([*common, "score", *inputs],
                                  stdout=Path(folder, "scores.txt"), env=env)
        _check(score)
        table.baseline(f"gecmetrics score ({len(args.metrics)} metrics, 13 outputs)", score)
        report = harness.run_child([*common, "report", *inputs, "-o", str(page),
                                    "--edits", args.edits], env=env)
        _check(report)
        table.row("gecmetrics report (the same, + page)", report,
                  f"{page.stat().st_size / 1e6:.2f}")
        if args.attribution != "none":
            attributed = harness.run_child([*common, "report", *inputs, "-o", str(page),
                                            "--edits", args.edits,
                                            "--attribution", args.attribution], env=env)
            _check(attributed)
            table.row(f"report --attribution {args.attribution}", attributed,
                      f"{page.stat().st_size / 1e6:.2f}")
        for tree in [harness.ROOT, *args.tree] if args.repeat else []:
            _interleaved(tree, [*common, "score", *inputs],
                         [*common, "report", *inputs, "-o", str(page), "--edits", args.edits],
                         args.repeat, Path(folder))


def _interleaved(tree: Path, score: list[str], report: list[str], repeat: int,
                 folder: Path) -> None:
    """score and report of ``tree``'s code, in turn, ``repeat`` times: medians, ratios."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    runs: dict[str, list[harness.Child]] = {"score": [], "report": []}
    for _ in range(repeat):
        for name, argv in (("score", score), ("report", report)):
            child = harness.run_child(argv, stdout=folder / "out.txt", env=env, cwd=folder)
            _check(child)
            runs[name].append(child)
    wall = {k: statistics.median(c.seconds for c in v) for k, v in runs.items()}
    cpu = {k: statistics.median(c.cpu for c in v) for k, v in runs.items()}
    print(f"{tree}: median of {repeat} interleaved runs: score {wall['score']:.2f} s "
          f"(CPU {cpu['score']:.2f}), report {wall['report']:.2f} s (CPU {cpu['report']:.2f}); "
          f"report/score x{wall['report'] / wall['score']:.2f} wall, "
          f"x{cpu['report'] / cpu['score']:.2f} CPU (target <= 1.5); "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _check(child: harness.Child) -> None:
    if child.code != 0:
        raise SystemExit(f"failed ({child.code}): {child.stderr.strip()}")


if __name__ == "__main__":
    main()
