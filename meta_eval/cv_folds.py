"""Cross-validated beta*: the F-beta weight chosen on held-in sentences.

The GREEN paper picks the beta that maximises a metric's correlation with the
human ranking; chosen on the whole test set, that optimum is optimistic. Its
cross-validated form: split the test sentences into k folds (default 10); for
each fold, score the systems on the *other* k-1 folds (the training part) for
every beta of the grid and take the beta with the highest correlation; beta* is
the mean of those k optima. Reported with the correlations at beta* (on all
sentences) and the spread (standard deviation, min, max) of the per-fold optima,
plus each fold's correlation on its held-out sentences at its own optimum.

Pure functions over a callable ``score(beta, sentence_indices) -> ndarray
(n_systems,)`` (e.g. ``lambda b, idx: stats.corpus_scores(b, idx)``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gecmetrics import progress
from gecmetrics.meta_eval.defaults import DEFAULT_FOLDS
from gecmetrics.stats import DEFAULT_SEED
from gecmetrics.stats.correlation import correlate_one
from gecmetrics.stats.resampling import permutation

Score = Callable[[float, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class CVBetaResult:
    beta_star: float
    beta_star_folds: list[float]  # the optimum of each training part, fold by fold
    beta_star_std: float  # population standard deviation of the fold optima
    pearson: float  # at beta*, on all sentences
    spearman: float
    kendall: float
    held_out: list[float]  # each fold's criterion correlation on its own sentences
    criterion: str
    k: int
    seed: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "beta_star": self.beta_star,
            "beta_star_folds": list(self.beta_star_folds),
            "beta_star_std": self.beta_star_std,
            "pearson_at_beta_star": self.pearson,
            "spearman_at_beta_star": self.spearman,
            "kendall_at_beta_star": self.kendall,
            "cv_folds": self.k,
            "cv_seed": self.seed,
            "cv_criterion": self.criterion,
        }


def make_folds(n_sentences: int, k: int, seed: int | None = DEFAULT_SEED) -> list[np.ndarray]:
    """Split ``range(n_sentences)`` into k folds of near-equal size.

    With a seed the sentences are shuffled first (``default_rng(seed).permutation``);
    ``seed=None`` gives contiguous folds in sentence order. Each fold is sorted.
    """
    if k < 2:
        raise ValueError("cross-validation needs at least 2 folds")
    if k > n_sentences:
        raise ValueError(f"{k} folds but only {n_sentences} sentences")
    order = np.arange(n_sentences)
    if seed is not None:
        order = permutation(n_sentences, seed)
    return [np.sort(part) for part in np.array_split(order, k)]


def best_beta(
    score: Score, human: np.ndarray, betas: Sequence[float] | np.ndarray, sentences: np.ndarray,
    criterion: str = "pearson",
) -> tuple[float, float]:
    """The beta of the grid with the highest correlation on ``sentences`` (first one on
    ties; undefined correlations never win) and that correlation."""
    best, best_r = None, -np.inf
    for beta in betas:
        r = correlate_one(score(beta, sentences), human, criterion)
        if not np.isnan(r) and r > best_r:
            best, best_r = float(beta), r
    if best is None:
        raise ValueError("the correlation is undefined for every beta (constant scores)")
    return best, best_r


def cv_beta(
    score: Score,
    human: np.ndarray,
    betas: Sequence[float] | np.ndarray,
    n_sentences: int,
    k: int = DEFAULT_FOLDS,
    seed: int | None = DEFAULT_SEED,
    criterion: str = "pearson",
) -> CVBetaResult:
    """Cross-validated beta* (see the module docstring)."""
    human = np.asarray(human, dtype=float)
    if len(betas) == 0:
        raise ValueError("give at least one beta")
    folds = make_folds(n_sentences, k, seed)
    everything = np.arange(n_sentences)
    optima, held_out = [], []
    # k folds times the grid (up to MAX_GRID_POINTS betas): a bar on a terminal
    bar = progress.bar(k * len(betas), f"cross-validated beta ({k} folds)",
                       unit="beta", leave=False)
    try:
        for fold in folds:
            train = np.setdiff1d(everything, fold, assume_unique=True)
            beta, _ = best_beta(score, human, betas, train, criterion)
            bar.update(len(betas))
            optima.append(beta)
            held_out.append(correlate_one(score(beta, fold), human, criterion))
    finally:
        bar.close()
    beta_star = float(np.mean(optima))
    at_star = score(beta_star, everything)
    return CVBetaResult(
        beta_star=beta_star,
        beta_star_folds=optima,
        beta_star_std=float(np.std(optima)),
        pearson=correlate_one(at_star, human, "pearson"),
        spearman=correlate_one(at_star, human, "spearman"),
        kendall=correlate_one(at_star, human, "kendall"),
        held_out=held_out,
        criterion=criterion,
        k=k,
        seed=seed,
    )
