"""BLEU (Papineni et al. 2002) exactly as sacrebleu computes it.

Per sentence and system, BLEU's sufficient statistics are sacrebleu's:
the hypothesis length c, the length r of the reference closest to c (the
shorter on ties), and per order n = 1..N the clipped matches
m_n = sum_x min(count_hyp(x), max_k count_ref_k(x)) and the hypothesis
n-gram count t_n. Corpus BLEU sums them over sentences, then

    BLEU = BP * exp(sum_{n <= N'} log p_n / N'),  p_n = 100 m_n / t_n,
    BP = 1 if c >= r, exp(1 - r / c) if 0 < c < r, 0 if c = 0,

with N' = N, or with ``effective_order`` the highest order that has
hypothesis n-grams, and sacrebleu's smoothing of zero matches (``exp``,
``floor``, ``add-k``, ``none``; see docs/metrics/bleu.md). Sentence BLEU
is the same formula on one sentence's statistics, with ``effective_order``
on by default as in ``sacrebleu.sentence_bleu``.

Tokenizers: sacrebleu's names mean what they mean there: ``13a`` (mteval-v13a,
:mod:`gecmetrics.mteval`; sacrebleu's default), ``none`` (whitespace split),
``intl`` (mteval-v14 international) and ``char`` (every character but
whitespace, as sacrebleu's ``char`` tokens are split again on whitespace); the
other tokenizers of :mod:`gecmetrics.tokenizers` (``ja``, ``ko``, ``zh``
(jieba, not sacrebleu's ``zh``), ``zh-char``) keep their registry meaning
(docs/tokenizers.md). The counts come from the n-gram
kernel (:mod:`gecmetrics.ngrams`: ``hyp_len``, ``ref_len``, ``rc_max``),
counted once per corpus and shared with every other n-gram metric of the run.
The last step repeats sacrebleu's ``BLEU.compute_bleu`` operation by
operation in Python floats (``math.log``/``math.exp``), so scores are equal to
the last digit (tests/test_bleu.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, get_args

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.metric import SIGNED_WHEN_SET, Metric, MetricConfig, Score, Statistics
from gecmetrics.ngrams import check_order, intersections
from gecmetrics.tokenizers import (
    Normalize,
    Tokenize,
    bleu_tokenizers,
    check_normalize,
    required_extras,
    tokenize_choices,
    tokenize_option,
)

#: A BLEU tokenizer's name: one of :func:`gecmetrics.tokenizers.bleu_tokenizers`.
BleuTokenize = Tokenize
Smooth = Literal["exp", "floor", "add-k", "none"]
SMOOTH_METHODS: tuple[Smooth, ...] = get_args(Smooth)
#: sacrebleu's defaults (from Chen & Cherry 2014): floor 0.1, add-k 1.
SMOOTH_DEFAULTS: dict[str, float | None] = {"exp": None, "floor": 0.1, "add-k": 1, "none": None}
#: sacrebleu's ``my_log(0)``: log of a zero precision.
LOG_ZERO = -9999999999


def __getattr__(name: str) -> Any:
    """``NGRAM_TOKENIZER``: the registry tokenizer of each BLEU tokenizer, read from
    the registry when asked (:func:`gecmetrics.tokenizers.bleu_tokenizers`): sacrebleu's
    ``none`` is whitespace words, and its ``char`` joins the characters with spaces
    that BLEU splits on again, so whitespace is no token."""
    if name == "NGRAM_TOKENIZER":  # in the order of the choices: the default first
        offered = bleu_tokenizers()
        return {key: offered[key] for key in tokenize_choices(BleuConfig.tokenize, bleu=True)}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class BleuConfig(MetricConfig):
    tokenize: BleuTokenize = "13a"
    smooth_method: Smooth = "exp"
    smooth_value: float | None = None
    lowercase: bool = False
    max_ngram_order: int = 4
    #: None: sacrebleu's defaults, off for corpus BLEU (``corpus_bleu``) and on
    #: for sentence BLEU (``sentence_bleu``, so also for the mean level).
    effective_order: bool | None = None
    #: Unicode normal form of every text before tokenization (docs/tokenizers.md).
    normalize: Normalize = field(default="none", metadata=SIGNED_WHEN_SET)

    def validate(self) -> None:
        if self.tokenize not in bleu_tokenizers():
            choices = ", ".join(tokenize_choices(BleuConfig.tokenize, bleu=True))
            raise ConfigError(f"bleu option tokenize must be one of: {choices} "
                              f"(got {self.tokenize!r})")
        if self.smooth_method not in SMOOTH_METHODS:
            raise ConfigError(f"bleu option smooth_method must be one of: "
                              f"{', '.join(SMOOTH_METHODS)} (got {self.smooth_method!r})")
        if self.smooth_value is not None:
            if SMOOTH_DEFAULTS[self.smooth_method] is None:
                raise ConfigError(f"bleu option smooth_value applies to smooth_method=floor or "
                                  f"add-k, not {self.smooth_method}; drop it")
            value = self.smooth_value
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    math.isfinite(value) and value > 0):
                raise ConfigError(f"bleu option smooth_value must be a number > 0 (got {value!r})")
        check_order(self.max_ngram_order, "bleu option max_ngram_order")
        for key in ("lowercase",):
            if not isinstance(getattr(self, key), bool):
                raise ConfigError(f"bleu option {key} must be true or false")
        if self.effective_order is not None and not isinstance(self.effective_order, bool):
            raise ConfigError("bleu option effective_order must be true, false or none")
        check_normalize(self.normalize, "bleu option normalize")


def bleu_from_stats(stats: Sequence[int], max_order: int, smooth_method: str,
                    smooth_value: float | None, effective_order: bool
                    ) -> tuple[float, list[float], float]:
    """BLEU in percent, the precisions (percent) and BP from one statistics vector
    ``[c, r, m_1..m_N, t_1..t_N]``: sacrebleu's ``compute_bleu``, same operations."""
    sys_len, ref_len = int(stats[0]), int(stats[1])
    correct = [int(x) for x in stats[2:2 + max_order]]
    total = [int(x) for x in stats[2 + max_order:2 + 2 * max_order]]
    value = SMOOTH_DEFAULTS[smooth_method] if smooth_value is None else smooth_value
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    precisions = [0.0] * max_order
    if not any(correct):
        return 0.0, precisions, bp
    halvings = 1.0  # the exp method's 1 / 2^k for the k-th order without matches
    order = max_order
    num: list[float] = list(correct)
    den: list[float] = list(total)
    if smooth_method == "add-k":  # k added to the counts of every order above 1
        assert value is not None
        num = [correct[0], *(c + value for c in correct[1:])]
        den = [total[0], *(t + value for t in total[1:])]
    for n in range(max_order):
        if den[n] == 0:
            break
        if effective_order:
            order = n + 1
        if num[n] == 0:
            if smooth_method == "exp":
                halvings *= 2
                precisions[n] = 100.0 / (halvings * den[n])
            elif smooth_method == "floor":
                assert value is not None
                precisions[n] = 100.0 * value / den[n]
        else:
            precisions[n] = 100.0 * num[n] / den[n]
    logs = sum([math.log(p) if p != 0.0 else LOG_ZERO for p in precisions[:order]])
    return bp * math.exp(logs / order), precisions, bp


class BleuStatistics(Statistics):
    """sacrebleu's statistics per (system, sentence): ``[c, r, m_1..m_N, t_1..t_N]``."""

    def __init__(self, systems: tuple[str, ...], stats: np.ndarray, config: BleuConfig) -> None:
        self.systems = systems
        self.stats = stats  # (H, D, 2 + 2N) int64
        self.config = config
        self._sentence: np.ndarray | None = None

    def _percent(self, vector: Sequence[int], sentence: bool) -> tuple[float, list[float], float]:
        c = self.config
        effective = c.effective_order if c.effective_order is not None else sentence
        return bleu_from_stats(vector, c.max_ngram_order, c.smooth_method, c.smooth_value,
                               effective)

    def _sums(self, sentences: np.ndarray | None) -> np.ndarray:
        if sentences is None:
            return self.stats.sum(axis=1)
        return self.stats[:, np.asarray(sentences, dtype=np.int64)].sum(axis=1)

    def corpus(self, beta: float | None = None,
               sentences: np.ndarray | None = None) -> list[Score]:
        N = self.config.max_ngram_order
        out = []
        for vector in self._sums(sentences).tolist():
            score, precisions, bp = self._percent(vector, sentence=False)
            out.append(Score(score / 100, details={
                "precisions": [p / 100 for p in precisions], "bp": bp,
                "hyp_length": vector[0], "ref_length": vector[1],
                "counts": vector[2:2 + N], "totals": vector[2 + N:]}))
        return out

    def corpus_scores(self, beta: float | None = None,
                      sentences: np.ndarray | None = None) -> np.ndarray:
        return self._formula(self._sums(sentences))

    def _formula(self, sums: np.ndarray, sentence: bool = False) -> np.ndarray:
        """BLEU (0-1) of every statistics vector on the last axis of ``sums``."""
        sums = np.asarray(sums)
        flat = sums.reshape(-1, sums.shape[-1]).tolist()
        values = [self._percent(v, sentence)[0] / 100 for v in flat]
        return np.array(values, dtype=np.float64).reshape(sums.shape[:-1])

    def sentence_statistics(self, beta: float | None = None) -> tuple[np.ndarray, Any]:
        return self.stats, self._formula

    def sentence(self, beta: float | None = None) -> np.ndarray:
        if self._sentence is None:
            self._sentence = self._formula(self.stats, sentence=True)
        return self._sentence


def bleu_statistics(corpus: Corpus, config: BleuConfig) -> np.ndarray:
    """``[c, r, m_1..m_N, t_1..t_N]`` per (system, sentence), shape (H, D, 2 + 2N)."""
    if config.lowercase:  # shared with chrF's lowercase option
        corpus = corpus.lowercased()
    N = config.max_ngram_order
    x = intersections(corpus, bleu_tokenizers()[config.tokenize], N, config.normalize)
    # int64: the kernel's arrays are compact (int16 for short texts), and the
    # tie-breaking key below multiplies lengths.
    hyp_len = x.hyp_len[..., 0].astype(np.int64)  # (H, D) tokens
    ref_len = x.ref_len[..., 0].astype(np.int64)  # (D, K)
    # Closest reference length, the shorter one on ties (sacrebleu's rule): the
    # smallest (|c - r_k|, r_k) pair.
    diff = np.abs(hyp_len[:, :, None] - ref_len[None])  # (H, D, K)
    key = diff * (int(ref_len.max(initial=0)) + 1) + ref_len[None]
    closest = np.take_along_axis(np.broadcast_to(ref_len[None], diff.shape),
                                 key.argmin(axis=2)[..., None], axis=2)[..., 0]
    return np.concatenate([hyp_len[..., None], closest[..., None], x.rc_max, x.hyp_len],
                          axis=2).astype(np.int64)


class Bleu(Metric[BleuConfig]):
    """Corpus and sentence BLEU as sacrebleu's ``corpus_bleu`` / ``sentence_bleu``."""

    name: ClassVar[str] = "bleu"
    description: ClassVar[str] = (
        "BLEU (Papineni et al. 2002) as sacrebleu computes it; "
        + tokenize_option(BleuConfig.tokenize, bleu=True) + " (docs/tokenizers.md), "
        "smooth_method=exp|floor|add-k|none, smooth_value, lowercase, max_ngram_order (4), "
        "effective_order (corpus no, sentence yes), normalize=none|nfc|nfkc"
    )
    Config = BleuConfig
    has_beta: ClassVar[bool] = False

    @property
    def display_name(self) -> str:
        return "BLEU"

    def required_extras(self) -> tuple[str, ...]:
        """The optional extra of the tokenizer (``tokenize=ja`` needs ``ja``)."""
        return required_extras(bleu_tokenizers()[self.config.tokenize])

    def statistics(self, corpus: Corpus) -> BleuStatistics:
        c = self.config
        return self.cached_statistics(corpus, lambda: BleuStatistics(
            tuple(corpus.hypotheses), bleu_statistics(corpus, c), c))
