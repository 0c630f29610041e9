"""The edit types: an M2 gold edit and an edit ERRANT extracted.

Free of numpy and of the metric layer, so that reading an M2 file
(:mod:`gecmetrics.m2_format`) imports nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

#: (start, end, correction, type) of one ERRANT edit on source tokens [start, end).
ErrantEdit = tuple[int, int, str, str]


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
