"""gecmetrics: exact, fast metrics and meta-evaluation for grammatical error correction.

    >>> from gecmetrics import get_metric
    >>> green = get_metric("green", tokenize="char", n=6)
    >>> [r.score for r in green.score(["a b"], [["a c"]], [["a c"]])]
    [1.0]

Heavy modules load on first use, so ``import gecmetrics`` and the CLI stay fast.
"""

from __future__ import annotations

from typing import Any

from .version import __version__

__all__ = ["Corpus", "get_metric", "list_metrics", "meta_evaluate", "register_metric",
           "__version__"]


def __getattr__(name: str) -> Any:
    if name in ("get_metric", "list_metrics", "register_metric", "metric_from_spec"):
        from . import registry

        return getattr(registry, name)
    if name == "meta_evaluate":  # benchmarks and metrics in, a MetaEvaluation out
        from .meta_eval.api import meta_evaluate

        return meta_evaluate
    if name == "Corpus":
        from .corpus import Corpus

        return Corpus
    raise AttributeError(f"module 'gecmetrics' has no attribute {name!r}")
