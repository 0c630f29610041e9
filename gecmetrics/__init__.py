"""gecmetrics: exact, fast metrics and meta-evaluation for grammatical error correction.

    >>> from gecmetrics import get_metric
    >>> green = get_metric("green", tokenize="char", n=6)
    >>> [r.score for r in green.score(["a b"], [["a c"]], [["a c"]])]
    [1.0]

Heavy modules load on first use, so ``import gecmetrics`` and the CLI stay fast.

Imported from a source checkout, this file also makes the package behave the
same as from anywhere else; see :func:`_from_source_checkout`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

__version__ = "0.1.0"

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


def _from_source_checkout() -> None:
    """Make ``import gecmetrics`` from a source checkout give the same package as elsewhere.

    The repository keeps ``metrics/``, ``meta_eval/`` and ``data/`` beside
    ``gecmetrics/``; installing maps them to ``gecmetrics.metrics`` etc. (the
    package-dir table in pyproject.toml) and builds the compiled kernels into
    the installed copy. Python run from the repository root puts the root
    first on ``sys.path``, so it imports this folder instead, which alone has
    neither those subpackages nor the kernels. Two cases:

    * **An installed (non-editable) copy exists** elsewhere on ``sys.path``:
      it replaces this module in ``sys.modules`` (the import machinery hands
      the importer whatever ``sys.modules`` holds once this file has run), so
      the code, the data files and the compiled kernels all come from one
      build. Borrowing only the installed kernels for the source's Python
      code was rejected: a kernel built from an older ``.pyx`` next to newer
      Python code could disagree with it, while the installed copy is always
      consistent with itself. This is what a ``src/`` layout would give, and
      what ``pip install .`` users expect; develop with ``pip install -e .``,
      whose copy *is* this checkout, so nothing is replaced.
    * **No installed copy** (``PYTHONPATH=repo``, or an editable install):
      the checkout's root joins ``__path__``, so ``gecmetrics.metrics`` is
      ``metrics/`` and so on, as installed; kernels built in place
      (``pip install -e .``) are found there, else the pure-Python code runs.

    An installed copy is recognised by ``metrics/`` inside its package folder;
    this folder (without it) is a checkout only when its parent holds
    ``metrics/__init__.py``. Anything else is left alone.
    """
    here = Path(__file__).resolve().parent
    checkout = here.parent
    if (here / "metrics").is_dir() or not (checkout / "metrics" / "__init__.py").is_file():
        return  # an installed copy, or a layout this function does not know
    from importlib.machinery import PathFinder
    from importlib.util import module_from_spec

    def is_checkout(entry: str) -> bool:
        try:
            return Path(entry or os.curdir).resolve() == checkout
        except OSError:
            return False

    elsewhere = [p for p in sys.path if isinstance(p, str) and not is_checkout(p)]
    spec = PathFinder.find_spec(__name__, elsewhere)
    if spec is not None and spec.origin and spec.loader is not None:
        installed = Path(spec.origin).resolve().parent
        if installed != here and (installed / "metrics").is_dir():
            this = sys.modules[__name__]
            module = module_from_spec(spec)
            sys.modules[__name__] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules[__name__] = this
                raise
            return
    __path__.append(str(checkout))  # noqa: F821 (a package's __path__)


_from_source_checkout()
