"""The optional ``neural`` extra: import torch / transformers or say how to get them.

Model-based metrics call these inside their methods (never at module import),
so that listing metrics, ``gecmetrics --help`` and every classic metric work
without torch installed, and a neural metric fails before any work with one
line: ``metric some needs the neural extra: pip install "gecmetrics[neural]"``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import ConfigError

INSTALL = 'pip install "gecmetrics[neural]"'


def _require(module: str, metric: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ConfigError(f"metric {metric} needs the neural extra: {INSTALL} "
                          f"(cannot import {module}: {err})") from None


def require_torch(metric: str) -> ModuleType:
    """The ``torch`` module, or :class:`ConfigError` naming ``metric`` and the install line."""
    return _require("torch", metric)


def require_transformers(metric: str) -> ModuleType:
    """The ``transformers`` module (torch checked first), or the same one-line error."""
    require_torch(metric)
    return _require("transformers", metric)


def available() -> bool:
    """True when both torch and transformers import (for tests and ``list``)."""
    try:
        importlib.import_module("torch")
        importlib.import_module("transformers")
    except ImportError:
        return False
    return True
