"""Statistics of metrics that give each sentence one number (model-based metrics).

SOME, IMPARA and the Scribendi Score score each (source, hypothesis) pair on
its own; their papers define the system score as the mean (SOME, IMPARA) or
the sum (Scribendi) of the sentence scores. :class:`SentenceScores` is that,
in the :class:`gecmetrics.metric.Statistics` interface, so every analysis of
``meta-eval`` (system and sentence level, bootstrap, ``--level ew|trueskill``,
paired tests) works with them unchanged:

* ``sentence``: the (systems, sentences) array;
* ``mean``: the mean of the sentence scores;
* ``corpus``: the paper's reduction (``mean`` or ``sum``), also over a subset
  or resample of sentences;
* :meth:`SentenceScores.sentence_statistics`: the score and a count of 1 per
  sentence, whose sums give the corpus score (sum, or sum / count), so
  approximate-randomization tests can swap sentences between systems.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np

from ..metric import Score, Statistics


class SentenceScores(Statistics):
    """One score per (system, sentence); the corpus score is their mean or sum."""

    def __init__(self, systems: tuple[str, ...], scores: np.ndarray,
                 reduce: Literal["mean", "sum"] = "mean",
                 details: Mapping[str, np.ndarray] | None = None,
                 report_sum: bool = False) -> None:
        self.systems = systems
        self.scores = np.asarray(scores, dtype=np.float64)
        if self.scores.shape[0] != len(systems):
            raise ValueError(f"{self.scores.shape[0]} rows of scores for {len(systems)} systems")
        self.reduce = reduce
        #: Per-sentence sub-scores (e.g. SOME's grammaticality), same shape as ``scores``.
        self.details = dict(details or {})
        #: Also report the sum of the sentence scores as the detail ``sum``.
        self.report_sum = report_sum

    def _reduce(self, values: np.ndarray) -> np.ndarray:
        if self.reduce == "sum":
            return values.sum(axis=-1)
        return values.mean(axis=-1) if values.shape[-1] else np.zeros(values.shape[:-1])

    def corpus(self, beta: float | None = None,
               sentences: np.ndarray | None = None) -> list[Score]:
        pick = (lambda a: a) if sentences is None else (lambda a: a[:, sentences])
        totals = self._reduce(pick(self.scores))
        subs = {name: self._reduce(pick(values)) for name, values in self.details.items()}
        if self.report_sum:
            subs["sum"] = pick(self.scores).sum(axis=-1)
        return [Score(float(totals[i]), details={k: float(v[i]) for k, v in subs.items()})
                for i in range(len(self.systems))]

    def corpus_scores(self, beta: float | None = None,
                      sentences: np.ndarray | None = None) -> np.ndarray:
        return self._reduce(self.scores if sentences is None else self.scores[:, sentences])

    def sentence(self, beta: float | None = None) -> np.ndarray:
        return self.scores

    def sentence_statistics(self, beta: float | None = None
                            ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        stats = np.stack([self.scores, np.ones_like(self.scores)], axis=-1)
        if self.reduce == "sum":
            return stats, lambda sums: sums[..., 0]
        return stats, lambda sums: sums[..., 0] / sums[..., 1]


def pairs_of(corpus: Any) -> tuple[tuple[str, ...], list[tuple[str, str]]]:
    """(system names, every (source, hypothesis) pair system by system, in order)."""
    systems = tuple(corpus.hypotheses)
    pairs = [(src, hyp) for name in systems
             for src, hyp in zip(corpus.sources, corpus.hypotheses[name], strict=True)]
    return systems, pairs
