"""System-set robustness (``--subsets K``): each correlation over subsets of K systems.

A system-level correlation rests on a handful of systems; leaving some out can
change it, and can change which metric looks best. For every correlation row
(benchmark, metric, beta, level) this recomputes r, rho and tau on every subset
of K of the selection's systems (all C(n, K) of them when there are at most
``max_subsets``, else ``max_subsets`` subsets drawn at random with ``seed``, each
without repeated systems, independently of each other) and reports

* the distribution: min, quartiles (numpy's linear interpolation) and max, over
  the subsets where the correlation is defined (``nan_subsets`` counts the others:
  a constant metric or human vector);
* ``*_best_share``: the share of subsets in which this row has the highest
  correlation among all rows of its benchmark (every metric, beta and level asked
  for; tied best rows each count the subset).

The per-subset values stay on the rows (``values``, not in JSON) for the box plot
(:func:`subsets_figure`). The system scores are those of the correlation row
(aggregated ones at ``--level ew``/``trueskill``), so a subset's score of a system
does not change when others are left out; only the correlation does.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gecmetrics.errors import ConfigError
from gecmetrics.formatting import fixed, render
from gecmetrics.validate import check_int_range, check_plot_file

from ..analysis import Analysis, Context
from ..defaults import DEFAULT_SUBSETS_MAX
from ..flags import count, option
from ..rows import RowIdentity

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from gecmetrics.metric import Metric

    from ..result_rows import MetaResult
    from ..run_options import RunOptions
    from ..selection import Selection

NAME = "subsets"
QUANTILES = ("min", "q1", "median", "q3", "max")


@dataclass(frozen=True)
class SubsetsSettings:
    subsets: int | None = option(
        None, "--subsets", kind="int", metavar="K",
        help="System-set robustness: each correlation over every subset of K systems "
             "(or --subsets-max random ones): quartiles and the share of subsets in "
             "which each metric is best.")
    subsets_max: int = option(
        DEFAULT_SUBSETS_MAX, "--subsets-max", kind="int", show_default=True, metavar="N",
        requires=("--subsets K", lambda s: s.subsets is not None),
        help="--subsets: draw N seeded random subsets when there are more than N.")
    subsets_plot: str | None = option(
        None, "--subsets-plot", kind="file", metavar="FILE",
        requires=("--subsets K", lambda s: s.subsets is not None),
        help="Box plot of the --subsets correlations per metric (.png, .svg or .pdf).")

    def __post_init__(self) -> None:  # the API may pass floats such as 8.0
        object.__setattr__(self, "subsets", count("--subsets", self.subsets, 0))
        object.__setattr__(self, "subsets_max",
                           count("--subsets-max", self.subsets_max, DEFAULT_SUBSETS_MAX))


def subset_indices(n: int, k: int, max_subsets: int = DEFAULT_SUBSETS_MAX,
                   seed: int = 12345) -> tuple[np.ndarray, bool]:
    """``(idx, exhaustive)``: the subsets as rows of sorted system indices (M, k); all
    C(n, k) in lexicographic order when at most ``max_subsets``, else that many random."""
    import numpy as np

    from gecmetrics.stats.resampling import random_subsets

    if not 2 <= k <= n:
        raise ConfigError(f"--subsets must be between 3 and the number of systems ({n}); "
                          f"got {k}")
    if math.comb(n, k) <= max_subsets:
        return np.array(list(itertools.combinations(range(n), k)), dtype=np.int64), True
    return random_subsets(n, k, max_subsets, seed), False


@dataclass(frozen=True)
class SubsetRow(RowIdentity):
    """The distribution of one correlation row over subsets of K systems."""

    n_systems: int
    k: int
    n_subsets: int
    exhaustive: bool
    seed: int | None  # None when every subset was enumerated
    summary: dict[str, dict[str, float | None]]  # correlation -> min, q1, median, q3, max
    best_share: dict[str, float]  # correlation -> share of subsets where this row is best
    nan_subsets: dict[str, int]
    signature: str = ""
    values: dict[str, tuple[float, ...]] = field(default_factory=dict, repr=False,
                                                 compare=False)

    def to_json(self) -> dict[str, Any]:
        from gecmetrics.stats.correlation import CORRELATIONS

        out: dict[str, Any] = {
            "analysis": "subsets", **self.identity_json(), "n_systems": self.n_systems,
            "subset_size": self.k, "n_subsets": self.n_subsets,
            "exhaustive": self.exhaustive, "seed": self.seed,
        }
        for name in CORRELATIONS:
            for q in QUANTILES:
                out[f"{name}_{q}"] = self.summary[name][q]
            out[f"{name}_best_share"] = self.best_share[name]
            out[f"{name}_nan_subsets"] = self.nan_subsets[name]
        if self.signature:
            out["signature"] = self.signature
        return out


def _summary(values: np.ndarray) -> dict[str, float | None]:
    import numpy as np

    finite = values[~np.isnan(values)]
    if finite.size == 0:
        return dict.fromkeys(QUANTILES)
    qs = np.quantile(finite, [0.0, 0.25, 0.5, 0.75, 1.0])
    return {q: float(v) for q, v in zip(QUANTILES, qs, strict=True)}


def _row_scores(result: MetaResult, metric: Metric, selection: Selection) -> np.ndarray:
    import numpy as np

    from ..selection import system_scores

    if result.aggregation is not None:
        return np.asarray(result.aggregation.scores, dtype=float)
    return system_scores(metric, selection, result.beta, result.level)


def subset_rows(results: Sequence[MetaResult], selections: Sequence[Selection],
                metrics: Sequence[Metric], k: int, max_subsets: int = DEFAULT_SUBSETS_MAX,
                seed: int = 12345) -> list[SubsetRow]:
    """One :class:`SubsetRow` per correlation row (see the module docstring)."""
    import numpy as np

    from gecmetrics.stats.correlation import CORRELATIONS, paired_rows

    from ..correlation_analyses import metric_for
    from ..selection import row_signature

    by_spec = metric_for(results, metrics)
    out: list[SubsetRow] = []
    for sel in selections:
        rows = [r for r in results if r.benchmark == sel.benchmark.name]
        if not rows:
            continue
        n = len(sel.systems)
        if k > n:
            raise ConfigError(f"--subsets must be between 3 and the number of systems ({n} in "
                              f"{sel.benchmark.name}); got {k}")
        idx, exhaustive = subset_indices(n, k, max_subsets, seed)
        human = np.asarray(sel.human, dtype=float)[idx]
        values = {name: np.stack([paired_rows(_row_scores(r, by_spec[r.spec], sel)[idx],
                                              human, name) for r in rows])
                  for name in CORRELATIONS}
        best = {}
        for name, matrix in values.items():
            with np.errstate(invalid="ignore"):
                top = np.nanmax(np.where(np.isnan(matrix), -np.inf, matrix), axis=0)
            best[name] = (matrix == top[None, :]) & ~np.isnan(matrix)
        for i, r in enumerate(rows):
            extra: dict[str, Any] = {"subsets": k, "subsets_n": len(idx)}
            if not exhaustive:
                extra["subsets_seed"] = seed
            if r.aggregation is not None:
                extra.update(r.aggregation.signature_fields())
            signature = row_signature(by_spec[r.spec], sel, r.level, r.beta, **extra)
            out.append(SubsetRow(
                r.benchmark, r.human, r.systems, r.corpus, r.metric, r.spec, r.beta, r.level,
                n, k, len(idx), exhaustive, None if exhaustive else seed,
                {name: _summary(values[name][i]) for name in CORRELATIONS},
                {name: float(best[name][i].mean()) for name in CORRELATIONS},
                {name: int(np.isnan(values[name][i]).sum()) for name in CORRELATIONS},
                signature, {name: tuple(values[name][i].tolist()) for name in CORRELATIONS}))
    return out


def _label(row: SubsetRow, names: dict[str, int]) -> str:
    name = row.metric if names[row.metric] == 1 else row.spec
    beta = "" if row.beta is None else f" β={row.beta:g}"
    return f"{name}{beta}" + ("" if row.level == "corpus" else f" ({row.level})")


def subsets_figure(rows: Sequence[SubsetRow], correlation: str = "pearson",
                   title: str | None = None, ax: Axes | Sequence[Axes] | None = None
                   ) -> Figure:
    """Box plots of ``correlation`` over the subsets: one panel per benchmark, one box
    per metric row (whiskers at 1.5 IQR, outliers as points, the median as a line)."""
    from ..plot import CORRELATIONS as SYMBOLS
    from ..plot import axes_for, metric_colour

    benchmarks = list(dict.fromkeys(r.benchmark for r in rows))
    width = max(5.0, 0.9 * max((sum(r.benchmark == b for r in rows) for b in benchmarks),
                               default=1) * len(benchmarks) + 2)
    fig, axes, _ = axes_for(ax, max(1, len(benchmarks)), width, 4.6)
    specs: dict[str, set[str]] = {}
    for r in rows:
        specs.setdefault(r.metric, set()).add(r.spec)
    names = {metric: len(s) for metric, s in specs.items()}
    for axis, bench in zip(axes, benchmarks, strict=False):
        mine = [r for r in rows if r.benchmark == bench]
        data = [[v for v in r.values.get(correlation, ()) if v == v] for r in mine]
        parts = axis.boxplot(data, tick_labels=[_label(r, names) for r in mine],
                             patch_artist=True, widths=0.6)
        for patch, r in zip(parts["boxes"], mine, strict=True):
            patch.set_facecolor(metric_colour(r.spec, r.metric))
            patch.set_alpha(0.55)
        k = mine[0].k
        how = "all" if mine[0].exhaustive else "random"
        axis.set_title(f"{bench}: {how} {mine[0].n_subsets} subsets of {k} of "
                       f"{mine[0].n_systems} systems", fontsize=9)
        axis.set_ylabel(f"{SYMBOLS.get(correlation, correlation)} on a subset")
        axis.axhline(0, color="0.6", linewidth=0.6, zorder=0.5)
        axis.set_ylim(-1.05, 1.05)
        axis.grid(True, axis="y", linewidth=0.3, color="0.85")
        axis.tick_params(axis="x", labelrotation=30, labelsize=8)
        axis.tick_params(labelleft=True)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def figure(rows: Sequence[SubsetRow], path: str | os.PathLike[str],
           correlation: str = "pearson") -> str:
    """Write :func:`subsets_figure` to ``path`` (.png, .svg or .pdf); return the path."""
    from ..plot import save_figure

    return save_figure(lambda: subsets_figure(rows, correlation), path)


def run(context: Context, settings: SubsetsSettings) -> list[SubsetRow]:
    """The subsets of every system-level correlation row."""
    from ..ratings import is_rated

    assert settings.subsets is not None
    selections = [sel for sel in context.selections if not is_rated(sel)]
    names = {sel.benchmark.name for sel in selections}
    rows = [r for r in context.rows if r.benchmark in names]
    return subset_rows(rows, selections, context.metrics, settings.subsets,
                       settings.subsets_max, context.options.seed_value)


def on_load(settings: SubsetsSettings, selection: Selection) -> None:
    """K fits the benchmark's systems (checked as its data is read, before scoring)."""
    if settings.subsets is not None and settings.subsets > len(selection.systems):
        raise ConfigError(f"--subsets must be between 3 and the number of systems "
                          f"({len(selection.systems)} in {selection.benchmark.name}); got "
                          f"{settings.subsets}")


def check(settings: SubsetsSettings, options: RunOptions) -> None:
    if settings.subsets is not None:
        if options.sentence_level or options.grid is not None:
            raise ConfigError("--subsets works on system-level correlations; it cannot be "
                              "combined with " + ("--sentence-level" if options.sentence_level
                                                  else "--sweep-beta/--plot"))
        check_int_range(settings.subsets, "--subsets", 3, 10_000,
                        "a number of systems per subset")
    check_int_range(settings.subsets_max, "--subsets-max", 1, 1_000_000, "a number of subsets")
    if settings.subsets_plot is not None:
        check_plot_file(settings.subsets_plot, "--subsets-plot")


def title(settings: SubsetsSettings, rows: Sequence[SubsetRow],
          options: RunOptions) -> str:
    how = ("every subset" if rows[0].exhaustive
           else f"{settings.subsets_max} random subsets (seed {options.seed_value})")
    return (f"System-set robustness: r over {how} of {settings.subsets} systems; "
            "best = share of subsets in which the row has the highest r")


def table(rows: Sequence[SubsetRow], fmt: str) -> str:
    headers = ["benchmark", "metric", "spec", "β", "level", "subsets", "min", "Q1", "median",
               "Q3", "max", "best"]
    cells = [[r.benchmark, r.metric, r.spec, "-" if r.beta is None else f"{r.beta:g}",
              r.level, r.n_subsets,
              *(fixed(r.summary["pearson"][q], 3) for q in ("min", "q1", "median", "q3", "max")),
              f"{100 * r.best_share['pearson']:.1f}%"] for r in rows]
    return render(headers, cells, fmt, ["left"] * 5 + ["right"] * 7)


SUBSETS = Analysis(NAME, SubsetsSettings, lambda s: s.subsets is not None, run, title, table,
                   check=check, figure=figure, plot="subsets_plot", on_load=on_load,
                   help_after="cv_grid",
    row=SubsetRow,
    random=("--subsets", lambda s: s.subsets is not None))
