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


def _interval(values: Sequence[float | None] | None) -> str:
    if not values:
        return "-"
    low, high = values
    return f"[{fixed(low, DIGITS)}, {fixed(high, DIGITS)}]"


def results_table(results: Sequence[MetaResult], benchmarks: Sequence[str], fmt: str) -> str:
    """Rows: (metric, beta, level); columns: each benchmark's r and rho (and their 95%
    bootstrap intervals when the rows have them)."""
    with_ci = any("pearson_ci" in r.extra for r in results)
    levels = list(dict.fromkeys(r.level for r in results))
    keys = list(dict.fromkeys((r.metric, r.spec, r.beta, r.level) for r in results))
    index = {(r.metric, r.spec, r.beta, r.level, r.benchmark): r for r in results}
    headers = ["metric", "spec", "β"] + (["level"] if len(levels) > 1 else [])
    first = len(headers)
    value_cols = []
    for bench in benchmarks:
        if with_ci:
            value_cols += [len(headers), len(headers) + 2]
            headers += [f"{bench} r", f"{bench} r 95% CI", f"{bench} ρ", f"{bench} ρ 95% CI"]
        else:
            value_cols += [len(headers), len(headers) + 1]
            headers += [f"{bench} r", f"{bench} ρ"]
    cells = []
    for metric, spec, beta, level in keys:
        row = [metric, spec, _beta(beta)] + ([level] if len(levels) > 1 else [])
        for bench in benchmarks:
            r = index.get((metric, spec, beta, level, bench))
            if with_ci:
                row += ([fixed(r.pearson, DIGITS), _interval(r.extra.get("pearson_ci")),
                         fixed(r.spearman, DIGITS), _interval(r.extra.get("spearman_ci"))]
                        if r else ["-"] * 4)
            else:
                row += ([fixed(r.pearson, DIGITS), fixed(r.spearman, DIGITS)]
                        if r else ["-", "-"])
        cells.append(row)
    _mark(cells, value_cols, fmt)
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


def results_json(results: Sequence[MetaResult], notes: list[str] | None = None) -> str:
    return to_json([r.to_json() for r in results], notes)


def _b(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def cv_table(results: Sequence[MetaResult], fmt: str) -> str:
    """Cross-validated beta*: one row per (benchmark, metric, level)."""
    headers = ["benchmark", "metric", "spec", "level", "β* (CV)", "sd", "fold optima",
               "r at β*", "ρ at β*"]
    seen, cells = set(), []
    for r in results:
        key = (r.benchmark, r.spec, r.level)
        if key in seen or "beta_star" not in r.extra:
            continue
        seen.add(key)
        e = r.extra
        if e["beta_star"] is None:
            cells.append([r.benchmark, r.metric, r.spec, r.level, "-", "-", "(no β)", "-", "-"])
            continue
        folds = e["beta_star_folds"]
        cells.append([r.benchmark, r.metric, r.spec, r.level, f"{e['beta_star']:.3f}",
                      f"{e['beta_star_std']:.3f}", f"{min(folds):g}-{max(folds):g}",
                      fixed(e["pearson_at_beta_star"], DIGITS),
                      fixed(e["spearman_at_beta_star"], DIGITS)])
    return render(headers, cells, fmt, ["left"] * 4 + ["right"] * 5)


def compare_table(rows: Sequence[dict], fmt: str) -> str:
    headers = ["benchmark", "level", "metric A", "β A", "metric B", "β B", "r A", "r B",
               "r(A,B)", "Williams p", "bootstrap p", "Δr 95% CI"]
    cells = [[c["benchmark"], c["level"], c["spec_a"], _b(c["beta_a"]), c["spec_b"],
              _b(c["beta_b"]), fixed(c["pearson_a"], DIGITS), fixed(c["pearson_b"], DIGITS),
              fixed(c["pearson_ab"], DIGITS), _p(c["williams_p"]), _p(c["bootstrap_p"]),
              _interval(c["delta_ci"])] for c in rows]
    return render(headers, cells, fmt, ["left"] * 6 + ["right"] * 6)


def window_table(rows: Sequence[dict], fmt: str) -> str:
    headers = ["benchmark", "metric", "spec", "β", "level", "from rank", "systems", "r", "ρ"]
    cells = [[w["benchmark"], w["metric"], w["spec"], _b(w["beta"]), w["level"],
              w["window_start"], " ".join(w["systems_in_window"]), fixed(w["pearson"], DIGITS),
              fixed(w["spearman"], DIGITS)] for w in rows]
    return render(headers, cells, fmt, ["left"] * 5 + ["right", "left", "right", "right"])


def sentence_table(rows: Sequence[dict], benchmarks: Sequence[str], fmt: str) -> str:
    """Rows: (metric, beta); columns per benchmark: accuracy and Kendall-like tau."""
    keys = list(dict.fromkeys((s["metric"], s["spec"], s["beta"]) for s in rows))
    index = {(s["metric"], s["spec"], s["beta"], s["benchmark"]): s for s in rows}
    headers = ["metric", "spec", "β"]
    for bench in benchmarks:
        headers += [f"{bench} acc", f"{bench} τ"]
    cells = []
    for metric, spec, beta in keys:
        row = [metric, spec, _b(beta)]
        for bench in benchmarks:
            s = index.get((metric, spec, beta, bench))
            row += ([fixed(s["accuracy"], DIGITS), fixed(s["kendall_like"], DIGITS)]
                    if s else ["-", "-"])
        cells.append(row)
    _mark(cells, range(3, len(headers)), fmt)
    return render(headers, cells, fmt, ["left"] * 3 + ["right"] * (len(headers) - 3))


def sentence_preamble(rows: Sequence[dict], fmt: str) -> str:
    lines: dict[str, str] = {}
    for s in rows:
        pairs = "" if s["ties"] == "exclude" else f", {s['n_pairs']} human comparisons"
        lines.setdefault(s["benchmark"], (
            f"{s['benchmark']}: sentence level, human={s['human']} judgments "
            f"({s['n_items']} ranking items{pairs}), systems={s['systems']} "
            f"({s['n_systems']}), corpus={s['corpus']}, ties={s['ties']}"))
    if fmt == "latex":
        return "\n".join(f"% {line}" for line in lines.values())
    if fmt == "markdown":
        return "\n".join(f"- {line}" for line in lines.values())
    return "\n".join(lines.values())
