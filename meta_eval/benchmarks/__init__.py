"""Benchmark registry: a name -> the loader that builds it from a data folder.

A new benchmark is one module here (a ``load(root, name=..., **options)``
function returning a :class:`~.base.Benchmark`), one data description
``data/<name>.json`` and one line in ``LOADERS``.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from gecmetrics.errors import ConfigError

from .base import Benchmark, data_root

LOADERS: dict[str, str] = {
    "conll14": "conll14",
    "seeda-s": "seeda",
    "seeda-e": "seeda",
    "gmeg-fce": "gmeg",
    "gmeg-wiki": "gmeg",
    "gmeg-yahoo": "gmeg",  # ratings only: its loader explains why it cannot run
}


def benchmark_names() -> list[str]:
    return list(LOADERS)


def load_benchmark(name: str, data_dir: str | os.PathLike[str] | None = None,
                   **options: Any) -> Benchmark:
    """Load benchmark ``name`` from ``data_dir`` (else $GECMETRICS_DATA, else the cache)."""
    if name not in LOADERS:
        raise ConfigError(f"unknown benchmark {name!r}; choose from: {', '.join(LOADERS)}")
    module = importlib.import_module(f"{__name__}.{LOADERS[name]}")
    return module.load(data_root(data_dir), name=name, **options)


__all__ = ["Benchmark", "benchmark_names", "data_root", "load_benchmark"]
