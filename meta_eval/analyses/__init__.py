"""The registered analyses of ``gecmetrics meta-eval``, one line each.

A new analysis is one module here (settings, rows, ``run``, ``table``, optional
``figure``: see :mod:`..analysis`) and one line below; its flags, keywords,
checks, JSON rows, frame rows, table section and figure follow from it. They run
after the correlations and the analyses still wired in :mod:`..api`, in this
order, which is also the order of their rows and sections in the output.
"""

from __future__ import annotations

from ..analysis import Analysis
from .pool import POOL
from .rank_pairs import RANK_PAIRS

ANALYSES: tuple[Analysis, ...] = (
    POOL,
    RANK_PAIRS,
)
