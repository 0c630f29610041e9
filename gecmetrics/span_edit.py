"""The edit type shared by the M2 reader and the edit-based metrics.

It lives in its own module so that reading an M2 file (:mod:`gecmetrics.m2`)
does not import the metric layer (:mod:`gecmetrics.edits`, numpy, the
registry); ``gecmetrics.edits.SpanEdit`` is the same class, re-exported.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpanEdit:
    """An edit on source tokens [start, end): replace them by ``correction``.

    ``corrections`` lists alternatives (gold edits may have several, the M2
    ``||``); a hypothesis edit has exactly one. ``type`` is the error type
    when the tool gives one (ERRANT's ``R:VERB:SVA``).
    """

    start: int
    end: int
    corrections: tuple[str, ...]
    type: str = ""

    @property
    def correction(self) -> str:
        return self.corrections[0] if self.corrections else ""
