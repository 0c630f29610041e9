"""The edit layer: edit types, edit counts and their scores, ERRANT's edit extraction.

Edit-based metrics (M2, ERRANT, CLEME, GoToScorer, PT-M2, PT-ERRANT, the
LLM judge's edit prompts, external scorers) share what is here; each module
has one job:

* :mod:`~gecmetrics.edits.span`: the edit types (:class:`~gecmetrics.edits.span.SpanEdit`,
  an M2 gold edit; :data:`~gecmetrics.edits.span.ErrantEdit`, an edit ERRANT extracted);
* :mod:`~gecmetrics.edits.choice`: the annotator choice rules of the official
  M2 scorer and of ERRANT;
* :mod:`~gecmetrics.edits.statistics`: TP/FP/FN per (system, sentence,
  annotator) and every score made from them;
* :mod:`~gecmetrics.edits.metric`: the base class of edit-based metrics and
  what they declare for ``--breakdown``;
* :mod:`~gecmetrics.edits.adapters`: plugging in an external scorer, as a
  Python function or a command (docs/adapters.md);
* :mod:`~gecmetrics.edits.extraction`: ERRANT's edits of (source, other)
  pairs and of M2 annotators, through two disk caches,
  :mod:`~gecmetrics.edits.parse_cache` (spaCy parses) and
  :mod:`~gecmetrics.edits.edit_cache` (extracted edits);
* :mod:`~gecmetrics.edits.neutral`: the language-neutral edits (ERRANT's
  alignment with a character-only cost, merged without a tagger; types M, U,
  R, W), for text references in any language (docs/edits-neutral.md).

P, R and F from counts are :mod:`gecmetrics.fscore`'s. This file imports
nothing, so that reading an M2 file (:mod:`gecmetrics.m2_format`, which needs only
:mod:`~gecmetrics.edits.span`) loads neither numpy nor the metric layer, and
spaCy and errant are imported only when edits are extracted.
"""
