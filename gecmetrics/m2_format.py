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

Strict format. A malformed line would change scores without a sign (an edit
beyond the sentence is dropped by the M2 scorer, a truncated line loses its
annotator, an ``A`` line after a blank line joins the previous sentence), so
:func:`read_m2` rejects, with the file, line number and field: an ``A`` line
without its ``S`` line in the same block (blocks are separated by blank
lines), an edit line without exactly six ``|||`` fields (a truncated line, or
``|||`` inside the correction), offsets that are not integers with
``0 <= start <= end <= tokens``, an annotator id that is not a non-negative
integer, and a ``noop`` edit that is not exactly
``A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||id`` (offsets -1 -1 mean
noop). Fields 4 and 5 of other edits are not used by any scorer and are not
checked. The "lenient" reading above is about absent annotators, a different
matter, and stays the default.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from gecmetrics.edits.span import SpanEdit
from gecmetrics.errors import InputError
from gecmetrics.readers import display_name, read_lines, split_lines


@dataclass(frozen=True)
class Edit:
    """One gold edit: replace source tokens [start, end) by ``correction``."""

    start: int
    end: int
    type: str
    correction: str
    annotator: int
    #: The edit's line in its file (0: made in code); not part of its value.
    line: int = field(default=0, compare=False, repr=False)

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

    def overlap(self, annotator: int) -> tuple[Edit, Edit] | None:
        """Two edits of ``annotator`` that cannot both be applied to the text, or None.

        They overlap when they share a source token, or when one inserts
        strictly inside the other's span; :meth:`correct` would then lose one
        of them without a sign. Insertions at the same position, and edits
        that only touch, apply in file order. The M2 scorer matches every gold
        edit on its own, so scoring is not affected; deriving text is.
        """
        spans = sorted((e for e in self.edits if e.annotator == annotator and not e.is_noop),
                       key=lambda e: (e.start, e.end))
        for i, first in enumerate(spans):
            for second in spans[i + 1:]:
                if second.start >= max(first.end, first.start + 1):
                    break  # sorted by start: no later edit reaches into ``first``
                if (max(first.start, second.start) < min(first.end, second.end)
                        or first.start < second.start == second.end < first.end):
                    return (first, second) if first.line <= second.line else (second, first)
        return None

    def official_gold(self) -> dict[int, list[SpanEdit]]:
        """{annotator: gold edits} as the official M2 scorer reads this sentence.

        Annotators in increasing id order; ``noop`` edits and edits outside the
        sentence (which :func:`read_m2` rejects, but a sentence made in code
        may hold) are left out, as the official scorer does (an annotator with
        only those has no gold edit); a sentence without any ``A`` line has
        annotator 0 with no edit.
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
    def annotator_ids(self) -> list[int]:
        """The annotator ids of the file's ``A`` lines, sorted; ``[0]`` for a file without any.

        Ids are labels, not positions: a file may use 0 and 5000 (or
        99999999999999999999), and has two annotators, not 5001 (reference
        sets used to be made for every id up to the largest: 1.4 GB for three
        sentences at id 5000, without bound at 10^20).
        """
        ids = {a for s in self.sentences for a in s.annotators}
        return sorted(ids) if ids else [0]

    @property
    def num_annotators(self) -> int:
        """How many annotators the file has (distinct ids of its ``A`` lines; at least 1)."""
        return len(self.annotator_ids)

    def first_overlap(self, k: int | None = None, strict: bool = False) -> str | None:
        """The message naming the first two overlapping edits that reference ``k``'s
        text (every reference's when None) would apply (:meth:`M2Sentence.overlap`), or None.

        Under the lenient reading, a sentence without annotator ``k`` uses the
        lowest-numbered annotator present, whose edits are checked there.
        """
        for annotator in self.annotator_ids if k is None else [k]:
            for sentence in self.sentences:
                present = sentence.annotators
                used = (annotator if annotator in present else
                        None if strict or not present else present[0])
                if used is None:
                    continue
                pair = sentence.overlap(used)
                if pair is not None:
                    return overlap_message(display_name(self.path), used, *pair)
        return None

    def references(self, strict: bool = False) -> list[list[str]]:
        """One reference list per annotator, in the order of :attr:`annotator_ids`."""
        return [[s.reference(k, strict) for s in self.sentences] for k in self.annotator_ids]


def read_m2(path: str | os.PathLike[str]) -> M2File:
    """Parse an M2 file (``-``: standard input) strictly.

    Every malformed line raises :class:`InputError` naming the file, the line
    number, the field and what is expected (see the module docstring), so
    that no malformed edit changes a score silently. Lines are parsed as they
    are read, so a stream that is not M2 (``yes | gecmetrics m2-to-text -``)
    stops at its first line.
    """
    parser = _M2Parser(display_name(path))
    read_lines(path, role="M2", expected=M2_LAYOUT, check=parser.feed)
    return M2File(os.fspath(path), parser.finish())


class _M2Parser:
    """The blocks of an M2 file, fed a block of whole lines at a time (:meth:`feed`)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.number = 0  # lines read
        self.sentences: list[M2Sentence] = []
        self.source: str | None = None  # the S line of the open block; None between blocks
        self.source_line = 0
        self.n_tokens = -1  # of the open block's source, counted at its first edit
        self.edits: list[Edit] = []

    def feed(self, text: str) -> None:
        for line in split_lines(text):
            self.number += 1
            self._line(line, self.number)

    def _line(self, line: str, number: int) -> None:
        name = self.name
        if line.startswith("S "):
            if self.source is not None:
                raise _error(name, number, "'S' line right after the block of line "
                             f"{self.source_line}; expected a blank line between blocks (one "
                             "'S' line and its 'A' lines)")
            self.source, self.source_line, self.edits, self.n_tokens = line[2:], number, [], -1
        elif line.startswith("A "):
            if self.source is None:
                where = "after a blank line" if self.sentences else "before any 'S' line"
                raise _error(name, number, f"'A' line {where}, outside a block; expected it "
                             "in the block of its sentence, right after the 'S' line or "
                             "another 'A' line")
            if self.n_tokens < 0:
                self.n_tokens = len(self.source.split())  # as the M2 scorer counts tokens
            self.edits.append(parse_edit(line, name, number, self.n_tokens))
        elif line.strip() == "":
            if self.source is not None:
                self.sentences.append(M2Sentence(self.source, tuple(self.edits)))
                self.source = None
        else:
            raise _error(name, number, "expected an 'S ' or 'A ' line or a blank line; is "
                         "this an M2 file?")

    def finish(self) -> list[M2Sentence]:
        if self.source is not None:
            self.sentences.append(M2Sentence(self.source, tuple(self.edits)))
            self.source = None
        if not self.sentences:
            raise InputError(f"{self.name}: no 'S ' line found, only blank lines; expected "
                             f"{M2_LAYOUT}")
        return self.sentences


#: What an M2 file holds, for the messages about an empty or blank one.
M2_LAYOUT = ("M2 blocks: an 'S' line (the tokenised source), its 'A' lines (edits), a "
             "blank line; see docs/metrics/m2.md")
EDIT_FORMAT = "'A start end|||type|||correction|||REQUIRED|||-NONE-|||annotator'"
# Fields 2-5 of a noop edit (0-based index: text); its offsets are -1 -1.
NOOP_FIELDS = {1: "noop", 2: "-NONE-", 3: "REQUIRED", 4: "-NONE-"}
_SPAN = re.compile(r"\s*(-?[0-9]+)\s+(-?[0-9]+)\s*")
_FIELD_NAMES = ("span", "type", "correction", "REQUIRED", "-NONE-", "annotator")


#: How to mend text whose '|' M2 cannot carry (the end of a one-line message).
CORRECTION_PIPES = ("M2 cannot carry '||' in a correction nor '|' at its end: replace those "
                    "'|' characters in the text (e.g. by '¦')")


def correction_problem(correction: str) -> str | None:
    """Why an edit line cannot carry ``correction`` so that it reads back as written
    (None: it can): ``|||`` separates the fields and ``||`` alternative corrections, so
    a correction holding ``||``, or ending in ``|`` (which joins the ``|||`` after it),
    would be read as other fields or other corrections."""
    if "||" in correction:
        return ("holds '||', which M2 reads as a separator ('||' between alternative "
                "corrections, '|||' between fields)")
    if correction.endswith("|"):
        return "ends with '|', which M2 reads as part of the '|||' separator after it"
    return None


def overlap_message(name: str, annotator: int, first: Edit, second: Edit) -> str:
    """The one line that names two overlapping edits (see :meth:`M2Sentence.overlap`)."""
    return (f"{name}:{second.line}: annotator {annotator}'s edit {second.start} {second.end} "
            f"overlaps its edit {first.start} {first.end} (line {first.line}); the corrected "
            "text cannot apply both: merge them into one edit (or give them to different "
            "annotators); the M2 scorer itself matches each gold edit alone")


def _error(name: str, number: int, message: str) -> InputError:
    return InputError(f"{name}:{number}: {message}")


def _bad_edit(name: str, number: int, message: str) -> InputError:
    return _error(name, number, f"malformed edit line: {message}")


def parse_edit(line: str, name: str, number: int, n_tokens: int) -> Edit:
    """One ``A`` line, checked field by field against a sentence of ``n_tokens`` tokens."""
    fields = line[2:].split("|||")
    if len(fields) != 6:
        problem = (f"{len(fields)} of the 6 '|||'-separated fields (truncated?)"
                   if len(fields) < 6 else
                   f"{len(fields)} '|||'-separated fields, not 6: the correction (field 3) "
                   "may not contain '|||' ('||' separates alternatives)")
        raise _bad_edit(name, number, f"{problem}; expected {EDIT_FORMAT}")
    span, etype, correction, _, _, annotator_text = fields
    if fields[3].startswith("|"):  # "x|" + "|||REQUIRED" splits as "x" and "|REQUIRED"
        raise _bad_edit(name, number, f"field 4 (REQUIRED) is {fields[3]!r}: the correction "
                        "before it ends with '|', which runs into the '|||' separator and "
                        f"is read as another correction; {CORRECTION_PIPES}")
    offsets = _SPAN.fullmatch(span)
    if offsets is None:
        raise _bad_edit(name, number, f"field 1 (span) is {span!r}; expected two integers "
                        "'start end' (token offsets)")
    start, end = int(offsets[1]), int(offsets[2])
    annotator_id = annotator_text.strip()
    if not (annotator_id.isascii() and annotator_id.isdigit()):
        raise _bad_edit(name, number, f"field 6 (annotator) is {annotator_text!r}; expected a "
                        "non-negative integer id (0, 1, ...)")
    if etype == "noop" or start == end == -1:
        wrong = [i for i, want in NOOP_FIELDS.items() if fields[i] != want]
        if not start == end == -1 or wrong:
            i = wrong[0] if start == end == -1 else 0
            raise _bad_edit(name, number, f"noop edit with field {i + 1} ({_FIELD_NAMES[i]}) "
                            f"{fields[i]!r}; a noop edit reads exactly "
                            "'A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||annotator', and "
                            "the offsets -1 -1 are for noop edits only")
    elif not 0 <= start <= end <= n_tokens:
        bounds = f"0 <= start <= end <= {n_tokens}, the sentence's token count"
        problem = ("has a negative offset" if start < 0 or end < 0 else
                   "ends before it starts" if end < start else
                   "goes beyond the end of the sentence (is the 'S' line complete?)")
        raise _bad_edit(name, number, f"field 1 (span) {span!r} {problem}; expected {bounds}"
                        + (" (-1 -1 only in a noop edit)" if start < 0 or end < 0 else ""))
    return Edit(start, end, etype, correction, int(annotator_id), number)
