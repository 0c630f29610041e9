"""Output formats shared by every command: table, TSV, JSON, Markdown, LaTeX, CSV.

Scores are 0-1 floats in the API and in JSON; tables show percent rounded
half up (58.325 -> 58.33) to a chosen number of digits. An undefined value
(NaN, e.g. the correlation of constant scores) is ``-`` in tables and ``null``
in JSON; JSON never holds NaN or Infinity, which are not JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

FORMATS = ("table", "tsv", "json", "markdown", "latex", "csv")


def percent(value: float | None, digits: int = 2) -> str:
    """``value`` (0-1) as percent, rounded half up on its shortest decimal form."""
    if value is None or not math.isfinite(value):
        return "-"
    quantum = Decimal(1).scaleb(-digits)
    return str((Decimal(repr(float(value))) * 100).quantize(quantum, rounding=ROUND_HALF_UP))


def fixed(value: float | None, digits: int = 3) -> str:
    """A plain number rounded half up (for correlations)."""
    if value is None or not math.isfinite(value):
        return "-"
    quantum = Decimal(1).scaleb(-digits)
    return str(Decimal(repr(float(value))).quantize(quantum, rounding=ROUND_HALF_UP))


def short_repr(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters (ending ``...``), for a message that
    shows what a caller passed without printing a whole corpus."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def plural(count: float, noun: str, nouns: str | None = None) -> str:
    """``count`` and the noun that agrees with it, for messages: "1 file", "2 files",
    "0 files" (``nouns``: an irregular plural, default ``noun + "s"``)."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"


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


def signature_lines(signatures: Sequence[str], fmt: str) -> str:
    """One ``signature: ...`` line per distinct signature, to print under a table.

    LaTeX gets ``%`` comments, Markdown code spans with hard line breaks; CSV and
    TSV get nothing here (they stay bare tables for programs: callers print the
    lines on stderr).
    """
    lines = [f"signature: {sig}" for sig in dict.fromkeys(signatures) if sig]
    if not lines or fmt in ("csv", "tsv", "json"):
        return ""
    if fmt == "latex":
        return "\n".join(f"% {line}" for line in lines)
    if fmt == "markdown":
        return "  \n".join(f"`{line}`" for line in lines)
    return "\n".join(lines)


# One strict encoder for all objects (sweeps print many): allow_nan=False makes a NaN
# that escaped json_safe an error instead of the invalid token NaN in the output.
JSON_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)


def finite_or_none(value: Any) -> Any:
    """``value``, or None if it is a non-finite float (NaN, +-inf): JSON has no such numbers."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def json_safe(value: Any, replaced: list[int] | None = None) -> Any:
    """``value`` with every non-finite float, at any depth, replaced by None.

    ``replaced`` (a one-element list), if given, is incremented per replacement.
    """
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        if replaced is not None:
            replaced[0] += 1
        return None
    if isinstance(value, dict):
        return {k: json_safe(v, replaced) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v, replaced) for v in value]
    return value


def to_json(objects: Sequence[dict[str, Any]], notes: list[str] | None = None) -> str:
    """A JSON array with one object a line: readable, and fast (C encoder, no indent).

    Non-finite floats become null; with ``notes`` a line saying how many is added
    there (for stderr: the top level is an array, with no room for a note).
    """
    if not objects:
        return "[]"
    replaced = [0]
    lines = []
    for obj in objects:
        try:
            lines.append(JSON_ENCODER.encode(obj))
        except ValueError:  # a NaN or Infinity somewhere: the rare slow path
            lines.append(JSON_ENCODER.encode(json_safe(obj, replaced)))
    if replaced[0] and notes is not None:
        notes.append(f"note: {replaced[0]} undefined value(s) (NaN or infinite) written as "
                     "null in the JSON")
    return "[\n" + ",\n".join(lines) + "\n]"
