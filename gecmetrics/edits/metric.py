"""The base class of edit-based metrics (M2, ERRANT, external scorers).

An edit-based metric counts TP, FP and FN of the hypothesis edits against
each annotator's gold edits, per (system, sentence, annotator)
(:class:`~gecmetrics.edits.statistics.EditCounts`); everything after that (the
annotator choice, P/R/F, betas, resamples) is shared and lives in
:class:`~gecmetrics.edits.statistics.EditStatistics`. A subclass therefore only
implements :meth:`EditMetric.edit_counts` and names its choice rule.

``--breakdown`` (:mod:`gecmetrics.breakdown`) asks the metric, not its
class, for what only the metric knows: its counts per error type
(:meth:`EditMetric.type_counts`), where its types come from
(:attr:`EditMetric.types_from_m2_file`) and how many edits a system makes
where an annotator made none (:meth:`EditMetric.fp_without_gold`).
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ..corpus import Corpus
from ..errors import InputError
from ..formatting import plural
from ..metric import C, Metric
from .span import SpanEdit
from .statistics import EditCounts, EditStatistics

if TYPE_CHECKING:
    import numpy as np

    from gecmetrics.m2_format import M2File


@dataclass(frozen=True)
class TypeCounts:
    """One system's counts per error type on the annotators its corpus score chose.

    ``per_type`` maps a type to (TP, FP, FN); FP is None where the metric's
    hypothesis edits have no type (the official M2 scorer's), and then
    ``untyped_fp`` holds the system's FP, not split by type.
    """

    per_type: dict[str, tuple[int, int | None, int]]
    untyped_fp: int | None = None


class EditMetric(Metric[C]):
    """Base of edit-based metrics: subclasses implement :meth:`edit_counts`.

    References come as M2 annotations (``corpus.m2``, e.g. from ``--m2``);
    subclasses that can work from plain-text references say so with
    ``accepts_text_references``. ``choice_rule`` is ``"m2"`` or ``"errant"``
    (:mod:`gecmetrics.edits.choice`).
    """

    has_beta: ClassVar[bool] = True
    choice_rule: ClassVar[str] = "m2"
    accepts_text_references: ClassVar[bool] = False
    #: True when :meth:`type_counts` groups by the M2 file's own types (the
    #: official M2 scorer's: e.g. NUCLE's ``ArtOrDet``) rather than by types
    #: the metric assigns; ``--breakdown cat1``/``cat2`` then check that the
    #: file's types are ERRANT's.
    types_from_m2_file: ClassVar[bool] = False

    def text_references_problem(self) -> str | None:
        if not self.accepts_text_references:
            return f"{self.spec} reads gold edits from an M2 file"
        return super().text_references_problem()

    def gold_from_m2(self, corpus: Corpus) -> bool:
        """The M2 file's edits, when the corpus has one, unless the metric can take text
        references and its ``references`` option asks for them."""
        if corpus.m2 is None:
            return False
        return not self.accepts_text_references or getattr(
            self.config, "references", "auto") != "text"

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

    def type_counts(self, corpus: Corpus, stats: EditStatistics, beta: float
                    ) -> list[TypeCounts] | None:
        """Per system, the counts per error type at ``beta`` (``stats`` is this
        metric's statistics of ``corpus``); None when the metric has no error
        types. By default, the types the counts carry
        (:attr:`EditCounts.by_type <gecmetrics.edits.statistics.EditCounts>`)."""
        if stats.counts.by_type is None:
            return None
        out = []
        for h in range(len(stats.systems)):
            per = stats.per_type(h, beta)
            out.append(TypeCounts({t: (int(v["TP"]), int(v["FP"]), int(v["FN"]))
                                   for t, v in per.items()}))
        return out

    def fp_without_gold(self, corpus: Corpus, sentences: list[int]) -> np.ndarray | None:
        """The edits of every system on ``sentences`` counted as FP against an
        empty gold, shape (systems, len(sentences)): what the metric's tool
        counts against an annotator without ``A`` lines for a sentence. None:
        the metric cannot tell (``--breakdown annotator`` then fails on such
        sentences)."""
        return None


def checked_m2(corpus: Corpus) -> M2File:
    """The corpus's M2 file, checked to be the test set of its source file
    (same number of sentences, same tokens on each ``S`` line), since counts
    against another test set's edits would be silently wrong."""
    m2 = corpus.m2
    if len(m2.sentences) != corpus.num_sentences:
        raise InputError(f"the M2 file {m2.path} has {plural(len(m2.sentences), 'sentence')} "
                         f"but the source has {corpus.num_sentences}; use the M2 file of this "
                         "test set")
    for d, sent in enumerate(m2.sentences):
        if corpus.sources[d].split() != sent.source.split():
            raise InputError(
                f"source line {d + 1} differs from the 'S' line of sentence {d + 1} in "
                f"{m2.path}; the source file and the M2 file must be the same test set"
            )
    return m2


def gold_of(corpus: Corpus) -> list[dict[int, list[SpanEdit]]]:
    """Per sentence, {annotator: gold edits} as the official M2 scorer reads
    them, from the corpus's :func:`checked_m2` file."""
    return [s.official_gold() for s in checked_m2(corpus).sentences]
