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

import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.fscore import (
    alpha_of,
    cumulative_gmean,
    f_alpha,
    lexicographic_argmax,
    precision_recall,
)
from gecmetrics.metric import (
    LAST_STEP,
    SIGNED_WHEN_SET,
    Counting,
    LazyDetails,
    Metric,
    MetricConfig,
    Score,
    SentenceCounts,
    Statistics,
    check_beta,
    quick_score,
)
from gecmetrics.ngrams import Intersections, check_order, intersections
from gecmetrics.tokenizers import (
    Normalize,
    Tokenize,
    check_normalize,
    required_extras,
    spec,
    tokenize_option,
)

REGIONS = ("TD", "TI", "TK", "OD", "OI", "UD", "UI")

# Regions (values) per block when the sentence tables are built: bounds the
# float temporaries to a few tens of MB, whatever the corpus size.
_BLOCK_VALUES = 1 << 21

# Betas below this are served by the narrower set of rows known to be stable
# at every beta (see GreenStatistics._analyse_choice).
_BETA_MIN = 0.01


@dataclass(frozen=True)
class GreenConfig(MetricConfig):
    tokenize: Tokenize = "word"
    n: int = 4
    beta: float = field(default=2.0, metadata=LAST_STEP)
    #: Unicode normal form of every text before tokenization (docs/tokenizers.md).
    normalize: Normalize = field(default="none", metadata=SIGNED_WHEN_SET)

    def validate(self) -> None:
        spec(self.tokenize)
        check_order(self.n, "green option n")
        check_beta(self.beta)
        check_normalize(self.normalize, "green option normalize")


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

    default_beta = GreenConfig.beta

    def __init__(self, systems: tuple[str, ...], regions: np.ndarray) -> None:
        self.systems = systems
        self.regions = regions  # (H, D, K, N, 7)
        # Sentence P and R over orders 1..N, (H, D, K), and whether all references
        # give the same TP/FP/FN, (H, D). The tables over every n are only made for
        # the rows whose choice is decided per beta (_Tier), so that memory per
        # sentence stays a few times that of the regions.
        H, D, K, N, _ = regions.shape
        self.p_last = np.empty((H, D, K))
        self.r_last = np.empty((H, D, K))
        self._same = np.empty((H, D), dtype=bool)
        step = max(1, _BLOCK_VALUES // max(1, H * K * N * 7))
        for a in range(0, D, step):
            p_cum, r_cum = cumulative_pr(regions[:, a:a + step])
            self.p_last[:, a:a + step] = p_cum[..., -1]
            self.r_last[:, a:a + step] = r_cum[..., -1]
            tp_fp_fn = np.stack(_tp_fp_fn(regions[:, a:a + step]), axis=-1)  # (H, d, K, N, 3)
            self._same[:, a:a + step] = np.all(tp_fp_fn == tp_fp_fn[:, :, :1], axis=(2, 3, 4))
        self._analyse_choice()

    @property
    def p_cum(self) -> np.ndarray:
        """Sentence precision, cumulative geometric mean over orders 1..n: (H, D, K, N)."""
        return cumulative_pr(self.regions)[0]

    @property
    def r_cum(self) -> np.ndarray:
        """Sentence recall, cumulative geometric mean over orders 1..n: (H, D, K, N)."""
        return cumulative_pr(self.regions)[1]

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
        H, D, K = self.p_last.shape
        if K == 1:
            base = np.zeros((H, D), dtype=np.int64)
            stable_all = stable_above = np.ones((H, D), dtype=bool)
        else:
            same = self._same  # references alike
            f0 = f_alpha(self.p_last, self.r_last, 0.0)  # (H, D, K)
            f1 = f_alpha(self.p_last, self.r_last, 1.0)
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

    def _sums(self, beta: float) -> np.ndarray:
        """Corpus region sums (H, N, 7) with the references chosen at ``beta``."""
        tier = self._tier(beta)
        if beta not in tier.cache:
            self.precompute([beta])
        return tier.cache[beta]

    def precompute(self, betas) -> None:
        """Corpus sums for many betas at once (the reference choice redone per beta)."""
        for above in (False, True):
            tier = self._tiers[above]
            todo = sorted({float(b) for b in betas if b is not None and (b >= _BETA_MIN) == above}
                          - set(tier.cache))
            if todo:
                sums = tier.sums(np.array([alpha_of(b) for b in todo]))
                tier.cache.update(zip(todo, sums, strict=True))

    def choice(self, beta: float) -> np.ndarray:
        """Chosen reference index per (system, sentence) at ``beta``, shape (H, D)."""
        cached = self._choice_cache.get(beta)
        if cached is None:
            tier = self._tier(beta)
            cached = self._base.copy()
            cached[tier.h, tier.d] = tier.row_choices(np.array([alpha_of(beta)]))[0]
            self._choice_cache[beta] = cached
        return cached

    # -- scores ---------------------------------------------------------------
    def corpus(self, beta: float | None, sentences: np.ndarray | None = None) -> list[Score]:
        return self._scores([beta], [self.region_sums(self.resolve_beta(beta), sentences)])[0]

    def corpus_many(self, betas) -> list[list[Score]]:
        betas = [self.resolve_beta(b) for b in betas]
        self.precompute(betas)
        return self._scores(betas, [self._sums(b) for b in betas])

    def corpus_scores(self, beta: float | None, sentences: np.ndarray | None = None) -> np.ndarray:
        beta = self.resolve_beta(beta)
        return _corpus_prf(self.region_sums(beta, sentences), alpha_of(beta))[2]

    def _scores(self, betas, sums) -> list[list[Score]]:
        """Scores (with lazy per-n breakdowns) from region sums (H, N, 7) per beta."""
        regions = np.stack(sums)  # (B, H, N, 7)
        alphas = np.array([alpha_of(self.resolve_beta(b)) for b in betas])
        p, r, f = (x.tolist() for x in _corpus_prf(regions, alphas[:, None]))
        systems = range(len(self.systems))
        out = []  # a sweep makes thousands: no array view nor dataclass __init__ per score
        for block, alpha, f_i, p_i, r_i in zip(regions, alphas.tolist(), f, p, r, strict=True):
            out.append([quick_score(f_i[h], p_i[h], r_i[h],
                                    LazyDetails(_breakdown_of, block, h, alpha))
                        for h in systems])
        return out

    def sentence_statistics(self, beta: float | None):
        """The seven regions of the reference chosen at ``beta``, (H, D, N, 7), and
        the corpus formula from their sums (see :meth:`Statistics.sentence_statistics`)."""
        beta = self.resolve_beta(beta)
        choice = self.choice(beta)
        h = np.arange(len(self.systems))[:, None]
        d = np.arange(self.regions.shape[1])[None, :]
        alpha = alpha_of(beta)
        return self.regions[h, d, choice], lambda sums: _corpus_prf(sums, alpha)[2]

    def region_sums(self, beta: float, sentences: np.ndarray | None = None) -> np.ndarray:
        """Corpus sums of the seven regions with the references chosen at ``beta``: (H, N, 7).

        ``sentences`` selects a subset or a bootstrap resample (repeats allowed).
        """
        if sentences is not None:
            choice = self.choice(beta)
            idx = np.asarray(sentences, dtype=np.int64)
            h = np.arange(len(self.systems))[:, None]
            return self.regions[h, idx[None, :], choice[:, idx]].sum(axis=1)
        return self._sums(beta).copy()

    def sentence(self, beta: float | None) -> np.ndarray:
        beta = self.resolve_beta(beta)
        choice = self.choice(beta)
        p = np.take_along_axis(self.p_last, choice[..., None], axis=2)[..., 0]
        r = np.take_along_axis(self.r_last, choice[..., None], axis=2)[..., 0]
        return f_alpha(p, r, alpha_of(beta))


class _Tier:
    """The rows whose reference choice depends on beta, and fast corpus sums for any beta.

    Stable rows contribute a fixed sum. Of the others, rows with two references
    whose F over 1..N are both positive ("crossing" rows) have one crossover:
    1/F_0 - 1/F_1 = Bv + alpha * slope is linear in alpha, so reference 1 wins on
    one side of alpha* = -Bv / slope and reference 0 on the other. Sorted by
    alpha*, their sums for any beta are a prefix sum. Cells too close to alpha*
    for the sign to be certain, and all remaining rows (more than two
    references, F = 0 for both), are decided exactly as the official tool
    decides: on the floating-point F values, ties by the lower orders.
    """

    _CLOSE = 1e-12  # |1/F_0 - 1/F_1| below this (relative) is decided exactly

    def __init__(self, stats: GreenStatistics, base: np.ndarray, stable: np.ndarray) -> None:
        regions = stats.regions
        H, _, K, N, R = regions.shape
        self.num_systems = H
        self.shape = (N, R)
        self.h, self.d = np.nonzero(~stable)  # sorted by system, then sentence
        chosen = np.take_along_axis(regions, base[:, :, None, None, None], axis=2)[:, :, 0]
        self.stable_sum = np.where(stable[:, :, None, None], chosen, 0).sum(axis=1)  # (H, N, 7)
        # The tier's rows are read from the statistics' regions when needed, and
        # P and R over every n are made only for the rows decided exactly (_pr):
        # the values a stored table would hold, without storing one.
        self._regions = regions
        self.width_rows = N * R
        self.cache: dict[float, np.ndarray] = {}
        self._exact_pr: tuple[np.ndarray, np.ndarray] | None = None
        self._split(K, stats)

    def rows(self, idx: np.ndarray, ref: np.ndarray | None = None) -> np.ndarray:
        """Regions of tier rows ``idx`` (U, K, N*7), or of reference ``ref[j]`` of row
        ``idx[j]`` (U, N*7)."""
        h, d = self.h[idx], self.d[idx]
        if ref is None:
            return self._regions[h, d].reshape(len(idx), -1, self.width_rows)
        return self._regions[h, d, ref].reshape(len(idx), self.width_rows)

    def _split(self, K: int, stats: GreenStatistics) -> None:
        U = len(self.h)
        crossing = np.zeros(U, dtype=bool)
        if K == 2 and U:
            p, r = stats.p_last[self.h, self.d], stats.r_last[self.h, self.d]  # (U, K)
            ok = (p != 0) & (r != 0)
            crossing = ok.all(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                inv_p, inv_r = 1.0 / p, 1.0 / r
                bv = inv_r[:, 0] - inv_r[:, 1]  # 1/F_0 - 1/F_1 at alpha = 0
                slope = (inv_p[:, 0] - inv_p[:, 1]) - bv
                scale = np.maximum(inv_p.max(axis=1), inv_r.max(axis=1))
                crossing &= (slope != 0) | (bv != 0)
                star = np.where(slope != 0, -bv / slope, np.where(bv > 0, -np.inf, np.inf))
                width = np.where(slope != 0, self._CLOSE * scale / np.abs(slope), 0.0)
                # reference 1 wins where 1/F_0 > 1/F_1, i.e. above alpha* when slope > 0
                high = (slope > 0) | ((slope == 0) & (bv > 0))
        self.exact = np.nonzero(~crossing)[0]
        cross = np.nonzero(crossing)[0]
        if len(cross):
            order = np.lexsort((star[cross], self.h[cross]))  # by system, then alpha*
            cross = cross[order]
            self.star, self.width = star[cross], width[cross]
            self.high = high[cross].astype(np.int64)
            low_rows = self.rows(cross, 1 - self.high)  # (C, N*7): choice below alpha*
            diff = self.rows(cross, self.high) - low_rows
            ch = self.h[cross]
            self.bounds = np.searchsorted(ch, np.arange(self.num_systems + 1))
            # Rows are sorted by system: one block sum per system (integers, exact;
            # np.add.at, unbuffered, took 0.25 s at 200,000 sentences x 2 systems).
            self.low_sum = np.zeros((self.num_systems, low_rows.shape[1]), dtype=np.int64)
            for h in range(self.num_systems):
                lo, hi = self.bounds[h], self.bounds[h + 1]
                if hi > lo:
                    self.low_sum[h] = low_rows[lo:hi].sum(axis=0, dtype=np.int64)
            del low_rows
            # int32 when every prefix (and any difference of two) fits: half the memory
            kind = np.int32 if 2 * int(np.abs(diff).sum()) < np.iinfo(np.int32).max else np.int64
            flips = np.zeros((len(cross) + 1, diff.shape[1]), dtype=kind)
            np.cumsum(diff, axis=0, out=flips[1:])
            self.flip_prefix = flips  # (C+1, N*7)
        else:
            self.star = self.width = np.zeros(0)
            self.high = np.zeros(0, dtype=np.int64)
        self.cross = cross

    def _pr(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Sentence P and R over orders 1..n of tier rows ``rows``: (T, K, N) each."""
        regions = self.rows(rows)
        return cumulative_pr(regions.reshape(len(rows), regions.shape[1], *self.shape))

    def _exact(self, rows: np.ndarray, alphas: np.ndarray,
               pr: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """Official decision for (alpha_j, row_j) pairs: float F, ties by lower orders."""
        p, r = self._pr(rows) if pr is None else pr
        f = f_alpha(p, r, alphas[:, None, None])  # (T, K, N)
        return lexicographic_argmax(f)

    def _near(self, alphas: np.ndarray):
        """(alpha index, position in self.cross) of cells too close to a crossover."""
        order = np.argsort(alphas)
        sorted_a = alphas[order]
        lo = np.searchsorted(sorted_a, self.star - self.width, side="left")
        hi = np.searchsorted(sorted_a, self.star + self.width, side="right")
        counts = hi - lo
        if not counts.any():
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        pos = np.repeat(np.arange(len(self.cross)), counts)
        offs = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        return order[np.repeat(lo, counts) + offs], pos

    def row_choices(self, alphas: np.ndarray) -> np.ndarray:
        """Chosen reference of every tier row for each alpha: (B, U)."""
        out = np.zeros((len(alphas), len(self.h)), dtype=np.int64)
        if len(self.cross):
            above = alphas[:, None] > self.star[None, :]
            out[:, self.cross] = np.where(above, self.high, 1 - self.high)
            bi, pos = self._near(alphas)
            if len(bi):
                out[bi, self.cross[pos]] = self._exact(self.cross[pos], alphas[bi])
        if len(self.exact):
            out[:, self.exact] = self.row_choices_exact(alphas)
        return out

    def sums(self, alphas: np.ndarray) -> np.ndarray:
        """Corpus region sums (B, H, N, 7) at each alpha."""
        B = len(alphas)
        flat = np.broadcast_to(self.stable_sum.reshape(self.num_systems, -1),
                               (B, self.num_systems, self.width_rows)).copy()
        if len(self.cross):
            flat += self.low_sum[None]
            for h in range(self.num_systems):
                lo, hi = self.bounds[h], self.bounds[h + 1]
                if lo == hi:
                    continue
                # rows with alpha* < alpha have flipped to their "high" reference
                flipped = lo + np.searchsorted(self.star[lo:hi], alphas, side="left")
                flat[:, h] += self.flip_prefix[flipped] - self.flip_prefix[lo]
            bi, pos = self._near(alphas)
            if len(bi):  # replace the analytic choice by the exact one
                rows = self.cross[pos]
                exact = self._exact(rows, alphas[bi])
                analytic = np.where(alphas[bi] > self.star[pos], self.high[pos],
                                    1 - self.high[pos])
                _add_rows(flat, bi * self.num_systems + self.h[rows],
                          self.rows(rows, exact) - self.rows(rows, analytic))
        if len(self.exact):
            choices = self.row_choices_exact(alphas)  # (B, E)
            eh = self.h[self.exact]
            exact_rows = self.rows(self.exact)  # (E, K, N*7)
            for k in range(exact_rows.shape[1]):
                pick = (choices == k).astype(np.float64)  # (B, E)
                contrib = np.zeros((B, self.num_systems, self.width_rows))
                for h in np.flatnonzero(np.bincount(eh)).tolist():  # np.unique imports numpy.ma
                    sel = eh == h
                    contrib[:, h] = pick[:, sel] @ exact_rows[sel, k].astype(np.float64)
                flat += np.rint(contrib).astype(np.int64)
        return flat.reshape(B, self.num_systems, *self.shape)

    def row_choices_exact(self, alphas: np.ndarray) -> np.ndarray:
        """Chosen reference of the exactly decided rows for each alpha: (B, E)."""
        if self._exact_pr is None:
            self._exact_pr = self._pr(self.exact)
        p, r = self._exact_pr
        bi = np.repeat(np.arange(len(alphas)), len(self.exact))
        rows = np.tile(np.arange(len(self.exact)), len(alphas))
        return self._exact(rows, alphas[bi], (p[rows], r[rows])).reshape(len(alphas), -1)


def _best_and_margin(f: np.ndarray):
    """First index of the maximum over the last axis, and its relative lead."""
    best = np.argmax(f, axis=-1)
    top = np.take_along_axis(f, best[..., None], axis=-1)[..., 0]
    others = np.where(np.arange(f.shape[-1]) == best[..., None], -np.inf, f).max(axis=-1)
    return best, (top - others) / np.maximum(top, 1e-300)


def _breakdown_of(block: np.ndarray, system: int, alpha: float) -> dict:
    """:func:`_breakdown` of one system of a beta's region sums (H, N, 7)."""
    return _breakdown(block[system], alpha)


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


def _corpus_prf(regions: np.ndarray, alpha):
    """Corpus P, R, F from region sums (..., N, 7): geometric means over n, then F."""
    tp, fp, fn = _tp_fp_fn(regions)
    p_n, r_n = precision_recall(tp, fp, fn)
    p = cumulative_gmean(p_n)[..., -1]
    r = cumulative_gmean(r_n)[..., -1]
    return p, r, f_alpha(p, r, alpha)


def cumulative_pr(regions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sentence P and R, cumulative geometric means over orders 1..n, from regions
    (..., N, 7). Element by element (the cumulation runs along n within a row),
    so any subset of rows gives the values the whole array would."""
    p, r = precision_recall(*_tp_fp_fn(regions))
    return cumulative_gmean(p), cumulative_gmean(r)


def _tp_fp_fn(regions: np.ndarray):
    td, ti, tk, od, oi, ud, ui = np.moveaxis(regions, -1, 0)
    return td + ti + tk, od + oi, ud + ui


class Green(Metric[GreenConfig]):
    """GREEN_beta at word or character level (display names wordGREEN, charGREEN)."""

    name: ClassVar[str] = "green"
    description: ClassVar[str] = (
        "GREEN n-gram F-score (Koyama et al. 2024); " + tokenize_option(GreenConfig.tokenize)
        + " (docs/tokenizers.md), n (4), beta (2.0), normalize=none|nfc|nfkc"
    )
    Config = GreenConfig
    has_beta: ClassVar[bool] = True
    reference_axes: ClassVar[Mapping[str, int] | None] = {"regions": 2}

    @property
    def display_name(self) -> str:
        return f"{self.config.tokenize}GREEN"

    def required_extras(self) -> tuple[str, ...]:
        """The optional extra of the tokenizer (``tokenize=ja`` needs ``ja``)."""
        return required_extras(self.config.tokenize)

    def statistics(self, corpus: Corpus) -> GreenStatistics:
        return self.cached_statistics(corpus, lambda: self.from_counts(
            tuple(corpus.hypotheses), self.counts(corpus)))

    def counts(self, corpus: Corpus) -> SentenceCounts:
        """The seven regions per (system, sentence, reference, order), compact integers."""
        c = self.config
        x = intersections(corpus, c.tokenize, c.n, c.normalize)
        return SentenceCounts({"regions": regions_from_intersections(x)}, {"regions": 1})

    def from_counts(self, systems: tuple[str, ...], counts: SentenceCounts) -> GreenStatistics:
        stats = GreenStatistics(systems, counts.arrays["regions"])
        return typing.cast(GreenStatistics, stats.bound(self.default_beta))

    def counting(self) -> Counting:
        return Counting(self.counts, self.from_counts)


def _add_rows(flat: np.ndarray, at: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``flat`` (B, H, W) with row ``values[j]`` added to its row ``at[j]`` (a flat index
    b * H + h; repeats add up): ``np.add.at``'s sums, grouped by a sort first (integer
    counts, so the order of the additions changes nothing), for a tenth of its time."""
    if not len(at):
        return flat
    order = np.argsort(at, kind="stable")
    where, first = np.unique(at[order], return_index=True)
    b, h = np.divmod(where, flat.shape[1])  # each (b, h) once: += adds every sum
    flat[b, h] += np.add.reduceat(values[order], first, axis=0)
    return flat
