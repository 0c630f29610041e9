"""CLEME (Ye et al., EMNLP 2023) and CLEME2.0 (Ye et al., 2024): chunk-level evaluation.

Equal to the authors' implementation (GitHub THUKElab/CLEME, commit e90abea)
on the 13 CoNLL-2014 outputs; see docs/metrics/cleme.md for the formulas and
how equality was checked. In short:

* **Edits** are ERRANT's, from the edit layer's ERRANT service
  (:mod:`gecmetrics.edits.extraction`: the same extraction, parse cache and
  edit cache as the ``errant`` metric): hypothesis edits as
  ``errant_parallel`` writes them, reference edits as ``errant_m2 -gold``
  writes them (or, with text references, as ``errant_parallel``). Each
  target (hypothesis, each reference) is rebuilt from the source by applying
  its edits left to right, as the reference implementation reads an M2
  file; a reference whose rebuilt text is empty is dropped (unless it is
  the only one).
* **Chunk partition**: the source spans of all edits of the hypothesis and of
  every reference, sorted by start, are merged wherever they overlap or touch
  (start <= end of the previous span); the merged spans and the unchanged
  stretches between them cut the source, and with it every target, into the
  same number of chunks. A target's chunk is *changed* when the target has
  an edit inside it, and its text is the target's tokens over the chunk.
* **Counts** per (sentence, reference), comparing the hypothesis chunk with
  the reference chunk at the same position: changed and equal text: TP;
  changed and different: FP (``fp_ne`` when the reference changed that chunk,
  else ``fp_un``); unchanged and different: FN; else TN (variant
  ``dependent``). Variant ``independent`` compares with every reference at
  once: TP when equal to any, FN only when every reference changed the chunk;
  the counts are then the same for every reference.
* **Length weights** (``weighting=length``, the default): each counted chunk
  weighs ``w = a / (1 + (a - 1) exp(b - l))`` clipped to [0.75, 1.25] (TP and
  FN; ``exp(l - b)`` for FP, so long wrong chunks weigh less; TN weigh 1),
  where ``l`` is the hypothesis chunk's length (max of source and target
  tokens), ``a = 2`` and ``b`` the mean length of the references' changed
  chunks over the whole corpus (of this system's partition).
* **CLEME** (``cleme``): F_beta of the summed weights. At corpus level each
  sentence's reference is chosen in corpus order to maximise the running
  corpus F rounded to 4 decimals, ties to more TP, fewer FP, fewer FN, more
  TN, then the first reference. At sentence level the reference maximising
  the sentence's F (then P, R, accuracy; each rounded to 4 decimals).
* **CLEME2.0** (``cleme2``): hit = TP/N, wrong = FP_ne/N, under = FN/N with
  N = TP + FP_ne + FN, over = FP_un/(TP + FP), and the score
  ``h hit + w (1 - wrong) + u (1 - under) + o (1 - over)`` (defaults 0.45,
  0.35, 0.15, 0.05, the repository's corpus defaults); references chosen
  like CLEME's, by this score unrounded.

Needs the ``errant`` extra; errant and spaCy are imported only when edits
are not in the edit cache.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, get_args

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.edits.extraction import (
    MAX_TOKENS,
    Extractor,
    ReferenceSource,
    check_lengths,
    hypothesis_pairs,
    m2_corrections,
    pair_edits,
    parsed_texts,
    reference_edits,
    reference_items,
)
from gecmetrics.edits.neutral import NEUTRAL, ErrantEdits, NeutralExtractor, check_edits_option
from gecmetrics.edits.span import ErrantEdit
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.fscore import f_beta, prf
from gecmetrics.metric import (
    LAST_STEP,
    SIGNED_WHEN_SET,
    Metric,
    MetricConfig,
    Score,
    Statistics,
    check_beta,
)

Variant = Literal["dependent", "independent"]
Weighting = Literal["length", "none"]

#: Index of each count along the last axis of the chunk statistics.
TP, FP, FN, TN, FP_NE, FP_UN = range(6)

#: The reference implementation's length weigher (LengthWeigher defaults):
#: alpha, min, max for TP, FP and FN chunks; TN chunks weigh 1.
LENGTH_ALPHA = 2.0
LENGTH_MIN = 0.75
LENGTH_MAX = 1.25

#: The reference's CLEME2.0 corpus-level factors (README, "Default scorer for CLEME2.0").
HEUO_DEFAULTS = (0.45, 0.35, 0.15, 0.05)

#: A target's edit after the partition: (start, end, target tokens).
Span = tuple[int, int, tuple[str, ...]]


# --------------------------------------------------------------------------
# Rebuilding targets and the chunk partition


def rebuild(src: Sequence[str], edits: Sequence[ErrantEdit]
            ) -> tuple[list[str], list[tuple[int, int, int, int]]]:
    """The target tokens of ``edits`` applied to ``src`` left to right in the
    given order, and each edit's (start, end, target start, target end).

    As the reference implementation reads an M2 file: a correction whose first
    token is ``-NONE-`` is empty, and every edit (also a detection-only
    ``UNK`` one) replaces its source tokens with its correction.
    """
    tgt = list(src)
    offset = 0
    out = []
    for start, end, correction, _type in edits:
        toks = correction.split()
        if toks and toks[0] == "-NONE-":
            toks = []
        tb = start + offset
        tgt[tb:end + offset] = toks
        offset += len(toks) - (end - start)
        out.append((start, end, tb, tb + len(toks)))
    return tgt, out


def _token_map(n: int, edits: Sequence[tuple[int, int, int, int]]) -> dict[int, int]:
    """Source position -> target position of one target (edits sorted by start):
    each edit's ends map to its target ends, other positions run along."""
    m: dict[int, int] = {}
    s = t = 0
    for start, end, tb, te in edits:
        m[start] = tb
        m[end] = te
        while s < start:
            m[s] = t
            s += 1
            t += 1
        s, t = end, te
    while s <= n:
        m[s] = t
        s += 1
        t += 1
    return m


#: A rebuilt target: its tokens and its edits' (start, end, target start, target end).
Target = tuple[list[str], list[tuple[int, int, int, int]]]

#: Per target, each chunk's (changed, target tokens).
ChunkRows = list[list[tuple[bool, tuple[str, ...]]]]


def partition(src: Sequence[str], targets: Sequence[Target]
              ) -> tuple[list[tuple[int, int]], ChunkRows]:
    """The chunk spans of the source and, per target, each chunk's (changed, tokens).

    ``targets``: (tokens, edit spans) from :func:`rebuild`, hypothesis first.
    """
    n = len(src)
    per_target = [sorted(e, key=lambda x: x[0]) for _, e in targets]
    shared: list[list[int]] = []
    for start, end, _tb, _te in sorted((x for e in per_target for x in e), key=lambda x: x[0]):
        if shared and start <= shared[-1][1]:
            if end > shared[-1][1]:
                shared[-1][1] = end
        else:
            shared.append([start, end])
    chunks: list[tuple[int, int]] = []
    s = k = 0
    while s <= n:
        if k == len(shared):
            if s != n:
                chunks.append((s, n))
            break
        a, b = shared[k]
        if s == a == b:
            chunks.append((a, b))
            k += 1
        elif a <= s < b:
            chunks.append((a, b))
            s = b
            k += 1
        else:
            chunks.append((s, a))
            s = a
    out = []
    for (tgt, _), edits in zip(targets, per_target, strict=True):
        m = _token_map(n, edits)
        changed: dict[tuple[int, int], tuple[str, ...]] = {}
        for start, _end, _tb, _te in edits:
            for a, b in shared:
                if start >= a and _end <= b:
                    tb = 0 if a == 0 else m[a - 1] + 1
                    changed[(a, b)] = tuple(tgt[tb:m[b]])
                    break
        row = []
        for a, b in chunks:
            got = changed.get((a, b))
            if got is not None:
                row.append((True, got))
            else:
                te = m[b - 1] + 1 if b != 0 else 0
                row.append((False, tuple(tgt[m[a]:te])))
        out.append(row)
    return chunks, out


def _weight(length: int, bias: float, reverse: bool) -> float:
    x = length - bias if reverse else bias - length
    w = LENGTH_ALPHA * (1 / (1 + (LENGTH_ALPHA - 1) * math.exp(x)))
    return min(max(w, LENGTH_MIN), LENGTH_MAX)


def reference_counts(src: Sequence[str], chunk_rows: ChunkRows,
                    chunks: list[tuple[int, int]], variant: str, bias: float | None
                    ) -> list[list[float]]:
    """[tp, fp, fn, tn, fp_ne, fp_un] per reference of one sentence (hypothesis
    row first in ``chunk_rows``); weighted by chunk length when ``bias`` is
    given, else counted."""
    hyp, refs = chunk_rows[0], chunk_rows[1:]

    def w(i: int, kind: int) -> float:
        if bias is None or kind == TN:
            return 1.0
        a, b = chunks[i]
        length = max(b - a, len(hyp[i][1]))
        return _weight(length, bias, reverse=kind == FP)

    if variant == "dependent":
        rows = []
        for ref in refs:
            c = [0.0] * 6
            for i, (changed, toks) in enumerate(hyp):
                r_changed, r_toks = ref[i]
                if changed:
                    if toks == r_toks:
                        c[TP] += w(i, TP)
                    else:
                        wt = w(i, FP)
                        c[FP] += wt
                        c[FP_NE if r_changed else FP_UN] += wt
                elif toks != r_toks:
                    c[FN] += w(i, FN)
                else:
                    c[TN] += w(i, TN)
            rows.append(c)
        return rows
    c = [0.0] * 6
    for i, (changed, toks) in enumerate(hyp):
        at = [ref[i] for ref in refs]
        if changed:
            if any(toks == r_toks for _, r_toks in at):
                c[TP] += w(i, TP)
            else:
                wt = w(i, FP)
                c[FP] += wt
                c[FP_NE if any(rc for rc, _ in at) else FP_UN] += wt
        elif all(rc for rc, _ in at):
            c[FN] += w(i, FN)
        else:
            c[TN] += w(i, TN)
    return [list(c) for _ in refs]


@dataclass(frozen=True)
class ChunkCounts:
    """Chunk counts of every (system, sentence, reference), shape (H, D, R, 6)."""

    systems: tuple[str, ...]
    counts: np.ndarray
    present: np.ndarray  # (D, R): reference r of sentence d exists
    bias: tuple[float, ...]  # per system: mean length of the references' changed chunks

    def order(self, sentences: np.ndarray | None) -> Sequence[int]:
        """The sentences a corpus score sums, in order (all, or a resample)."""
        if sentences is None:
            return range(self.present.shape[0])
        return [int(x) for x in sentences]


def chunk_counts(corpus: Corpus, variant: str, weighting: str, model: str,
                 references: str, max_tokens: int, cache: bool,
                 metric: str = "cleme") -> ChunkCounts:
    """Edits from the ERRANT adapter, chunk partition and counts (see the module doc);
    ``metric`` names the option in a too-long-pair error."""
    use_m2 = corpus.m2 is not None and references != "text"
    gold = m2_corrections(corpus) if use_m2 else None
    check_lengths(parsed_texts(corpus, gold), max_tokens, metric)
    with Extractor(model, disk=cache) as extractor:
        ref_pairs, gold_items = reference_items(corpus, gold)
        edits = extractor.extract(ref_pairs + hypothesis_pairs(corpus), gold_items)
    _annotators, golds = reference_edits(corpus, gold, edits)
    hyp_edits = {name: [pair_edits(edits, corpus.sources[d], line)
                        for d, line in enumerate(lines)]
                 for name, lines in corpus.hypotheses.items()}
    return counts_from_edits(corpus.sources, [list(g.values()) for g in golds], hyp_edits,
                             variant, weighting)


def neutral_chunk_counts(corpus: Corpus, variant: str, weighting: str) -> ChunkCounts:
    """:func:`chunk_counts` with the language-neutral edits (``edits=neutral``) of
    the hypotheses and the text references (docs/edits-neutral.md)."""
    with NeutralExtractor() as extractor:
        ref_pairs, _ = reference_items(corpus, None)
        edits = extractor.extract(ref_pairs + hypothesis_pairs(corpus), [])
    _annotators, golds = reference_edits(corpus, None, edits)
    hyp_edits = {name: [pair_edits(edits, corpus.sources[d], line)
                        for d, line in enumerate(lines)]
                 for name, lines in corpus.hypotheses.items()}
    return counts_from_edits(corpus.sources, [list(g.values()) for g in golds], hyp_edits,
                             variant, weighting)


def counts_from_edits(sources: Sequence[str], ref_edits: Sequence[Sequence[Sequence[ErrantEdit]]],
                      hyp_edits: Mapping[str, Sequence[Sequence[ErrantEdit]]], variant: str,
                      weighting: str) -> ChunkCounts:
    """Chunk counts from edits already extracted: per sentence, each reference's
    edits; per system, each sentence's edits (all as (start, end, correction, type))."""
    D = len(sources)
    srcs = [s.split() for s in sources]
    refs_of: list[list[Target]] = []
    for d in range(D):
        built = [rebuild(srcs[d], e) for e in ref_edits[d]] or [rebuild(srcs[d], [])]
        kept = [t for t in built if t[0]]  # the reference drops empty targets
        refs_of.append(kept or built[:1])
    R = max(len(r) for r in refs_of)
    present = np.zeros((D, R), dtype=bool)
    for d, r in enumerate(refs_of):
        present[d, :len(r)] = True
    H = len(hyp_edits)
    counts = np.zeros((H, D, R, 6), dtype=np.float64)
    biases = []
    for h, per_sentence in enumerate(hyp_edits.values()):
        parts = []
        changed_lengths: list[int] = []
        for d in range(D):
            hyp = rebuild(srcs[d], per_sentence[d])
            chunks, rows = partition(srcs[d], [hyp] + refs_of[d])
            parts.append((chunks, rows))
            for row in rows[1:]:
                for (a, b), (changed, toks) in zip(chunks, row, strict=True):
                    if changed:
                        changed_lengths.append(max(b - a, len(toks)))
        # No changed reference chunk at all: the reference's mean is NaN; 0 here.
        bias = float(np.average(changed_lengths)) if changed_lengths else 0.0
        biases.append(bias)
        for d, (chunks, rows) in enumerate(parts):
            got = reference_counts(srcs[d], rows, chunks, variant,
                                  bias if weighting == "length" else None)
            counts[h, d, :len(got)] = got
    return ChunkCounts(tuple(hyp_edits), counts, present, tuple(biases))


# --------------------------------------------------------------------------
# Scores


def _acc(c: Sequence[float]) -> float:
    total = c[TP] + c[FP] + c[FN] + c[TN]
    return float(c[TP] + c[TN]) / total if total else 0.0


def heuo(c: Sequence[float], factors: Sequence[float]) -> tuple[float, float, float, float, float]:
    """(hit, wrong, under, over, score) of CLEME2.0 from summed counts."""
    tp, fn, fp_ne, fp_un = c[TP], c[FN], c[FP_NE], c[FP_UN]
    ne = tp + fp_ne + fn
    fp = fp_ne + fp_un
    hit = float(tp) / ne if ne else 0.0
    err = float(fp_ne) / ne if ne else 0.0
    und = float(fn) / ne if ne else 0.0
    ove = float(fp_un) / (tp + fp) if (tp + fp) else 0.0
    h, w, u, o = factors
    return hit, err, und, ove, h * hit + w * (1 - err) + u * (1 - und) + o * (1 - ove)


def _greedy(rows: np.ndarray, present: np.ndarray, order: Sequence[int],
            key: Callable[[list[float], list[float]], tuple[float, ...]]
            ) -> tuple[list[float], list[int]]:
    """Summed counts with each sentence's reference chosen in corpus order to
    maximise ``key(totals + candidate, candidate)`` (the first of equals), and
    the chosen reference of each sentence of ``order``."""
    total = [0.0] * 6
    picks = []
    for d in order:
        best: tuple[float, ...] | None = None
        chosen: list[float] = []
        pick = 0
        for r in range(rows.shape[1]):
            if not present[d, r]:
                continue
            c = rows[d, r].tolist()
            k = key([t + x for t, x in zip(total, c, strict=True)], c)
            if best is None or k > best:
                best, chosen, pick = k, c, r
        total = [t + x for t, x in zip(total, chosen, strict=True)]
        picks.append(pick)
    return total, picks


def _chosen_counts(chunks: ChunkCounts, key: Callable[[list[float], list[float]], tuple[float, ...]]
                   ) -> np.ndarray:
    """(H, D, 6): the counts of the reference chosen for each sentence on the full corpus."""
    D = chunks.present.shape[0]
    out = np.zeros((len(chunks.systems), D, 6))
    for h in range(len(chunks.systems)):
        _total, picks = _greedy(chunks.counts[h], chunks.present, range(D), key)
        out[h] = chunks.counts[h, np.arange(D), picks]
    return out


def _best_per_sentence(rows: np.ndarray, present: np.ndarray,
                       key: Callable[[list[float]], tuple[float, ...]]) -> list[list[float]]:
    out = []
    for d in range(rows.shape[0]):
        best: tuple[float, ...] | None = None
        chosen: list[float] = []
        for r in range(rows.shape[1]):
            if present[d, r]:
                c = rows[d, r].tolist()
                k = key(c)
                if best is None or k > best:
                    best, chosen = k, c
        out.append(chosen)
    return out


def _details(c: Sequence[float], bias: float) -> dict[str, float]:
    return {"tp": c[TP], "fp": c[FP], "fn": c[FN], "tn": c[TN], "fp_ne": c[FP_NE],
            "fp_un": c[FP_UN], "length_bias": bias}


class ClemeStatistics(Statistics):
    """Chunk counts of every (system, sentence, reference); CLEME's F_beta."""

    default_beta: float | None = 0.5

    def __init__(self, chunks: ChunkCounts) -> None:
        self.systems = chunks.systems
        self.chunks = chunks

    @staticmethod
    def _key(b: float) -> Callable[[list[float], list[float]], tuple[float, ...]]:
        def key(tot: list[float], c: list[float]) -> tuple[float, ...]:
            return (round(prf(tot[TP], tot[FP], tot[FN], b)[2], 4), c[TP], -c[FP], -c[FN], c[TN])
        return key

    def corpus(self, beta: float | None, sentences: np.ndarray | None = None) -> list[Score]:
        b = self.resolve_beta(beta)
        order = self.chunks.order(sentences)
        key = self._key(b)
        out = []
        for h in range(len(self.systems)):
            tot, _picks = _greedy(self.chunks.counts[h], self.chunks.present, order, key)
            p, r, f = prf(tot[TP], tot[FP], tot[FN], b)
            details = {**_details(tot, self.chunks.bias[h]), "accuracy": _acc(tot)}
            out.append(Score(f, p, r, details))
        return out

    def sentence_statistics(self, beta: float | None
                            ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        """Counts of the references chosen on the full corpus, (H, D, 6), and F_beta
        of their sums as :func:`~gecmetrics.fscore.prf` computes it, element-wise."""
        b = self.resolve_beta(beta)

        def formula(sums: np.ndarray) -> np.ndarray:
            return f_beta(sums[..., TP], sums[..., FP], sums[..., FN], b)

        return _chosen_counts(self.chunks, self._key(b)), formula

    def sentence(self, beta: float | None) -> np.ndarray:
        b = self.resolve_beta(beta)

        def key(c: list[float]) -> tuple[float, ...]:
            p, r, f = prf(c[TP], c[FP], c[FN], b)
            return (round(f, 4), round(p, 4), round(r, 4), round(_acc(c), 4))

        out = np.zeros((len(self.systems), self.chunks.present.shape[0]))
        for h in range(len(self.systems)):
            best = _best_per_sentence(self.chunks.counts[h], self.chunks.present, key)
            for d, c in enumerate(best):
                out[h, d] = prf(c[TP], c[FP], c[FN], b)[2]
        return out


class Cleme2Statistics(Statistics):
    """Chunk counts of every (system, sentence, reference); CLEME2.0's score."""

    def __init__(self, chunks: ChunkCounts, factors: tuple[float, float, float, float]) -> None:
        self.systems = chunks.systems
        self.chunks = chunks
        self.factors = factors

    def _key(self) -> Callable[[list[float], list[float]], tuple[float, ...]]:
        fac = self.factors

        def key(tot: list[float], c: list[float]) -> tuple[float, ...]:
            return (heuo(tot, fac)[4], c[TP], -c[FP], -c[FN], c[TN])
        return key

    def corpus(self, beta: float | None, sentences: np.ndarray | None = None) -> list[Score]:
        order = self.chunks.order(sentences)
        fac = self.factors
        key = self._key()
        out = []
        for h in range(len(self.systems)):
            tot, _picks = _greedy(self.chunks.counts[h], self.chunks.present, order, key)
            hit, err, und, ove, com = heuo(tot, fac)
            details = {**_details(tot, self.chunks.bias[h]), "hit": hit, "wrong": err,
                       "under": und, "over": ove}
            out.append(Score(com, None, None, details))
        return out

    def sentence_statistics(self, beta: float | None
                            ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        """Counts of the references chosen on the full corpus, (H, D, 6), and the
        CLEME2.0 score of their sums, element-wise (:func:`heuo`'s rules)."""
        h, w, u, o = self.factors

        def formula(sums: np.ndarray) -> np.ndarray:
            tp, fn, ne_, un = sums[..., TP], sums[..., FN], sums[..., FP_NE], sums[..., FP_UN]
            ne = tp + ne_ + fn
            pred = tp + ne_ + un
            with np.errstate(divide="ignore", invalid="ignore"):
                hit = np.where(ne > 0, tp / ne, 0.0)
                err = np.where(ne > 0, ne_ / ne, 0.0)
                und = np.where(ne > 0, fn / ne, 0.0)
                ove = np.where(pred > 0, un / pred, 0.0)
            return h * hit + w * (1 - err) + u * (1 - und) + o * (1 - ove)

        return _chosen_counts(self.chunks, self._key()), formula

    def sentence(self, beta: float | None) -> np.ndarray:
        fac = self.factors

        def key(c: list[float]) -> tuple[float, ...]:
            hit, err, und, ove, com = heuo(c, fac)
            return (com, hit, -err, -und, -ove)

        out = np.zeros((len(self.systems), self.chunks.present.shape[0]))
        for h in range(len(self.systems)):
            best = _best_per_sentence(self.chunks.counts[h], self.chunks.present, key)
            for d, c in enumerate(best):
                out[h, d] = heuo(c, fac)[4]
        return out


# --------------------------------------------------------------------------
# The metrics


def _check_common(name: str, variant: str, weighting: str, references: str,
                  max_tokens: Any, cache: Any, model: Any) -> None:
    if variant not in get_args(Variant):
        raise ConfigError(f"{name} option variant must be dependent or independent "
                          f"(got {variant!r})")
    if weighting not in get_args(Weighting):
        raise ConfigError(f"{name} option weighting must be length or none (got {weighting!r})")
    if references not in get_args(ReferenceSource):
        raise ConfigError(f"{name} option references must be auto, m2 or text "
                          f"(got {references!r})")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise ConfigError(f"{name} option max_tokens must be an integer >= 1 (got {max_tokens!r})")
    if not isinstance(cache, bool):
        raise ConfigError(f"{name} option cache must be true or false")
    if not isinstance(model, str):
        raise ConfigError(f"{name} option model must be the name or path of a spaCy pipeline")


@dataclass(frozen=True)
class ClemeConfig(MetricConfig):
    beta: float = field(default=0.5, metadata=LAST_STEP)
    variant: Variant = "dependent"
    weighting: Weighting = "length"
    model: str = ""
    references: ReferenceSource = "auto"
    max_tokens: int = MAX_TOKENS
    cache: bool = True
    edits: ErrantEdits = field(default="errant", metadata=SIGNED_WHEN_SET)

    def validate(self) -> None:
        check_beta(self.beta)
        _check_common("cleme", self.variant, self.weighting, self.references,
                      self.max_tokens, self.cache, self.model)
        check_edits_option("cleme", self.edits, "errant", self.references, self.model)


class _ChunkMetric(Metric[Any]):
    """Shared by CLEME and CLEME2.0: the chunk counts, cached on the corpus once
    for both metrics (they differ only in the last step)."""

    extras: ClassVar[tuple[str, ...]] = ("errant",)

    def required_extras(self) -> tuple[str, ...]:
        """No extra for the language-neutral edits (no spaCy, no errant)."""
        return () if self.config.edits == NEUTRAL else self.extras

    def _chunks(self, corpus: Corpus) -> ChunkCounts:
        c = self.config
        if c.edits == NEUTRAL:
            return corpus.cached(("cleme-chunks", c.variant, c.weighting, NEUTRAL),
                                 lambda: neutral_chunk_counts(corpus, c.variant, c.weighting))
        if c.references == "m2" and corpus.m2 is None:
            raise InputError(f"{self.name}:references=m2 needs gold edits: pass --m2 FILE.m2")
        key = ("cleme-chunks", c.variant, c.weighting, c.model, c.references, c.max_tokens,
               c.cache)
        return corpus.cached(key, lambda: chunk_counts(
            corpus, c.variant, c.weighting, c.model, c.references, c.max_tokens, c.cache,
            self.name))


class Cleme(_ChunkMetric):
    """CLEME chunk-level F_beta (dependent or independent), as THUKElab/CLEME computes it."""

    name: ClassVar[str] = "cleme"
    description: ClassVar[str] = (
        "CLEME chunk-level F-score (Ye et al. 2023; THUKElab/CLEME); --m2 or -r; beta (0.5), "
        "variant (dependent|independent), weighting (length|none), model, references, "
        "max_tokens; needs the errant extra")
    Config = ClemeConfig
    config: ClemeConfig
    has_beta: ClassVar[bool] = True

    @property
    def display_name(self) -> str:
        return "CLEME" if self.config.variant == "dependent" else "CLEME-ind"

    def statistics(self, corpus: Corpus) -> ClemeStatistics:
        return self.cached_statistics(corpus, lambda: ClemeStatistics(self._chunks(corpus)))


@dataclass(frozen=True)
class Cleme2Config(MetricConfig):
    variant: Variant = "dependent"
    weighting: Weighting = "none"
    hit: float = HEUO_DEFAULTS[0]
    wrong: float = HEUO_DEFAULTS[1]
    under: float = HEUO_DEFAULTS[2]
    over: float = HEUO_DEFAULTS[3]
    model: str = ""
    references: ReferenceSource = "auto"
    max_tokens: int = MAX_TOKENS
    cache: bool = True
    edits: ErrantEdits = field(default="errant", metadata=SIGNED_WHEN_SET)

    def validate(self) -> None:
        _check_common("cleme2", self.variant, self.weighting, self.references,
                      self.max_tokens, self.cache, self.model)
        check_edits_option("cleme2", self.edits, "errant", self.references, self.model)
        factors = (self.hit, self.wrong, self.under, self.over)
        if any(not isinstance(x, (int, float)) or isinstance(x, bool) or not 0 <= x <= 1
               for x in factors):
            raise ConfigError(f"cleme2 options hit, wrong, under, over must be numbers in [0, 1] "
                              f"(got {factors})")
        if abs(sum(factors) - 1.0) > 1e-5:
            raise ConfigError(f"cleme2 options hit, wrong, under, over must sum to 1 "
                              f"(got {sum(factors):g}); e.g. "
                              "hit=0.45,wrong=0.35,under=0.15,over=0.05")


class Cleme2(_ChunkMetric):
    """CLEME2.0: hit-, wrong-, under- and over-correction on CLEME's chunks, combined."""

    name: ClassVar[str] = "cleme2"
    description: ClassVar[str] = (
        "CLEME2.0 chunk-level hit/wrong/under/over-correction score (Ye et al. 2024; "
        "THUKElab/CLEME); --m2 or -r; variant, weighting (none|length), hit/wrong/under/over "
        "factors (0.45/0.35/0.15/0.05); needs the errant extra")
    Config = Cleme2Config
    config: Cleme2Config

    @property
    def display_name(self) -> str:
        return "CLEME2" if self.config.variant == "dependent" else "CLEME2-ind"

    def statistics(self, corpus: Corpus) -> Cleme2Statistics:
        c = self.config
        return self.cached_statistics(corpus, lambda: Cleme2Statistics(
            self._chunks(corpus), (c.hit, c.wrong, c.under, c.over)))
