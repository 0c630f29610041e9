"""PT-ERRANT (Gong et al., EMNLP 2022): ERRANT's edits weighted by BERTScore.

The ERRANT variant of PT-M2 (:mod:`gecmetrics.metrics.ptm2`): the authors'
``--base errant`` / ``--base senterrant`` (pygongnlp/PT-M2, commit 67ef575,
``errant_score.py``, ``metrics.py``). The edits are ERRANT's instead of the M2
scorer's, taken from the edit layer's ERRANT service
(:mod:`gecmetrics.edits.extraction`, its parse and edit caches included),
and weighted exactly as PT-M2 weighs its own:

For each sentence with source S and each reference a:

1. the reference edits ``G_a`` are ERRANT's between S and the reference
   (the authors run ``errant_parallel -orig SOURCE -cor REF0 REF1 ...``), the
   hypothesis edits ``E`` ERRANT's between S and the hypothesis
   (``errant_parallel`` on the output), each a (start, end, correction) span
   in ERRANT's order; edits typed ``UNK`` are dropped as the authors' reader
   does;
2. the correct edits ``C_a`` are those of ``E`` that the authors'
   ``matchSeq`` matches with an edit of ``G_a`` of the same span and
   correction, scanning ``G_a`` onwards from after the last match (an order
   both lists share, since ERRANT lists edits left to right);
3. every edit e of ``E`` and ``G_a`` weighs ``|BS(S + e, R_a) - BS(S, R_a)|``
   (BERTScore F, as in PT-M2), where ``R_a`` is S with ``G_a`` applied (the
   reference, as the authors' code asserts);
4. weighted (correct, proposed, gold) sums; the annotator choice and the
   three levels are PT-M2's: ``corpus`` = ``--base errant``, ``sentence`` /
   ``mean`` = ``--base senterrant``.

The reference sets are the corpus' references as text (``-r``, or those
derived from ``--m2``), as the authors' ``errant_parallel`` step takes them;
every sentence has every annotator. See docs/metrics/pterrant.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.edits.extraction import (
    MAX_TOKENS,
    Extractor,
    check_lengths,
    hypothesis_pairs,
    pair_edits,
    parsed_texts,
)
from gecmetrics.edits.span import ErrantEdit
from gecmetrics.errors import ConfigError
from gecmetrics.metric import Metric
from gecmetrics.neural.extra import require_transformers

from .ptm2 import (
    BertScoreWeighting,
    Edit,
    FoundEdits,
    WeightedCounts,
    WeightedEditStatistics,
    bert_scorer,
    weigh,
)


@dataclass(frozen=True)
class PTErrantConfig(BertScoreWeighting):
    """The BERTScore options (:class:`BertScoreWeighting`, ``model`` is the
    BERT model) and ERRANT's: ``spacy``, the spaCy pipeline (the ``model``
    option of ``errant``; default: the first installed English one) and
    ``max_tokens``, the longest pair ERRANT aligns
    (:func:`~gecmetrics.edits.extraction.check_lengths`). ``cache`` also
    covers ERRANT's parse and edit caches."""

    metric_name: ClassVar[str] = "pterrant"

    spacy: str = ""
    max_tokens: int = MAX_TOKENS

    def validate(self) -> None:
        super().validate()
        if not isinstance(self.spacy, str):
            raise ConfigError("pterrant option spacy must be the name or path of a spaCy pipeline")
        if (not isinstance(self.max_tokens, int) or isinstance(self.max_tokens, bool)
                or self.max_tokens < 1):
            raise ConfigError(f"pterrant option max_tokens must be an integer >= 1 "
                              f"(got {self.max_tokens!r})")


class PTErrant(Metric[PTErrantConfig]):
    """PT-ERRANT: ERRANT edits weighted by their BERTScore gain (Gong et al., EMNLP 2022)."""

    name: ClassVar[str] = "pterrant"
    extras: ClassVar[tuple[str, ...]] = ("neural", "errant")
    description: ClassVar[str] = (
        "PT-ERRANT: ERRANT edits weighted by BERTScore (Gong et al. 2022; needs the errant "
        "and neural extras); model (bert-base-uncased), layer, beta (0.5), spacy, device, "
        "batch_size, cache; --level mean is the authors' senterrant"
    )
    Config = PTErrantConfig
    config: PTErrantConfig
    has_beta: ClassVar[bool] = True
    accepts_text_references: ClassVar[bool] = True

    def language(self) -> str | None:
        """English: ERRANT's English edits, weighted by an English BERT."""
        return "en"

    @property
    def display_name(self) -> str:
        return "PT-ERRANT"

    def statistics(self, corpus: Corpus) -> WeightedEditStatistics:
        return self.cached_statistics(
            corpus, lambda: WeightedEditStatistics(self.weighted_counts(corpus)))

    def statistics_with(self, corpus: Corpus, scorer: Any) -> WeightedEditStatistics:
        """:meth:`statistics` with another BERTScore (anything with ``f_scores(pairs)``),
        not kept in the corpus cache: for tests and for scorers made by hand."""
        return WeightedEditStatistics(self.weighted_counts(corpus, scorer)).bound(
            self.config.beta)  # type: ignore[return-value]

    def weighted_counts(self, corpus: Corpus, scorer: Any = None) -> WeightedCounts:
        """Weighted counts of every (system, sentence, reference); ERRANT's
        edits first (a too long sentence fails before spaCy or the BERT
        model is loaded), then the BERTScore values."""
        cfg = self.config
        # Before torch is imported (seconds, 250 MB): a too long pair fails at once.
        check_lengths(parsed_texts(corpus, None), cfg.max_tokens, self.name)
        if scorer is None:  # the extra was checked when the metric was made; this import

            require_transformers(self.name)
        with Extractor(cfg.spacy, disk=cfg.cache) as extractor:
            edits = extractor.extract(errant_pairs(corpus), [])
        if scorer is None:
            scorer = bert_scorer(cfg)
        return pterrant_counts(corpus, edits, scorer)


def errant_pairs(corpus: Corpus) -> list[tuple[str, str]]:
    """The (source, other) pairs whose ERRANT edits PT-ERRANT needs: every
    reference, then every hypothesis."""
    return ([(src, ref[d]) for ref in corpus.references for d, src in enumerate(corpus.sources)]
            + hypothesis_pairs(corpus))


def as_edits(errant_edits: Sequence[ErrantEdit], tokens: Sequence[str]) -> list[Edit]:
    """ERRANT's edits as PT-M2's (start, end, original, correction), in
    ERRANT's order, without ``UNK`` edits and repeats (the authors' reader
    keys them by (start, end, correction))."""
    out = [(s, e, " ".join(tokens[s:e]), cor) for s, e, cor, kind in errant_edits
           if kind != "UNK"]
    return list(dict.fromkeys(out))


def match_seq(seq: Sequence[Edit], gold: Sequence[Edit]) -> list[Edit]:
    """The authors' ``errant_score.matchSeq``: each proposed edit is looked
    for among the gold edits after the last one matched (same span and
    correction), once per gold edit it equals."""
    out = []
    last = 0
    for edit in seq:
        for i in range(last, len(gold)):
            if edit == gold[i]:
                out.append(edit)
                last = i + 1
    return out


def pterrant_counts(corpus: Corpus, edits: dict[Any, list[ErrantEdit]],
                    scorer: Any) -> WeightedCounts:
    """Weighted counts from ERRANT's edits of :func:`errant_pairs` (as
    :meth:`Extractor.extract` returns them) and a BERTScore."""
    K, D = len(corpus.references), corpus.num_sentences
    annotators = list(range(K))
    present = np.ones((D, K), dtype=bool)
    src_tokens = [src.split() for src in corpus.sources]
    gold_tuples = [{k: as_edits(pair_edits(edits, src, ref[d]), src_tokens[d])
                    for k, ref in enumerate(corpus.references)}
                   for d, src in enumerate(corpus.sources)]
    found: FoundEdits = {}
    for lines in corpus.hypotheses.values():
        for d, line in enumerate(lines):
            key = (d, tuple(line.split()))
            if key in found:
                continue
            seq = as_edits(pair_edits(edits, corpus.sources[d], line), src_tokens[d])
            found[key] = {k: (seq, match_seq(seq, gold)) for k, gold in gold_tuples[d].items()}
    return weigh(corpus.hypotheses, src_tokens, gold_tuples, found, annotators, present,
                 scorer, "PT-ERRANT BERTScore")
