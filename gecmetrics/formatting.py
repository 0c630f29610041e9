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
    return _half_up(repr(float(value)), 2, digits)


#: Below this many values :func:`percents` formats them one by one.
_MANY = 64


def percents(values: Sequence[float | None], digits: int = 2) -> list[str]:
    """``[percent(v, digits) for v in values]``, the rounding done for all at once.

    A table of a sweep has tens of thousands of cells. Scaled by 10**(2 + digits),
    a value under 1e8 in size is within 1e-7 of its shortest decimal form scaled
    (the float's error, 2**-52 of it, and the shortest form's, half a unit in the
    last place), so wherever its fraction is more than 1e-6 from a half, rounding
    the float half up rounds the decimal form half up; the rest (near a half, huge,
    not finite, None) go through :func:`percent`. A value's sign is kept as
    :func:`percent` keeps it (``-0.00`` for a negative value that rounds to zero).
    """
    if len(values) < _MANY or not 0 <= digits <= 6:
        return [percent(value, digits) for value in values]
    import numpy as np

    array = np.array(values, dtype=float)  # None becomes NaN
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = array * float(10 ** (2 + digits))
        whole = np.floor(scaled + 0.5)
        exact = ((np.abs(scaled) < 1e8) & (np.abs(scaled - np.floor(scaled) - 0.5) > 1e-6))
    # key: 2 * units + 1 where negative; each distinct key made into text once
    keys = 2 * np.where(exact, np.abs(whole), 0).astype(np.int64) + np.signbit(array)
    distinct, inverse = np.unique(keys, return_inverse=True)
    step = 10 ** digits
    texts = []
    for key in distinct.tolist():
        unit = key >> 1
        body = f"{unit // step}.{unit % step:0{digits}d}" if digits else str(unit)
        texts.append("-" + body if key & 1 else body)
    out = [texts[i] for i in inverse.tolist()]
    for i in np.flatnonzero(~exact).tolist():
        out[i] = percent(values[i], digits)
    return out


def fixed(value: float | None, digits: int = 3) -> str:
    """A plain number rounded half up (for correlations)."""
    if value is None or not math.isfinite(value):
        return "-"
    return _half_up(repr(float(value)), 0, digits)


def _half_up(text: str, shift: int, digits: int) -> str:
    """``text`` (a finite float's repr) times 10**``shift``, rounded half up to ``digits``
    decimals: :func:`_half_up_decimal`'s string, found on the digits themselves (a table
    of a sweep formats tens of thousands of numbers). Anything but the plain form
    (``-12.345``) and 0-6 digits goes to :func:`_half_up_decimal`, the definition."""
    head, point, tail = text.partition(".")
    if not point or "e" in tail or not 0 <= digits <= 6 or len(head) > 12:
        return _half_up_decimal(text, shift, digits)
    negative = head[0] == "-"
    tail = tail.ljust(shift + digits + 1, "0")
    whole = int(head[negative:] + tail[:shift + digits]) + (tail[shift + digits] >= "5")
    body = str(whole).rjust(digits + 1, "0")
    if digits:
        body = body[:-digits] + "." + body[-digits:]
    return "-" + body if negative else body


def _half_up_decimal(text: str, shift: int, digits: int) -> str:
    """The definition of :func:`_half_up` (and its slow path): decimal arithmetic."""
    quantum = Decimal(1).scaleb(-digits)
    value = Decimal(text) * 10 ** shift if shift else Decimal(text)
    return str(value.quantize(quantum, rounding=ROUND_HALF_UP))


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
    plain = _render_plain(headers, rows, fmt, align)
    return plain if plain is not None else render_tabulate(headers, rows, fmt, align)


def render_tabulate(headers: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str,
                    align: Sequence[str] | None = None) -> str:
    """``table``, ``markdown`` or ``latex`` by tabulate: the definition of those
    formats, and what :func:`render` uses for any table :func:`_render_plain` declines."""
    from tabulate import tabulate

    colalign = tuple(align) if align else None
    tablefmt = {"table": "simple", "markdown": "pipe", "latex": "latex_booktabs"}[fmt]
    return tabulate(rows, headers=headers, tablefmt=tablefmt, colalign=colalign,
                    disable_numparse=True)


#: LaTeX's special characters, escaped as tabulate's ``latex_booktabs`` escapes them.
_LATEX_ESCAPES = str.maketrans({
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "^": r"\^{}", "{": r"\{",
    "}": r"\}", "~": r"\textasciitilde{}", "\\": r"\textbackslash{}",
    "<": r"\ensuremath{<}", ">": r"\ensuremath{>}"})


def _render_plain(headers: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str,
                  align: Sequence[str] | None) -> str | None:
    """:func:`render_tabulate`'s text, made directly, for the tables commands print: a
    header and at least one row, all of one length, every cell a string of printable
    ASCII (one column per character: no tabs, line breaks, escape codes or wide
    characters), columns aligned left or right; else None. tabulate looks at every
    cell several times (its type, its width, its alignment), which made printing a
    sweep's table cost more than scoring it. tests/test_formatting.py keeps this
    equal to tabulate on many tables, every format, alignment and awkward cell."""
    width = len(headers)
    if not width or not rows or any(len(row) != width for row in rows):
        return None
    aligns = [*(align or ())][:width]
    aligns += ["left"] * (width - len(aligns))
    if not all(a in ("left", "right") for a in aligns):
        return None
    try:
        cells = "".join(["".join(row) for row in rows])
        text = "".join(headers) + cells
    except TypeError:  # a cell or header that is not a string
        return None
    if not (text.isascii() and text.isprintable()):
        return None
    if " " in cells:  # printable ASCII: a space is the only whitespace a cell can hold
        columns = [[cell.strip() for cell in column] for column in zip(*rows, strict=True)]
    else:
        columns = [list(column) for column in zip(*rows, strict=True)]
    widths = [max(len(head) + 2, *map(len, column)) for head, column in zip(headers, columns,
                                                                            strict=True)]
    padded = [[cell.rjust(w) for cell in column] if a == "right" else
              [cell.ljust(w) for cell in column]
              for column, w, a in zip(columns, widths, aligns, strict=True)]
    heads = [h.rjust(w) if a == "right" else h.ljust(w)
             for h, w, a in zip(headers, widths, aligns, strict=True)]
    body = zip(*padded, strict=True)
    if fmt == "table":
        lines = ["  ".join(heads).rstrip(), "  ".join("-" * w for w in widths)]
        lines += ["  ".join(row).rstrip() for row in body]
    elif fmt == "markdown":
        rule = "|".join("-" * (w + 1) + ":" if a == "right" else ":" + "-" * (w + 1)
                        for w, a in zip(widths, aligns, strict=True))
        lines = ["| " + " | ".join(heads) + " |", f"|{rule}|"]
        lines += ["| " + " | ".join(row) + " |" for row in body]
    elif fmt == "latex":
        spec = "".join("r" if a == "right" else "l" for a in aligns)
        lines = ["\\begin{tabular}{" + spec + "}\n\\toprule", _latex_row(heads), "\\midrule"]
        lines += [_latex_row(row) for row in body]
        lines.append("\\bottomrule\n\\end{tabular}")
    else:
        return None
    return "\n".join(lines)


def _latex_row(cells: Sequence[str]) -> str:
    return " " + " & ".join(cell.translate(_LATEX_ESCAPES) for cell in cells) + " \\\\"


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
