"""GLEU: n-gram precision with a penalty for source n-grams the reference changed.

GLEU (Napoles et al. 2015; GLEU+ 2016) is BLEU with a penalty: per sentence
and order n, the matches with the reference minus a penalty for hypothesis
n-grams kept from the source although the reference changed them, divided by
the number of hypothesis n-grams. Two penalties exist (docs/metrics/gleu.md):

* ``variant=official`` (default), the original GLEU+ code: the penalty counts
  source n-grams absent from the reference, ``min(sigma_diff, eta)``;
* ``variant=paper``, the formula printed in the GLEU+ paper (and equation 9/10
  of the GREEN paper): ``max(0, min(sigma, eta) - min(rho, eta))``, which is
  GREEN's Under-Delete region UD.

As in the original code, a sentence's numerator is clipped at 0 per order
before summing, a zero denominator gives p = 1, and the brevity penalty is
``exp(min(0, 1 - r/h))`` with 0 for an empty hypothesis against a non-empty
reference. With several references, ``mode=sampling`` (default) averages
corpus GLEU over ``iterations`` rounds that each draw one reference per
sentence; ``mode=max`` uses per sentence the reference with the best sentence
GLEU. ``seed=official`` draws exactly as the original Python 2 tool.

Speed: the per-(system, sentence, reference, order) numerators come from the
intersections of :mod:`gecmetrics.ngrams` (counted once per corpus); a
sampling round is then a gather and a sum, done for a block of rounds at once
as a matrix product of integer counts (exact in float64).

Memory: the rounds are drawn, scored and summed a block at a time (about
:data:`BLOCK_BYTES` of draws), in the same draw order as drawing them all at
once, so memory does not grow with ``iterations``. The mean over rounds is
summed in exactly the order ``np.mean`` sums a whole array (numpy's pairwise
summation, :func:`pairwise_sum`), so the score is bit-identical to averaging
the materialised per-round scores.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Literal, get_args

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.fscore import lexicographic_argmax
from gecmetrics.metric import (
    SIGNED_WHEN_SET,
    Counting,
    Metric,
    MetricConfig,
    Score,
    SentenceCounts,
    Statistics,
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
from gecmetrics.validate import check_int_option

Variant = Literal["official", "paper"]
Mode = Literal["sampling", "max"]
VARIANTS: tuple[Variant, ...] = get_args(Variant)
MODES: tuple[Mode, ...] = get_args(Mode)
OFFICIAL_SEED: Literal["official"] = "official"

#: The most sampling rounds ``iterations`` takes. The official tool draws 500;
#: time grows linearly with the rounds (about 0.6 ms a round for 3 CoNLL-2014
#: systems: 5 s at 5,000, 32 s at 50,000), so 100,000 (200 times the official
#: number, about a minute there) bounds a typo such as iterations=100000000,
#: which would run for a day. ``mode=max`` needs no rounds at all.
MAX_ITERATIONS = 100_000

#: About how many bytes of draws (and of their 0/1 float matrix) one block of
#: sampling rounds may take; the block is at least :data:`PAIRWISE_LEAF` rounds.
BLOCK_BYTES = 8 << 20

#: numpy's pairwise summation adds up to this many values in one unrolled loop
#: (``PW_BLOCKSIZE`` in numpy's loops_utils.h); longer runs are split in two.
PAIRWISE_LEAF = 128

#: Draws of the whole run are kept for bootstrap resamples while they fit here.
DRAWS_CACHE_BYTES = 32 << 20


@dataclass(frozen=True)
class GleuConfig(MetricConfig):
    tokenize: Tokenize = "word"
    n: int = 4
    variant: Variant = "official"
    mode: Mode = "sampling"
    iterations: int = 500
    seed: int | Literal["official"] = OFFICIAL_SEED
    #: Unicode normal form of every text before tokenization (docs/tokenizers.md).
    normalize: Normalize = field(default="none", metadata=SIGNED_WHEN_SET)

    def validate(self) -> None:
        spec(self.tokenize)
        check_normalize(self.normalize, "gleu option normalize")
        check_order(self.n, "gleu option n")
        if self.variant not in VARIANTS:
            raise ConfigError(
                f"gleu option variant={self.variant!r} is unknown; use official or paper"
            )
        if self.mode not in MODES:
            raise ConfigError(f"gleu option mode={self.mode!r} is unknown; use sampling or max")
        check_int_option(self.iterations, "gleu option iterations", 1, MAX_ITERATIONS,
                         "the official tool draws 500 rounds; mode=max draws none")
        if self.seed != OFFICIAL_SEED and not (_is_int(self.seed) and int(self.seed) >= 0):
            raise ConfigError(
                f"gleu option seed must be 'official' or an integer >= 0 (got {self.seed!r})"
            )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def numerators(x: Intersections, variant: str) -> np.ndarray:
    """Clipped numerators per (system, sentence, reference, order): (H, D, K, N).

    official: sum_x min(rho, eta) - min(sigma_diff, eta), clipped at 0, which is
    ``rc - min(sc_off_r, rc)``; paper: sum_x min(rho, eta) - max(0, min(sigma, eta)
    - min(rho, eta)) = (TI + TK) - UD, clipped at 0, with UD = |S ∩ C| - |S ∩ R ∩ C|.
    """
    if variant == "official":
        return x.rc - np.minimum(x.sc_off_r, x.rc)
    under_delete = x.sc[:, :, None, :] - x.src
    return np.maximum(x.rc - under_delete, 0)


def gleu_counts(x: Intersections, variant: str) -> SentenceCounts:
    """What GLEU keeps per sentence: clipped numerators (H, D, K, N), hypothesis
    n-gram counts (H, D, N) and reference lengths (D, K)."""
    return SentenceCounts({"numer": numerators(x, variant), "denom": x.hyp_len,
                           "rlen": x.ref_len[..., 0]}, {"numer": 1, "denom": 1, "rlen": 0})


def official_rounds(iterations: int, num_sentences: int, num_refs: int,
                   start: int = 0) -> np.ndarray:
    """The original tool's reference draws for rounds ``start`` to
    ``start + iterations - 1``, shape (iterations, sentences).

    Round i seeds Python's Mersenne Twister with i * 101 and draws
    ``int(random() * K)`` per sentence: Python 2's ``randint(0, K - 1)``.
    The draws are made by NumPy's legacy ``RandomState``, the same MT19937
    generator with the same 53-bit ``random()`` formula, started from the
    state Python's own seeding gives (``random.Random(i * 101).getstate()``):
    the same doubles, about 15 times as fast as a Python loop (the draws were
    most of GLEU's time on large corpora). tests/test_gleu_bounds.py checks
    them against the Python loop, seeds past 2**32 included.
    """
    rng = np.random.RandomState()
    out = np.empty((iterations, num_sentences), dtype=np.int64)
    for row, i in enumerate(range(start, start + iterations)):
        state = random.Random(i * 101).getstate()[1]
        rng.set_state(("MT19937", np.array(state[:624], dtype=np.uint32), state[624], 0, 0.0))
        out[row] = rng.random_sample(num_sentences) * num_refs  # truncated: int(x * K)
    return out


class RoundDraws:
    """The reference drawn per (round, sentence), produced in order a block of
    rounds at a time: ``take(a)`` then ``take(b)`` gives what ``take(a + b)``
    would, for the official draws (each round seeds its own generator) and for
    integer seeds (NumPy's ``Generator.integers`` stream does not depend on how
    the draws are split into calls; tests/test_gleu_bounds.py checks it).
    """

    def __init__(self, seed: int | str, num_sentences: int, num_refs: int) -> None:
        self.seed = seed
        self.shape = (num_sentences, num_refs)
        self.done = 0
        self._rng = None if seed == OFFICIAL_SEED else np.random.default_rng(int(seed))

    def take(self, count: int) -> np.ndarray:
        """The next ``count`` rounds' draws, shape (count, sentences), int64."""
        num_sentences, num_refs = self.shape
        if self._rng is None:
            out = official_rounds(count, num_sentences, num_refs, self.done)
        else:
            out = self._rng.integers(0, num_refs, size=(count, num_sentences), dtype=np.int64)
        self.done += count
        return out


def draw_rounds(seed: int | str, iterations: int, num_sentences: int, num_refs: int):
    """All draws at once, shape (iterations, sentences): iterations x sentences x 8
    bytes, for inspection of small runs; scoring streams them (:class:`RoundDraws`)."""
    return RoundDraws(seed, num_sentences, num_refs).take(iterations)


def pairwise_sum(n: int, leaf: int, leaf_sum: Callable[[int, int], np.ndarray]) -> np.ndarray:
    """The sum numpy's ``np.add.reduce`` gives for a contiguous float64 array of n
    values, without holding the n values at once.

    numpy sums n > 128 values as the sum of the first n2 = n // 2 - (n // 2) % 8
    plus the sum of the rest, recursively. This walks the same tree down to
    leaves of at most ``max(leaf, PAIRWISE_LEAF)`` values, takes numpy's own sum
    of each leaf, ``leaf_sum(start, stop)`` (called for the leaves in order),
    and adds the leaves' sums up the tree: bit-identical to the one-array sum.
    """
    limit = max(leaf, PAIRWISE_LEAF)

    def walk(start: int, size: int) -> np.ndarray:
        if size <= limit:
            return leaf_sum(start, start + size)
        half = size // 2
        half -= half % 8
        left = walk(start, half)  # left first: leaf_sum sees the leaves in order
        return left + walk(start + half, size - half)

    return walk(0, n)


def log_brevity_penalty(rlen: np.ndarray, hlen: np.ndarray) -> np.ndarray:
    """log BP: 0 if both lengths are 0 or r < h; -inf if h = 0 < r; else 1 - r/h."""
    rlen = np.asarray(rlen)
    hlen = np.asarray(hlen)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = 1.0 - rlen / np.where(hlen > 0, hlen, 1)
    out = np.where(rlen < hlen, 0.0, ratio)
    out = np.where(hlen == 0, np.where(rlen == 0, 0.0, -np.inf), out)
    return out


def log_precisions(numer: np.ndarray, denom: np.ndarray) -> np.ndarray:
    """log p_n with p = 1 when the denominator is 0 (last axis: order)."""
    numer = np.asarray(numer, dtype=np.float64)
    denom = np.asarray(denom, dtype=np.float64)
    p = np.where(denom > 0, numer / np.where(denom > 0, denom, 1.0), 1.0)
    with np.errstate(divide="ignore"):
        return np.log(np.ascontiguousarray(p))


def gleu_from_counts(numer, denom, rlen, hlen) -> tuple[np.ndarray, np.ndarray]:
    """GLEU and per-order BP * p_n from summed counts (order on the last axis).

    The operations are those of the GLEU reimplementation (gleu 1.1.0): the
    mean of log p_n over n, plus log BP, then exp.
    """
    logp = log_precisions(numer, denom)
    logbp = log_brevity_penalty(rlen, hlen)
    total = np.exp(np.ascontiguousarray(logbp + logp.mean(axis=-1)))
    per_order = np.exp(np.ascontiguousarray(logbp[..., None] + logp))
    return total, per_order


class GleuStatistics(Statistics):
    """Per-(system, sentence, reference, order) GLEU counts and the scores built on them."""

    def __init__(self, systems: tuple[str, ...], x: Intersections | SentenceCounts,
                 config: GleuConfig) -> None:
        self.systems = systems
        self.config = config
        counts = x if isinstance(x, SentenceCounts) else gleu_counts(x, config.variant)
        self.numer = counts.arrays["numer"]  # (H, D, K, N)
        self.denom = counts.arrays["denom"]  # (H, D, N)
        self.rlen = counts.arrays["rlen"]  # (D, K)
        self.hlen = self.denom[..., 0]  # (H, D): unigrams are tokens
        H, D, K, N = self.numer.shape
        self.num_refs = K
        # Sentence GLEU against each reference: (H, D, K) and per order (H, D, K, N).
        self.sent_by_ref, self.sent_by_ref_n = gleu_from_counts(
            self.numer, self.denom[:, :, None, :], self.rlen[None, :, :],
            self.hlen[:, :, None],
        )
        self._choice: np.ndarray | None = None
        self._draws: np.ndarray | None = None  # all draws, while small (DRAWS_CACHE_BYTES)
        self._full: list[Score] | None = None
        #: Sampling rounds per block; None: as many as fit in BLOCK_BYTES.
        #: Scores do not depend on it (tests set it small to check that).
        self.block_rounds: int | None = None

    # -- reference choice -----------------------------------------------------
    def choice(self) -> np.ndarray:
        """max mode: per (system, sentence) the reference with the best sentence GLEU.

        Ties go to higher-order per-order scores (n = N first), then to the
        first reference, as the GLEU reimplementation does.
        """
        if self._choice is None:
            H, D, K, N = self.numer.shape
            keys = np.concatenate([self.sent_by_ref_n, self.sent_by_ref[..., None]], axis=-1)
            self._choice = lexicographic_argmax(keys.reshape(H * D, K, N + 1)).reshape(H, D)
        return self._choice

    def rounds(self) -> np.ndarray:
        """sampling mode: the reference drawn per (round, sentence), all rounds at
        once (iterations x sentences x 8 bytes); scoring does not call it."""
        return draw_rounds(self.config.seed, self.config.iterations, self.numer.shape[1],
                           self.num_refs)

    # -- scores -----------------------------------------------------------------
    def corpus(self, beta: float | None = None, sentences: np.ndarray | None = None) -> list[Score]:
        if sentences is None and self._full is not None:
            return self._full
        idx = np.arange(self.numer.shape[1]) if sentences is None else np.asarray(
            sentences, dtype=np.int64)
        if self.config.mode == "max":
            out = self._corpus_max(idx)
        else:
            out = self._corpus_sampling(idx)
        if sentences is None:
            self._full = out
        return out

    def _corpus_max(self, idx: np.ndarray) -> list[Score]:
        choice = self.choice()[:, idx]  # (H, D')
        h = np.arange(len(self.systems))[:, None]
        numer = self.numer[h, idx[None, :], choice].sum(axis=1)  # (H, N)
        denom = self.denom[:, idx].sum(axis=1)  # (H, N)
        rlen = self.rlen[idx[None, :], choice].sum(axis=1)  # (H,)
        hlen = self.hlen[:, idx].sum(axis=1)  # (H,)
        total, per_order = gleu_from_counts(numer, denom, rlen, hlen)
        bp = np.exp(log_brevity_penalty(rlen, hlen))
        out = []
        for k in range(len(self.systems)):
            per_n = [
                {"n": n + 1, "numerator": int(numer[k, n]), "denominator": int(denom[k, n]),
                 "gleu_n": float(per_order[k, n])}
                for n in range(numer.shape[1])
            ]
            out.append(Score(float(total[k]), details={
                "mode": "max", "variant": self.config.variant, "bp": float(bp[k]),
                "ref_length": int(rlen[k]), "hyp_length": int(hlen[k]), "orders": per_n}))
        return out

    def _corpus_sampling(self, idx: np.ndarray) -> list[Score]:
        """Mean corpus GLEU over the sampling rounds, one block of rounds at a time.

        Memory is a few blocks of draws, not iterations x sentences: the rounds
        are drawn in order (:class:`RoundDraws`), each block is scored, and the
        per-round scores are summed along numpy's pairwise tree
        (:func:`pairwise_sum`), so the mean is bit for bit ``np.mean`` of all
        rounds. The standard deviation combines the blocks' (Chan et al.), which
        agrees with ``np.std`` of all rounds to rounding.
        """
        H, D, K, N = self.numer.shape
        iterations = self.config.iterations
        block = self.block_rounds or max(1, BLOCK_BYTES // (17 * max(D, len(idx))))
        # Integer counts far below 2**53: the float products and sums are exact.
        # Drawing reference k adds its counts minus reference 0's to reference 0's.
        per_sent = self.numer[:, idx].transpose(1, 2, 0, 3).reshape(len(idx), K, H * N)
        ref_len = self.rlen[idx]  # (D', K)
        base_numer = per_sent[:, 0].sum(axis=0).astype(np.float64)
        base_rlen = float(ref_len[:, 0].sum())
        diff_numer = [(per_sent[:, k] - per_sent[:, 0]).astype(np.float64) for k in range(1, K)]
        diff_rlen = [(ref_len[:, k] - ref_len[:, 0]).astype(np.float64) for k in range(1, K)]
        whole = len(idx) == D and bool(np.all(idx == np.arange(D)))
        denom = self.denom[:, idx].sum(axis=1)  # (H, N)
        hlen = self.hlen[:, idx].sum(axis=1)  # (H,)
        cached = self._draws
        source = RoundDraws(self.config.seed, D, K)
        dtype = np.uint8 if K <= 256 else np.int64
        keep = (np.empty((iterations, D), dtype=dtype) if cached is None
                and iterations * D * np.dtype(dtype).itemsize <= DRAWS_CACHE_BYTES else None)

        def scored(start: int, stop: int) -> np.ndarray:
            """Corpus GLEU of rounds start..stop-1 for every system: (rounds, H)."""
            if cached is not None:
                drawn_all = cached[start:stop]
            else:
                drawn_all = source.take(stop - start)
                if keep is not None:
                    keep[start:stop] = drawn_all
            rounds = drawn_all if whole else drawn_all[:, idx]
            numer = np.broadcast_to(base_numer, (stop - start, H * N)).copy()
            rlen = np.full(stop - start, base_rlen)
            for k in range(1, K):
                drawn = (rounds == k).astype(np.float64)  # (rounds, D')
                numer += drawn @ diff_numer[k - 1]
                rlen += drawn @ diff_rlen[k - 1]
            numer_i = np.rint(numer).astype(np.int64).reshape(-1, H, N)
            rlen_i = np.rint(rlen).astype(np.int64)
            return gleu_from_counts(numer_i, denom[None], rlen_i[:, None], hlen[None])[0]

        low = np.full(H, np.inf)
        high = np.full(H, -np.inf)
        seen = [0]  # rounds so far
        moments = [np.zeros(H), np.zeros(H)]  # their mean and sum of squared deviations

        def leaf_sum(start: int, stop: int) -> np.ndarray:
            scores = np.concatenate([scored(a, min(a + block, stop))
                                     for a in range(start, stop, block)])
            np.minimum(low, scores.min(axis=0), out=low)
            np.maximum(high, scores.max(axis=0), out=high)
            count, mean = scores.shape[0], scores.mean(axis=0)
            sq = ((scores - mean) ** 2).sum(axis=0)
            n_a, (mean_a, sq_a) = seen[0], moments
            total = seen[0] = n_a + count
            delta = mean - mean_a
            moments[:] = [mean_a + delta * (count / total),
                          sq_a + sq + delta ** 2 * (n_a * count / total)]
            # numpy's own sum of this leaf, system by system as np.mean saw them.
            return np.array([np.add.reduce(np.ascontiguousarray(scores[:, h]))
                             for h in range(H)])

        sums = pairwise_sum(iterations, block, leaf_sum)
        if keep is not None:
            self._draws = keep
        out = []
        for h in range(H):
            out.append(Score(float(sums[h] / iterations), details={
                "mode": "sampling", "variant": self.config.variant,
                "iterations": iterations, "seed": self.config.seed,
                "std": math.sqrt(float(moments[1][h]) / iterations),
                "min": float(low[h]), "max": float(high[h])}))
        return out

    def corpus_scores(self, beta: float | None = None,
                      sentences: np.ndarray | None = None) -> np.ndarray:
        return np.array([s.score for s in self.corpus(beta, sentences)])

    def sentence_statistics(self, beta: float | None = None):
        """max mode: the chosen reference's (numerators, denominators, reference and
        hypothesis length), (H, D, 2N + 2), and GLEU from their sums; sampling mode:
        None, as its corpus score is a mean over reference draws, not one formula of
        sums (see :meth:`Statistics.sentence_statistics`)."""
        if self.config.mode != "max":
            return None
        H, D, K, N = self.numer.shape
        c = self.choice()
        h = np.arange(H)[:, None]
        d = np.arange(D)[None, :]
        per = np.concatenate([self.numer[h, d, c], self.denom,
                              self.rlen[d, c][..., None], self.hlen[..., None]], axis=2)
        return per, lambda s: gleu_from_counts(s[..., :N], s[..., N:2 * N], s[..., 2 * N],
                                               s[..., 2 * N + 1])[0]

    def sentence(self, beta: float | None = None) -> np.ndarray:
        """Sentence GLEU: max mode, the best reference's; sampling, the mean over references."""
        if self.config.mode == "max":
            return np.take_along_axis(self.sent_by_ref, self.choice()[..., None], axis=2)[..., 0]
        return np.ascontiguousarray(self.sent_by_ref).mean(axis=-1)


class Gleu(Metric[GleuConfig]):
    """GLEU at word or character level (display names wordGLEU, charGLEU)."""

    name: ClassVar[str] = "gleu"
    partial_references: ClassVar[bool] = True
    description: ClassVar[str] = (
        "GLEU n-gram precision with source penalty (Napoles et al. 2015/2016); "
        + tokenize_option(GleuConfig.tokenize) + " (docs/tokenizers.md), n (4), "
        "variant=official|paper, mode=sampling|max, iterations (500), seed (official), "
        "normalize=none|nfc|nfkc"
    )
    Config = GleuConfig
    has_beta: ClassVar[bool] = False
    reference_axes: ClassVar[Mapping[str, int] | None] = {"numer": 2, "rlen": 1}

    @property
    def display_name(self) -> str:
        return f"{self.config.tokenize}GLEU"

    def required_extras(self) -> tuple[str, ...]:
        """The optional extra of the tokenizer (``tokenize=ja`` needs ``ja``)."""
        return required_extras(self.config.tokenize)

    def paired_ar_problem(self) -> str | None:
        if self.config.mode == "max":
            return None
        return ("gleu:mode=sampling averages corpus GLEU over reference draws, so sentences "
                "cannot be swapped between systems; use --paired-bootstrap or gleu:mode=max")

    def statistics(self, corpus: Corpus) -> GleuStatistics:
        return self.cached_statistics(corpus, lambda: self.from_counts(
            tuple(corpus.hypotheses), self.counts(corpus)))

    def counts(self, corpus: Corpus) -> SentenceCounts:
        c = self.config
        return gleu_counts(intersections(corpus, c.tokenize, c.n, c.normalize), c.variant)

    def from_counts(self, systems: tuple[str, ...], counts: SentenceCounts) -> GleuStatistics:
        return GleuStatistics(systems, counts, self.config)

    def counting(self) -> Counting:
        sampling = self.config.mode != "max"
        return Counting(self.counts, self.from_counts,
                        not_additive=("GLEU's sampling mode (a mean over reference draws)"
                                      if sampling else None),
                        additive_variant="gleu:mode=max" if sampling else None)
