"""The base class of edit-based metrics (M2, ERRANT, external scorers).

An edit-based metric counts TP, FP and FN of the hypothesis edits against
each annotator's gold edits, per (system, sentence, annotator)
(:class:`~gecmetrics.edits_stats.EditCounts`); everything after that (the
annotator choice, P/R/F, betas, resamples) is shared and lives in
:class:`~gecmetrics.edits_stats.EditStatistics`. A subclass therefore only
implements :meth:`EditMetric.edit_counts` and names its choice rule.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar

from .corpus import Corpus
from .edits import SpanEdit
from .edits_stats import EditCounts, EditStatistics
from .errors import InputError
from .metric import C, Metric


class EditMetric(Metric[C]):
    """Base of edit-based metrics: subclasses implement :meth:`edit_counts`.

    References come as M2 annotations (``corpus.m2``, e.g. from ``--m2``);
    subclasses that can work from plain-text references say so with
    ``accepts_text_references``. ``choice_rule`` is ``"m2"`` or ``"errant"``
    (:mod:`gecmetrics.edits_choice`).
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


def gold_of(corpus: Corpus) -> list[dict[int, list[SpanEdit]]]:
    """Per sentence, {annotator: gold edits} as the official M2 scorer reads them.

    Checks first that the corpus's M2 file is the test set of its source
    file (same number of sentences, same tokens on each ``S`` line), since
    counts against another test set's edits would be silently wrong.
    """
    m2 = corpus.m2
    if len(m2.sentences) != corpus.num_sentences:
        raise InputError(f"the M2 file {m2.path} has {len(m2.sentences)} sentences but the "
                         f"source has {corpus.num_sentences}; use the M2 file of this test set")
    for d, sent in enumerate(m2.sentences):
        if corpus.sources[d].split() != sent.source.split():
            raise InputError(
                f"source line {d + 1} differs from the 'S' line of sentence {d + 1} in "
                f"{m2.path}; the source file and the M2 file must be the same test set"
            )
    return [s.official_gold() for s in m2.sentences]
