"""A map of the edit-based metric layer, and the edit type it shares with the M2 reader.

:class:`SpanEdit` lives in :mod:`gecmetrics.span_edit`, free of the metric layer, so
that reading an M2 file does not import numpy-backed scoring code; it is
re-exported here. The edit-based metric layer is split by job:

* :mod:`gecmetrics.fscore`: P, R and F from TP/FP/FN as the official tools
  compute them (:func:`~gecmetrics.fscore.prf`,
  :func:`~gecmetrics.fscore.m2_running_f`);
* :mod:`gecmetrics.edits_choice`: the annotator choice rules of the official
  M2 scorer and of ERRANT;
* :mod:`gecmetrics.edits_stats`: counts per (system, sentence, annotator)
  and the scores made from them;
* :mod:`gecmetrics.edits_metric`: the base class of edit-based metrics;
* :mod:`gecmetrics.edits_adapters`: plugging in an external scorer, as a
  Python function or a command (docs/adapters.md).
"""

from .span_edit import SpanEdit

__all__ = ["SpanEdit"]
