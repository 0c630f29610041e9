"""A paired comparison's outcome, as a scored result carries it.

Kept apart from :mod:`gecmetrics.paired` (which computes it from a metric's
statistics) so that :mod:`gecmetrics.metric`, whose results hold one, need not
import the module that imports it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

PairedTestName = Literal["bs", "ar"]
CONFIDENCE = 0.95


@dataclass(frozen=True)
class PairedResult:
    """One system compared with the baseline under one (metric, beta, level)."""

    test: PairedTestName
    baseline: str
    hypothesis: str
    delta: float | None  # score(hypothesis) - score(baseline), 0-1; None for the baseline
    delta_ci: tuple[float, float] | None
    p_value: float | None
    samples: int
    seed: int
    confidence: float = CONFIDENCE

    def to_json(self) -> dict[str, Any]:
        """The keys added to the system's JSON object (null on the baseline's, and
        for an undefined value: JSON never holds NaN)."""
        ci = None if self.delta_ci is None else [_finite(v) for v in self.delta_ci]
        return {
            "baseline": self.baseline,
            "paired_test": self.test,
            "delta": _finite(self.delta),
            "delta_ci": None if ci is None or None in ci else ci,
            "p_value": _finite(self.p_value),
        }


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None
