"""Output formats shared by every command: table, TSV, JSON, Markdown, LaTeX, CSV.

Scores are 0-1 floats in the API and in JSON; tables show percent rounded
half up (58.325 -> 58.33) to a chosen number of digits.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

FORMATS = ("table", "tsv", "json", "markdown", "latex", "csv")


def percent(value: float | None, digits: int = 2) -> str:
    """``value`` (0-1) as percent, rounded half up on its shortest decimal form."""
    if value is None:
        return "-"
    if value != value:  # NaN
        return "nan"
    quantum = Decimal(1).scaleb(-digits)
    return str((Decimal(repr(float(value))) * 100).quantize(quantum, rounding=ROUND_HALF_UP))


def fixed(value: float | None, digits: int = 3) -> str:
    """A plain number rounded half up (for correlations)."""
    if value is None:
        return "-"
    if value != value:
        return "nan"
    quantum = Decimal(1).scaleb(-digits)
    return str(Decimal(repr(float(value))).quantize(quantum, rounding=ROUND_HALF_UP))


def render(headers: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str,
           align: Sequence[str] | None = None) -> str:
    """Render a rectangular table in ``fmt`` (not JSON)."""
    if fmt == "tsv":
        return "\n".join("\t".join(map(str, r)) for r in [headers, *rows])
    if fmt == "csv":
        import csv
        import io

        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(headers)
        writer.writerows(rows)
        return buf.getvalue().rstrip("\n")
    from tabulate import tabulate

    colalign = tuple(align) if align else None
    tablefmt = {"table": "simple", "markdown": "pipe", "latex": "latex_booktabs"}[fmt]
    return tabulate(rows, headers=headers, tablefmt=tablefmt, colalign=colalign,
                    disable_numparse=True)


_JSON = json.JSONEncoder(ensure_ascii=False)  # one encoder for all objects (sweeps print many)


def to_json(objects: Sequence[dict[str, Any]]) -> str:
    """A JSON array with one object a line: readable, and fast (C encoder, no indent)."""
    if not objects:
        return "[]"
    body = ",\n".join(map(_JSON.encode, objects))
    return "[\n" + body + "\n]"
