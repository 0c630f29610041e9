"""Beta sweeps: the correlation with humans as a function of a metric's beta.

Every beta reuses the metric's cached statistics (the reference choice is
redone per beta from them), so a 501-point sweep costs about as much as
scoring the systems a few hundred times at corpus level: seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gecmetrics import progress
from gecmetrics.errors import ConfigError
from gecmetrics.metric import Metric
from gecmetrics.stats.correlation import correlation_curves
from gecmetrics.validate import parse_beta_grid

from .result_rows import MetaResult
from .selection import Selection, row_signature, system_scores


def parse_grid(text: str, option: str = "--sweep-beta") -> np.ndarray:
    """``START:STOP:STEP`` (STOP included) as an array of betas rounded to the step
    (checked by :func:`gecmetrics.validate.parse_beta_grid`)."""
    return parse_beta_grid(text, option)


def grid_edge(beta: float, grid: Sequence[float] | np.ndarray) -> str | None:
    """``"upper"`` or ``"lower"`` when ``beta`` is the grid's last or first point, where
    the optimum of a search over the grid may lie beyond it; else None.

    A lower end at beta 0 is no edge (no beta lies below it), nor is a one-point grid
    (nothing was searched).
    """
    points = np.asarray(grid, dtype=float)
    if len(points) < 2 or beta != beta:
        return None
    if beta == points[-1]:
        return "upper"
    if beta == points[0] and points[0] > 0:
        return "lower"
    return None


def edge_note(what: str, beta: float, edge: str, option: str, grid_text: str) -> str:
    """The stderr note for an optimum on the grid's ``edge`` (see :func:`grid_edge`)."""
    side = "above" if edge == "upper" else "below"
    return (f"note: {what}: the best beta, {beta:g}, is the {edge} end of the grid "
            f"({option} {grid_text}); the optimum may lie {side} it: widen the grid")


@dataclass(frozen=True)
class Sweep:
    """Correlations of one metric at every beta of a grid, on one benchmark selection."""

    selection: Selection
    metric: Metric
    level: str
    betas: np.ndarray
    scores: np.ndarray  # (B, systems)
    pearson: np.ndarray
    spearman: np.ndarray
    kendall: np.ndarray

    def best(self, which: str = "pearson") -> tuple[float, float]:
        """(beta, value) of the highest correlation; the smallest such beta on ties."""
        values = getattr(self, which)
        if np.all(np.isnan(values)):
            return float("nan"), float("nan")
        i = int(np.nanargmax(values))
        return float(self.betas[i]), float(values[i])

    def edge_notes(self, grid_text: str, option: str = "--sweep-beta") -> list[str]:
        """A note for each correlation (r, rho) whose best beta is on the grid's edge."""
        notes = []
        for which, symbol in (("pearson", "r"), ("spearman", "rho")):
            beta, _ = self.best(which)
            edge = grid_edge(beta, self.betas) if self.metric.has_beta else None
            if edge is not None:
                notes.append(edge_note(f"{self.label} ({self.level}, {symbol})", beta, edge,
                                       option, grid_text))
        return notes

    def at(self, beta: float, which: str = "pearson") -> float:
        i = int(np.argmin(np.abs(self.betas - beta)))
        if abs(self.betas[i] - beta) > 1e-9:
            raise ConfigError(f"beta {beta} is not on the sweep grid")
        return float(getattr(self, which)[i])

    @property
    def label(self) -> str:
        return f"{self.selection.benchmark.name} {self.metric.display_name}"

    def results(self, grid: str | None = None) -> list[MetaResult]:
        """One row per beta; ``grid`` (the grid as given) goes into their signature."""
        sel, m = self.selection, self.metric
        signature = row_signature(m, sel, self.level, grid if m.has_beta else None)
        return [
            MetaResult(sel.benchmark.name, sel.human_kind, sel.system_set,
                       sel.benchmark.corpus_label, m.display_name, m.spec,
                       None if b != b else float(b),
                       self.level, len(sel.systems), float(r), float(rho), float(tau),
                       signature=signature)
            for b, r, rho, tau in zip(self.betas, self.pearson, self.spearman, self.kendall,
                                      strict=True)
        ]


def sweep(selection: Selection, metric: Metric, betas: Sequence[float] | np.ndarray,
          level: str = "corpus") -> Sweep:
    """Correlation with the humans at every beta in ``betas``.

    A metric without a beta gets a one-point "sweep" with beta NaN (None in results),
    so that it can sit in the same table as the swept metrics.
    """
    if metric.has_beta:
        grid = np.asarray(betas, dtype=float)
        # Let the metric decide its reference choices for the whole grid at once.
        metric.statistics(selection.benchmark.corpus).precompute([float(b) for b in grid])
        # a grid may hold up to MAX_GRID_POINTS betas: a bar on a terminal (else none)
        bar = progress.bar(len(grid), f"sweep {metric.spec} on {selection.benchmark.name}",
                           unit="beta", leave=False)
        try:
            rows = []
            for b in grid:
                rows.append(system_scores(metric, selection, float(b), level))
                bar.update()
        finally:
            bar.close()
        scores = np.stack(rows)
    else:
        grid = np.array([np.nan])
        scores = system_scores(metric, selection, None, level)[None, :]
    curves = correlation_curves(scores, selection.human)
    return Sweep(selection, metric, level, grid, scores, curves["pearson"],
                 curves["spearman"], curves["kendall"])
