"""What ``gecmetrics meta-eval`` does, callable from Python: load, score, correlate, format."""

from __future__ import annotations

from collections.abc import Sequence

from gecmetrics.errors import ConfigError
from gecmetrics.metric import check_beta
from gecmetrics.registry import metric_from_spec

from .benchmarks import load_benchmark
from .evaluate import MetaResult, Selection, meta_evaluate
from .report import preamble, results_json, results_table, sweep_table
from .sweep import Sweep, parse_grid, sweep


def run_meta_eval(benchmarks: Sequence[str], specs: Sequence[str], system_set: str | None = None,
                  human: str = "ew", levels: Sequence[str] = ("corpus",),
                  betas: Sequence[float] = (), grid: str | None = None, plot: str | None = None,
                  seeda_corpus: str = "subset", data_dir: str | None = None,
                  fmt: str = "table") -> tuple[str, list[str]]:
    """Return the formatted output and notes for stderr."""
    metrics = [metric_from_spec(spec) for spec in specs]  # bad specs fail before reading data
    beta_values = [check_beta(b) for b in betas]
    if beta_values and grid:
        raise ConfigError("give either -b/--beta or --sweep-beta/--plot, not both")
    betas_grid = parse_grid(grid) if grid else None
    if plot:
        from .plot import check_plot_path

        check_plot_path(plot)  # fail before the work, not after
    selections = []
    for name in benchmarks:
        bench = load_benchmark(name, data_dir, seeda_corpus=seeda_corpus)
        selections.append(Selection.make(bench, system_set, human))
    names = [sel.benchmark.name for sel in selections]
    notes: list[str] = []

    if betas_grid is None:
        results: list[MetaResult] = []
        for sel in selections:
            results += meta_evaluate(sel, metrics, beta_values or None, levels)
        if fmt == "json":
            return results_json(results), notes
        table = results_table(results, names, fmt)
    else:
        sweeps: list[Sweep] = [sweep(sel, metric, betas_grid, level)
                               for sel in selections for metric in metrics for level in levels]
        if plot:
            from .plot import plot_sweeps

            notes.append(f"plot written to {plot_sweeps(sweeps, plot)}")
        if fmt == "json":
            return results_json([r for s in sweeps for r in s.results()]), notes
        table = sweep_table(sweeps, names, fmt)
        grid_note = f", β grid {grid} ({len(betas_grid)} points)"
        return _with_preamble(selections, table, fmt, notes, grid_note), notes
    return _with_preamble(selections, table, fmt, notes), notes


def _with_preamble(selections: Sequence[Selection], table: str, fmt: str, notes: list[str],
                   extra: str = "") -> str:
    head = preamble(selections, fmt, extra)
    if fmt == "csv":
        notes[:0] = head.splitlines()
        return table
    marker = "best per column in bold" if fmt == "markdown" else "* best per column"
    return f"{head}\n\n{table}\n\n{marker}" if fmt == "markdown" else f"{head}\n{table}\n{marker}"
