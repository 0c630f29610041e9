"""What ``gecmetrics meta-eval`` does, callable from Python: load, score, correlate, format."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gecmetrics.errors import ConfigError, PartialOutputError
from gecmetrics.formatting import to_json
from gecmetrics.metric import Metric
from gecmetrics.registry import metric_from_spec
from gecmetrics.validate import (
    beta_options_apply,
    check_beta,
    check_folds,
    check_plot_file,
    check_resamples,
    check_seed,
    check_window,
    needs,
)

from .benchmarks import load_benchmark
from .evaluate import MetaResult, Selection, meta_evaluate
from .report import (
    compare_table,
    cv_table,
    preamble,
    results_json,
    results_table,
    sentence_preamble,
    sentence_table,
    sweep_table,
    window_table,
)
from .score_files import check_score_metrics
from .sweep import DEFAULT_GRID, Sweep, parse_grid, sweep


def run_meta_eval(benchmarks: Sequence[str], specs: Sequence[str], system_set: str | None = None,
                  human: str | None = None, levels: Sequence[str] = ("corpus",),
                  betas: Sequence[float] = (), grid: str | None = None, plot: str | None = None,
                  seeda_corpus: str = "subset", data_dir: str | None = None,
                  fmt: str = "table", split: str = "test", bootstrap: int | None = None,
                  seed: int | None = None, compare: bool = False, sentence_level: bool = False,
                  ties: str = "seeda", window: int | None = None, window_plot: str | None = None,
                  cv_folds: int | None = None, cv_grid: str | None = None,
                  scores: Sequence[Metric] = ()) -> tuple[str, list[str]]:
    """Return the formatted output and notes for stderr.

    ``scores``: metrics made from given scores (:mod:`.score_files`, ``--scores``),
    evaluated after the ``specs`` metrics like any other metric.
    """
    from .analyses import (
        DEFAULT_RESAMPLES,
        DEFAULT_SEED,
        add_bootstrap,
        add_cv_beta,
        compare_metrics,
        windows,
    )
    from .analyses import (
        sentence_level as pairwise_sentence_level,
    )

    metrics = [metric_from_spec(spec) for spec in specs]  # bad specs fail before reading data
    metrics += scores
    if not metrics:
        raise ConfigError("no metric given; add -m SPEC (e.g. -m green) and/or "
                          "--scores NAME=PATH")
    beta_values = [check_beta(b, "-b/--beta") for b in betas]
    if beta_values and grid is not None:
        raise ConfigError("give either -b/--beta or --sweep-beta/--plot, not both")
    notes: list[str] = []
    beta_options_apply(metrics, notes, **{"-b/--beta": bool(beta_values),
                                          "--sweep-beta/--plot": grid is not None,
                                          "--cv-beta": cv_folds is not None})
    extras = {"--bootstrap": bootstrap is not None, "--compare": compare,
              "--window": window is not None, "--cv-beta": cv_folds is not None}
    asked = [name for name, on in extras.items() if on]
    if grid is not None and asked:
        raise ConfigError(f"{asked[0]} works at the given betas; it cannot be combined with "
                          "--sweep-beta/--plot")
    if sentence_level and (asked or grid is not None):
        raise ConfigError(f"--sentence-level cannot be combined with "
                          f"{(asked or ['--sweep-beta/--plot'])[0]}")
    if compare and len(metrics) < 2:
        raise ConfigError("--compare needs at least two metrics (-m A -m B)")
    if bootstrap is not None:
        check_resamples(bootstrap)
    if window is not None:
        check_window(window)
    if cv_folds is not None:
        check_folds(cv_folds)
    if window_plot is not None:
        needs("--window-plot", "--window W", window is not None)
    if cv_grid is not None:
        needs("--cv-grid", "--cv-beta K", cv_folds is not None)
    if seed is not None:
        needs("--seed", "--bootstrap, --compare or --cv-beta (the analyses that draw at random)",
              bootstrap is not None or compare or cv_folds is not None)
        check_seed(seed)
    seed = DEFAULT_SEED if seed is None else seed
    betas_grid = parse_grid(grid) if grid is not None else None
    if cv_grid is None:
        cv_grid = DEFAULT_GRID
    cv_betas = parse_grid(cv_grid, "--cv-grid") if cv_folds is not None else None
    if plot is not None:
        check_plot_file(plot, "--plot")  # fail before the work, not after
    if window_plot is not None:
        check_plot_file(window_plot, "--window-plot")
    selections = []
    for name in benchmarks:
        bench = load_benchmark(name, data_dir, seeda_corpus=seeda_corpus, split=split)
        selections.append(Selection.make(bench, system_set, human))
        if window is not None:  # the data is read, nothing scored yet
            check_window(window, len(selections[-1].systems),
                         f"{name}")
    names = [sel.benchmark.name for sel in selections]
    notes += check_score_metrics(metrics, selections, levels, bootstrap=bootstrap is not None,
                                 compare=compare, sentence_level=sentence_level)
    plots: list[tuple[Any, ...]]  # (draw, data, path, what): saved once the output is ready

    if sentence_level:
        rows = [row for sel in selections
                for row in pairwise_sentence_level(sel, metrics, beta_values or None, ties)]
        if fmt == "json":
            return to_json(rows, notes), notes
        return _with_head(sentence_preamble(rows, fmt), sentence_table(rows, names, fmt),
                          fmt, notes), notes

    if betas_grid is None:
        results: list[MetaResult] = []
        for sel in selections:
            results += meta_evaluate(sel, metrics, beta_values or None, levels)
        cache: dict = {}  # resampled system scores, shared by --bootstrap and --compare
        if bootstrap is not None:
            results = add_bootstrap(results, selections, metrics, bootstrap, seed, cache)
        if cv_folds is not None and cv_betas is not None:  # the grid exists with folds
            results = add_cv_beta(results, selections, metrics, cv_betas, cv_folds, seed)
        compared = []
        if compare:
            for sel in selections:
                compared += compare_metrics(sel, metrics, beta_values or None, levels,
                                            bootstrap or DEFAULT_RESAMPLES, seed, cache)
        windowed = windows(results, selections, metrics, window) if window is not None else []
        plots = ([(_plot_windows, windowed, window_plot, "window plot")]
                 if window_plot is not None else [])
        if fmt == "json":
            out = to_json([r.to_json() for r in results] + compared + windowed, notes)
            return _save_plots(out, notes, plots), notes
        table = results_table(results, names, fmt)
        sections = []
        if cv_folds is not None:
            sections.append((f"Cross-validated β* ({cv_folds} folds of test sentences, seed "
                             f"{seed}, grid {cv_grid}, optimum of r on each "
                             "training part; β* = their mean)", cv_table(results, fmt)))
        if compared:
            sections.append((f"Metric pairs: Williams' test on r and paired bootstrap "
                             f"({bootstrap or DEFAULT_RESAMPLES} resamples, seed {seed}); "
                             "one-sided p-values", compare_table(compared, fmt)))
        if windowed:
            sections.append((f"Window analysis ({window} consecutive systems by human score)",
                             window_table(windowed, fmt)))
        extra = f", 95% bootstrap intervals ({bootstrap} resamples, seed {seed})" \
            if bootstrap is not None else ""
        out = _with_preamble(selections, table, fmt, notes, extra)
        return _save_plots(_append_sections(out, sections, fmt), notes, plots), notes
    # a beta sweep
    sweeps: list[Sweep] = [sweep(sel, metric, betas_grid, level)
                           for sel in selections for metric in metrics for level in levels]
    from .plot import plot_sweeps

    plots = [(plot_sweeps, sweeps, plot, "plot")] if plot is not None else []
    if fmt == "json":
        out = results_json([r for s in sweeps for r in s.results()], notes)
        return _save_plots(out, notes, plots), notes
    table = sweep_table(sweeps, names, fmt)
    grid_note = f", β grid {grid} ({len(betas_grid)} points)"
    out = _with_preamble(selections, table, fmt, notes, grid_note)
    return _save_plots(out, notes, plots), notes


def _save_plots(output: str, notes: list[str], plots: Sequence[tuple[Any, ...]]) -> str:
    """Draw the figures once the output is ready; if saving fails anyway (the disk
    filled up, the folder vanished), the error carries the output, so the CLI still
    prints the results (minutes of work) before the one-line error."""
    for draw, data, path, what in plots:
        try:
            notes.append(f"{what} written to {draw(data, path)}")
        except OSError as err:
            raise PartialOutputError(f"{what} {path} could not be written "
                                     f"({err.strerror or err}); the results are above",
                                     output, notes) from None
    return output


def _plot_windows(rows: Sequence[dict], path: str) -> str:
    from .window import WindowResult, plot_windows

    grouped: dict[str, list[WindowResult]] = {}
    specs: dict[str, set[str]] = {}
    for w in rows:
        specs.setdefault(w["metric"], set()).add(w["spec"])
    for w in rows:
        beta = "" if w["beta"] is None else f" β={w['beta']:g}"
        # Two specs with one display name (gleu, gleu:variant=paper) are two lines.
        name = w["metric"] if len(specs[w["metric"]]) == 1 else w["spec"]
        label = f"{w['benchmark']} {name}{beta}" + (
            "" if w["level"] == "corpus" else f" ({w['level']})")
        grouped.setdefault(label, []).append(WindowResult(
            w["window_start"], w["systems_in_window"],
            float("nan") if w["pearson"] is None else w["pearson"],
            float("nan") if w["spearman"] is None else w["spearman"]))
    plot_windows(grouped, path, title=f"window analysis ({rows[0]['window']} systems)"
                 if rows else None)
    return path


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
