"""I-measure (Felice and Briscoe, NAACL 2015), exact to the official ``ieval.py``.

Source, hypothesis and each candidate reference are aligned token by token
(:mod:`gecmetrics.metrics.imeasure_align`); every column is a TP, TN, FP, FN
(and FPN, a wrong correction of a detected error, counted as both FP and
FN), for detection and for correction. Weighted accuracy (weight ``w``)::

    WAcc = (w TP + TN) / (w (TP + FP) + TN + FN - (w + 1) FPN / 2)

and the I-measure is the improvement of the hypothesis's WAcc over the
baseline's (the source left as it is, aligned with the same reference)::

    I = floor(WAcc_sys)                        if WAcc_sys = WAcc_base
        (WAcc_sys - WAcc_base) / (1 - WAcc_base)  if WAcc_sys > WAcc_base
        WAcc_sys / WAcc_base - 1                  otherwise

(in [-1, 1]; 0 is no change, 1 a perfect correction). For each sentence the
reference (among the candidates of :mod:`gecmetrics.metrics.imeasure_gold`)
that maximises the sentence's correction WAcc is used, ties broken by
correction I, correction Acc, then detection WAcc, I and Acc, then the first
candidate (the tool's default ``-max:cwacc -opt:sent``). The corpus score is
the formula on the counts summed over sentences (system and baseline
separately). The choice is per sentence, so the statistics are the chosen
counts per (system, sentence) and a resample is a gather and a sum.

The score is correction I; detection I, WAcc, Acc, P, R and F_1 (the tool's
other columns) are in the details. Options: ``weight`` (2), ``mix`` (true:
mix the annotators' corrections into every combination, the tool's default;
false: one reference per annotator, the tool's ``-nomix``) and
``max_references`` (the most combinations one sentence may have with mix;
more is an error, see :mod:`~gecmetrics.metrics.imeasure_gold`). See
docs/metrics/imeasure.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from gecmetrics import kernels
from gecmetrics.corpus import Corpus
from gecmetrics.edits.metric import checked_m2
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.fscore import prf
from gecmetrics.metric import Metric, MetricConfig, Score, Statistics

from .imeasure_align import MAX_ALIGNMENT_CELLS, alignment_cells
from .imeasure_align import alignment_counts as _python_counts
from .imeasure_gold import candidates, gold_errors

try:  # the compiled kernel; the pure-Python code above gives the same counts
    from ._imeasure_kernel import alignment_counts as _fast_counts
except ImportError:  # pragma: no cover (a build without a C compiler)
    _fast_counts = None

#: Index of the counts along the last axis of the statistics.
TP, TN, FP, FN, FPN = range(5)
ASPECTS = ("detection", "correction")


@dataclass(frozen=True)
class ImeasureConfig(MetricConfig):
    weight: float = 2.0
    mix: bool = True
    max_references: int = 4096

    def validate(self) -> None:
        w = self.weight
        if isinstance(w, bool) or not isinstance(w, int | float) or not math.isfinite(w) or w <= 0:
            raise ConfigError(f"imeasure option weight must be a number > 0 (got {w!r})")
        if not isinstance(self.mix, bool):
            raise ConfigError("imeasure option mix must be true or false")
        m = self.max_references
        if not isinstance(m, int) or isinstance(m, bool) or m < 1:
            raise ConfigError(f"imeasure option max_references must be an integer >= 1 (got {m!r})")


def wacc(c: Any, w: float) -> float:
    """Weighted accuracy of counts ``c`` (TP, TN, FP, FN, FPN), as ``compute_wacc``."""
    tp, tn, fp, fn, fpn = (int(x) for x in c)
    return float(w * tp + tn) / (w * (tp + fp) + tn + fn - (w + 1) * (float(fpn) / 2))


def accuracy(c: Any) -> float:
    tp, tn, fp, fn, fpn = (int(x) for x in c)
    return float(tp + tn) / (tp + tn + fp + fn - fpn)


def improvement(wacc_sys: float, wacc_base: float) -> float:
    """I from the two weighted accuracies, as ``compute_i`` (floor when equal: 1 or 0)."""
    if wacc_sys == wacc_base:
        return float(math.floor(wacc_sys))
    if wacc_sys > wacc_base:
        return (wacc_sys - wacc_base) / (1.0 - wacc_base)
    return wacc_sys / wacc_base - 1.0


def breakdown(sys_counts: np.ndarray, base_counts: np.ndarray, w: float) -> dict[str, Any]:
    """The tool's columns for one (2, 5) pair of count arrays (detection, correction)."""
    out: dict[str, Any] = {}
    for a, aspect in enumerate(ASPECTS):
        c, b = sys_counts[a], base_counts[a]
        ws, wb = wacc(c, w), wacc(b, w)
        p, r, f = prf(int(c[TP]), int(c[FP]), int(c[FN]), 1.0)
        out[aspect] = {
            "TP": int(c[TP]), "TN": int(c[TN]), "FP": int(c[FP]), "FN": int(c[FN]),
            "FPN": int(c[FPN]), "precision": p, "recall": r, "f1": f,
            "acc": accuracy(c), "acc_base": accuracy(b), "wacc": ws, "wacc_base": wb,
            "I": improvement(ws, wb),
        }
    return out


class ImeasureStatistics(Statistics):
    """Chosen counts per (system, sentence): ``sys`` and ``base``, each (H, D, 2, 5).

    Axis 2 is detection, correction; axis 3 TP, TN, FP, FN, FPN. ``base`` is
    the source aligned with the reference chosen for that system.
    """

    def __init__(self, systems: tuple[str, ...], sys: np.ndarray, base: np.ndarray,
                 weight: float) -> None:
        self.systems = systems
        self.sys = sys
        self.base = base
        self.weight = weight

    def _totals(self, sentences: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        s, b = self.sys, self.base
        if sentences is not None:
            idx = np.asarray(sentences, dtype=np.int64)
            s, b = s[:, idx], b[:, idx]
        return s.sum(axis=1), b.sum(axis=1)

    def corpus(self, beta: float | None, sentences: np.ndarray | None = None) -> list[Score]:
        s, b = self._totals(sentences)
        out = []
        for h in range(len(self.systems)):
            det = breakdown(s[h], b[h], self.weight)
            c = det["correction"]
            out.append(Score(c["I"], details=det))  # P and R are not what I measures
        return out

    def corpus_scores(self, beta: float | None, sentences: np.ndarray | None = None) -> np.ndarray:
        s, b = self._totals(sentences)
        w = self.weight
        return np.array([improvement(wacc(s[h, 1], w), wacc(b[h, 1], w))
                         for h in range(len(self.systems))])

    def sentence(self, beta: float | None) -> np.ndarray:
        """Correction I of every sentence on its own (the tool's ``-per-sent`` rows)."""
        w = self.weight
        H, D = self.sys.shape[:2]
        out = np.empty((H, D), dtype=np.float64)
        for h in range(H):
            for d in range(D):
                out[h, d] = improvement(wacc(self.sys[h, d, 1], w), wacc(self.base[h, d, 1], w))
        return out


def _key(c: tuple[int, ...], base: tuple[int, ...], w: float) -> tuple[float, ...]:
    """The tool's comparison for ``-max:cwacc``: correction WAcc, I, Acc; detection WAcc, I, Acc."""
    out: list[float] = []
    for a in (1, 0):
        ws, wb = wacc(c[a * 5:a * 5 + 5], w), wacc(base[a * 5:a * 5 + 5], w)
        out += [ws, improvement(ws, wb), accuracy(c[a * 5:a * 5 + 5])]
    return tuple(out)


def _as_pairs(counts: tuple[int, ...]) -> tuple[int, ...]:
    """Kernel order (d_tp, d_tn, d_fp, d_fn, c_tp, c_fp, c_fn, c_fpn) to two rows of five."""
    d_tp, d_tn, d_fp, d_fn, c_tp, c_fp, c_fn, c_fpn = counts
    return (d_tp, d_tn, d_fp, d_fn, 0, c_tp, d_tn, c_fp, c_fn, c_fpn)


def imeasure_counts(corpus: Corpus, weight: float = 2.0, mix: bool = True,
                    max_references: int | None = 4096, fast: bool = True
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Chosen system and baseline counts, each (H, D, 2, 5), by the official rules.

    ``fast=False`` uses the pure-Python alignment (the oracle of the kernel).
    """
    if _fast_counts is None:
        kernels.missing("gecmetrics.metrics._imeasure_kernel")
    count = _fast_counts if (fast and _fast_counts is not None) else _python_counts
    m2 = corpus.m2
    if m2 is None:
        raise InputError("metric 'imeasure' needs gold edits: give the references as an M2 "
                         "file (`gecmetrics score --m2 FILE.m2` instead of -r)")
    checked_m2(corpus)  # the M2 file must be the test set of the source
    H, D = len(corpus.hypotheses), corpus.num_sentences
    sys_out = np.zeros((H, D, 2, 5), dtype=np.int64)
    base_out = np.zeros((H, D, 2, 5), dtype=np.int64)
    hyps = [list(lines) for lines in corpus.hypotheses.values()]
    # All candidates first: a sentence over the budget is an error before the long work.
    all_refs = []
    for d, sent in enumerate(m2.sentences):
        numann, errors = gold_errors([(e.start, e.end, e.type, e.correction, e.annotator)
                                      for e in sent.edits])
        all_refs.append(candidates(sent.source, numann, errors, mix,
                                   max_references if mix else None,
                                   where=f"sentence {d + 1} of {m2.path}: "))
    for d, (sent, refs) in enumerate(zip(m2.sentences, all_refs, strict=True)):
        _check_cells(m2.path, d, sent.source.split(), [lines[d].split() for lines in hyps], refs)
    for d, (sent, refs) in enumerate(zip(m2.sentences, all_refs, strict=True)):
        src_tokens = sent.source.split()
        if not src_tokens and any(not lines[d].split() for lines in hyps) and [] in refs:
            raise InputError(f"imeasure: sentence {d + 1} of {m2.path} is empty in the source, "
                             "a reference and a hypothesis: its weighted accuracy is 0/0; "
                             "remove the empty sentence from the test set")
        ids: dict[str, int] = {}
        src = [ids.setdefault(t, len(ids)) for t in src_tokens]
        ref_ids = [[ids.setdefault(t, len(ids)) for t in ref] for ref in refs]
        bases = [_as_pairs(count(src, src, r)) for r in ref_ids]
        seen: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}
        for h in range(H):
            hyp = tuple(ids.setdefault(t, len(ids)) for t in hyps[h][d].split())
            best = seen.get(hyp)
            if best is None:
                best_key: tuple[float, ...] | None = None
                for r, base in zip(ref_ids, bases, strict=True):
                    c = _as_pairs(count(src, hyp, r))
                    key = _key(c, base, weight)
                    if best_key is None or key > best_key:
                        best_key, best = key, (c, base)
                assert best is not None
                seen[hyp] = best
            sys_out[h, d] = np.asarray(best[0]).reshape(2, 5)
            base_out[h, d] = np.asarray(best[1]).reshape(2, 5)
    return sys_out, base_out


def _check_cells(path: str, d: int, src: list[str], hyps: list[list[str]],
                 refs: list[list[str]]) -> None:
    """Sentence ``d``'s alignments against :data:`MAX_ALIGNMENT_CELLS`, before any is made."""
    for hyp in [src, *hyps]:  # the baseline (the source) and every hypothesis
        for ref in refs:
            cells = alignment_cells(src, hyp, ref)
            if cells > MAX_ALIGNMENT_CELLS:
                raise InputError(
                    f"imeasure: sentence {d + 1} of {path} ({len(src)} source, {len(hyp)} "
                    f"hypothesis, {len(ref)} reference tokens) needs an alignment table of "
                    f"{cells:,} cells, over the budget of {MAX_ALIGNMENT_CELLS:,} (about 460 "
                    "tokens a side when all three differ, 10,000 when two are equal); split "
                    "or shorten the line, or leave imeasure out for this output")


class Imeasure(Metric[ImeasureConfig]):
    """The I-measure, as the official ``ieval.py`` (default options) computes it."""

    name: ClassVar[str] = "imeasure"
    description: ClassVar[str] = (
        "I-measure: improvement in weighted accuracy over the source (Felice & Briscoe 2015; "
        "official ieval.py, exact); needs --m2; weight (2), mix (true), max_references (4096)"
    )
    Config = ImeasureConfig
    config: ImeasureConfig

    def gold_from_m2(self, corpus: Corpus) -> bool:
        """Always the M2 file's edits (the I-measure has no text-reference mode)."""
        return corpus.m2 is not None

    def text_references_problem(self) -> str | None:
        return f"{self.spec} reads gold edits from an M2 file (it has no text-reference mode)"

    @property
    def display_name(self) -> str:
        return "I-measure"

    def statistics(self, corpus: Corpus) -> ImeasureStatistics:
        cfg = self.config

        def compute() -> ImeasureStatistics:
            s, b = imeasure_counts(corpus, float(cfg.weight), cfg.mix, cfg.max_references)
            return ImeasureStatistics(tuple(corpus.hypotheses), s, b, float(cfg.weight))

        return self.cached_statistics(corpus, compute)
