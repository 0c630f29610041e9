"""Options every model-based metric has, checked the same way (no torch needed)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError
from ..metric import MetricConfig
from .device import check_device_name
from .models import DTYPES


@dataclass(frozen=True)
class NeuralConfig(MetricConfig):
    """``device`` (auto|cpu|cuda|cuda:N), ``batch_size``, ``dtype`` (float32 by
    default, for exactness), ``cache`` (the disk cache of model outputs,
    :mod:`gecmetrics.neural.cache`; false neither reads nor writes it)."""

    device: str = "auto"
    batch_size: int = 32
    dtype: str = "float32"
    cache: bool = True

    def validate(self) -> None:
        check_device_name(self.device)
        if not isinstance(self.batch_size, int) or isinstance(self.batch_size, bool) \
                or self.batch_size < 1:
            raise ConfigError(f"batch_size={self.batch_size!r} must be an integer >= 1")
        if self.dtype not in DTYPES:
            raise ConfigError(f"dtype={self.dtype!r} is not one of: {', '.join(DTYPES)}")
        if not isinstance(self.cache, bool):
            raise ConfigError("cache must be true or false")


def check_unit_interval(value: float, name: str, metric: str) -> None:
    """One-line ConfigError unless 0 <= value <= 1 (a number)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ConfigError(f"{metric} option {name}={value!r} must be a number in [0, 1]")
