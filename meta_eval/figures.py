"""The figures a meta-evaluation asked for, drawn from its rows (matplotlib, imported
when a figure is drawn)."""

from __future__ import annotations

from typing import Any

from gecmetrics.errors import PartialOutputError

from .analyses import ANALYSES
from .plot import plot_sweeps
from .results import MetaEvaluation

# The order of the notes naming the figures written (a contract of the CLI's stderr):
# registered analyses by name, "sweep" for --plot; an analysis not named comes last.
FIGURE_ORDER = ("pool", "rank_pairs", "sweep", "window", "subsets", "clusters",
                "human_intervals")


def _figure_rank(name: str) -> int:
    return FIGURE_ORDER.index(name) if name in FIGURE_ORDER else len(FIGURE_ORDER)


def save_figures(result: MetaEvaluation, output: str = "",
                 notes: list[str] | None = None) -> list[str]:
    """Draw the figures asked for (``plot``, ``window_plot``, ``clusters_plot``,
    ``human_plot`` ..., and those of the registered analyses); return notes naming them.

    If saving fails after the work (the disk filled up, the folder vanished) a
    :class:`~gecmetrics.errors.PartialOutputError` carries ``output`` and ``notes``,
    so the CLI still prints the results (minutes of work) before the one-line error.
    """
    o = result.options
    figures: dict[str, tuple[str, str, Any]] = {}  # by FIGURE_ORDER name
    if o.plot is not None:
        figures["sweep"] = ("plot", o.plot, lambda p: plot_sweeps(result.sweeps, p))
    for analysis in ANALYSES:
        if analysis.plot is None or analysis.figure is None:
            continue
        path = getattr(o.settings[analysis.name], analysis.plot)
        if path is not None:
            figures[analysis.name] = (
                analysis.plot.replace("_", " "), path,
                lambda p, a=analysis: a.figure(result.analysis_rows(a.name), p))
    written = []
    for name in sorted(figures, key=_figure_rank):
        what, path, draw = figures[name]
        try:
            written.append(f"{what} written to {draw(path)}")
        except OSError as err:
            raise PartialOutputError(f"{what} {path} could not be written "
                                     f"({err.strerror or err}); the results are above",
                                     output, [*(notes or []), *written]) from None
    return written
