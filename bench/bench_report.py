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
"""

from __future__ import annotations

import os
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
        inputs = [a for m in METRICS for a in ("-m", m)]
        inputs += ["-s", str(source), "--m2", str(m2), "-c", *outputs]
        page = Path(folder, "report.html")
        print(f"{len(outputs)} outputs, metrics {', '.join(METRICS)}, edits {args.edits}")
        table = harness.Table("MB", width=44, cpu=True, speedup=False)
        score = harness.run_child([*common, "score", *inputs],
                                  stdout=Path(folder, "scores.txt"), env=env)
        _check(score)
        table.baseline("gecmetrics score (4 metrics, 13 outputs)", score)
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


def _check(child: harness.Child) -> None:
    if child.code != 0:
        raise SystemExit(f"failed ({child.code}): {child.stderr.strip()}")


if __name__ == "__main__":
    main()
