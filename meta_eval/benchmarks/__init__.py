"""Benchmark registry: a name -> the loader that builds it from a data folder.

A new benchmark is one module here (a ``load(root, name=..., **options)``
function returning a :class:`~.base.Benchmark`) and one data description
``data/<name>.json`` whose ``"meta_eval"`` section declares its names, system
sets, human score kinds and options (read by :mod:`.registry`; the CLI's
choices and every applicability check come from there).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from . import registry
from .base import Benchmark, data_root


def load_benchmark(name: str, data_dir: str | os.PathLike[str] | None = None,
                   **options: Any) -> Benchmark:
    """Load benchmark ``name`` from ``data_dir`` (else $GECMETRICS_DATA, else the cache).

    ``options``: the benchmark-specific options (``split``, ``seeda_corpus`` ...);
    those the benchmark does not take are not passed to its loader.
    """
    spec = registry.spec(name)
    module = importlib.import_module(spec.module)
    mine = {key: value for key, value in options.items() if key in spec.options}
    return module.load(data_root(data_dir), name=name, **mine)


__all__ = ["Benchmark", "data_root", "load_benchmark"]
