"""gecmetrics: exact, fast metrics and meta-evaluation for grammatical error correction.

    >>> from gecmetrics import get_metric
    >>> green = get_metric("green", tokenize="char", n=6)
    >>> [r.score for r in green.score(["a b"], [["a c"]], [["a c"]])]
    [1.0]

Heavy modules load on first use, so ``import gecmetrics`` and the CLI stay fast.
"""

from __future__ import annotations

import os
from typing import Any

from . import moved
from .version import __version__

# metrics/, meta_eval/ and data/ sit at the top of the repository and are linked into
# this folder. A clone made without symbolic links (Git for Windows by default) has
# text files in their place; there the repository top is searched too, so Python run
# from such a checkout still finds gecmetrics.metrics etc. (an install never needs
# this: setup.py maps the real folders).
if os.path.isfile(os.path.join(__path__[0], "metrics")):
    __path__.append(os.path.dirname(__path__[0]))
moved.install()  # the old paths of the modules that moved (gecmetrics.cli, ...)

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
