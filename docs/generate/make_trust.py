"""Regenerate the case table of docs/trust.md from the bad-input sweep.

    python docs/generate/make_trust.py

Runs every case of tests/trust_cases.py (cases that need the evaluation data
read it from $GECMETRICS_SHARED_DATA, else ../shared/data beside the
repository) and replaces the table between the markers of docs/trust.md with
what each command printed. tests/test_trust_sweep.py checks the page against
the same runs.
"""

from __future__ import annotations

import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from trust_cases import (  # noqa: E402
    CASES,
    COMMANDS,
    command_of,
    make_files,
    markdown_row,
    run_case,
)

PAGE = ROOT / "docs" / "trust.md"
BEGIN = "<!-- cases: begin (docs/generate/make_trust.py writes this table) -->"
END = "<!-- cases: end -->"
HEADER = ("| case | what was tried | command | what the user sees | exit |\n"
          "| --- | --- | --- | --- | --- |")


def main() -> None:
    data = Path(os.environ.get("GECMETRICS_SHARED_DATA") or ROOT.parent / "shared" / "data")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        make_files(folder, data.resolve() if data.is_dir() else None)
        with ThreadPoolExecutor(max(2, len(os.sched_getaffinity(0)))) as pool:
            outcomes = list(pool.map(
                lambda case: run_case(case, folder, data.resolve() if case.data else None),
                CASES))
    groups: dict[str, list[str]] = {name: [] for name in (*COMMANDS, "other")}
    for case, outcome in zip(CASES, outcomes, strict=True):
        groups[command_of(case)].append(markdown_row(case, outcome))
    tables = [f"### {_heading(name)}\n\n{HEADER}\n" + "\n".join(rows)
              for name, rows in groups.items() if rows]
    slowest = max(outcomes, key=lambda outcome: outcome.seconds)
    largest = max(outcomes, key=lambda outcome: outcome.peak_mb)
    print(f"{len(CASES)} cases; slowest {slowest.seconds:.1f} s, largest {largest.peak_mb:.0f} MB",
          file=sys.stderr)
    page = PAGE.read_text(encoding="utf-8")
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    PAGE.write_text(f"{head}{BEGIN}\n" + "\n\n".join(tables) + f"\n{END}{tail}",
                    encoding="utf-8")


def _heading(name: str) -> str:
    return "Other command lines" if name == "other" else f"`gecmetrics {name}`"


if __name__ == "__main__":
    main()
