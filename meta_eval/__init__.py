"""Meta-evaluation: how well metrics agree with human rankings (``gecmetrics.meta_eval``).

``evaluate`` (= :func:`gecmetrics.meta_evaluate`) is the entry point: benchmarks
and metrics in, one typed :class:`~.results.MetaEvaluation` out. It loads on
first use, so importing a submodule stays light.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MetaEvalOptions", "MetaEvaluation", "evaluate", "meta_evaluate"]


def __getattr__(name: str) -> Any:
    if name in ("evaluate", "meta_evaluate"):
        from .api import meta_evaluate

        return meta_evaluate
    if name == "MetaEvalOptions":
        from .options import MetaEvalOptions

        return MetaEvalOptions
    if name == "MetaEvaluation":
        from .results import MetaEvaluation

        return MetaEvaluation
    raise AttributeError(f"module 'gecmetrics.meta_eval' has no attribute {name!r}")
