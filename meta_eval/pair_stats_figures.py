"""Figures of the metric clusters and the human intervals.

A significance ranking and a list of intervals are read faster as a picture:
:func:`cluster_figure` draws each metric's statistic with its 95% interval (best at
the top, clusters separated by a rule); :func:`human_figure` each system's human
score with its 95% interval and rank range. They return matplotlib Figures (object
API, no pyplot), in the style of :mod:`.plot`; :func:`plot_clusters` and
:func:`plot_human` save them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .plot import DPI, check_plot_path, metric_colour, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .pair_stats_rows import ClusterRow, HumanIntervalRow


def _groups(rows: Sequence, key) -> dict:
    out: dict = {}
    for row in rows:
        out.setdefault(key(row), []).append(row)
    return out


def cluster_figure(rows: Sequence[ClusterRow], title: str | None = None) -> Figure:
    """One panel per (benchmark, level): metrics best first, statistic and 95% interval,
    a dashed rule between clusters."""
    panels = _groups(rows, lambda c: (c.benchmark, c.level))
    height = max(2.0, 0.35 * max(len(v) for v in panels.values()) + 1.2) if panels else 2.0
    fig = new_figure(4.2 * max(1, len(panels)), height)
    axes = fig.subplots(1, max(1, len(panels)), squeeze=False)[0]
    for ax, ((bench, level), group) in zip(axes, panels.items(), strict=False):
        group = sorted(group, key=lambda c: c.rank)
        for y, c in enumerate(group):
            low, high = c.value_ci
            colour = metric_colour(c.spec, c.metric)
            ax.errorbar([c.value], [y], xerr=[[c.value - low], [high - c.value]], fmt="o",
                        color=colour, capsize=3)
            if y > 0 and group[y - 1].cluster != c.cluster:
                ax.axhline(y - 0.5, color="0.4", linestyle="--", linewidth=0.8)
        labels = [f"{c.cluster}: {c.metric}" + ("" if c.beta is None else f" β={c.beta:g}")
                  for c in group]
        ax.set_yticks(range(len(group)), labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(group[0].stat if group else "")
        ax.set_title(f"{bench} ({level})", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def human_figure(rows: Sequence[HumanIntervalRow], title: str | None = None) -> Figure:
    """One panel per benchmark: systems best first, human score and 95% interval, the
    rank range in the label, a dashed rule between clusters."""
    panels = _groups(rows, lambda h: h.benchmark)
    height = max(2.0, 0.3 * max(len(v) for v in panels.values()) + 1.2) if panels else 2.0
    fig = new_figure(4.2 * max(1, len(panels)), height)
    axes = fig.subplots(1, max(1, len(panels)), squeeze=False)[0]
    for ax, (bench, group) in zip(axes, panels.items(), strict=False):
        for y, h in enumerate(group):
            low, high = h.score_ci
            ax.errorbar([h.score], [y], xerr=[[h.score - low], [high - h.score]], fmt="o",
                        color="#0072B2", capsize=3)
            if y > 0 and group[y - 1].cluster != h.cluster:
                ax.axhline(y - 0.5, color="0.4", linestyle="--", linewidth=0.8)
        labels = []
        for h in group:
            low_rank, high_rank = h.rank_range
            span = f"{low_rank}" if low_rank == high_rank else f"{low_rank}-{high_rank}"
            labels.append(f"{h.system} ({span})")
        ax.set_yticks(range(len(group)), labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(f"human {group[0].human}" if group else "")
        ax.set_title(bench, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def plot_clusters(rows: Sequence[ClusterRow], path: str | os.PathLike[str]) -> str:
    """Write :func:`cluster_figure` to ``path`` (.png, .svg or .pdf); return the path."""
    path = check_plot_path(path)
    cluster_figure(rows).savefig(path, dpi=DPI)
    return path


def plot_human(rows: Sequence[HumanIntervalRow], path: str | os.PathLike[str]) -> str:
    """Write :func:`human_figure` to ``path`` (.png, .svg or .pdf); return the path."""
    path = check_plot_path(path)
    human_figure(rows).savefig(path, dpi=DPI)
    return path
