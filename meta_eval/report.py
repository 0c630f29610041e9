"""Tables and JSON for meta-evaluation results.

Tables have one row per metric (and beta and level) and, per benchmark, an
r and a rho column; the best value of each column is marked (``*``, bold in
Markdown). Each benchmark's setting (human scores, system set, corpus) is
printed above the table (as ``%`` comments in LaTeX; on stderr for CSV).
"""

from __future__ import annotations

from collections.abc import Sequence

from gecmetrics.formatting import fixed, render, to_json

from .evaluate import MetaResult, Selection
from .sweep import Sweep

DIGITS = 3


def _mark(cells: list[list[str]], columns: Sequence[int], fmt: str) -> None:
    """Mark the best (highest) value of each column in place, ties included (not in CSV)."""
    if fmt == "csv":
        return
    for col in columns:
        values = [float(row[col]) for row in cells if row[col] not in ("-", "nan")]
        if not values:
            continue
        best = fixed(max(values), DIGITS)
        for row in cells:
            if row[col] == best:
                row[col] = f"**{best}**" if fmt == "markdown" else f"{best}*"


def _beta(beta: float | None) -> str:
    return "-" if beta is None else f"{beta:g}"


def preamble(selections: Sequence[Selection], fmt: str, extra: str = "") -> str:
    lines = [sel.describe() + extra for sel in selections]
    if fmt == "latex":
        return "\n".join(f"% {line}" for line in lines)
    if fmt == "markdown":
        return "\n".join(f"- {line}" for line in lines)
    return "\n".join(lines)


def results_table(results: Sequence[MetaResult], benchmarks: Sequence[str], fmt: str) -> str:
    """Rows: (metric, beta, level); columns: each benchmark's r and rho."""
    levels = list(dict.fromkeys(r.level for r in results))
    keys = list(dict.fromkeys((r.metric, r.spec, r.beta, r.level) for r in results))
    index = {(r.metric, r.spec, r.beta, r.level, r.benchmark): r for r in results}
    headers = ["metric", "spec", "β"] + (["level"] if len(levels) > 1 else [])
    first = len(headers)
    for bench in benchmarks:
        headers += [f"{bench} r", f"{bench} ρ"]
    cells = []
    for metric, spec, beta, level in keys:
        row = [metric, spec, _beta(beta)] + ([level] if len(levels) > 1 else [])
        for bench in benchmarks:
            r = index.get((metric, spec, beta, level, bench))
            row += ([fixed(r.pearson, DIGITS), fixed(r.spearman, DIGITS)] if r else ["-", "-"])
        cells.append(row)
    _mark(cells, range(first, len(headers)), fmt)
    align = ["left"] * first + ["right"] * (len(headers) - first)
    return render(headers, cells, fmt, align)


def sweep_table(sweeps: Sequence[Sweep], benchmarks: Sequence[str], fmt: str) -> str:
    """Rows: (metric, level); columns per benchmark: best beta and r, best beta and rho."""
    levels = list(dict.fromkeys(s.level for s in sweeps))
    keys = list(dict.fromkeys((s.metric.display_name, s.metric.spec, s.level) for s in sweeps))
    index = {(s.metric.display_name, s.metric.spec, s.level, s.selection.benchmark.name): s
             for s in sweeps}
    headers = ["metric", "spec"] + (["level"] if len(levels) > 1 else [])
    first = len(headers)
    value_cols = []
    for bench in benchmarks:
        value_cols += [len(headers) + 1, len(headers) + 3]
        headers += [f"{bench} β*(r)", f"{bench} r", f"{bench} β*(ρ)", f"{bench} ρ"]
    cells = []
    for metric, spec, level in keys:
        row = [metric, spec] + ([level] if len(levels) > 1 else [])
        for bench in benchmarks:
            s = index.get((metric, spec, level, bench))
            if s is None:
                row += ["-"] * 4
                continue
            for which in ("pearson", "spearman"):
                beta, value = s.best(which)
                row += [_beta(beta) if beta == beta else "-", fixed(value, DIGITS)]
        cells.append(row)
    _mark(cells, value_cols, fmt)
    align = ["left"] * first + ["right"] * (len(headers) - first)
    return render(headers, cells, fmt, align)


def results_json(results: Sequence[MetaResult]) -> str:
    return to_json([r.to_json() for r in results])
