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

from gecmetrics.formatting import fixed, render, signature_lines, to_json

from .analyses import ANALYSES
from .pair_stats_tables import cluster_table, human_table, pair_table, sentence_ties_table
from .results import Comparison, MetaEvaluation, MetaResult, SentenceAgreement, WindowRow
from .selection import Selection
from .subsets import SubsetRow
from .sweep import Sweep, parse_grid

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


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def cv_table(results: Sequence[MetaResult], fmt: str) -> str:
    """Cross-validated beta*: one row per (benchmark, metric, level)."""
    headers = ["benchmark", "metric", "spec", "level", "β* (CV)", "sd", "fold optima",
               "r at β*", "ρ at β*"]
    seen, cells = set(), []
    for r in results:
        key = (r.benchmark, r.spec, r.level)
        if key in seen or r.cv is None:
            continue
        seen.add(key)
        cv = r.cv
        if cv.beta_star is None or cv.beta_star_folds is None or cv.beta_star_std is None:
            cells.append([r.benchmark, r.metric, r.spec, r.level, "-", "-", "(no β)", "-", "-"])
            continue
        folds = cv.beta_star_folds
        cells.append([r.benchmark, r.metric, r.spec, r.level, f"{cv.beta_star:.3f}",
                      f"{cv.beta_star_std:.3f}", f"{min(folds):g}-{max(folds):g}",
                      fixed(cv.pearson, DIGITS), fixed(cv.spearman, DIGITS)])
    return render(headers, cells, fmt, ["left"] * 4 + ["right"] * 5)


def compare_table(rows: Sequence[Comparison], fmt: str) -> str:
    headers = ["benchmark", "level", "metric A", "β A", "metric B", "β B", "r A", "r B",
               "r(A,B)", "Williams p", "bootstrap p", "Δr 95% CI"]
    cells = [[c.benchmark, c.level, c.spec_a, _b(c.beta_a), c.spec_b, _b(c.beta_b),
              fixed(c.pearson_a, DIGITS), fixed(c.pearson_b, DIGITS),
              fixed(c.pearson_ab, DIGITS), _p(c.williams_p), _p(c.bootstrap_p),
              _interval(c.delta_ci)] for c in rows]
    return render(headers, cells, fmt, ["left"] * 6 + ["right"] * 6)


def window_table(rows: Sequence[WindowRow], fmt: str) -> str:
    headers = ["benchmark", "metric", "spec", "β", "level", "from rank", "systems", "r", "ρ"]
    cells = [[w.benchmark, w.metric, w.spec, _b(w.beta), w.level, w.window_start,
              " ".join(w.systems_in_window), fixed(w.pearson, DIGITS),
              fixed(w.spearman, DIGITS)] for w in rows]
    return render(headers, cells, fmt, ["left"] * 5 + ["right", "left", "right", "right"])


def subsets_table(rows: Sequence[SubsetRow], fmt: str) -> str:
    headers = ["benchmark", "metric", "spec", "β", "level", "subsets", "min", "Q1", "median",
               "Q3", "max", "best"]
    cells = [[r.benchmark, r.metric, r.spec, _b(r.beta), r.level, r.n_subsets,
              *(fixed(r.summary["pearson"][q], DIGITS)
                for q in ("min", "q1", "median", "q3", "max")),
              f"{100 * r.best_share['pearson']:.1f}%"] for r in rows]
    return render(headers, cells, fmt, ["left"] * 5 + ["right"] * 7)


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
        if any(s.tie_calibration is not None for s in rows):
            out = _append_sections(out, [(
                "Tie calibration (Deutsch et al. 2023): every pair of outputs in an item, "
                "human ties included; |Δ| <= ε is a metric tie; accuracy under each --ties "
                "policy for comparison", sentence_ties_table(rows, fmt))], fmt)
    elif o.mode == "sweep":
        assert o.grid is not None
        table = sweep_table(result.sweeps, names, fmt)
        out = _with_preamble(result.selections, table, fmt, notes,
                             f", β grid {o.grid} ({_grid_points(o.grid)} points)")
    else:
        out = _system_level(result, fmt, notes)
    out = _append_sections(out, _registered_sections(result, fmt), fmt)
    return _with_signatures(out, result.signatures(), fmt, notes), notes


def _registered_sections(result: MetaEvaluation, fmt: str) -> list[tuple[str, str]]:
    """A titled table for each registered analysis that has rows."""
    return [(a.title(result.options.settings[a.name], rows), a.table(rows, fmt))
            for a in ANALYSES if (rows := result.analysis_rows(a.name))]


def _grid_points(grid: str) -> int:
    return len(parse_grid(grid))


def _system_level(result: MetaEvaluation, fmt: str, notes: list[str]) -> str:
    o = result.options
    table = results_table(result.correlations, result.benchmarks, fmt)
    sections = []
    if o.cv_folds is not None:
        sections.append((f"Cross-validated β* ({o.cv_folds} folds of test sentences, seed "
                         f"{o.seed_value}, grid {o.cv_grid_text}, optimum of r on each "
                         "training part; β* = their mean)", cv_table(result.correlations, fmt)))
    if result.comparisons:
        sections.append((f"Metric pairs: Williams' test on r and paired bootstrap "
                         f"({o.compare_resamples} resamples, seed {o.seed_value}); "
                         "one-sided p-values", compare_table(result.comparisons, fmt)))
    if result.windows:
        sections.append((f"Window analysis ({o.window} consecutive systems by human score)",
                         window_table(result.windows, fmt)))
    if result.subsets:
        first = result.subsets[0]
        how = ("every subset" if first.exhaustive
               else f"{o.subsets_max} random subsets (seed {o.seed_value})")
        sections.append((f"System-set robustness: r over {how} of {o.subsets} systems; "
                         "best = share of subsets in which the row has the highest r",
                         subsets_table(result.subsets, fmt)))
    sections += _stat_sections(result, fmt)
    extra = (f", 95% bootstrap intervals ({o.bootstrap} resamples, seed {o.seed_value})"
             if o.bootstrap is not None else "")
    out = _with_preamble(result.selections, table, fmt, notes, extra)
    return _append_sections(out, sections, fmt)


def _stat_sections(result: MetaEvaluation, fmt: str) -> list[tuple[str, str]]:
    """Tables of --pairwise/--tie-calibration/--spa, --clusters and --human-intervals."""
    o, sections = result.options, []
    if any(r.pairs is not None for r in result.correlations):
        spa = (f" (SPA: {o.stat_resamples} resamples, seed {o.seed_value})" if o.spa else "")
        sections.append((f"Pairwise statistics over system pairs{spa}",
                         pair_table(result.correlations, fmt)))
    if result.clusters:
        sections.append((f"Metric clusters by {o.clusters} (paired bootstrap over systems and "
                         f"sentences, {o.stat_resamples} resamples, seed {o.seed_value}; a new "
                         "cluster when p < 0.05 against the cluster's top)",
                         cluster_table(result.clusters, fmt)))
    if result.human_intervals:
        sections.append((f"Human scores: 95% bootstrap intervals and rank ranges "
                         f"({o.stat_resamples} resamples of the "
                         f"{'ranking items' if o.human_unit == 'items' else 'comparisons'}, seed "
                         f"{o.seed_value}; GMEG: sentences)",
                         human_table(result.human_intervals, fmt)))
    return sections


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

