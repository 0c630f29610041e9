"""The figures a meta-evaluation asked for, drawn from its rows (matplotlib, imported
when a figure is drawn)."""

from __future__ import annotations

from typing import Any

from gecmetrics.errors import PartialOutputError

from .analyses import ANALYSES
from .pair_stats_figures import plot_clusters, plot_human
from .plot import plot_sweeps, plot_window_rows
from .results import MetaEvaluation
from .subsets import plot_subsets


def save_figures(result: MetaEvaluation, output: str = "",
                 notes: list[str] | None = None) -> list[str]:
    """Draw the figures asked for (``plot``, ``window_plot``, ``clusters_plot``,
    ``human_plot`` ..., and those of the registered analyses); return notes naming them.

    If saving fails after the work (the disk filled up, the folder vanished) a
    :class:`~gecmetrics.errors.PartialOutputError` carries ``output`` and ``notes``,
    so the CLI still prints the results (minutes of work) before the one-line error.
    """
    figures: list[tuple[str, str, Any]] = []
    for analysis in ANALYSES:
        if analysis.plot is None or analysis.figure is None:
            continue
        path = getattr(result.options.settings[analysis.name], analysis.plot)
        if path is not None:
            figures.append((analysis.plot.replace("_", " "), path,
                            lambda p, a=analysis: a.figure(result.analysis_rows(a.name), p)))
    if result.options.plot is not None:
        figures.append(("plot", result.options.plot, lambda p: plot_sweeps(result.sweeps, p)))
    if result.options.window_plot is not None:
        figures.append(("window plot", result.options.window_plot,
                        lambda p: plot_window_rows(result.windows, p)))
    if result.options.subsets_plot is not None:
        figures.append(("subsets plot", result.options.subsets_plot,
                        lambda p: plot_subsets(result.subsets, p)))
    if result.options.clusters_plot is not None:
        figures.append(("clusters plot", result.options.clusters_plot,
                        lambda p: plot_clusters(result.clusters, p)))
    if result.options.human_plot is not None:
        figures.append(("human plot", result.options.human_plot,
                        lambda p: plot_human(result.human_intervals, p)))
    written = []
    for what, path, draw in figures:
        try:
            written.append(f"{what} written to {draw(path)}")
        except OSError as err:
            raise PartialOutputError(f"{what} {path} could not be written "
                                     f"({err.strerror or err}); the results are above",
                                     output, [*(notes or []), *written]) from None
    return written
