"""Window analysis (``--window W``): correlations within windows of systems of similar
human quality.

As SEEDA's ``utils/window_analysis_system.py``: sort the systems by human score
(best first), then for each run of ``window`` consecutive systems compute the
Pearson and Spearman correlations between metric and human scores. It shows
whether a metric still ranks systems correctly when they are close in quality
(the top systems), which a correlation over all systems hides.

``window_start`` is the 1-based human rank of the best system in the window
(SEEDA prints "From ranking 1 to 4"); systems with equal human scores keep the
order of their names. ``--window-plot FILE`` draws r and rho per window position.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gecmetrics.errors import ConfigError
from gecmetrics.formatting import fixed, render
from gecmetrics.validate import check_plot_file, check_window

from ..analysis import Analysis, Context, refuse_sweep
from ..defaults import DEFAULT_WINDOW
from ..flags import count, option
from ..result_rows import WindowResult  # defined with the rows; this module's name too
from ..rows import RowIdentity, num

if TYPE_CHECKING:
    from gecmetrics.metric import Metric

    from ..result_rows import MetaResult
    from ..run_options import RunOptions
    from ..selection import Selection

NAME = "window"


@dataclass(frozen=True)
class WindowSettings:
    window: int | None = option(
        None, "--window", kind="int", alone=DEFAULT_WINDOW, metavar="W",
        help="Window analysis: r and rho within each run of W systems of similar human "
             "score (alone: 4, as SEEDA).")
    window_plot: str | None = option(
        None, "--window-plot", kind="file", metavar="FILE",
        requires=("--window W", lambda s: s.window is not None),
        help="Plot the window analysis (.png, .svg or .pdf); needs --window.")

    def __post_init__(self) -> None:  # True: the flag alone; the API may pass 4.0
        object.__setattr__(self, "window", count("--window", self.window, DEFAULT_WINDOW))


@dataclass(frozen=True)
class WindowRow(RowIdentity):
    """Pearson and Spearman within one window of systems of similar human score."""

    window: int
    window_start: int  # 1-based human rank of the window's best system
    systems_in_window: tuple[str, ...]  # best first
    pearson: float
    spearman: float
    signature: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis": NAME, **self.identity_json(), "window": self.window,
            "window_start": self.window_start, "systems_in_window": list(self.systems_in_window),
            "pearson": num(self.pearson), "spearman": num(self.spearman),
        }
        if self.signature:
            out["signature"] = self.signature
        return out


def rank_by_human(human: Mapping[str, float]) -> list[str]:
    """System names, best human score first (ties: by name)."""
    return sorted(human, key=lambda name: (-float(human[name]), name))


def window_correlations(
    metric: Mapping[str, float], human: Mapping[str, float], window: int = DEFAULT_WINDOW
) -> list[WindowResult]:
    """Pearson and Spearman within every window of ``window`` consecutive systems.

    ``metric`` and ``human`` map system names to system-level scores; only the
    systems in ``human`` are used (the system set) and each must have a metric score.
    """
    import numpy as np

    from gecmetrics.stats.correlation import pearson, spearman

    ranked = rank_by_human(human)
    if window < 2:
        raise ValueError("a window needs at least 2 systems")
    if window > len(ranked):
        raise ValueError(f"window of {window} systems but only {len(ranked)} systems")
    missing = [name for name in ranked if name not in metric]
    if missing:
        raise ValueError(f"no metric score for systems {missing}")
    h = np.array([float(human[name]) for name in ranked])
    m = np.array([float(metric[name]) for name in ranked])
    out = []
    for start in range(len(ranked) - window + 1):
        sl = slice(start, start + window)
        out.append(WindowResult(
            window_start=start + 1,
            systems_in_window=ranked[sl],
            pearson=pearson(m[sl], h[sl]),
            spearman=spearman(m[sl], h[sl]),
        ))
    return out


def window_rows(results: Sequence[MetaResult], selections: Sequence[Selection],
                metrics: Sequence[Metric], window: int = DEFAULT_WINDOW) -> list[WindowRow]:
    """Window analysis of every correlation row: systems sorted by human score, Pearson
    and Spearman within each run of ``window`` consecutive systems."""
    import numpy as np

    from ..correlation_analyses import metric_for
    from ..selection import row_signature, system_scores

    by_name = {sel.benchmark.name: sel for sel in selections}
    by_spec = metric_for(results, metrics)
    out = []
    for r in results:
        sel = by_name[r.benchmark]
        if window > len(sel.systems) or window < 2:
            raise ConfigError(f"--window must be between 2 and the number of systems "
                              f"({len(sel.systems)} in {sel.benchmark.name}); got {window}")
        scores = (np.asarray(r.aggregation.scores) if r.aggregation is not None
                  else system_scores(by_spec[r.spec], sel, r.beta, r.level))
        human = dict(zip(sel.systems, sel.human.tolist(), strict=True))
        metric = dict(zip(sel.systems, scores.tolist(), strict=True))
        extra = r.aggregation.signature_fields() if r.aggregation is not None else {}
        signature = row_signature(by_spec[r.spec], sel, r.level, r.beta, window=window, **extra)
        for w in window_correlations(metric, human, window):
            out.append(WindowRow(
                r.benchmark, r.human, r.systems, r.corpus, r.metric, r.spec, r.beta, r.level,
                window, w.window_start, tuple(w.systems_in_window), w.pearson, w.spearman,
                signature))
    return out


def run(context: Context, settings: WindowSettings) -> list[WindowRow]:
    """The windows of every system-level correlation row."""
    from ..ratings import is_rated

    assert settings.window is not None
    selections = [sel for sel in context.selections if not is_rated(sel)]
    names = {sel.benchmark.name for sel in selections}
    rows = [r for r in context.rows if r.benchmark in names]
    return window_rows(rows, selections, context.metrics, settings.window)


def on_load(settings: WindowSettings, selection: Selection) -> None:
    """W fits the benchmark's systems (checked as its data is read, before scoring)."""
    if settings.window is not None:
        check_window(settings.window, len(selection.systems), selection.benchmark.name)


def check(settings: WindowSettings, options: RunOptions) -> None:
    if settings.window is not None:
        refuse_sweep("--window", options)
        if options.sentence_level:
            raise ConfigError("--sentence-level cannot be combined with --window")
        check_window(settings.window)
    if settings.window_plot is not None:
        check_plot_file(settings.window_plot, "--window-plot")


def title(settings: WindowSettings, rows: Sequence[WindowRow],
          options: RunOptions) -> str:
    return f"Window analysis ({settings.window} consecutive systems by human score)"


def table(rows: Sequence[WindowRow], fmt: str) -> str:
    headers = ["benchmark", "metric", "spec", "β", "level", "from rank", "systems", "r", "ρ"]
    cells = [[w.benchmark, w.metric, w.spec, "-" if w.beta is None else f"{w.beta:g}",
              w.level, w.window_start, " ".join(w.systems_in_window), fixed(w.pearson, 3),
              fixed(w.spearman, 3)] for w in rows]
    return render(headers, cells, fmt, ["left"] * 5 + ["right", "left", "right", "right"])


def figure(rows: Sequence[WindowRow], path: str) -> str:
    """The window analysis of ``gecmetrics meta-eval --window``: one line per benchmark
    and metric (labelled by spec when two specs share a display name)."""
    from ..plot import plot_windows

    grouped: dict[str, list[WindowResult]] = {}
    specs: dict[str, set[str]] = {}
    for w in rows:
        specs.setdefault(w.metric, set()).add(w.spec)
    for w in rows:
        beta = "" if w.beta is None else f" β={w.beta:g}"
        # Two specs with one display name (gleu, gleu:variant=paper) are two lines.
        name = w.metric if len(specs[w.metric]) == 1 else w.spec
        label = f"{w.benchmark} {name}{beta}" + ("" if w.level == "corpus" else f" ({w.level})")
        grouped.setdefault(label, []).append(WindowResult(
            w.window_start, list(w.systems_in_window), w.pearson, w.spearman))
    plot_windows(grouped, path, title=f"window analysis ({rows[0].window} systems)"
                 if rows else None)
    return path


WINDOW = Analysis(NAME, WindowSettings, lambda s: s.window is not None, run, title, table,
                  check=check, figure=figure, plot="window_plot", on_load=on_load,
                  help_after="ties",
    row=WindowRow)
