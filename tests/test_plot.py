"""Figures: what is drawn (lines, dots, default-beta marks, labels, colours, styles)
and where the legend sits, read from the Figure objects, not from image bytes."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from gecmetrics.errors import ConfigError  # noqa: E402
from gecmetrics.meta_eval.analyses.window import WindowResult  # noqa: E402
from gecmetrics.meta_eval.plot import (  # noqa: E402
    METRIC_COLOURS,
    plot_sweeps,
    plot_windows,  # noqa: E402
    sweep_figure,
    window_figure,
)
from gecmetrics.meta_eval.sweep import Sweep  # noqa: E402
from gecmetrics.registry import metric_from_spec  # noqa: E402

BETAS = np.round(np.linspace(0.0, 5.0, 51), 2)


def fake_sweep(bench: str, spec: str, peak: float, level: str = "corpus") -> Sweep:
    """A sweep whose r peaks at beta = ``peak`` and whose rho peaks at ``peak + 1``."""
    selection = SimpleNamespace(benchmark=SimpleNamespace(name=bench), human_kind="ew",
                                system_set="all", systems=["a", "b", "c"])
    pearson = 0.9 - 0.1 * (BETAS - peak) ** 2
    spearman = 0.8 - 0.05 * np.abs(BETAS - peak - 1)
    return Sweep(selection, metric_from_spec(spec), level, BETAS, np.zeros((len(BETAS), 3)),
                 pearson, spearman, spearman)


def drawn(fig: Figure) -> Figure:
    FigureCanvasAgg(fig).draw()
    return fig


def data_lines(ax):
    """The curves (not the best-beta dots, the default-beta or zero lines)."""
    return [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]


def assert_legend_outside_axes(fig: Figure) -> None:
    renderer = fig.canvas.get_renderer()
    legends = fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    assert legends
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            assert not box.overlaps(ax.get_window_extent(renderer)), legend
        assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1, box.y1)


def test_sweep_figure_lines_dots_colours_and_styles():
    sweeps = [fake_sweep("conll14", "green", 1.5), fake_sweep("conll14", "m2", 0.5),
              fake_sweep("conll14", "green:tokenize=char,n=6", 2.5)]
    fig = drawn(sweep_figure(sweeps))
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    for ax, ylabel, key in zip(fig.axes, ("Pearson r", "Spearman ρ"), ("pearson", "spearman"),
                               strict=True):
        assert ax.get_ylabel() == ylabel and ax.get_xlabel() == "β"
        lines = data_lines(ax)
        assert [ln.get_label() for ln in lines] == ["wordGREEN", "M2", "charGREEN"]
        assert [to_hex(ln.get_color()) for ln in lines] == [
            METRIC_COLOURS["green"].lower(), METRIC_COLOURS["M2"].lower(),
            METRIC_COLOURS["green:tokenize=char,n=6"].lower()]
        assert {ln.get_linestyle() for ln in lines} == {"-"}  # one benchmark, one style
        for ln, s in zip(lines, sweeps, strict=True):
            assert np.array_equal(ln.get_xdata(), BETAS)
            assert np.array_equal(ln.get_ydata(), getattr(s, key))
        # best-beta dots: at the peak built into the fake data (rho peaks 1 later)
        dots = [ln for ln in ax.get_lines() if ln.get_label().startswith("_best")]
        shift = 0.0 if key == "pearson" else 1.0
        assert [float(d.get_xdata()[0]) for d in dots] == [1.5 + shift, 0.5 + shift,
                                                          2.5 + shift]
        assert [to_hex(d.get_color()) for d in dots] == [to_hex(ln.get_color()) for ln in lines]
        # default betas: dotted vertical lines at 0.5 (M2) and 2 (GREEN), named above
        vertical = sorted(float(ln.get_xdata()[0]) for ln in ax.get_lines()
                          if ln.get_label().startswith("_") and len(set(ln.get_xdata())) == 1
                          and not ln.get_label().startswith("_best"))
        assert vertical == [0.5, 2.0]
        assert sorted(t.get_text() for t in ax.texts) == ["M2", "wordGREEN, charGREEN"]
    legend = fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == [
        "wordGREEN", "M2", "charGREEN", "best β (highest r / ρ)", "default β"]
    assert_legend_outside_axes(fig)
    assert "conll14" in fig.get_suptitle() and "EW" in fig.get_suptitle()


def test_benchmarks_are_line_styles_and_a_metric_keeps_its_colour():
    sweeps = [fake_sweep(b, spec, 1.0) for b in ("conll14", "seeda-s")
              for spec in ("green", "m2")]
    fig = drawn(sweep_figure(sweeps, which=("pearson",)))
    (ax,) = fig.axes
    lines = data_lines(ax)
    assert [ln.get_label() for ln in lines] == [
        "conll14 wordGREEN", "conll14 M2", "seeda-s wordGREEN", "seeda-s M2"]
    style = {ln.get_label(): (to_hex(ln.get_color()), ln.get_linestyle()) for ln in lines}
    assert style["conll14 wordGREEN"][0] == style["seeda-s wordGREEN"][0]
    assert style["conll14 wordGREEN"][1] == style["conll14 M2"][1]
    assert style["conll14 M2"][1] != style["seeda-s M2"][1]
    assert style["conll14 M2"][0] != style["conll14 wordGREEN"][0]
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert texts == ["wordGREEN", "M2", "conll14", "seeda-s", "best β (highest r)", "default β"]
    assert_legend_outside_axes(fig)


def test_levels_and_clashing_display_names():
    sweeps = [fake_sweep("conll14", "green", 1.0), fake_sweep("conll14", "green", 1.0, "mean"),
              fake_sweep("conll14", "green:n=3", 1.0)]
    fig = drawn(sweep_figure(sweeps, which=("spearman",)))
    labels = [ln.get_label() for ln in data_lines(fig.axes[0])]
    # two specs named wordGREEN are told apart by their specs
    assert labels == ["green (corpus)", "green (mean)", "green:n=3 (corpus)"]
    widths = [ln.get_linewidth() for ln in data_lines(fig.axes[0])]
    assert widths[0] > widths[1]
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "corpus level" in texts and "mean level" in texts and "best β (highest ρ)" in texts


def test_draws_into_given_axes_without_pyplot():
    fig = Figure(figsize=(8, 3))
    left, right = fig.subplots(1, 2)
    out = sweep_figure([fake_sweep("conll14", "green", 1.0)], ax=(left, right))
    assert out is fig and len(fig.axes) == 2 and not fig.legends
    assert right.get_legend() is not None
    fig.set_layout_engine("constrained")
    drawn(fig)
    assert_legend_outside_axes(fig)
    (single,) = Figure().subplots(1, 1, squeeze=False)[0]
    sweep_figure([fake_sweep("conll14", "green", 1.0)], ax=single, which=("pearson",))
    assert [ln.get_label() for ln in data_lines(single)] == ["wordGREEN"]
    with pytest.raises(ConfigError, match="needs 2 Axes"):
        sweep_figure([fake_sweep("conll14", "green", 1.0)], ax=single)


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_library_calls_leave_pyplot_and_the_backend_alone():
    code = (
        "import matplotlib, sys\n"
        "before = matplotlib.get_backend()\n"
        "from gecmetrics.meta_eval.analyses.window import WindowResult\n"
        "from gecmetrics.meta_eval.plot import plot_windows\n"
        "from gecmetrics.meta_eval import plot\n"
        "fig = plot.window_figure({'m': [WindowResult(1, ['a', 'b'], 0.5, 0.4)]})\n"
        "import os, tempfile\n"
        "plot_windows({'m': [WindowResult(1, ['a', 'b'], 0.5, 0.4)]},"
        " os.path.join(tempfile.mkdtemp(), 'w.svg'))\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported'\n"
        "assert matplotlib.get_backend() == before\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"MPLBACKEND": "svg", "PATH": ""})
    assert proc.returncode == 0, proc.stderr


def test_window_figure():
    rows = [WindowResult(i + 1, ["a", "b", "c"], p, s)
            for i, (p, s) in enumerate([(0.5, 0.4), (float("nan"), 0.2), (-0.3, -0.1)])]
    fig = drawn(window_figure({"seeda-s wordGREEN β=2": rows, "seeda-s M2 β=0.5": rows,
                               "seeda-e M2 β=0.5": rows}, title="window analysis"))
    left, right = fig.axes
    assert left.get_ylabel() == "Pearson r within the window"
    assert right.get_ylabel() == "Spearman ρ within the window"
    lines = left.get_lines()
    labels = [ln.get_label() for ln in lines if not ln.get_label().startswith("_")]
    assert labels == ["seeda-s wordGREEN β=2", "seeda-s M2 β=0.5", "seeda-e M2 β=0.5"]
    by = {ln.get_label(): ln for ln in lines}
    assert to_hex(by["seeda-s wordGREEN β=2"].get_color()) == METRIC_COLOURS["wordGREEN"].lower()
    assert to_hex(by["seeda-s M2 β=0.5"].get_color()) == METRIC_COLOURS["M2"].lower()
    assert by["seeda-s M2 β=0.5"].get_linestyle() != by["seeda-e M2 β=0.5"].get_linestyle()
    assert list(by["seeda-s M2 β=0.5"].get_xdata()) == [1, 2, 3]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == labels
    assert fig.get_suptitle() == "window analysis"
    assert_legend_outside_axes(fig)


@pytest.mark.full
@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"),
                                           (".pdf", b"%PDF")])
def test_file_writers_keep_their_signatures(tmp_path, suffix, magic):
    path = tmp_path / f"s{suffix}"
    assert plot_sweeps([fake_sweep("conll14", "green", 1.0)], path, title="t") == str(path)
    assert path.read_bytes().startswith(magic)
    wpath = tmp_path / f"w{suffix}"
    assert plot_windows({"m": [WindowResult(1, ["a", "b"], 0.5, 0.4)]}, str(wpath)) is None
    assert wpath.read_bytes().startswith(magic)


def test_nothing_to_plot():
    with pytest.raises(ConfigError, match="no metric with a beta"):
        sweep_figure([fake_sweep("conll14", "gleu", 1.0)])
