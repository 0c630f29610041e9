"""Edit counts per (system, sentence, annotator), and every score made from them.

Counts are kept unsummed, so that a beta sweep re-runs only the annotator
choice (:mod:`gecmetrics.edits.choice`) and a bootstrap resample or a subset
of sentences is a gather and a sum. Scores over a subset or a resample reuse
the choice made on the full corpus.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..fscore import f_beta, prf
from ..metric import Score, Statistics
from .choice import CHOICE_RULES, MANY_RULES

#: The fewest betas that :meth:`EditStatistics.precompute` chooses for at once: the
#: vectorised walk costs about as much as 2 betas of the per-beta rule in Python
#: (CoNLL-2014, 13 systems: 0.07 s against 0.035 s a beta), then 0.5 ms a beta.
MANY_MIN_BETAS = 3

#: Betas per walk of :meth:`EditStatistics.precompute`: bounds its (systems, betas)
#: work arrays and its (betas, systems, sentences) result block.
PRECOMPUTE_BETAS = 256

ByType = dict[tuple[int, int, int], dict[str, tuple[int, int, int]]]


@dataclass
class EditCounts:
    """TP, FP, FN per (system, sentence, annotator) and which annotators each sentence has.

    ``tp``, ``fp``, ``fn``: integer arrays (H, D, A); ``present``: bool (D, A)
    (an annotator absent from a sentence is never chosen for it);
    ``annotators``: the annotator ids of axis A (default 0..A-1). ``by_type``
    optionally maps (system, sentence, annotator index) to
    {type: (tp, fp, fn)} for per-type scores.
    """

    systems: tuple[str, ...]
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    present: np.ndarray
    annotators: tuple[int, ...] = ()
    by_type: ByType | None = None

    def __post_init__(self) -> None:
        self.tp = np.asarray(self.tp, dtype=np.int64)
        self.fp = np.asarray(self.fp, dtype=np.int64)
        self.fn = np.asarray(self.fn, dtype=np.int64)
        self.present = np.asarray(self.present, dtype=bool)
        if not (self.tp.shape == self.fp.shape == self.fn.shape) or self.tp.ndim != 3:
            raise ValueError("tp, fp, fn must have the same shape (systems, sentences, annotators)")
        if self.present.shape != self.tp.shape[1:]:
            raise ValueError("present must have shape (sentences, annotators)")
        if len(self.systems) != self.tp.shape[0]:
            raise ValueError("one system name per row of the counts")
        if not self.annotators:
            self.annotators = tuple(range(self.tp.shape[2]))
        if len(self.annotators) != self.tp.shape[2]:
            raise ValueError("one annotator id per column of the counts")
        if not self.present.any(axis=1).all():
            raise ValueError("every sentence needs at least one annotator")


class EditStatistics(Statistics):
    """Scores of every system from per-(system, sentence, annotator) edit counts.

    ``rule`` names the annotator choice rule (a key of
    :data:`~gecmetrics.edits.choice.CHOICE_RULES`). Corpus scores carry
    the summed ``TP``, ``FP``, ``FN`` in their details, and ``per_type``
    when the counts have types.
    """

    default_beta = 0.5  # the beta of M2 and ERRANT; their instances bind their own

    def __init__(self, counts: EditCounts, rule: str = "m2") -> None:
        if rule not in CHOICE_RULES:
            raise ConfigError(f"unknown annotator choice rule {rule!r}; "
                              f"choose one of: {', '.join(CHOICE_RULES)}")
        self.counts = counts
        self.systems = counts.systems
        self.rule = rule
        self._choice: dict[tuple[float, bool], np.ndarray] = {}
        self._stacked: tuple[float, np.ndarray] | None = None
        # The choice rules loop in Python: plain ints are faster there than numpy scalars.
        self._lists = [(counts.tp[h].tolist(), counts.fp[h].tolist(), counts.fn[h].tolist())
                       for h in range(len(counts.systems))]
        self._present = counts.present.tolist()

    def choice(self, beta: float, running: bool = True) -> np.ndarray:
        """Chosen annotator index (axis A) per (system, sentence): shape (H, D).

        ``running=True`` is the corpus rule (running totals); ``False`` chooses
        each sentence on its own (sentence-level scores).
        """
        key = (float(beta), running)
        if key not in self._choice:
            choose = CHOICE_RULES[self.rule]
            # A Python float: with a numpy beta the M2 rule's 0/0 would be NaN (a
            # warning, and a different choice) instead of the official 1.0.
            rows = [choose(tp, fp, fn, self._present, key[0], running)
                    for tp, fp, fn in self._lists]
            self._choice[key] = np.array(rows, dtype=np.int64).reshape(len(self.systems), -1)
        return self._choice[key].astype(np.int64, copy=False)

    def precompute(self, betas, running: bool = True) -> None:
        """The annotator choice for many betas at once (a beta sweep), when the rule
        has a vectorised form (:data:`~gecmetrics.edits.choice.MANY_RULES`): one
        walk over the sentences for every beta instead of one per beta."""
        many = MANY_RULES.get(self.rule)
        todo = sorted({float(b) for b in betas if b is not None}
                      - {b for b, r in self._choice if r == running})
        if many is None or len(todo) < MANY_MIN_BETAS:
            return  # choice() makes them one by one, faster for so few
        c = self.counts
        for start in range(0, len(todo), PRECOMPUTE_BETAS):
            part = todo[start:start + PRECOMPUTE_BETAS]
            # kept as the smallest integer type that holds an annotator index
            # (int8 for up to 128 annotators): 501 betas of choices stay small
            rows = many(c.tp, c.fp, c.fn, c.present, part, running).astype(
                np.min_scalar_type(max(c.tp.shape[2] - 1, 0)))
            for b, row in zip(part, rows, strict=True):
                self._choice[(b, running)] = row

    def chosen(self, beta: float, running: bool = True
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """TP, FP, FN of the chosen annotators, each (H, D)."""
        ch = self.choice(beta, running)[..., None]
        c = self.counts
        tp, fp, fn = (np.take_along_axis(x, ch, axis=2)[..., 0] for x in (c.tp, c.fp, c.fn))
        return tp, fp, fn

    def totals(self, beta: float, sentences: np.ndarray | None = None) -> np.ndarray:
        """Summed TP, FP, FN of the corpus choice per system, shape (H, 3),
        over ``sentences`` (indices, repeats allowed) or all of them."""
        # A bootstrap asks for one beta thousands of times: keep that beta's
        # chosen counts (one beta only, so that a sweep does not pile them up).
        if self._stacked is None or self._stacked[0] != float(beta):
            self._stacked = (float(beta), np.stack(self.chosen(beta), axis=2))
        stacked = self._stacked[1]
        if sentences is not None:
            stacked = stacked[:, np.asarray(sentences, dtype=np.int64)]
        return stacked.sum(axis=1)

    def corpus(self, beta: float | None, sentences: np.ndarray | None = None) -> list[Score]:
        beta = self.resolve_beta(beta)
        out = []
        for h, (t, f_, n) in enumerate(self.totals(beta, sentences).tolist()):
            p, r, f = prf(t, f_, n, beta)
            details: dict[str, Any] = {"TP": t, "FP": f_, "FN": n}
            if self.counts.by_type is not None and sentences is None:
                details["per_type"] = self.per_type(h, beta)
            out.append(Score(f, p, r, details))
        return out

    def corpus_scores(self, beta: float | None, sentences: np.ndarray | None = None) -> np.ndarray:
        beta = self.resolve_beta(beta)
        return np.array([prf(t, f_, n, beta)[2]
                         for t, f_, n in self.totals(beta, sentences).tolist()])

    def sentence_statistics(self, beta: float | None):
        """TP, FP, FN of the annotators chosen on the full corpus, (H, D, 3), and
        :func:`~gecmetrics.fscore.prf`'s F from their sums, element-wise with the
        same operations (:func:`~gecmetrics.fscore.f_beta`; see
        :meth:`Statistics.sentence_statistics`)."""
        beta = self.resolve_beta(beta)

        def formula(sums: np.ndarray) -> np.ndarray:
            return f_beta(sums[..., 0], sums[..., 1], sums[..., 2], beta)

        return np.stack(self.chosen(beta), axis=2), formula

    def sentence(self, beta: float | None) -> np.ndarray:
        """Per sentence F with the best annotator for that sentence alone.

        A sentence with no hypothesis edit and no gold edit scores 1.0 (P = R = 1).
        """
        beta = self.resolve_beta(beta)
        tp, fp, fn = self.chosen(beta, running=False)
        return f_beta(tp, fp, fn, beta)  # prf's F, the same operations and bits

    def per_type(self, h: int, beta: float) -> dict[str, dict[str, float]]:
        """Per error type TP, FP, FN, P, R, F of system ``h`` (chosen annotators)."""
        if self.counts.by_type is None:
            return {}
        choice = self.choice(beta)[h]
        totals: dict[str, list[int]] = {}
        for d, a in enumerate(choice.tolist()):
            for typ, (t, f_, n) in self.counts.by_type.get((h, d, a), {}).items():
                acc = totals.setdefault(typ, [0, 0, 0])
                acc[0] += t
                acc[1] += f_
                acc[2] += n
        out = {}
        for typ in sorted(totals):
            t, f_, n = totals[typ]
            p, r, f = prf(t, f_, n, beta)
            out[typ] = {"TP": t, "FP": f_, "FN": n, "precision": p, "recall": r, "f": f}
        return out
