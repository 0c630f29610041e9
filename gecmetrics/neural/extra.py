"""The optional ``neural`` extra: import torch / transformers or say how to get them.

Model-based metrics call these inside their methods (never at module import),
so that listing metrics, ``gecmetrics --help`` and every classic metric work
without torch installed, and a neural metric fails before any work with one
line (:func:`gecmetrics.extras.missing_message`, the one format of every extra):
``metric 'some' needs the neural extra: pip install ".[neural]" in the gecmetrics
checkout (cannot import torch: ...)``. Metrics declare the extra
(``extras = ("neural",)``), so the check when a metric is made comes first;
these imports catch an extra that is installed but broken.
"""

from __future__ import annotations

from types import ModuleType

from .. import extras


def _require(module: str, metric: str) -> ModuleType:
    return extras.require(f"metric {metric!r}", "neural", module)


def require_torch(metric: str) -> ModuleType:
    """The ``torch`` module, or :class:`ConfigError` naming ``metric`` and the install line."""
    return _require("torch", metric)


def require_transformers(metric: str) -> ModuleType:
    """The ``transformers`` module (torch checked first), or the same one-line error."""
    require_torch(metric)
    return _require("transformers", metric)
