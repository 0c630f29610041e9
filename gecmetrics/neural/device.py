"""Which torch device a metric runs on: ``auto``, ``cpu``, ``cuda`` or ``cuda:N``."""

from __future__ import annotations

import re

from ..errors import ConfigError
from .extra import require_torch

DEVICE_CHOICES = "auto, cpu, cuda, cuda:N"
_PATTERN = re.compile(r"auto|cpu|cuda(:\d+)?")


def check_device_name(name: str, option: str = "device") -> None:
    """Raise :class:`ConfigError` unless ``name`` is one of :data:`DEVICE_CHOICES`.

    Needs no torch, so a metric config can check its ``device`` option at
    construction time (before any file is read).
    """
    if not isinstance(name, str) or not _PATTERN.fullmatch(name):
        raise ConfigError(f"{option}={name!r} is not a device; choose one of: {DEVICE_CHOICES}")


def resolve_device(name: str, metric: str = "this metric") -> str:
    """The torch device string for ``name``.

    ``auto`` is ``cuda`` when torch sees a GPU, else ``cpu``; ``cuda`` and
    ``cuda:N`` are returned as given when that GPU exists, else a one-line
    :class:`ConfigError` says so and suggests ``device=cpu``. Imports torch
    (through :func:`require_torch`, so a missing extra is the one-line error).
    """
    check_device_name(name)
    torch = require_torch(metric)
    if name == "cpu":
        return "cpu"
    has_cuda = bool(torch.cuda.is_available())
    if name == "auto":
        return "cuda" if has_cuda else "cpu"
    if not has_cuda:
        raise ConfigError(f"device={name} was asked for but torch sees no CUDA GPU "
                          f"(torch {torch.__version__}); use device=cpu or device=auto")
    if ":" in name:
        index = int(name.split(":", 1)[1])
        count = int(torch.cuda.device_count())
        if index >= count:
            raise ConfigError(f"device={name} was asked for but torch sees {count} CUDA "
                              f"GPU(s) (cuda:0 to cuda:{count - 1}); pick one of those")
    return name
