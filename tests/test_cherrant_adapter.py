"""ChERRANT (char-level Chinese ERRANT, MuCGEC) plugged in through the
external-scorer adapter, as docs/adapters.md shows it.

The fast test replays ChERRANT's recorded per-sentence counts
(tests/data/cherrant/README.md says how they were made) through a
CommandEditMetric and checks that gecmetrics' ERRANT choice rule gives the
totals and scores ChERRANT's own scorer printed. The full-tier test runs
ChERRANT itself when CHERRANT_DIR (its ``scorers/ChERRANT`` folder) and
CHERRANT_PYTHON (the Python of its own environment) are set; ChERRANT is not
a package CI can install, so without them it skips.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from gecmetrics import Corpus
from gecmetrics.edits.adapters import CommandEditMetric
from gecmetrics.m2_format import read_m2

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "cherrant"
FIXTURE = Path(__file__).resolve().parent / "data" / "cherrant"
SYSTEMS = ("sysA", "sysB")

# Prints the recorded counts of the system whose output is the file it is given.
REPLAY = """
import pathlib, sys
text = pathlib.Path(sys.argv[1]).read_text(encoding="utf-8").split()
example, fixture = pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
for name in ("sysA", "sysB"):
    if (example / (name + ".txt")).read_text(encoding="utf-8").split() == text:
        print((fixture / (name + ".counts")).read_text(encoding="utf-8"))
"""


def cherrant_metric(command: str) -> CommandEditMetric:
    class ChERRANT(CommandEditMetric):
        name = "cherrant"
        description = "ChERRANT span-based correction F (char level)"
        choice_rule = "errant"  # compare_m2_for_evaluation picks annotators as ERRANT does

    ChERRANT.command = command
    ChERRANT.timeout = 600
    return ChERRANT()


def corpus() -> Corpus:
    gold = read_m2(EXAMPLE / "gold.m2")
    hyps = {name: (EXAMPLE / f"{name}.txt").read_text(encoding="utf-8").splitlines()
            for name in SYSTEMS}
    return Corpus(gold.sources, gold.references(), hyps, m2=gold)


def check_against_cherrant(metric: CommandEditMetric) -> None:
    expected = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
    c = corpus()
    stats = metric.statistics(c)
    for h, name in enumerate(SYSTEMS):
        rows = [tuple(int(x) for x in line.split())
                for line in (FIXTURE / f"{name}.counts").read_text(encoding="utf-8").split("\n")
                if line.strip()]
        for d, a, tp, fp, fn in rows:
            k = stats.counts.annotators.index(a)
            assert (stats.counts.tp[h, d, k], stats.counts.fp[h, d, k],
                    stats.counts.fn[h, d, k]) == (tp, fp, fn)
    results = {r.hypothesis: r for r in metric.evaluate(c, betas=[0.5])}
    for name in SYSTEMS:
        r, want = results[name], expected[name]
        assert (r.details["TP"], r.details["FP"], r.details["FN"]) == (
            want["TP"], want["FP"], want["FN"])
        # ChERRANT prints P, R, F rounded to 4 decimals
        assert (round(r.precision, 4), round(r.recall, 4), round(r.score, 4)) == (
            want["P"], want["R"], want["F0.5"])


def test_recorded_cherrant_counts_through_the_adapter():
    code = shlex.quote(REPLAY)
    metric = cherrant_metric(f"{{python}} -c {code} {{hypothesis}} "
                             f"{shlex.quote(str(EXAMPLE))} {shlex.quote(str(FIXTURE))}")
    check_against_cherrant(metric)


@pytest.mark.full
def test_cherrant_itself_through_the_adapter():
    folder, python = os.environ.get("CHERRANT_DIR"), os.environ.get("CHERRANT_PYTHON")
    if not folder or not python:
        pytest.skip("ChERRANT is not installed: set CHERRANT_DIR (MuCGEC's scorers/ChERRANT) "
                    "and CHERRANT_PYTHON (its environment's Python); docs/adapters.md says how")
    script = ROOT / "docs" / "examples" / "cherrant_counts.py"
    metric = cherrant_metric(" ".join(shlex.quote(x) for x in (python, str(script), folder))
                             + " {m2} {hypothesis}")
    check_against_cherrant(metric)
