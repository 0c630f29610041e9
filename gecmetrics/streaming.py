"""``gecmetrics score`` on files too large to hold: read them by chunks of lines.

When every metric can be counted by parts
(:meth:`gecmetrics.metric.Metric.counting`, with no M2 gold edits needed) and
every input is a file (not standard input, not an M2 file), the files are
never read whole (:func:`gecmetrics.scoring.plan` makes that choice):

1. :func:`scan_inputs` reads each file once in blocks and checks what
   :func:`~gecmetrics.readers.read_lines` checks (UTF-8, stray CR, NUL bytes,
   line length, empty file: :func:`~gecmetrics.readers.count_lines`) and that
   all have the same number of lines, so a bad input fails at once, before
   any counting;
2. :func:`line_chunks` reads the files in lockstep, a chunk of lines at a
   time; the misalignment check of :mod:`gecmetrics.alignment` runs per
   chunk where the chunk is counted (a ``--jobs`` worker), and a shift is
   reported from the chunk where it shows (:func:`shift_reporter`);
3. corpus and mean level keep only the counts of each chunk
   (:func:`gecmetrics.chunked.count_chunks`); sentence level scores each
   chunk as it is counted (:func:`gecmetrics.chunked.sentence_chunks`) and
   its rows are written at once (:mod:`gecmetrics.interface.score_report`), so its
   memory does not grow with the number of lines.

The numbers are those of the in-memory path, bit for bit (tests/test_scale.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from .alignment import ShiftReporter
from .chunked import Chunk
from .readers import (
    check_inputs,
    count_lines,
    describe,
    is_stream,
    line_blocks,
    line_count_error,
    split_lines,
)


@dataclass(frozen=True)
class Inputs:
    """Checked input files and their common number of lines."""

    source: str
    references: tuple[str, ...]
    hypotheses: tuple[str, ...]
    lines: int


def files_only(source: str, references: Sequence[str], hypotheses: Sequence[str],
               m2: str | None) -> bool:
    """Whether these inputs can be read by chunks of lines: regular text files only
    (no standard input, pipe or device, which can be read only once; no M2 file),
    with references and hypotheses."""
    paths = [source, *references, *hypotheses]
    return (m2 is None and bool(references) and bool(hypotheses)
            and not any(is_stream(p) for p in paths))


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
    """The lines of a checked file, as :func:`~gecmetrics.readers.read_lines` splits
    them, a block of lines (:func:`~gecmetrics.readers.line_blocks`) at a time."""
    first = True
    with open(path, "rb") as handle:
        for block in line_blocks(handle, describe(path, "input")):
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
