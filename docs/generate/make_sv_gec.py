"""Regenerate docs/results/sv-gec.md: the Swedish benchmark's numbers.

    python docs/generate/make_sv_gec.py [DATA_DIR]

DATA_DIR (the folder holding ``gec-evaluation/``; ``gecmetrics download sv-gec``)
defaults to $GECMETRICS_SHARED_DATA, else ../shared/data beside the repository.
Runs each ``gecmetrics meta-eval sv-gec`` command below (Markdown tables) and
writes the commands and their outputs to the page; docs/benchmarks.md#sv-gec
explains them. Language-neutral metrics only: GLEU, GREEN (words and characters),
chrF and BLEU on whitespace tokens (the texts are tokenised already).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "results" / "sv-gec.md"
METRICS = ("gleu", "green", "green:tokenize=char,n=6", "chrf", "bleu:tokenize=none")
CRITERIA = ("grammaticality", "fluency", "meaning")


def commands() -> list[tuple[str, list[str]]]:
    metrics = [arg for m in METRICS for arg in ("-m", m)]
    runs = [("Human ratings per system and CEFR level (the paper's Table 4)",
             ["meta-eval", "sv-gec", "-m", "gleu", "--human-table"])]
    for criterion in CRITERIA:
        runs.append((f"System level, human {criterion}",
                     ["meta-eval", "sv-gec", *metrics, "--human", criterion]))
    for criterion in CRITERIA:
        runs.append((f"Sentence level, human {criterion}",
                     ["meta-eval", "sv-gec", *metrics, "--human", criterion,
                      "--sentence-level"]))
    return runs


def run(args: list[str], data: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", "from gecmetrics.interface.cli import run; run()", *args,
         "--data-dir", str(data), "--format", "markdown"],
        capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(args)} failed:\n{done.stderr}")
    return done.stdout.rstrip("\n")


def main(argv: list[str]) -> None:
    data = Path(argv[0] if argv else os.environ.get("GECMETRICS_SHARED_DATA")
                or ROOT.parent / "shared" / "data")
    start = time.perf_counter()
    parts = []
    for title, args in commands():
        shown = shlex.join(["gecmetrics", *args])
        if title.startswith("Human ratings"):
            note = ("The means of the five rated systems (\"other\" ratings left out) "
                    "over all 192 sentences (All) and per level; NLD is the mean "
                    "normalised character Levenshtein distance between an output and "
                    "the annotator's post-edit. Names are the paper's rows.")
        else:
            note = ""
        parts.append(f"## {title}\n\n```sh\n{shown} --data-dir DIR\n```\n\n"
                     + (f"{note}\n\n" if note else "") + run(args, data) + "\n")
    seconds = time.perf_counter() - start
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    head = ("# sv-gec: results\n\n"
            "Written by `python docs/generate/make_sv_gec.py` (do not edit by hand); what the "
            "numbers mean: [benchmarks.md](../benchmarks.md#sv-gec). Five systems, so "
            "a system-level correlation rests on five points: read it with that in "
            f"mind. Last run: {seconds:.0f} s (load average {load:.1f}).\n\n")
    PAGE.write_text(head + "\n".join(parts), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
