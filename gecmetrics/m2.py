"""Reading M2 files (CoNLL-2013/2014, BEA-2019) and deriving reference texts.

An M2 block is one ``S`` line (the tokenised source) followed by ``A`` lines::

    A start end|||type|||correction|||REQUIRED|||-NONE-|||annotator

A reference text for annotator k applies k's edits to the source tokens from
right to left. A ``noop`` edit leaves the sentence unchanged; an empty or
``-NONE-`` correction deletes the span; ``||`` separates alternative
corrections, of which the first is used for text.

Missing annotators. In CoNLL-2014, 88 sentences have no line at all for
annotator 1 (not even ``noop``). The M2 scorer then sees only the annotators
present, so the default ("lenient") reading gives such a sentence, as
reference k, the correction of the lowest-numbered annotator present; a
sentence with no ``A`` line at all keeps its source. The published GLEU and
GREEN figures rely on this. The strict reading (``strict=True``) uses the
unchanged source for every absent annotator instead.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import InputError
from .readers import read_lines
from .span_edit import SpanEdit


@dataclass(frozen=True)
class Edit:
    """One gold edit: replace source tokens [start, end) by ``correction``."""

    start: int
    end: int
    type: str
    correction: str
    annotator: int

    @property
    def is_noop(self) -> bool:
        return self.type == "noop" or (self.start == -1 and self.end == -1)

    @property
    def replacement(self) -> list[str]:
        """Tokens of the first alternative ("" and -NONE- mean deletion)."""
        first = self.correction.split("||")[0]
        return [] if first in ("", "-NONE-") else first.split()

    @property
    def alternatives(self) -> tuple[str, ...]:
        """All corrections as the M2 scorer reads them: split on ``||``, each
        stripped, ``-NONE-`` read as the empty string (deletion)."""
        return tuple("" if c == "-NONE-" else c.strip() for c in self.correction.split("||"))


@dataclass(frozen=True)
class M2Sentence:
    source: str
    edits: tuple[Edit, ...]

    @property
    def annotators(self) -> list[int]:
        return sorted({edit.annotator for edit in self.edits})

    def correct(self, annotator: int) -> str:
        """Apply ``annotator``'s edits (right to left) to the source tokens."""
        tokens = self.source.split(" ") if self.source else []
        edits = [e for e in self.edits if e.annotator == annotator and not e.is_noop]
        # Right to left; several insertions at one position keep their file order.
        order = sorted(range(len(edits)), key=lambda i: (edits[i].start, edits[i].end, i))
        for i in reversed(order):
            tokens[edits[i].start:edits[i].end] = edits[i].replacement
        return " ".join(tokens)

    def official_gold(self) -> dict[int, list[SpanEdit]]:
        """{annotator: gold edits} as the official M2 scorer reads this sentence.

        Annotators in increasing id order; ``noop`` edits and edits outside the
        sentence are left out (an annotator with only those has no gold
        edit); a sentence without any ``A`` line has annotator 0 with no edit.
        """
        n = len(self.source.split())
        out: dict[int, list[SpanEdit]] = {}
        for edit in self.edits:
            gold = out.setdefault(edit.annotator, [])
            if edit.type == "noop" or not (0 <= edit.start <= n and 0 <= edit.end <= n):
                continue
            gold.append(SpanEdit(edit.start, edit.end, edit.alternatives, edit.type))
        return dict(sorted(out.items())) if out else {0: []}

    def reference(self, k: int, strict: bool = False) -> str:
        """Reference k of this sentence under the lenient (default) or strict reading."""
        present = self.annotators
        if k in present:
            return self.correct(k)
        if strict or not present:
            return self.source
        return self.correct(present[0])


@dataclass(frozen=True)
class M2File:
    path: str
    sentences: list[M2Sentence]

    @property
    def sources(self) -> list[str]:
        return [s.source for s in self.sentences]

    @property
    def num_annotators(self) -> int:
        ids = {a for s in self.sentences for a in s.annotators}
        return max(ids) + 1 if ids else 1

    def references(self, strict: bool = False) -> list[list[str]]:
        """One reference list per annotator id 0..max."""
        return [
            [s.reference(k, strict) for s in self.sentences] for k in range(self.num_annotators)
        ]


def read_m2(path: str | os.PathLike[str]) -> M2File:
    """Parse an M2 file, with line-numbered errors for malformed lines."""
    path = os.fspath(path)
    lines = read_lines(path, role="M2")
    sentences: list[M2Sentence] = []
    source: str | None = None
    edits: list[Edit] = []
    for number, line in enumerate(lines, start=1):
        if line.startswith("S "):
            if source is not None:
                sentences.append(M2Sentence(source, tuple(edits)))
            source, edits = line[2:], []
        elif line.startswith("A "):
            if source is None:
                raise InputError(f"{path}:{number}: 'A' line before any 'S' line")
            edits.append(_parse_edit(line, path, number))
        elif line.strip() == "":
            continue
        else:
            raise InputError(
                f"{path}:{number}: expected an 'S ' or 'A ' line or a blank line; "
                "is this an M2 file?"
            )
    if source is not None:
        sentences.append(M2Sentence(source, tuple(edits)))
    if not sentences:
        raise InputError(f"{path}: no 'S ' line found; is this an M2 file?")
    return M2File(path, sentences)


def _parse_edit(line: str, path: str, number: int) -> Edit:
    fields = line[2:].split("|||")
    try:
        span, etype, correction = fields[0], fields[1], fields[2]
        start_s, end_s = span.split()
        annotator = int(fields[-1]) if len(fields) >= 6 else 0
        return Edit(int(start_s), int(end_s), etype, correction, annotator)
    except (IndexError, ValueError):
        raise InputError(
            f"{path}:{number}: malformed edit line; expected "
            "'A start end|||type|||correction|||REQUIRED|||-NONE-|||annotator'"
        ) from None
