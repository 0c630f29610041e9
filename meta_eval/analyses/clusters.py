"""Metric clusters (``--clusters STAT``): which metrics are significantly apart.

The metric rows of each (benchmark, level) are ranked by STAT (pearson,
spearman, kendall, pairwise accuracy or SPA) and cut into significance
clusters: a paired bootstrap draws systems and sentences together (the
sentence draws of ``--bootstrap``, same seed, shared through the run's
:class:`~..pair_stats.Resampling`), and a new cluster starts when a metric is
significantly (p < 0.05) worse than the top of the current one (see
:mod:`gecmetrics.stats.clusters`). ``--clusters-plot FILE`` draws each metric's
statistic with its 95% interval, best at the top, a dashed rule between
clusters.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from gecmetrics.errors import ConfigError
from gecmetrics.formatting import fixed, render
from gecmetrics.validate import check_choice, check_plot_file

from ..analysis import Analysis, Context, refuse_sweep
from ..flags import option
from ..rows import RowIdentity, num

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.figure import Figure

    from gecmetrics.meta_eval.pair_scoring import Resampling
    from gecmetrics.metric import Metric

    from ..result_rows import MetaResult
    from ..run_options import RunOptions
    from ..selection import Selection

NAME = "clusters"
ClusterStat = Literal["pearson", "spearman", "kendall", "pairwise", "spa"]
CLUSTER_STATS: tuple[str, ...] = get_args(ClusterStat)


@dataclass(frozen=True)
class ClustersSettings:
    clusters: ClusterStat | None = option(
        None, "--clusters", kind="choice", choices=CLUSTER_STATS,
        help="Rank the metrics by this statistic into significance clusters: paired "
             "bootstrap over systems and sentences; a new cluster starts when a "
             "metric is significantly (p < 0.05) worse than the top of the current one.")
    clusters_plot: str | None = option(
        None, "--clusters-plot", kind="file", metavar="FILE",
        requires=("--clusters STAT", lambda s: s.clusters is not None),
        help="Plot the --clusters ranking with 95% intervals (.png, .svg or .pdf).")


@dataclass(frozen=True)
class ClusterRow(RowIdentity):
    """One metric in the significance ranking of a benchmark (``--clusters STAT``)."""

    stat: str
    value: float
    rank: int
    cluster: int
    cluster_top: str  # spec of the cluster top it was compared with
    p_vs_top: float | None  # p(top not better than this metric); None for the best
    p_values: tuple[tuple[str, float | None], ...]  # vs every metric ranked above
    value_ci: tuple[float, float]
    resamples: int
    seed: int
    signature: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis": "cluster", **self.identity_json(), "stat": self.stat,
            "value": num(self.value), "rank": self.rank, "cluster": self.cluster,
            "cluster_top": self.cluster_top, "p_vs_top": num(self.p_vs_top),
            "p_values": {k: num(v) for k, v in self.p_values},
            "value_ci": [num(v) for v in self.value_ci],
            "resample": "systems+sentences", "bootstrap": self.resamples, "seed": self.seed,
        }
        if self.signature:
            out["signature"] = self.signature
        return out


def resampled_stat(stat: str, samples: np.ndarray, human: np.ndarray, picks: np.ndarray,
                    weights: np.ndarray, spa_pairs: np.ndarray | None) -> np.ndarray:
    """The statistic of one metric on every (systems, sentences) resample: (B,)."""
    import numpy as np

    from gecmetrics.stats.clusters import weighted_pair_mean
    from gecmetrics.stats.correlation import correlate_one
    from gecmetrics.stats.pairwise_accuracy import pair_differences

    if stat == "spa":
        assert spa_pairs is not None
        return weighted_pair_mean(spa_pairs[None, :], weights)
    if stat == "pairwise":
        agree = np.sign(pair_differences(samples)) == np.sign(pair_differences(human))
        return weighted_pair_mean(agree.astype(float), weights)
    rows = np.take_along_axis(samples, picks, axis=1)
    return np.array([correlate_one(rows[b], human[picks[b]], stat)
                     for b in range(rows.shape[0])])


def metric_clusters(results: Sequence[MetaResult], selections: Sequence[Selection],
                    metrics: Sequence[Metric], stat: str,
                    resampling: Resampling | None = None) -> list[ClusterRow]:
    """The significance ranking of the metric rows of each (benchmark, level) by
    ``stat`` (pearson, spearman, kendall, pairwise, spa); see :mod:`gecmetrics.stats.clusters`."""
    import numpy as np

    from gecmetrics.meta_eval.pair_scoring import Resampling, human_samples, metric_samples
    from gecmetrics.stats.clusters import greedy_clusters, pair_weights, paired_p_values
    from gecmetrics.stats.intervals import percentile_interval
    from gecmetrics.stats.pairwise_accuracy import pairwise_accuracy
    from gecmetrics.stats.resampling import draw_counts, system_resamples
    from gecmetrics.stats.spa import pair_p_values, spa_terms

    from ..selection import row_signature, system_scores

    r_ = resampling or Resampling()
    n_resamples, seed, human_unit = r_.n_resamples, r_.seed, r_.human_unit
    cache, human_cache = r_.cache, r_.human_cache
    by_name = {s.benchmark.name: s for s in selections}
    by_spec = {m.spec: m for m in metrics}
    groups: dict[tuple[str, str], list[MetaResult]] = {}
    for r in results:
        groups.setdefault((r.benchmark, r.level), []).append(r)
    out = []
    for (bench, level), rows in groups.items():
        sel = by_name[bench]
        size = len(sel.systems)
        picks = system_resamples(size, n_resamples, seed)
        weights = pair_weights(draw_counts(picks, size))
        p_human = (pair_p_values(human_samples(sel, n_resamples, seed, human_cache,
                                               human_unit).samples)
                   if stat == "spa" else None)
        point, resampled = [], []
        for r in rows:
            metric = by_spec[r.spec]
            samples = metric_samples(metric, sel, r.beta, level, n_resamples, seed, cache)
            scores = system_scores(metric, sel, r.beta, level)
            terms = None
            if stat == "spa":
                assert p_human is not None
                terms = spa_terms(p_human, pair_p_values(samples))
                point.append(float(terms.mean()))
            elif stat == "pairwise":
                point.append(pairwise_accuracy(scores, sel.human))
            else:
                point.append(getattr(r, stat))
            resampled.append(resampled_stat(stat, samples, sel.human, picks, weights, terms))
        values = np.array(point, dtype=float)
        matrix = np.column_stack(resampled)
        p = paired_p_values(matrix, values)
        ranking = greedy_clusters(values, p)
        for k in ranking.order:
            r = rows[k]
            above = ranking.order[:ranking.rank[k] - 1]
            p_values = tuple((rows[a].spec if rows[a].beta is None
                              else f"{rows[a].spec}@{rows[a].beta:g}",
                              None if np.isnan(p[a, k]) else float(p[a, k])) for a in above)
            top = rows[ranking.top[k]]
            out.append(ClusterRow(
                r.benchmark, r.human, r.systems, r.corpus, r.metric, r.spec, r.beta, level,
                stat, values[k], ranking.rank[k], ranking.cluster[k], top.spec,
                ranking.p_vs_top[k], p_values, percentile_interval(matrix[:, k]),
                n_resamples, seed,
                row_signature(by_spec[r.spec], sel, level, r.beta, stat=stat,
                              resample="systems+sentences", resamples=n_resamples,
                              seed=seed, **({"human_resample": human_unit}
                                            if stat == "spa" else {}))))
    return out


def run(context: Context, settings: ClustersSettings) -> list[ClusterRow]:
    """The ranking of the system-level correlation rows."""
    from gecmetrics.meta_eval.pair_scoring import Resampling

    from ..ratings import is_rated

    assert settings.clusters is not None
    o = context.options
    selections = [sel for sel in context.selections if not is_rated(sel)]
    names = {sel.benchmark.name for sel in selections}
    rows = [r for r in context.rows if r.benchmark in names]
    resampling = context.resampling or Resampling(o.stat_resamples, o.seed_value,
                                                  o.human_unit)
    return metric_clusters(rows, selections, context.metrics, settings.clusters, resampling)


def check(settings: ClustersSettings, options: RunOptions) -> None:
    if settings.clusters is None:
        return
    check_choice("--clusters", settings.clusters, CLUSTER_STATS)
    aggregated = options.aggregation_levels
    if aggregated:  # it reads the metric's corpus/mean system scores
        raise ConfigError(f"--clusters works on corpus or mean system scores, not --level "
                          f"{aggregated[0]}; use --level corpus or mean with --clusters, or "
                          "drop it")
    if options.sentence_level:
        raise ConfigError("--clusters is a system-level statistic; drop it or drop "
                          "--sentence-level (--tie-calibration works at both levels)")
    refuse_sweep("--clusters", options)
    if settings.clusters_plot is not None:
        check_plot_file(settings.clusters_plot, "--clusters-plot")


def title(settings: ClustersSettings, rows: Sequence[ClusterRow],
          options: RunOptions) -> str:
    o = options
    return (f"Metric clusters by {settings.clusters} (paired bootstrap over systems and "
            f"sentences, {o.stat_resamples} resamples, seed {o.seed_value}; a new "
            "cluster when p < 0.05 against the cluster's top)")


def table(rows: Sequence[ClusterRow], fmt: str) -> str:
    """The significance ranking: one row per metric, best first, with its cluster."""
    def pct(value: float | None) -> str:
        return "-" if value is None or value != value else f"{100 * value:.1f}"

    digits = 3
    headers = ["benchmark", "level", "rank", "cluster", "metric", "spec", "β", "stat",
               "value", "95% CI", "p vs top"]
    cells = []
    for c in rows:
        share = c.stat in ("pairwise", "spa")
        value = pct(c.value) if share else fixed(c.value, digits)
        low, high = c.value_ci
        ci = (f"[{pct(low)}, {pct(high)}]" if share
              else f"[{fixed(low, digits)}, {fixed(high, digits)}]")
        beta = "-" if c.beta is None else f"{c.beta:g}"
        cells.append([c.benchmark, c.level, str(c.rank), str(c.cluster), c.metric, c.spec,
                      beta, c.stat + (" %" if share else ""), value, ci,
                      "-" if c.p_vs_top is None else f"{c.p_vs_top:.3f}"])
    return render(headers, cells, fmt, ["left", "left", "right", "right", "left", "left",
                                        "left", "left", "right", "right", "right"])


def cluster_figure(rows: Sequence[ClusterRow], title: str | None = None) -> Figure:
    """One panel per (benchmark, level): metrics best first, statistic and 95% interval,
    a dashed rule between clusters."""
    from ..plot import metric_colour, new_figure

    panels: dict[tuple[str, str], list[ClusterRow]] = {}
    for row in rows:
        panels.setdefault((row.benchmark, row.level), []).append(row)
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


def figure(rows: Sequence[ClusterRow], path: str | os.PathLike[str]) -> str:
    """Write :func:`cluster_figure` to ``path`` (.png, .svg or .pdf); return the path."""
    from ..plot import save_figure

    return save_figure(lambda: cluster_figure(rows), path)


CLUSTERS = Analysis(NAME, ClustersSettings, lambda s: s.clusters is not None, run, title,
                    table, check=check, figure=figure, plot="clusters_plot",
                    help_after="spa",
    row=ClusterRow,
    random=("--clusters", lambda s: s.clusters is not None),
    resamples_humans=("--clusters spa", lambda s: s.clusters == "spa"))
