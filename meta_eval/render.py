"""Renderers of a :class:`~.results.MetaEvaluation`: table, Markdown, LaTeX, CSV, JSON.

Nothing is computed here. Tables have one row per metric (and beta and level)
and, per benchmark, an r and a rho column; the best value of each column is
marked (``*``, bold in Markdown). Each benchmark's setting (human scores,
system set, corpus) is printed above the table (as ``%`` comments in LaTeX; on
stderr for CSV), and one ``signature: ...`` line per distinct row signature
under the output (on stderr for CSV, which stays a bare table for programs).
"""

from __future__ import annotations

from collections.abc import Sequence

from gecmetrics.formatting import fixed, plural, render, signature_lines, to_json
from gecmetrics.meta_eval.analyses import ANALYSES
from gecmetrics.meta_eval.results import MetaEvaluation, MetaResult, SentenceAgreement
from gecmetrics.meta_eval.selection import Selection
from gecmetrics.meta_eval.sweep import Sweep, parse_grid

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
    with_ci = any(r.intervals is not None for r in results)
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
                ci = r.intervals if r else None
                row += ([fixed(r.pearson, DIGITS), _interval(ci.pearson if ci else None),
                         fixed(r.spearman, DIGITS), _interval(ci.spearman if ci else None)]
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


def _b(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def sentence_table(rows: Sequence[SentenceAgreement], benchmarks: Sequence[str],
                   fmt: str) -> str:
    """Rows: (metric, beta); columns per benchmark: accuracy and Kendall-like tau."""
    keys = list(dict.fromkeys((s.metric, s.spec, s.beta) for s in rows))
    index = {(s.metric, s.spec, s.beta, s.benchmark): s for s in rows}
    headers = ["metric", "spec", "β"]
    for bench in benchmarks:
        headers += [f"{bench} acc", f"{bench} τ"]
    cells = []
    for metric, spec, beta in keys:
        row = [metric, spec, _b(beta)]
        for bench in benchmarks:
            s = index.get((metric, spec, beta, bench))
            row += ([fixed(s.accuracy, DIGITS), fixed(s.kendall_like, DIGITS)]
                    if s else ["-", "-"])
        cells.append(row)
    _mark(cells, range(3, len(headers)), fmt)
    return render(headers, cells, fmt, ["left"] * 3 + ["right"] * (len(headers) - 3))


def sentence_preamble(rows: Sequence[SentenceAgreement], fmt: str) -> str:
    lines: dict[str, str] = {}
    for s in rows:
        pairs = "" if s.ties == "exclude" else f", {s.n_pairs} human comparisons"
        lines.setdefault(s.benchmark, (
            f"{s.benchmark}: sentence level, human={s.human} judgments "
            f"({s.n_items} ranking items{pairs}), systems={s.systems} "
            f"({s.n_systems}), corpus={s.corpus}, ties={s.ties}"))
    if fmt == "latex":
        return "\n".join(f"% {line}" for line in lines.values())
    if fmt == "markdown":
        return "\n".join(f"- {line}" for line in lines.values())
    return "\n".join(lines.values())


# -- the whole output ----------------------------------------------------------------------


def render_evaluation(result: MetaEvaluation, fmt: str = "table") -> tuple[str, list[str]]:
    """The output of ``gecmetrics meta-eval --format fmt`` and its lines for stderr."""
    notes = list(result.notes)
    if fmt == "json":
        return to_json(result.to_json(), notes), notes
    o, names = result.options, result.benchmarks
    if o.mode == "sentence":
        rows = result.sentences
        out = _with_head(sentence_preamble(rows, fmt), sentence_table(rows, names, fmt),
                         fmt, notes)
    elif o.mode == "sweep":
        assert o.grid is not None
        table = sweep_table(result.sweeps, names, fmt)
        out = _with_preamble(result.selections, table, fmt, notes,
                             f", β grid {o.grid} ({plural(_grid_points(o.grid), 'point')})")
    else:
        out = _system_level(result, fmt, notes)
    if o.mode != "system":
        out = _append_sections(out, list(_registered_sections(result, fmt).values()), fmt)
    return _with_signatures(out, result.signatures(), fmt, notes), notes


# The order of the sections under the system-level table, by analysis name (a
# contract of the output: the sections were always in this order, which is not the
# registry's, the order of the rows); an analysis not named here comes last.
SECTION_ORDER = ("cv_beta", "compare", "window", "subsets", "pair_stats", "clusters",
                 "human_intervals", "pool", "rank_pairs", "attacks")


def _section_rank(name: str) -> int:
    return SECTION_ORDER.index(name) if name in SECTION_ORDER else len(SECTION_ORDER)


def _registered_sections(result: MetaEvaluation, fmt: str) -> dict[str, tuple[str, str]]:
    """A titled table for each registered analysis that has rows, by name (those that
    add columns: the correlation or sentence-level rows)."""
    settings = result.options.settings
    plain = result.sentences if result.options.mode == "sentence" else result.correlations
    return {a.name: (a.title(settings[a.name], rows, result.options), a.table(rows, fmt))
            for a in ANALYSES if a.title is not None and a.table is not None and (rows := (
                plain if a.columns is not None and a.enabled(settings[a.name])
                else result.analysis_rows(a.name)))}


def _grid_points(grid: str) -> int:
    return len(parse_grid(grid))


def _system_level(result: MetaEvaluation, fmt: str, notes: list[str]) -> str:
    table = results_table(result.correlations, result.benchmarks, fmt)
    sections = _registered_sections(result, fmt)
    ci = next((r.intervals for r in result.correlations if r.intervals is not None), None)
    extra = (f", 95% bootstrap intervals ({ci.resamples} resamples, seed {ci.seed})"
             if ci is not None else "")
    out = _with_preamble(result.selections, table, fmt, notes, extra)
    return _append_sections(out, [sections[name] for name in sorted(sections,
                                                                     key=_section_rank)], fmt)


def _with_signatures(out: str, signatures: Sequence[str], fmt: str, notes: list[str]) -> str:
    if fmt == "csv":
        notes.extend(f"signature: {sig}" for sig in dict.fromkeys(signatures) if sig)
        return out
    lines = signature_lines(signatures, fmt)
    if not lines:
        return out
    return f"{out}\n\n{lines}" if fmt == "markdown" else f"{out}\n{lines}"


def _append_sections(out: str, sections: Sequence[tuple[str, str]], fmt: str) -> str:
    for title, table in sections:
        if fmt == "markdown":
            out += f"\n\n**{title}**\n\n{table}"
        elif fmt == "latex":
            out += f"\n\n% {title}\n{table}"
        else:
            out += f"\n\n{title}\n{table}"
    return out


def _with_head(head: str, table: str, fmt: str, notes: list[str]) -> str:
    if fmt == "csv":
        notes[:0] = head.splitlines()
        return table
    return f"{head}\n\n{table}" if fmt == "markdown" else f"{head}\n{table}"


def _with_preamble(selections: Sequence[Selection], table: str, fmt: str, notes: list[str],
                   extra: str = "") -> str:
    head = preamble(selections, fmt, extra)
    if fmt == "csv":
        notes[:0] = head.splitlines()
        return table
    marker = "best per column in bold" if fmt == "markdown" else "* best per column"
    return f"{head}\n\n{table}\n\n{marker}" if fmt == "markdown" else f"{head}\n{table}\n{marker}"

