"""Window analysis: correlations within windows of systems of similar human quality.

As SEEDA's ``utils/window_analysis_system.py``: sort the systems by human score
(best first), then for each run of ``window`` consecutive systems compute the
Pearson and Spearman correlations between metric and human scores. It shows
whether a metric still ranks systems correctly when they are close in quality
(the top systems), which a correlation over all systems hides.

``window_start`` is the 1-based human rank of the best system in the window
(SEEDA prints "From ranking 1 to 4"); systems with equal human scores keep the
order of their names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .defaults import DEFAULT_WINDOW


@dataclass(frozen=True)
class WindowResult:
    window_start: int  # 1-based rank of the first (best) system of the window
    systems_in_window: list[str]  # best first
    pearson: float  # NaN if the metric (or human) scores in the window are constant
    spearman: float

    def to_json(self) -> dict[str, Any]:
        from gecmetrics.formatting import finite_or_none as clean

        return {
            "window_start": self.window_start,
            "systems_in_window": list(self.systems_in_window),
            "pearson": clean(self.pearson),
            "spearman": clean(self.spearman),
        }


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
