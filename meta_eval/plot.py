"""Plot beta sweeps: Pearson r and Spearman rho against beta, several metrics per figure.

Like Figure 3 of the GREEN paper (Koyama et al., 2024), with a second panel
for rho. matplotlib is imported here only (the ``plot`` extra).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from gecmetrics.errors import ConfigError

from .results import WindowRow
from .sweep import Sweep

FORMATS = (".png", ".svg", ".pdf")


def check_plot_path(path: str | os.PathLike[str]) -> str:
    """The path as a string, if its suffix is a supported image format."""
    path = os.fspath(path)
    if os.path.splitext(path)[1].lower() not in FORMATS:
        raise ConfigError(f"--plot file must end in {', '.join(FORMATS)} (got {path!r})")
    return path


def plot_sweeps(sweeps: Sequence[Sweep], path: str | os.PathLike[str],
                title: str | None = None) -> str:
    """Draw every sweep (one line each) into ``path`` (.png, .svg or .pdf); return the path."""
    path = check_plot_path(path)
    sweeps = [s for s in sweeps if s.metric.has_beta]
    if not sweeps:
        raise ConfigError("nothing to plot: no metric with a beta was swept")
    try:
        import matplotlib
    except ImportError:
        raise ConfigError("plotting needs matplotlib: pip install 'gecmetrics[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    several = len({s.selection.benchmark.name for s in sweeps}) > 1
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharex=True, sharey=True)
    for ax, which, name in ((axes[0], "pearson", "Pearson r"), (axes[1], "spearman",
                                                                  "Spearman ρ")):
        for s in sweeps:
            label = s.label if several else s.metric.display_name
            if s.level != "corpus":
                label += f" ({s.level})"
            line, = ax.plot(s.betas, getattr(s, which), label=label, linewidth=1.4)
            best_beta, best = s.best(which)
            if best == best:
                ax.plot([best_beta], [best], "o", color=line.get_color(), markersize=4)
        ax.axhline(0, color="grey", linewidth=0.6)
        ax.set_xlabel("β")
        ax.set_ylabel(name)
        ax.set_title(name)
        ax.set_ylim(-1.0, 1.0)
        ax.grid(True, linewidth=0.3)
    axes[0].legend(loc="lower right", fontsize=8)
    sel = sweeps[0].selection
    fig.suptitle(title or (f"{', '.join(sorted({s.selection.benchmark.name for s in sweeps}))}: "
                           f"correlation with human {sel.human_kind.upper()} "
                           f"(systems={sel.system_set}) against β"), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_window_rows(rows: Sequence[WindowRow], path: str) -> str:
    """The window analysis of ``gecmetrics meta-eval --window``: one line per benchmark
    and metric (labelled by spec when two specs share a display name)."""
    from .window import WindowResult, plot_windows

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
