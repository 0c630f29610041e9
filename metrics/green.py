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
from gecmetrics.metric import LazyDetails, Metric, MetricConfig, Score, Statistics, check_beta
from gecmetrics.ngrams import Intersections, intersections, tokenizer

REGIONS = ("TD", "TI", "TK", "OD", "OI", "UD", "UI")

# Betas below this are served by the narrower set of rows known to be stable
# at every beta (see GreenStatistics._analyse_choice).
_BETA_MIN = 0.01


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

    # -- reference choice ---------------------------------------------------
    def _analyse_choice(self) -> None:
        """Find, once, the (system, sentence) rows whose reference choice can depend on beta.

        1/F = alpha/P + (1-alpha)/R is linear in alpha = 1/(1+beta^2), so a
        reference that wins with a clear margin at alpha = 0 and alpha = 1 wins
        at every beta ("stable"). Many rows tie exactly at alpha = 1 (beta = 0,
        where F = P, e.g. P = 1 for an unchanged sentence); a reference that
        wins clearly at alpha = 0 and is among the tied best at alpha = 1 wins
        for every beta >= _BETA_MIN ("stable above"). Only the other rows are
        decided per beta, with the exact lexicographic rule.
        """
        H, D, K, _ = self.tp.shape
        if K == 1:
            base = np.zeros((H, D), dtype=np.int64)
            stable_all = stable_above = np.ones((H, D), dtype=bool)
        else:
            stats = np.stack([self.tp, self.fp, self.fn], axis=-1)  # (H, D, K, N, 3)
            same = np.all(stats == stats[:, :, :1], axis=(2, 3, 4))  # references alike
            f0 = f_alpha(self.p_cum[..., -1], self.r_cum[..., -1], 0.0)  # (H, D, K)
            f1 = f_alpha(self.p_cum[..., -1], self.r_cum[..., -1], 1.0)
            best0, margin0 = _best_and_margin(f0)
            best1, margin1 = _best_and_margin(f1)
            stable_all = same | ((best0 == best1) & (margin0 > 1e-9) & (margin1 > 1e-9))
            best0_top_at_1 = np.take_along_axis(f1, best0[..., None], axis=2)[..., 0] == f1.max(2)
            stable_above = stable_all | ((margin0 > 1e-6) & best0_top_at_1)
            base = np.where(same, 0, best0)
        self._base = base
        self._tiers = {False: _Tier(self, base, stable_all),
                       True: _Tier(self, base, stable_above)}
        self._choice_cache: dict[float, np.ndarray] = {}

    def _tier(self, beta: float) -> _Tier:
        return self._tiers[beta >= _BETA_MIN]

    def _decided(self, beta: float) -> tuple[np.ndarray, np.ndarray]:
        """(choice of the tier's beta-dependent rows, corpus region sums) at ``beta``."""
        tier = self._tier(beta)
        if beta not in tier.cache:
            self.precompute([beta])
        return tier.cache[beta]

    def precompute(self, betas) -> None:
        """Decide the beta-dependent rows, and their corpus sums, for many betas at once."""
        for above in (False, True):
            tier = self._tiers[above]
            todo = sorted({float(b) for b in betas if b is not None and (b >= _BETA_MIN) == above}
                          - set(tier.cache))
            step = max(1, 2_000_000 // max(1, tier.p.size))
            for i in range(0, len(todo), step):
                chunk = todo[i:i + step]
                choices = tier.decide(np.array([alpha_of(b) for b in chunk]))
                sums = tier.sums(choices)
                for j, b in enumerate(chunk):
                    tier.cache[b] = (choices[j], sums[j])

    def choice(self, beta: float) -> np.ndarray:
        """Chosen reference index per (system, sentence) at ``beta``, shape (H, D)."""
        cached = self._choice_cache.get(beta)
        if cached is None:
            tier = self._tier(beta)
            cached = self._base.copy()
            cached[tier.h, tier.d] = self._decided(beta)[0]
            self._choice_cache[beta] = cached
        return cached

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
        return [Score(float(f[h]), float(p[h]), float(r[h]),
                      LazyDetails(_breakdown, regions[h], alpha))
                for h in range(len(self.systems))]

    def corpus_many(self, betas) -> list[list[Score]]:
        betas = [2.0 if b is None else b for b in betas]
        self.precompute(betas)
        regions = np.stack([self._decided(b)[1] for b in betas])  # (B, H, N, 7)
        alphas = np.array([alpha_of(b) for b in betas])
        tp, fp, fn = _tp_fp_fn(regions)
        p_n, r_n = precision_recall(tp, fp, fn)  # (B, H, N)
        p = cumulative_gmean(p_n)[..., -1]
        r = cumulative_gmean(r_n)[..., -1]
        f = f_alpha(p, r, alphas[:, None])
        p, r, f = p.tolist(), r.tolist(), f.tolist()
        return [[Score(f[i][h], p[i][h], r[i][h], LazyDetails(_breakdown, regions[i, h], alphas[i]))
                 for h in range(len(self.systems))] for i in range(len(betas))]

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
        if sentences is not None:
            choice = self.choice(beta)
            idx = np.asarray(sentences, dtype=np.int64)
            h = np.arange(len(self.systems))[:, None]
            return self.regions[h, idx[None, :], choice[:, idx]].sum(axis=1)
        return self._decided(beta)[1].copy()

    def sentence(self, beta: float | None) -> np.ndarray:
        beta = 2.0 if beta is None else beta
        choice = self.choice(beta)
        p = np.take_along_axis(self.p_cum[..., -1], choice[..., None], axis=2)[..., 0]
        r = np.take_along_axis(self.r_cum[..., -1], choice[..., None], axis=2)[..., 0]
        return f_alpha(p, r, alpha_of(beta))


class _Tier:
    """Rows decided per beta, and the beta-independent corpus sums of all other rows."""

    def __init__(self, stats: GreenStatistics, base: np.ndarray, stable: np.ndarray) -> None:
        regions = stats.regions
        self.num_systems = regions.shape[0]
        self.h, self.d = np.nonzero(~stable)  # sorted by system, then sentence
        chosen = np.take_along_axis(regions, base[:, :, None, None, None], axis=2)[:, :, 0]
        self.stable_sum = np.where(stable[:, :, None, None], chosen, 0).sum(axis=1)  # (H, N, 7)
        self.p = stats.p_cum[self.h, self.d]  # (U, K, N)
        self.r = stats.r_cum[self.h, self.d]
        self.top_ok = (self.p[..., -1] != 0) & (self.r[..., -1] != 0)
        self.p_top = np.where(self.top_ok, self.p[..., -1], 1.0)
        self.r_top = np.where(self.top_ok, self.r[..., -1], 1.0)
        rows = regions[self.h, self.d]  # (U, K, N, 7)
        self.shape = regions.shape[3:]
        # (U, K, N*7): explicit size, as -1 cannot be inferred when U = 0
        size = int(np.prod(self.shape))
        flat = rows.reshape(len(self.h), regions.shape[2], size).astype(np.float64)
        self.first = flat[:, 0]  # (U, N*7)
        self.delta = flat[:, 1:] - flat[:, :1]  # (U, K-1, N*7): change from reference 0
        self.bounds = np.searchsorted(self.h, np.arange(self.num_systems + 1))
        self.cache: dict[float, tuple[np.ndarray, np.ndarray]] = {}

    def decide(self, alphas: np.ndarray) -> np.ndarray:
        """Chosen reference per (alpha, row), exactly as the sequential rule decides."""
        if not len(self.h):
            return np.zeros((len(alphas), 0), dtype=np.int64)
        a = alphas[:, None, None]
        # F over 1..N as f_alpha computes it (same float operations), rows with a
        # zero P or R having F = 0; lean because it runs over (betas x rows x refs).
        f_top = 1.0 / (a / self.p_top + (1.0 - a) / self.r_top)  # (B, U, K)
        f_top *= self.top_ok
        best = np.argmax(f_top, axis=2)
        top = f_top.max(axis=2)
        tied = (f_top == top[..., None]).sum(axis=2) > 1  # ties: lower orders decide
        if tied.any():
            bi, ui = np.nonzero(tied)
            f = f_alpha(self.p[ui], self.r[ui], alphas[bi][:, None, None])  # (T, K, N)
            best[bi, ui] = lexicographic_argmax(f)
        return best

    def sums(self, choices: np.ndarray) -> np.ndarray:
        """Corpus region sums (B, H, N, 7) for the choices (B, U) of the tier's rows."""
        out = np.broadcast_to(self.stable_sum, (len(choices), *self.stable_sum.shape)).copy()
        for h in range(self.num_systems):
            lo, hi = self.bounds[h], self.bounds[h + 1]
            if lo == hi:
                continue
            part = self.first[lo:hi].sum(axis=0)[None, :]
            for k in range(self.delta.shape[1]):
                part = part + (choices[:, lo:hi] == k + 1).astype(np.float64) @ self.delta[lo:hi, k]
            out[:, h] += np.rint(part).astype(np.int64).reshape(len(choices), *self.shape)
        return out


def _best_and_margin(f: np.ndarray):
    """First index of the maximum over the last axis, and its relative lead."""
    best = np.argmax(f, axis=-1)
    top = np.take_along_axis(f, best[..., None], axis=-1)[..., 0]
    others = np.where(np.arange(f.shape[-1]) == best[..., None], -np.inf, f).max(axis=-1)
    return best, (top - others) / np.maximum(top, 1e-300)


def _breakdown(regions: np.ndarray, alpha: float) -> dict:
    """Per-n table of one system (the official tool's verbose view): regions, P, R, F."""
    tp, fp, fn = _tp_fp_fn(regions)
    p_n, r_n = precision_recall(tp, fp, fn)
    f_n = f_alpha(p_n, r_n, alpha)
    per_n = [
        {"n": n + 1, **{name: int(regions[n, j]) for j, name in enumerate(REGIONS)},
         "TP": int(tp[n]), "FP": int(fp[n]), "FN": int(fn[n]),
         "precision": float(p_n[n]), "recall": float(r_n[n]), "f": float(f_n[n])}
        for n in range(len(tp))
    ]
    return {"per_n": per_n}


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
