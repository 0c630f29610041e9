"""GREEN: alignment-free n-gram F-score for GEC (Koyama et al., INLG 2024).

Each sentence is a multiset of n-grams (orders 1..N). Comparing the source S,
reference R and hypothesis C gives seven Venn regions per order::

    TD = |S \\ (R ∪ C)|   TI = |(R ∩ C) \\ S|   TK = |S ∩ R ∩ C|
    OD = |(S ∩ R) \\ C|   OI = |C \\ (S ∪ R)|
    UD = |(S ∩ C) \\ R|   UI = |R \\ (S ∪ C)|

TP = TD+TI+TK, FP = OD+OI, FN = UD+UI. Corpus P and R are geometric means
over n of ratios of corpus sums; F_beta combines them. With several
references, each sentence uses, per beta, the reference with the highest
sentence-level F over orders 1..N (ties: F over 1..N-1, then 1..N-2, ...,
then the first reference). See docs/metrics/green.md.

Speed: the regions come in closed form from the multiset intersections of
:mod:`gecmetrics.ngrams` (counted once per corpus). Reference choice is
analysed once: for most sentences the same reference wins at every beta
(1/F is linear in alpha = 1/(1+beta^2), so a reference that wins with a
margin at both ends of [0, 1] wins everywhere), and only the remaining
sentences are re-decided per beta. A sweep over hundreds of betas therefore
costs little more than one beta.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.fscore import alpha_of, cumulative_gmean, f_alpha, precision_recall
from gecmetrics.metric import Metric, MetricConfig, Score, Statistics, check_beta
from gecmetrics.ngrams import Intersections, intersections, tokenizer

REGIONS = ("TD", "TI", "TK", "OD", "OI", "UD", "UI")

# Relative margin under which two references' F are treated as too close to
# decide once for all betas (they are then decided per beta, exactly).
_STABLE_MARGIN = 1e-9


@dataclass(frozen=True)
class GreenConfig(MetricConfig):
    tokenize: str = "word"
    n: int = 4
    beta: float = 2.0

    def validate(self) -> None:
        tokenizer(self.tokenize)
        if not isinstance(self.n, int) or isinstance(self.n, bool) or self.n < 1:
            raise ConfigError(f"green option n must be an integer >= 1 (got n={self.n!r})")
        check_beta(self.beta)


def regions_from_intersections(x: Intersections) -> np.ndarray:
    """The seven Venn regions, shape (H, D, K, N, 7), in the order of ``REGIONS``."""
    s = x.src_len[None, :, None, :]
    r = x.ref_len[None, :, :, :]
    c = x.hyp_len[:, :, None, :]
    sr = x.sr[None, :, :, :]
    sc = x.sc[:, :, None, :]
    rc, src = x.rc, x.src
    return np.stack(
        np.broadcast_arrays(
            s - sr - sc + src,  # TD
            rc - src,  # TI
            src,  # TK
            sr - src,  # OD
            c - sc - rc + src,  # OI
            sc - src,  # UD
            r - sr - rc + src,  # UI
        ),
        axis=-1,
    )


class GreenStatistics(Statistics):
    """GREEN's per-(system, sentence, reference, order) TP/FP/FN, reference choice per beta."""

    def __init__(self, systems: tuple[str, ...], regions: np.ndarray) -> None:
        self.systems = systems
        self.regions = regions  # (H, D, K, N, 7)
        self.tp, self.fp, self.fn = _tp_fp_fn(regions)
        p, r = precision_recall(self.tp, self.fp, self.fn)
        # Sentence-level cumulative geometric means over orders 1..n, (H, D, K, N).
        self.p_cum = cumulative_gmean(p)
        self.r_cum = cumulative_gmean(r)
        self.num_refs = regions.shape[2]
        self._analyse_choice()
        self._choice_cache: dict[float, np.ndarray] = {}

    # -- reference choice ---------------------------------------------------
    def _analyse_choice(self) -> None:
        """Split (system, sentence) rows into beta-stable and beta-dependent ones."""
        H, D, K, _ = self.tp.shape
        base = np.zeros((H, D), dtype=np.int64)
        if K == 1:
            self._base = base
            self._unstable = np.zeros((0, 2), dtype=np.int64)
        else:
            stats = np.stack([self.tp, self.fp, self.fn], axis=-1)  # (H, D, K, N, 3)
            same = np.all(stats == stats[:, :, :1], axis=(2, 3, 4))  # references alike
            stable = same.copy()
            ends = []
            for alpha in (0.0, 1.0):
                f = f_alpha(self.p_cum[..., -1], self.r_cum[..., -1], alpha)  # (H, D, K)
                best = np.argmax(f, axis=2)
                top = np.take_along_axis(f, best[..., None], axis=2)[..., 0]
                rest = np.where(np.arange(K) == best[..., None], -np.inf, f).max(axis=2)
                clear = (top - rest) > _STABLE_MARGIN * np.maximum(top, 1e-300)
                ends.append((best, clear))
            (b0, c0), (b1, c1) = ends
            stable |= (b0 == b1) & c0 & c1
            base = np.where(same, 0, b0)
            self._base = base
            self._unstable = np.argwhere(~stable)
        # Corpus sums over the stable rows do not depend on beta: sum them once.
        mask = np.ones(self._base.shape, dtype=bool)
        mask[tuple(self._unstable.T)] = False
        chosen = np.take_along_axis(self.regions, self._base[:, :, None, None, None], axis=2)
        self._stable_sum = np.where(mask[:, :, None, None], chosen[:, :, 0], 0).sum(axis=1)

    def choice(self, beta: float) -> np.ndarray:
        """Chosen reference index per (system, sentence) at ``beta``, shape (H, D)."""
        cached = self._choice_cache.get(beta)
        if cached is not None:
            return cached
        choice = self._base.copy()
        if len(self._unstable):
            h, d = self._unstable.T
            alpha = alpha_of(beta)
            f = f_alpha(self.p_cum[h, d], self.r_cum[h, d], alpha)  # (U, K, N)
            choice[h, d] = lexicographic_argmax(f)
        self._choice_cache[beta] = choice
        return choice

    # -- scores ---------------------------------------------------------------
    def corpus(self, beta: float | None, sentences: np.ndarray | None = None) -> list[Score]:
        beta = 2.0 if beta is None else beta
        alpha = alpha_of(beta)
        regions = self.region_sums(beta, sentences)  # (H, N, 7)
        tp, fp, fn = _tp_fp_fn(regions)
        p_n, r_n = precision_recall(tp, fp, fn)  # (H, N)
        p = cumulative_gmean(p_n)[:, -1]
        r = cumulative_gmean(r_n)[:, -1]
        f = f_alpha(p, r, alpha)
        f_n = f_alpha(p_n, r_n, alpha)
        out = []
        for h in range(len(self.systems)):
            per_n = [
                {"n": n + 1, **{name: int(regions[h, n, j]) for j, name in enumerate(REGIONS)},
                 "TP": int(tp[h, n]), "FP": int(fp[h, n]), "FN": int(fn[h, n]),
                 "precision": float(p_n[h, n]), "recall": float(r_n[h, n]),
                 "f": float(f_n[h, n])}
                for n in range(tp.shape[1])
            ]
            out.append(Score(float(f[h]), float(p[h]), float(r[h]), {"per_n": per_n}))
        return out

    def corpus_scores(self, beta: float | None, sentences: np.ndarray | None = None) -> np.ndarray:
        beta = 2.0 if beta is None else beta
        tp, fp, fn = _tp_fp_fn(self.region_sums(beta, sentences))
        p_n, r_n = precision_recall(tp, fp, fn)
        p = cumulative_gmean(p_n)[:, -1]
        r = cumulative_gmean(r_n)[:, -1]
        return f_alpha(p, r, alpha_of(beta))

    def region_sums(self, beta: float, sentences: np.ndarray | None = None) -> np.ndarray:
        """Corpus sums of the seven regions with the references chosen at ``beta``: (H, N, 7).

        ``sentences`` selects a subset or a bootstrap resample (repeats allowed).
        """
        choice = self.choice(beta)
        if sentences is not None:
            idx = np.asarray(sentences, dtype=np.int64)
            h = np.arange(len(self.systems))[:, None]
            return self.regions[h, idx[None, :], choice[:, idx]].sum(axis=1)
        sums = self._stable_sum.copy()
        if len(self._unstable):
            h, d = self._unstable.T
            np.add.at(sums, h, self.regions[h, d, choice[h, d]])
        return sums

    def sentence(self, beta: float | None) -> np.ndarray:
        beta = 2.0 if beta is None else beta
        choice = self.choice(beta)
        p = np.take_along_axis(self.p_cum[..., -1], choice[..., None], axis=2)[..., 0]
        r = np.take_along_axis(self.r_cum[..., -1], choice[..., None], axis=2)[..., 0]
        return f_alpha(p, r, alpha_of(beta))


def _tp_fp_fn(regions: np.ndarray):
    td, ti, tk, od, oi, ud, ui = np.moveaxis(regions, -1, 0)
    return td + ti + tk, od + oi, ud + ui


def lexicographic_argmax(f: np.ndarray) -> np.ndarray:
    """Index of the best reference per row of ``f`` (rows, K, N).

    Compares F over 1..N first, then 1..N-1, and so on; remaining ties go to
    the first reference (exactly like Python's ``max`` over reversed lists).
    """
    rows, K, N = f.shape
    best = np.zeros(rows, dtype=np.int64)
    ar = np.arange(rows)
    for k in range(1, K):
        cur = f[ar, best]  # (rows, N)
        cand = f[:, k]
        better = np.zeros(rows, dtype=bool)
        decided = np.zeros(rows, dtype=bool)
        for n in range(N - 1, -1, -1):
            better |= ~decided & (cand[:, n] > cur[:, n])
            decided |= cand[:, n] != cur[:, n]
        best = np.where(better, k, best)
    return best


class Green(Metric):
    """GREEN_beta at word or character level (display names wordGREEN, charGREEN)."""

    name: ClassVar[str] = "green"
    description: ClassVar[str] = (
        "GREEN n-gram F-score (Koyama et al. 2024); tokenize=word|char, n (4), beta (2.0)"
    )
    Config = GreenConfig
    has_beta: ClassVar[bool] = True

    @property
    def display_name(self) -> str:
        return f"{self.config.tokenize}GREEN"

    def statistics(self, corpus: Corpus) -> GreenStatistics:
        key = ("green", self.config.tokenize, self.config.n)
        return corpus.cached(key, lambda: GreenStatistics(
            tuple(corpus.hypotheses),
            regions_from_intersections(intersections(corpus, self.config.tokenize, self.config.n)),
        ))
