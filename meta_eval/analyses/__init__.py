"""The registered analyses of ``gecmetrics meta-eval``, one line each.

A new analysis is one module here (settings, rows, ``run``, ``table``, optional
``figure``: see :mod:`..analysis`) and one line below; its flags, keywords,
checks, JSON rows, frame rows, table section and figure follow from it.
"""

from __future__ import annotations

from ..analysis import Analysis
from .rank_pairs import RANK_PAIRS

ANALYSES: tuple[Analysis, ...] = (
    RANK_PAIRS,
)
