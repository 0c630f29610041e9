"""Human intervals (``--human-intervals``): how sure the human ranking itself is.

Each selected system's human score (Expected Wins; GMEG: the mean rating) on all
judgments, with a 95% percentile interval, rank range and cluster from B
resamples of the judgments (the ranking items, or the pairwise comparisons with
``--human-unit comparisons``; GMEG: the sentences), best first (see
:mod:`gecmetrics.stats.intervals`). A metric cannot be asked to separate systems
the humans do not separate. ``--human-plot FILE`` draws them.

The resamples are those of ``--spa`` and ``--clusters spa`` (same seed, shared
through the run's :class:`~..pair_stats.Resampling`); their number is that of
``--bootstrap`` (default 1000).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gecmetrics.errors import ConfigError
from gecmetrics.formatting import fixed, render
from gecmetrics.validate import check_plot_file

from ..analysis import Analysis, Context, refuse_sweep
from ..flags import option
from ..rows import num

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..run_options import RunOptions

NAME = "human_intervals"


@dataclass(frozen=True)
class HumanIntervalsSettings:
    human_intervals: bool = option(
        False, "--human-intervals", kind="flag",
        help="Bootstrap the human judgments: each system's Expected Wins (GMEG: "
             "rating) with a 95% interval, rank range and cluster.")
    human_plot: str | None = option(
        None, "--human-plot", kind="file", metavar="FILE",
        requires=("--human-intervals", lambda s: s.human_intervals),
        help="Plot the --human-intervals (.png, .svg or .pdf).")


@dataclass(frozen=True)
class HumanIntervalRow:
    """One system's human score (``ew``; GMEG ``rating``) on all judgments, its 95%
    bootstrap interval and rank range, and its cluster."""

    benchmark: str
    human: str  # the score resampled: ew / rating
    systems: str
    corpus: str
    system: str
    score: float
    score_ci: tuple[float, float]
    rank: int
    rank_range: tuple[int, int]
    cluster: int
    resampled: str  # ranking items / sentences
    n_resampled: int  # how many items (sentences) each resample draws
    resamples: int
    seed: int
    signature: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis": "human_interval", "benchmark": self.benchmark, "human": self.human,
            "systems": self.systems, "corpus": self.corpus, "system": self.system,
            "score": num(self.score), "score_ci": [num(v) for v in self.score_ci],
            "rank": self.rank, "rank_range": list(self.rank_range), "cluster": self.cluster,
            "resampled": self.resampled, "n_resampled": self.n_resampled,
            "bootstrap": self.resamples, "seed": self.seed,
        }
        if self.signature:
            out["signature"] = self.signature
        return out


def run(context: Context, settings: HumanIntervalsSettings) -> list[HumanIntervalRow]:
    """Every system of each system-level selection, best first."""
    from gecmetrics.meta_eval.pair_scoring import Resampling, human_samples
    from gecmetrics.signature import Signature
    from gecmetrics.stats.intervals import human_intervals as intervals_of

    from ..ratings import is_rated

    o = context.options
    resampling = context.resampling or Resampling(o.stat_resamples, o.seed_value,
                                                  o.human_unit)
    n_resamples, seed = resampling.n_resamples, resampling.seed
    out = []
    for sel in context.selections:
        if is_rated(sel):
            continue
        h = human_samples(sel, n_resamples, seed, resampling.human_cache,
                          resampling.human_unit)
        res = intervals_of(sel.systems, h.point, h.samples)
        signature = str(Signature("human").extend(
            benchmark=sel.benchmark.name, systems=sel.system_set,
            corpus=sel.benchmark.corpus_label, human=h.kind, resampled=h.resampled,
            resamples=n_resamples, seed=seed))
        order = sorted(range(len(sel.systems)), key=lambda i: (-h.point[i], i))
        for i in order:
            out.append(HumanIntervalRow(
                sel.benchmark.name, h.kind, sel.system_set, sel.benchmark.corpus_label,
                sel.systems[i], float(h.point[i]), (float(res.low[i]), float(res.high[i])),
                int(res.rank[i]), (int(res.rank_low[i]), int(res.rank_high[i])),
                int(res.cluster[i]), h.resampled, h.n_resampled, n_resamples, seed,
                signature))
    return out


def check(settings: HumanIntervalsSettings, options: RunOptions) -> None:
    if settings.human_intervals and options.sentence_level:
        raise ConfigError("--human-intervals is a system-level statistic; drop it or drop "
                          "--sentence-level (--tie-calibration works at both levels)")
    if settings.human_intervals:
        refuse_sweep("--human-intervals", options)
    if settings.human_plot is not None:
        check_plot_file(settings.human_plot, "--human-plot")


def title(settings: HumanIntervalsSettings, rows: Sequence[HumanIntervalRow],
          options: RunOptions) -> str:
    o = options
    drawn = "ranking items" if o.human_unit == "items" else "comparisons"
    return (f"Human scores: 95% bootstrap intervals and rank ranges ({o.stat_resamples} "
            f"resamples of the {drawn}, seed {o.seed_value}; GMEG: sentences)")


def table(rows: Sequence[HumanIntervalRow], fmt: str) -> str:
    """Every system's human score, 95% interval, rank, rank range and cluster."""
    digits = 3
    headers = ["benchmark", "cluster", "rank", "range", "system", "score", "95% CI"]
    cells = []
    for h in rows:
        low, high = h.rank_range
        span = str(low) if low == high else f"{low}-{high}"
        cells.append([h.benchmark, str(h.cluster), str(h.rank), span, h.system,
                      fixed(h.score, digits),
                      f"[{fixed(h.score_ci[0], digits)}, {fixed(h.score_ci[1], digits)}]"])
    return render(headers, cells, fmt, ["left", "right", "right", "right", "left", "right",
                                        "right"])


def human_figure(rows: Sequence[HumanIntervalRow], title: str | None = None) -> Figure:
    """One panel per benchmark: systems best first, human score and 95% interval, the
    rank range in the label, a dashed rule between clusters."""
    from ..plot import new_figure

    panels: dict[str, list[HumanIntervalRow]] = {}
    for row in rows:
        panels.setdefault(row.benchmark, []).append(row)
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


def figure(rows: Sequence[HumanIntervalRow], path: str | os.PathLike[str]) -> str:
    """Write :func:`human_figure` to ``path`` (.png, .svg or .pdf); return the path."""
    from ..plot import save_figure

    return save_figure(lambda: human_figure(rows), path)


HUMAN_INTERVALS = Analysis(NAME, HumanIntervalsSettings, lambda s: s.human_intervals, run,
                           title, table, check=check, figure=figure, plot="human_plot",
                           help_after="clusters_plot",
    row=HumanIntervalRow,
    random=("--human-intervals", lambda s: s.human_intervals),
    resamples_humans=("--human-intervals", lambda s: s.human_intervals))
