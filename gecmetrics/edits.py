"""The edit type shared by the M2 reader and the edit-based metrics.

It lives in its own module, free of the metric layer, so that reading an M2
file does not import numpy-backed scoring code. The edit-based metric layer
is split by job:

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

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpanEdit:
    """A gold edit on source tokens [start, end): replace them by one of ``corrections``.

    ``corrections`` lists the alternatives of the M2 ``||`` field (the empty
    string is a deletion); ``type`` is the error type as the file gives it.
    """

    start: int
    end: int
    corrections: tuple[str, ...]
    type: str = ""
