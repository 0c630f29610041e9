"""The system levels of a meta-evaluation: how a metric's scores become system scores.

``corpus``: the metric's corpus score; ``mean``: the mean of its sentence scores;
``ew`` and ``trueskill``: its sentence scores compared pairwise and aggregated as
the humans' judgments are (:mod:`.aggregate`). Light: read while ``--help`` is built.
"""

from __future__ import annotations

from typing import Literal, get_args

Level = Literal["corpus", "mean", "ew", "trueskill"]
LEVELS: tuple[str, ...] = get_args(Level)
AGGREGATION_LEVELS = ("ew", "trueskill")  # built from pairwise comparisons of sentences
