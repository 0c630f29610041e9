"""Figures of the meta-evaluation: beta sweeps, windows, and the writer of every figure file.

The figure functions (:func:`sweep_figure`, :func:`window_figure`) take data
and return a matplotlib :class:`~matplotlib.figure.Figure`, so that users can
restyle or combine them; with ``ax=`` they draw into Axes the caller already
has. They use matplotlib's object API only: no pyplot state, and no change of
the global backend (an application that embeds gecmetrics keeps its own). The
file writers (:func:`plot_sweeps`, :func:`plot_windows`) are thin
wrappers that save such a figure.

One style across figures, for a paper: the colour says which metric (the same
metric has the same colour in every figure), the line style which benchmark;
legends sit outside the axes, so they never hide data; names are the metrics'
display names and the correlations are written r and ρ, as in the tables.
matplotlib is imported here only (the ``plot`` extra).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from gecmetrics.errors import ConfigError
from gecmetrics.paths import atomic_output

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .result_rows import WindowResult
    from .sweep import Sweep

FORMATS = (".png", ".svg", ".pdf")
DPI = 150

# Colour-blind-safe colours (Okabe and Ito), fixed per metric so that a metric looks
# the same in every figure. Keys are canonical specs first, then display names.
METRIC_COLOURS = {
    "green": "#0072B2",                     # wordGREEN: blue
    "green:tokenize=char,n=6": "#D55E00",   # charGREEN: vermillion
    "wordGREEN": "#0072B2",
    "charGREEN": "#D55E00",
    "M2": "#009E73",                        # bluish green
    "ERRANT": "#CC79A7",                    # reddish purple
    "gleu": "#E69F00",                      # official GLEU: orange
    "gleu:variant=paper": "#8C510A",        # the GREEN paper's GLEU: brown
    "gleu:tokenize=char,n=6": "#F0B95A",
    "gleu:variant=paper,tokenize=char,n=6": "#BF812D",
    "wordGLEU": "#E69F00",
    "charGLEU": "#F0B95A",
    "chrF": "#56B4E9",                      # sky blue
    "chrF++": "#1D4E89",
}
# For metrics not listed: a stable choice from these, by a hash of the spec.
SPARE_COLOURS = ("#7F3C8D", "#11A579", "#3969AC", "#F2B701", "#E73F74", "#80BA5A",
                 "#E68310", "#008695", "#CF1C90", "#4B4B8F")
BENCHMARK_STYLES: dict[str, Any] = {
    "conll14": "-",
    "seeda-s": "--",
    "seeda-e": ":",
    "gmeg-fce": (0, (9, 3)),  # long dashes
    "gmeg-wiki": "-.",
}
SPARE_STYLES: tuple[Any, ...] = ((0, (3, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (12, 2, 2, 2)))
LEVEL_WIDTHS = {"corpus": 1.7, "mean": 0.9, "sentence": 0.9}
DEFAULT_BETA_STYLE: dict[str, Any] = {"color": "0.45", "linewidth": 0.9, "linestyle": (0, (1, 2))}
CORRELATIONS = {"pearson": "Pearson r", "spearman": "Spearman ρ", "kendall": "Kendall τ"}
SYMBOLS = {"pearson": "r", "spearman": "ρ", "kendall": "τ"}


def check_plot_path(path: str | os.PathLike[str]) -> str:
    """The path as a string, if its suffix is a supported image format."""
    path = os.fspath(path)
    if os.path.splitext(path)[1].lower() not in FORMATS:
        raise ConfigError(f"--plot file must end in {', '.join(FORMATS)} (got {path!r})")
    return path


def metric_colour(spec: str, display_name: str | None = None) -> str:
    """The colour of a metric: by canonical spec, else display name, else a stable hash."""
    for key in (spec, display_name):
        if key is not None and key in METRIC_COLOURS:
            return METRIC_COLOURS[key]
    return SPARE_COLOURS[zlib.crc32(spec.encode()) % len(SPARE_COLOURS)]


def benchmark_style(benchmark: str) -> Any:
    """The line style of a benchmark (a matplotlib linestyle)."""
    if benchmark in BENCHMARK_STYLES:
        return BENCHMARK_STYLES[benchmark]
    return SPARE_STYLES[zlib.crc32(benchmark.encode()) % len(SPARE_STYLES)]


def new_figure(width: float, height: float) -> Figure:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ConfigError("plots need matplotlib; install the plot extra: "
                          'pip install ".[plot]"') from None
    return Figure(figsize=(width, height), layout="constrained")


def axes_for(ax: Axes | Sequence[Axes] | None, panels: int, width: float,
              height: float) -> tuple[Figure, list[Axes], bool]:
    """(figure, one Axes per panel, whether we made the figure)."""
    if ax is None:
        fig = new_figure(width, height)
        axes = fig.subplots(1, panels, sharex=True, sharey=True, squeeze=False)[0]
        return fig, list(axes), True
    given = [ax] if not isinstance(ax, Sequence) else list(ax)
    if len(given) != panels:
        raise ConfigError(f"ax= needs {panels} Axes (one per panel), got {len(given)}")
    return cast("Figure", given[0].get_figure(root=True)), given, False


def _legend(fig: Figure, axes: Sequence[Axes], handles: list, made: bool) -> None:
    """Below the axes when we made the figure; right of the last Axes when drawing
    into the caller's. Either way outside the data area."""
    if made:
        fig.legend(handles=handles, loc="outside lower center", frameon=False, fontsize=8,
                   handlelength=3.0,
                   ncols=_columns([h.get_label() for h in handles], fig.get_figwidth()))
    else:
        axes[-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                        borderaxespad=0.0, frameon=False, fontsize=8, handlelength=3.0)


def _columns(labels: Sequence[str], width: float) -> int:
    """The most legend columns whose entries fit across ``width`` inches.

    matplotlib fills a legend column by column, the first ``len % ncols`` columns
    one entry longer; an entry at 8 pt takes about 0.75 in (handle and spacing)
    plus at most 0.075 in per character.
    """
    for ncols in range(len(labels), 1, -1):
        sizes = [len(labels) // ncols + (i < len(labels) % ncols) for i in range(ncols)]
        starts = [sum(sizes[:i]) for i in range(ncols)]
        need = sum(0.75 + 0.075 * max(len(label) for label in labels[a:a + n])
                   for a, n in zip(starts, sizes, strict=True))
        if need <= 0.95 * width:
            return ncols
    return 1


def _names(specs_and_names: Sequence[tuple[str, str]]) -> dict[str, str]:
    """spec -> the label: the display name, or the spec where two specs share one."""
    by_name: dict[str, set[str]] = {}
    for spec, name in specs_and_names:
        by_name.setdefault(name, set()).add(spec)
    return {spec: name if len(by_name[name]) == 1 else spec for spec, name in specs_and_names}


def _default_beta_marks(ax: Axes, defaults: Mapping[float, list[str]], low: float,
                        high: float) -> None:
    """A dotted vertical line at each default beta in [low, high], named above the axes."""
    placed: list[float] = []
    for beta in sorted(defaults):
        if not low <= beta <= high:
            continue
        ax.axvline(beta, zorder=0.5, **DEFAULT_BETA_STYLE)
        # Labels closer than a fifth of the axis go one line higher, so they do not collide.
        row = sum(1 for b in placed if abs(b - beta) < (high - low) / 5)
        placed.append(beta)
        ax.annotate(", ".join(defaults[beta]), xy=(beta, 1.0), xycoords=("data", "axes fraction"),
                    xytext=(0, 2 + 9 * row), textcoords="offset points", ha="center",
                    va="bottom", fontsize=7, color="0.3")


def sweep_figure(sweeps: Sequence[Sweep], title: str | None = None,
                 ax: Axes | Sequence[Axes] | None = None,
                 which: Sequence[str] = ("pearson", "spearman")) -> Figure:
    """r and ρ (one panel each, ``which``) against beta: one line per sweep.

    Colour: the metric; line style: the benchmark; line width: the level when
    several are shown. A dot marks each line's best beta (the highest value; the
    smallest such beta on ties) and a dotted vertical line each metric's default
    beta, named above the axes. ``ax``: one Axes per panel to draw into (then the
    legend goes right of the last one); without it a new figure is made.
    """
    for key in which:
        if key not in CORRELATIONS:
            raise ConfigError(f"unknown correlation {key!r}; choose from "
                              f"{', '.join(CORRELATIONS)}")
    sweeps = [s for s in sweeps if s.metric.has_beta]
    if not sweeps:
        raise ConfigError("nothing to plot: no metric with a beta was swept")
    fig, axes, made = axes_for(ax, len(which), 4.6 * len(which) + 0.6, 4.4)
    from matplotlib.lines import Line2D

    names = _names([(s.metric.spec, s.metric.display_name) for s in sweeps])
    benchmarks = list(dict.fromkeys(s.selection.benchmark.name for s in sweeps))
    levels = list(dict.fromkeys(s.level for s in sweeps))
    defaults: dict[float, list[str]] = {}
    for s in sweeps:
        beta = s.metric.default_beta
        if beta is not None and names[s.metric.spec] not in defaults.setdefault(beta, []):
            defaults[beta].append(names[s.metric.spec])
    low = min(float(s.betas.min()) for s in sweeps)
    high = max(float(s.betas.max()) for s in sweeps)
    for axis, key in zip(axes, which, strict=True):
        for s in sweeps:
            colour = metric_colour(s.metric.spec, s.metric.display_name)
            label = names[s.metric.spec]
            if len(benchmarks) > 1:
                label = f"{s.selection.benchmark.name} {label}"
            if len(levels) > 1:
                label += f" ({s.level})"
            axis.plot(s.betas, getattr(s, key), color=colour,
                      linestyle=benchmark_style(s.selection.benchmark.name),
                      linewidth=LEVEL_WIDTHS.get(s.level, 1.2) if len(levels) > 1 else 1.6,
                      label=label)
            best_beta, best = s.best(key)
            if best == best:
                axis.plot([best_beta], [best], marker="o", markersize=5, linestyle="none",
                          color=colour, markeredgecolor="white", markeredgewidth=0.6,
                          label=f"_best {label}")
        _default_beta_marks(axis, defaults, low, high)
        axis.axhline(0, color="0.6", linewidth=0.6, zorder=0.5)
        axis.set_xlabel("β")
        axis.set_ylabel(CORRELATIONS[key])
        axis.set_ylim(-1.0, 1.0)
        axis.grid(True, linewidth=0.3, color="0.85")
        axis.tick_params(labelleft=True)
    handles = [Line2D([], [], color=metric_colour(spec, s_name), linewidth=1.6, label=label)
               for spec, s_name, label in dict.fromkeys(
                   (s.metric.spec, s.metric.display_name, names[s.metric.spec]) for s in sweeps)]
    if len(benchmarks) > 1:
        handles += [Line2D([], [], color="0.2", linewidth=1.2, linestyle=benchmark_style(b),
                           label=b) for b in benchmarks]
    if len(levels) > 1:
        handles += [Line2D([], [], color="0.2", linewidth=LEVEL_WIDTHS.get(lv, 1.2),
                           label=f"{lv} level") for lv in levels]
    symbols = " / ".join(SYMBOLS[k] for k in which)
    handles.append(Line2D([], [], marker="o", markersize=5, linestyle="none", color="0.2",
                          label=f"best β (highest {symbols})"))
    if any(low <= b <= high for b in defaults):
        handles.append(Line2D([], [], label="default β", **DEFAULT_BETA_STYLE))
    _legend(fig, axes, handles, made)
    if title is None and made:
        sel = sweeps[0].selection
        title = (f"{', '.join(benchmarks)}: {' and '.join(CORRELATIONS[k] for k in which)} "
                 f"with human {sel.human_kind.upper()} (systems={sel.system_set}) against β")
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def window_figure(results: Mapping[str, Sequence[WindowResult]], title: str | None = None,
                  ax: Axes | Sequence[Axes] | None = None) -> Figure:
    """Pearson r (left) and Spearman ρ (right) per window position, one line a series.

    ``results`` maps a label to its windows. Labels written as meta-eval writes
    them, ``BENCHMARK METRIC ...`` (e.g. ``seeda-s wordGREEN β=2``), get the
    benchmark's line style and the metric's colour; a label of one word is a
    metric name. ``ax``: two Axes to draw into; without it a new figure is made.
    """
    fig, axes, made = axes_for(ax, 2, 10.0, 4.4)
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    handles = []
    for label, rows in results.items():
        words = label.split()
        bench, metric = (words[0], words[1]) if len(words) > 1 else (None, label)
        style: dict[str, Any] = dict(color=metric_colour(metric, metric),
                     linestyle=benchmark_style(bench) if bench else "-",
                     linewidth=1.4, marker="o", markersize=3.5)
        starts = [r.window_start for r in rows]
        axes[0].plot(starts, [r.pearson for r in rows], label=label, **style)
        axes[1].plot(starts, [r.spearman for r in rows], label=label, **style)
        handles.append(Line2D([], [], label=label, **style))
    for axis, key in zip(axes, ("pearson", "spearman"), strict=True):
        axis.set_xlabel("window start (human rank of its best system)")
        axis.set_ylabel(f"{CORRELATIONS[key]} within the window")
        axis.axhline(0, color="0.6", linewidth=0.6, zorder=0.5)
        axis.set_ylim(-1.05, 1.05)
        axis.grid(True, linewidth=0.3, color="0.85")
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.tick_params(labelleft=True)
    if handles:
        _legend(fig, axes, handles, made)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def save_figure(draw: Callable[[], Figure], path: str | os.PathLike[str]) -> str:
    """Write the figure ``draw`` makes to ``path`` (.png, .svg or .pdf, at :data:`DPI`);
    return the path. The path is checked before anything is drawn."""
    path = check_plot_path(path)
    figure = draw()
    with atomic_output(path) as part:  # never half a file under the user's name
        figure.savefig(part, dpi=DPI, format=os.path.splitext(path)[1][1:].lower())
    return path


def plot_sweeps(sweeps: Sequence[Sweep], path: str | os.PathLike[str],
                title: str | None = None) -> str:
    """Write :func:`sweep_figure` to ``path`` (.png, .svg or .pdf); return the path."""
    return save_figure(lambda: sweep_figure(sweeps, title), path)


def plot_windows(
    results: Mapping[str, Sequence[WindowResult]], path: str, title: str | None = None
) -> None:
    """Write :func:`window_figure` (Pearson left, Spearman right, one line a metric) to
    ``path``; the format follows its extension (png, pdf, svg). Needs matplotlib
    (``pip install ".[plot]"``).
    """
    save_figure(lambda: window_figure(results, title), path)
