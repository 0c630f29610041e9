"""chrF and chrF++: character (and word) n-gram F-score (Popović 2015, 2017).

Per order (character n-grams 1..``char_order`` with whitespace removed, then
for chrF++ word n-grams 1..``word_order``) a sentence gives three counts:
hypothesis n-grams, reference n-grams and their multiset intersection. The
precisions and recalls of the orders that have both hypothesis and reference
n-grams are averaged (arithmetic mean) and combined into F_beta. Corpus level
sums the counts over sentences first. With several references each sentence
uses the one with the highest sentence chrF (the first on ties).

Everything (tokenisation, the "effective order" averaging, the eps_smoothing
alternative, edge cases such as a reference without n-grams of some order)
follows sacrebleu's ``CHRF``, the implementation users compare with; see
docs/metrics/chrf.md. The counts come from :mod:`gecmetrics.ngrams`, counted
once per corpus.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.metric import (
    LAST_STEP,
    SIGNED_WHEN_SET,
    Counting,
    Metric,
    MetricConfig,
    Score,
    SentenceCounts,
    Statistics,
    check_beta,
)
from gecmetrics.ngrams import check_order, intersections
from gecmetrics.tokenizers import Normalize, check_normalize

EPS = 1e-16  # sacrebleu's smoothing constant


@dataclass(frozen=True)
class ChrfConfig(MetricConfig):
    char_order: int = 6
    word_order: int = 0
    beta: float = field(default=2.0, metadata=LAST_STEP)
    lowercase: bool = False
    whitespace: bool = False
    eps_smoothing: bool = False
    #: Unicode normal form of every text before the n-grams (docs/tokenizers.md).
    normalize: Normalize = field(default="none", metadata=SIGNED_WHEN_SET)

    def validate(self) -> None:
        for key, low in (("char_order", 1), ("word_order", 0)):
            check_order(getattr(self, key), f"chrf option {key}", low)
        check_beta(self.beta)
        for key in ("lowercase", "whitespace", "eps_smoothing"):
            if not isinstance(getattr(self, key), bool):
                raise ConfigError(f"chrf option {key} must be true or false")
        check_normalize(self.normalize, "chrf option normalize")


def chrf_scores(hyp: np.ndarray, ref: np.ndarray, match: np.ndarray, beta: float,
                eps_smoothing: bool = False):
    """chrF (0-1), averaged precision and recall from counts; order on the last axis."""
    f100, avg_prec, avg_rec = chrf_percent(hyp, ref, match, beta, eps_smoothing)
    return f100 / 100, avg_prec, avg_rec


def chrf_percent(hyp: np.ndarray, ref: np.ndarray, match: np.ndarray, beta: float,
                 eps_smoothing: bool = False):
    """chrF in percent, exactly as sacrebleu computes it (same operations, same order).

    The reference choice compares these percent values, as sacrebleu does:
    two references whose scores differ in the last bit before the factor 100
    can be equal after it, and sacrebleu then keeps the first.
    """
    hyp, ref, match = np.broadcast_arrays(hyp, ref, match)
    factor = beta**2
    shape = hyp.shape[:-1]
    score = np.zeros(shape)
    avg_prec = np.zeros(shape)
    avg_rec = np.zeros(shape)
    effective = np.zeros(shape, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(hyp.shape[-1]):
            h, r, m = hyp[..., i], ref[..., i], match[..., i]
            prec = np.where(h > 0, m / np.where(h > 0, h, 1), EPS)
            rec = np.where(r > 0, m / np.where(r > 0, r, 1), EPS)
            denom = factor * prec + rec
            score = score + np.where(denom > 0, (1 + factor) * prec * rec / denom, EPS)
            both = (h > 0) & (r > 0)
            avg_prec = np.where(both, avg_prec + prec, avg_prec)
            avg_rec = np.where(both, avg_rec + rec, avg_rec)
            effective = effective + both
        if eps_smoothing:
            return 100 * score / hyp.shape[-1], avg_prec, avg_rec
        some = effective > 0
        avg_prec = np.where(some, avg_prec / np.where(some, effective, 1), 0.0)
        avg_rec = np.where(some, avg_rec / np.where(some, effective, 1), 0.0)
        total = avg_prec + avg_rec
        f = (1 + factor) * avg_prec * avg_rec
        f = np.where(total != 0, 100 * (f / (factor * avg_prec + avg_rec)), 0.0)
    return f, avg_prec, avg_rec


class ChrfStatistics(Statistics):
    """chrF counts per (system, sentence, reference, order); reference choice per beta."""

    def __init__(self, systems: tuple[str, ...], hyp: np.ndarray, ref: np.ndarray,
                 match: np.ndarray, config: ChrfConfig) -> None:
        self.systems = systems
        self.config = config
        self.default_beta = config.beta
        self.hyp = hyp  # (H, D, K, O); 0 where the reference has no n-gram of the order
        self.ref = ref  # (D, K, O)
        self.match = match  # (H, D, K, O)
        self._choice: dict[float, np.ndarray] = {}
        self._sentence: dict[float, np.ndarray] = {}

    def _by_ref(self, beta: float) -> None:
        f100, _, _ = chrf_percent(self.hyp, self.ref[None], self.match, beta,
                                  self.config.eps_smoothing)  # (H, D, K)
        choice = np.argmax(f100, axis=2)  # the first reference on ties, like sacrebleu
        self._choice[beta] = choice
        self._sentence[beta] = np.take_along_axis(f100, choice[..., None], axis=2)[..., 0] / 100

    def choice(self, beta: float | None = None) -> np.ndarray:
        beta = self.resolve_beta(beta)
        if beta not in self._choice:
            self._by_ref(beta)
        return self._choice[beta]

    def sums(self, beta: float | None = None, sentences: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Corpus sums of (hyp, ref, match) with the chosen references: each (H, O)."""
        choice = self.choice(beta)
        idx = (np.arange(self.hyp.shape[1]) if sentences is None
               else np.asarray(sentences, dtype=np.int64))
        h = np.arange(len(self.systems))[:, None]
        c = choice[:, idx]
        return (self.hyp[h, idx[None], c].sum(axis=1), self.ref[idx[None], c].sum(axis=1),
                self.match[h, idx[None], c].sum(axis=1))

    def corpus(self, beta: float | None = None,
               sentences: np.ndarray | None = None) -> list[Score]:
        beta = self.resolve_beta(beta)
        hyp, ref, match = self.sums(beta, sentences)
        f, p, r = chrf_scores(hyp, ref, match, beta, self.config.eps_smoothing)
        out = []
        for k in range(len(self.systems)):
            orders = [{"order": name, "hyp": int(hyp[k, i]), "ref": int(ref[k, i]),
                       "match": int(match[k, i])} for i, name in enumerate(self.order_names())]
            out.append(Score(float(f[k]), float(p[k]), float(r[k]), {"orders": orders}))
        return out

    def corpus_scores(self, beta: float | None = None,
                      sentences: np.ndarray | None = None) -> np.ndarray:
        beta = self.resolve_beta(beta)
        return chrf_scores(*self.sums(beta, sentences), beta, self.config.eps_smoothing)[0]

    def sentence_statistics(self, beta: float | None = None):
        """(hyp, ref, match) of the chosen reference, (H, D, 3, O), and the corpus
        formula from their sums (see :meth:`Statistics.sentence_statistics`)."""
        beta = self.resolve_beta(beta)
        c = self.choice(beta)[..., None]
        h = np.arange(len(self.systems))[:, None, None]
        d = np.arange(self.hyp.shape[1])[None, :, None]
        per = np.stack([self.hyp[h, d, c][:, :, 0], self.ref[d, c][:, :, 0],
                        self.match[h, d, c][:, :, 0]], axis=2)
        eps = self.config.eps_smoothing
        return per, lambda s: chrf_scores(s[..., 0, :], s[..., 1, :], s[..., 2, :], beta, eps)[0]

    def sentence(self, beta: float | None = None) -> np.ndarray:
        beta = self.resolve_beta(beta)
        if beta not in self._sentence:
            self._by_ref(beta)
        return self._sentence[beta]

    def order_names(self) -> list[str]:
        c = self.config
        return ([f"char{n}" for n in range(1, c.char_order + 1)]
                + [f"word{n}" for n in range(1, c.word_order + 1)])


def chrf_counts(corpus: Corpus, config: ChrfConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hyp, ref, match) counts per order, char orders then word orders."""
    if config.lowercase:
        corpus = corpus.lowercased()
    form = config.normalize
    parts = [intersections(corpus, "char" if config.whitespace else "char-nospace",
                           config.char_order, form)]
    if config.word_order:
        parts.append(intersections(corpus, "chrf-word", config.word_order, form))
    ref = np.concatenate([x.ref_len for x in parts], axis=-1)  # (D, K, O)
    match = np.concatenate([x.rc for x in parts], axis=-1)  # (H, D, K, O)
    hyp_len = np.concatenate([x.hyp_len for x in parts], axis=-1)  # (H, D, O)
    # sacrebleu counts no hypothesis n-grams for an order the reference lacks.
    hyp = np.where(ref[None] > 0, hyp_len[:, :, None, :], 0)
    return hyp, ref, match


class Chrf(Metric[ChrfConfig]):
    """chrF (word_order=0) and chrF++ (word_order=2) as sacrebleu computes them."""

    name: ClassVar[str] = "chrf"
    description: ClassVar[str] = (
        "chrF / chrF++ character n-gram F-score (Popovic 2015, 2017) as in sacrebleu; "
        "char_order (6), word_order (0; 2 = chrF++), beta (2.0), lowercase, whitespace, "
        "eps_smoothing, normalize=none|nfc|nfkc"
    )
    Config = ChrfConfig
    has_beta: ClassVar[bool] = True
    reference_axes: ClassVar[Mapping[str, int] | None] = {"hyp": 2, "ref": 1, "match": 2}

    @property
    def display_name(self) -> str:
        return "chrF++" if self.config.word_order > 0 else "chrF"

    def statistics(self, corpus: Corpus) -> ChrfStatistics:
        return self.cached_statistics(corpus, lambda: self.from_counts(
            tuple(corpus.hypotheses), self.counts(corpus)))

    def counts(self, corpus: Corpus) -> SentenceCounts:
        hyp, ref, match = chrf_counts(corpus, self.config)
        return SentenceCounts({"hyp": hyp, "ref": ref, "match": match},
                              {"hyp": 1, "ref": 0, "match": 1})

    def from_counts(self, systems: tuple[str, ...], counts: SentenceCounts) -> ChrfStatistics:
        a = counts.arrays
        return ChrfStatistics(systems, a["hyp"], a["ref"], a["match"], self.config)

    def counting(self) -> Counting:
        return Counting(self.counts, self.from_counts)
