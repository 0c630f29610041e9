"""Write gecmetrics/builtin_descriptions.py, the built-in metrics' descriptions as
`gecmetrics list` prints them, derived from the metric sources
(gecmetrics.descriptions.table_source).

Run from the repository root after changing a metric's description or the tokenizer
registry:  python docs/generate/make_descriptions.py
"""

from __future__ import annotations

from pathlib import Path

from gecmetrics.descriptions import table_source
from gecmetrics.registry import BUILTIN

TARGET = Path(__file__).resolve().parents[2] / "gecmetrics" / "builtin_descriptions.py"

if __name__ == "__main__":
    TARGET.write_text(table_source(BUILTIN), encoding="utf-8")
    print(f"wrote {TARGET}")
