"""Edit-based metrics: the adapter interface shared by M2, ERRANT and plug-ins.

An edit-based metric has two parts:

* an **edit extractor**, which finds the hypothesis edits of a sentence
  against its source (given the gold edits when the method needs them, as
  M2's lattice does), and
* a **scorer**, which counts TP, FP and FN between the hypothesis edits and
  each annotator's gold edits, chooses one annotator per sentence and turns
  the chosen counts into P, R and F_beta.

The counts are kept per (system, sentence, annotator), unsummed, in
:class:`EditCounts`; :class:`EditStatistics` makes every score from them, so
a beta sweep or a bootstrap resample is a cheap sum. Annotator choice rules
(:data:`CHOICE_RULES`) are those of the official tools:

``m2``
    the NUS M2 scorer: sentence by sentence, the annotator that maximises
    the *running corpus* F_beta (totals so far plus this sentence); ties go
    to more correct edits, then to the smaller ``proposed + beta^2 * gold``,
    then to the first annotator.
``errant``
    ERRANT's ``compare_m2``: the same running-F choice, with F rounded to 4
    decimals as errant's ``computeFScore`` does (so F values that differ only
    beyond the 4th decimal tie); ties to more TP, then fewer FP, then fewer
    FN, then the first annotator.

Because the choice depends on the running totals, it is made once per beta
over the whole corpus in its order; scores over a subset or a bootstrap
resample of sentences reuse the choice made on the full corpus (a sum).

A new edit-based metric subclasses :class:`EditMetric` and implements
:meth:`EditMetric.edit_counts` (or uses :class:`ExtractAndMatch` with an
extractor and a matcher); an external tool (a command or a library) plugs in
the same way through :class:`CommandEditScorer`.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np

from .corpus import Corpus
from .errors import ConfigError, InputError
from .metric import C, Metric, Score, Statistics
from .span_edit import SpanEdit

# --------------------------------------------------------------------------
# The two halves of the interface (SpanEdit, the edit type, is in span_edit.py)


class EditExtractor(Protocol):
    """Finds the hypothesis edits of one sentence.

    ``gold`` is one annotator's edits, for methods that use them (M2 picks,
    among equally short alignments, the edits that match the gold ones);
    extractors that do not need them ignore it.
    """

    def extract(self, source: str, hypothesis: str,
                gold: Sequence[SpanEdit] | None = None) -> list[SpanEdit]: ...


class EditMatcher(Protocol):
    """Counts (TP, FP, FN) of hypothesis edits against one annotator's gold edits."""

    def match(self, hyp: Sequence[SpanEdit], gold: Sequence[SpanEdit]) -> tuple[int, int, int]: ...


# --------------------------------------------------------------------------
# Counts


@dataclass
class EditCounts:
    """TP, FP, FN per (system, sentence, annotator) and which annotators each sentence has.

    ``tp``, ``fp``, ``fn``: integer arrays (H, D, A); ``present``: bool (D, A)
    (an annotator absent from a sentence is never chosen for it);
    ``annotators``: the annotator ids of axis A. ``by_type`` optionally maps
    (system, sentence, annotator) to {type: (tp, fp, fn)} for per-type scores.
    """

    systems: tuple[str, ...]
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    present: np.ndarray
    annotators: tuple[int, ...] = ()
    by_type: dict[tuple[int, int, int], dict[str, tuple[int, int, int]]] | None = None

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
        if not self.present.any(axis=1).all():
            raise ValueError("every sentence needs at least one annotator")


# --------------------------------------------------------------------------
# F-scores as the official tools compute them


def m2_running_f(c: float, e: float, g: float, beta: float) -> float:
    """The official M2 scorer's ``comp_f1``: (1+b^2) c / (b^2 g + e); 0/0 -> 1 if c == 0."""
    try:
        return (1 + beta * beta) * c / (beta * beta * g + e)
    except ZeroDivisionError:
        return 1.0 if c == 0 else 0.0


def prf(tp: float, fp: float, fn: float, beta: float) -> tuple[float, float, float]:
    """P, R, F: P = 1 with no proposed edit, R = 1 with no gold edit, F = 0 when P = R = 0.

    The M2 scorer and ERRANT both compute corpus scores this way.
    """
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    b2 = beta * beta
    f = (1 + b2) * p * r / (b2 * p + r) if (b2 * p + r) else 0.0
    return p, r, f


def _choose_m2(tp, fp, fn, present, beta: float, running: bool) -> list[int]:
    """Official M2 choice for one system (lists of per-annotator counts per sentence)."""
    b2 = beta * beta
    c = e = g = 0.0
    out = []
    for d in range(len(tp)):
        best = None
        chosen = -1
        for a in range(len(tp[d])):
            if not present[d][a]:
                continue
            lc = (c if running else 0.0) + tp[d][a]
            le = (e if running else 0.0) + tp[d][a] + fp[d][a]
            lg = (g if running else 0.0) + tp[d][a] + fn[d][a]
            f = m2_running_f(lc, le, lg, beta)
            if best is None or f > best[0] or (f == best[0] and lc > best[1]) or (
                    f == best[0] and lc == best[1] and best[2] + b2 * best[3] > le + b2 * lg):
                best = (f, lc, le, lg)
                chosen = a
        out.append(chosen)
        a = chosen
        c += tp[d][a]
        e += tp[d][a] + fp[d][a]
        g += tp[d][a] + fn[d][a]
    return out


def _choose_errant(tp, fp, fn, present, beta: float, running: bool) -> list[int]:
    """ERRANT ``compare_m2`` choice for one system."""
    T = F = N = 0
    out = []
    for d in range(len(tp)):
        best = None
        chosen = -1
        for a in range(len(tp[d])):
            if not present[d][a]:
                continue
            t, f_, n = tp[d][a], fp[d][a], fn[d][a]
            # errant's computeFScore rounds F to 4 decimals before comparing it.
            if running:
                f = round(prf(T + t, F + f_, N + n, beta)[2], 4)
            else:
                f = round(prf(t, f_, n, beta)[2], 4)
            if best is None or f > best[0] or (f == best[0] and t > best[1]) or (
                    f == best[0] and t == best[1] and f_ < best[2]) or (
                    f == best[0] and t == best[1] and f_ == best[2] and n < best[3]):
                best = (f, t, f_, n)
                chosen = a
        out.append(chosen)
        T += tp[d][chosen]
        F += fp[d][chosen]
        N += fn[d][chosen]
    return out


CHOICE_RULES: dict[str, Callable[..., list[int]]] = {"m2": _choose_m2, "errant": _choose_errant}


# --------------------------------------------------------------------------
# Statistics


class EditStatistics(Statistics):
    """Scores of every system from per-(system, sentence, annotator) edit counts."""

    default_beta = 0.5  # the beta of M2 and ERRANT; their instances bind their own

    def __init__(self, counts: EditCounts, rule: str = "m2") -> None:
        if rule not in CHOICE_RULES:
            raise ConfigError(f"unknown annotator choice rule {rule!r}; "
                              f"choose one of: {', '.join(CHOICE_RULES)}")
        self.counts = counts
        self.systems = counts.systems
        self.rule = rule
        self._choice: dict[tuple[float, bool], np.ndarray] = {}
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
            rows = [choose(tp, fp, fn, self._present, beta, running)
                    for tp, fp, fn in self._lists]
            self._choice[key] = np.array(rows, dtype=np.int64).reshape(len(self.systems), -1)
        return self._choice[key]

    def chosen(self, beta: float, running: bool = True):
        """TP, FP, FN of the chosen annotators, each (H, D)."""
        ch = self.choice(beta, running)[..., None]
        c = self.counts
        return tuple(np.take_along_axis(x, ch, axis=2)[..., 0] for x in (c.tp, c.fp, c.fn))

    def corpus(self, beta: float | None, sentences: np.ndarray | None = None) -> list[Score]:
        beta = self.resolve_beta(beta)
        tp, fp, fn = self.chosen(beta)
        if sentences is not None:
            idx = np.asarray(sentences, dtype=np.int64)
            tp, fp, fn = tp[:, idx], fp[:, idx], fn[:, idx]
        out = []
        for h in range(len(self.systems)):
            t, f_, n = int(tp[h].sum()), int(fp[h].sum()), int(fn[h].sum())
            p, r, f = prf(t, f_, n, beta)
            details: dict[str, Any] = {"TP": t, "FP": f_, "FN": n}
            if self.counts.by_type is not None and sentences is None:
                details["per_type"] = self.per_type(h, beta)
            out.append(Score(f, p, r, details))
        return out

    def corpus_scores(self, beta: float | None, sentences: np.ndarray | None = None) -> np.ndarray:
        beta = self.resolve_beta(beta)
        tp, fp, fn = self.chosen(beta)
        if sentences is not None:
            idx = np.asarray(sentences, dtype=np.int64)
            tp, fp, fn = tp[:, idx], fp[:, idx], fn[:, idx]
        return np.array([prf(int(a), int(b), int(c), beta)[2]
                         for a, b, c in zip(tp.sum(1), fp.sum(1), fn.sum(1), strict=True)])

    def sentence(self, beta: float | None) -> np.ndarray:
        """Per sentence F with the best annotator for that sentence alone.

        A sentence with no hypothesis edit and no gold edit scores 1.0 (P = R = 1).
        """
        beta = self.resolve_beta(beta)
        tp, fp, fn = self.chosen(beta, running=False)
        out = np.empty(tp.shape, dtype=np.float64)
        for idx in np.ndindex(tp.shape):
            out[idx] = prf(int(tp[idx]), int(fp[idx]), int(fn[idx]), beta)[2]
        return out

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


# --------------------------------------------------------------------------
# Metrics


class EditMetric(Metric[C]):
    """Base of edit-based metrics: subclasses implement :meth:`edit_counts`.

    References come as M2 annotations (``corpus.m2``, e.g. from ``--m2``);
    subclasses that can work from plain-text references say so with
    ``accepts_text_references``.
    """

    has_beta: ClassVar[bool] = True
    choice_rule: ClassVar[str] = "m2"
    accepts_text_references: ClassVar[bool] = False

    @abstractmethod
    def edit_counts(self, corpus: Corpus) -> EditCounts:
        """TP, FP, FN of every (system, sentence, annotator) of ``corpus``."""

    def statistics(self, corpus: Corpus) -> EditStatistics:
        if corpus.m2 is None and not self.accepts_text_references:
            raise InputError(
                f"metric {self.name!r} needs gold edits: give the references as an M2 file "
                "(`gecmetrics score --m2 FILE.m2` instead of -r); benchmarks with text "
                "references only (GMEG) cannot be scored with it"
            )
        return self.cached_statistics(
            corpus, lambda: EditStatistics(self.edit_counts(corpus), self.choice_rule))


def gold_of(corpus: Corpus) -> list[dict[int, list]]:
    """Per sentence, {annotator: [official gold edits]}, checked against the corpus sources."""
    m2 = corpus.m2
    if len(m2.sentences) != corpus.num_sentences:
        raise InputError(f"the M2 file {m2.path} has {len(m2.sentences)} sentences but the "
                         f"source has {corpus.num_sentences}; use the M2 file of this test set")
    return [s.official_gold() for s in m2.sentences]


def counts_from_function(corpus: Corpus, annotators: Sequence[int],
                         sentence_counts: Callable[[int, int], Mapping[int, tuple[int, int, int]]],
                         ) -> EditCounts:
    """Build :class:`EditCounts` from ``sentence_counts(h, d) -> {annotator: (tp, fp, fn)}``."""
    H, D, A = len(corpus.hypotheses), corpus.num_sentences, len(annotators)
    col = {a: k for k, a in enumerate(annotators)}
    tp = np.zeros((H, D, A), dtype=np.int64)
    fp = np.zeros_like(tp)
    fn = np.zeros_like(tp)
    present = np.zeros((D, A), dtype=bool)
    for h in range(H):
        for d in range(D):
            for a, (t, f_, n) in sentence_counts(h, d).items():
                k = col[a]
                tp[h, d, k], fp[h, d, k], fn[h, d, k] = t, f_, n
                present[d, k] = True
    return EditCounts(tuple(corpus.hypotheses), tp, fp, fn, present, tuple(annotators))


@dataclass
class ExtractAndMatch:
    """An edit scorer made of an extractor and a matcher (the common case)."""

    extractor: EditExtractor
    matcher: EditMatcher
    gold_aware: bool = False
    _cache: dict = field(default_factory=dict, repr=False)

    def counts(self, corpus: Corpus, golds: Sequence[Mapping[int, Sequence[SpanEdit]]],
               annotators: Sequence[int]) -> EditCounts:
        names = list(corpus.hypotheses)

        def one(h: int, d: int) -> dict[int, tuple[int, int, int]]:
            src, hyp = corpus.sources[d], corpus.hypotheses[names[h]][d]
            out = {}
            for a, gold in golds[d].items():
                key = (src, hyp, tuple(gold) if self.gold_aware else None)
                if key not in self._cache:
                    self._cache[key] = self.extractor.extract(
                        src, hyp, gold if self.gold_aware else None)
                out[a] = self.matcher.match(self._cache[key], gold)
            return out

        return counts_from_function(corpus, annotators, one)


# --------------------------------------------------------------------------
# External scorers


class CommandEditScorer:
    """Runs an external command per system and reads its per-sentence counts.

    ``command`` is a shell-style template with the placeholders ``{source}``,
    ``{hypothesis}`` and ``{m2}`` (paths of files written for the run). The
    command prints one line per (sentence, annotator) it scores::

        SENTENCE_INDEX ANNOTATOR TP FP FN

    (0-based sentence index, whitespace-separated integers); lines starting
    with ``#`` are ignored. Every sentence needs at least one line.
    """

    def __init__(self, command: str, timeout: float | None = None) -> None:
        if not command.strip():
            raise ConfigError("an external edit scorer needs a command, e.g. "
                              "command='mytool --src {source} --hyp {hypothesis} --m2 {m2}'")
        self.command = command
        self.timeout = timeout

    def counts(self, corpus: Corpus) -> EditCounts:
        if corpus.m2 is None:
            raise InputError("the external edit scorer needs gold edits: pass --m2 FILE.m2")
        rows: dict[tuple[int, int, int], tuple[int, int, int]] = {}
        ann_ids: set[int] = set()
        with tempfile.TemporaryDirectory(prefix="gecmetrics-") as tmp:
            src_path = os.path.join(tmp, "source.txt")
            with open(src_path, "w", encoding="utf-8") as out:
                out.write("".join(s + "\n" for s in corpus.sources))
            for h, (name, lines) in enumerate(corpus.hypotheses.items()):
                hyp_path = os.path.join(tmp, f"hyp{h}.txt")
                with open(hyp_path, "w", encoding="utf-8") as out:
                    out.write("".join(s + "\n" for s in lines))
                args = [part.format(source=src_path, hypothesis=hyp_path, m2=corpus.m2.path)
                        for part in shlex.split(self.command)]
                try:
                    run = subprocess.run(args, capture_output=True, text=True,
                                         timeout=self.timeout, check=False)
                except FileNotFoundError:
                    raise ConfigError(f"external scorer command not found: {args[0]}") from None
                if run.returncode != 0:
                    last = (run.stderr.strip().splitlines() or ["(no message)"])[-1]
                    raise InputError(f"external scorer failed on {name} "
                                     f"(exit {run.returncode}): {last}")
                for number, line in enumerate(run.stdout.splitlines(), start=1):
                    if not line.strip() or line.startswith("#"):
                        continue
                    try:
                        d, a, t, f_, n = (int(x) for x in line.split())
                    except ValueError:
                        raise InputError(
                            f"external scorer output line {number} for {name} is {line!r}; "
                            "expected 'SENTENCE ANNOTATOR TP FP FN' (integers)") from None
                    if not 0 <= d < corpus.num_sentences:
                        raise InputError(f"external scorer gave sentence index {d} for {name}; "
                                         f"the corpus has {corpus.num_sentences} sentences")
                    rows[(h, d, a)] = (t, f_, n)
                    ann_ids.add(a)
        annotators = sorted(ann_ids)
        col = {a: k for k, a in enumerate(annotators)}
        H, D, A = len(corpus.hypotheses), corpus.num_sentences, max(len(annotators), 1)
        tp = np.zeros((H, D, A), dtype=np.int64)
        fp = np.zeros_like(tp)
        fn = np.zeros_like(tp)
        present = np.zeros((D, A), dtype=bool)
        seen = np.zeros((H, D), dtype=bool)
        for (h, d, a), (t, f_, n) in rows.items():
            tp[h, d, col[a]], fp[h, d, col[a]], fn[h, d, col[a]] = t, f_, n
            present[d, col[a]] = True
            seen[h, d] = True
        missing = np.argwhere(~seen)
        if len(missing):
            h, d = missing[0]
            raise InputError(f"external scorer gave no counts for sentence {d} of "
                             f"{list(corpus.hypotheses)[h]}")
        return EditCounts(tuple(corpus.hypotheses), tp, fp, fn, present, tuple(annotators))
