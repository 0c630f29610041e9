"""The registered analyses of ``gecmetrics meta-eval``, one line each.

A new analysis is one module here (settings, rows, ``run``, ``table``, optional
``figure``: see :mod:`..analysis`) and one line below; its flags, keywords,
checks, JSON rows, frame rows, table section and figure follow from it. Those
that add columns to the correlation rows (``bootstrap``, ``cv_beta``,
``pair_stats``) run first, on the signed rows; then every one's ``run``, in this
order, which is also the order of their rows in the output; their sections are
placed by :data:`..report.SECTION_ORDER` and their figures' notes by
:data:`..figures.FIGURE_ORDER`.
"""

from __future__ import annotations

from ..analysis import Analysis
from .attacks import ATTACKS
from .bootstrap import BOOTSTRAP
from .clusters import CLUSTERS
from .compare import COMPARE
from .cv_beta import CV_BETA
from .human_intervals import HUMAN_INTERVALS
from .human_table import HUMAN_TABLE
from .pair_stats import PAIR_STATS
from .pool import POOL
from .rank_pairs import RANK_PAIRS
from .subsets import SUBSETS
from .window import WINDOW

ANALYSES: tuple[Analysis, ...] = (
    BOOTSTRAP,
    COMPARE,
    WINDOW,
    CV_BETA,
    SUBSETS,
    PAIR_STATS,
    CLUSTERS,
    HUMAN_INTERVALS,
    POOL,
    RANK_PAIRS,
    HUMAN_TABLE,
    ATTACKS,
)
