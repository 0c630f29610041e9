"""``gecmetrics score`` on files too large to hold: read them by chunks of lines.

When every metric can be counted by parts
(:meth:`gecmetrics.metric.Metric.counting`, with no M2 gold edits needed) and
every input is a file (not standard input, not an M2 file), the files are
never read whole (:func:`gecmetrics.scoring.plan` makes that choice):

1. :func:`scan_inputs` reads each file once in blocks and checks what
   :func:`~gecmetrics.readers.read_lines` checks (UTF-8, stray CR, empty file)
   and that all have the same number of lines, so a bad input fails at once,
   before any counting;
2. :func:`line_chunks` reads the files in lockstep, a chunk of lines at a
   time; the misalignment check of :mod:`gecmetrics.alignment` runs per
   chunk where the chunk is counted (a ``--jobs`` worker), and a shift is
   reported from the chunk where it shows (:func:`shift_reporter`);
3. corpus and mean level keep only the counts of each chunk
   (:func:`gecmetrics.chunked.count_chunks`); sentence level scores each
   chunk as it is counted (:func:`gecmetrics.chunked.sentence_chunks`) and
   its rows are written at once (:mod:`gecmetrics.score_report`), so its
   memory does not grow with the number of lines.

The numbers are those of the in-memory path, bit for bit (tests/test_scale.py).
"""

from __future__ import annotations

import codecs
import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from .alignment import ShiftReporter
from .chunked import Chunk
from .readers import (
    LONE_CR,
    check_inputs,
    describe,
    is_stdin,
    line_count_error,
    read_lines,
    split_lines,
)

#: Bytes read at a time (extended to the next line end); each reader holds one
#: block of lines.
BLOCK_BYTES = 1 << 20


@dataclass(frozen=True)
class Inputs:
    """Checked input files and their common number of lines."""

    source: str
    references: tuple[str, ...]
    hypotheses: tuple[str, ...]
    lines: int


def files_only(source: str, references: Sequence[str], hypotheses: Sequence[str],
               m2: str | None) -> bool:
    """Whether these inputs can be read by chunks of lines: text files only (no
    standard input, no M2 file), with references and hypotheses."""
    paths = [source, *references, *hypotheses]
    return (m2 is None and bool(references) and bool(hypotheses)
            and not any(is_stdin(p) for p in paths))


def _blocks(path: str) -> Iterator[bytes]:
    """The file in blocks that end at a line end (the last one may not)."""
    with open(path, "rb") as handle:
        rest = b""
        while True:
            data = handle.read(BLOCK_BYTES)
            if not data:
                break
            data = rest + data
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                rest = data
                continue
            rest = data[cut:]
            yield data[:cut]
        if rest:
            yield rest


def count_lines(path: str, role: str) -> int:
    """The number of lines of ``path``, checked as :func:`read_lines` checks a file.

    On any problem the file is handed to :func:`read_lines`, which raises the
    one-line error naming the byte, line and fix; so both paths report a bad
    file in the same words.
    """
    try:
        if os.path.isdir(path) or not os.path.exists(path):
            read_lines(path, role)
        decoder = codecs.getincrementaldecoder("utf-8")()
        count = 0
        first = True
        last = ""
        for block in _blocks(path):
            text = decoder.decode(block)
            if first:
                text = text.removeprefix("\ufeff")
                first = False
            if LONE_CR.search(text):
                raise ValueError
            count += text.count("\n")
            last = text[-1:] or last
        decoder.decode(b"", final=True)
    except (ValueError, PermissionError):  # UnicodeDecodeError is a ValueError
        read_lines(path, role)
        raise AssertionError(f"read_lines accepted {path} that the scan rejected") from None
    if last and last != "\n":
        count += 1
    if count == 0:
        read_lines(path, role)  # raises: empty file
    return count


def scan_inputs(source: str, references: Sequence[str], hypotheses: Sequence[str]) -> Inputs:
    """Check every file and that all have one line per source line; no text is kept."""
    check_inputs(source, references, hypotheses, None)
    total = count_lines(source, "source")
    for role, paths in (("reference", references), ("hypothesis", hypotheses)):
        for path in paths:
            lines = count_lines(path, role)
            if lines != total:
                raise line_count_error(describe(path, role), lines,
                                       describe(source, "source"), total)
    return Inputs(source, tuple(references), tuple(hypotheses), total)


def iter_lines(path: str) -> Iterator[str]:
    """The lines of a checked file, as :func:`read_lines` splits them, a block at a time."""
    first = True
    for block in _blocks(path):
        text = block.decode("utf-8")
        if first:
            text = text.removeprefix("\ufeff")
            first = False
        yield from split_lines(text)


def line_chunks(inputs: Inputs, chunk_size: int) -> Iterator[Chunk]:
    """Consecutive chunks of ``chunk_size`` lines (0: all) of every file, in lockstep."""
    size = chunk_size if chunk_size > 0 else max(inputs.lines, 1)
    readers = [iter_lines(p) for p in (inputs.source, *inputs.references, *inputs.hypotheses)]
    start = 0
    num_refs = len(inputs.references)
    while start < inputs.lines:
        texts = [list(itertools.islice(reader, size)) for reader in readers]
        sources, others = texts[0], texts[1:]
        yield (sources, others[:num_refs],
               dict(zip(inputs.hypotheses, others[num_refs:], strict=True)))
        start += len(sources)


def shift_reporter(inputs: Inputs, warn: Callable[[str], None] | None) -> ShiftReporter | None:
    """What reports the first shift of each reference and hypothesis file
    (in :func:`line_chunks`' order of the other files); None: no check."""
    if warn is None:
        return None
    names = ([describe(p, "reference") for p in inputs.references]
             + [describe(p, "hypothesis") for p in inputs.hypotheses])
    return ShiftReporter(names, warn)
