"""``gecmetrics score`` on files too large to hold: read, count and write by chunks.

When every metric is an n-gram metric (:class:`~gecmetrics.chunked.ChunkedMetric`)
and every input is a file (not standard input, not an M2 file), the files are
never read whole:

1. :func:`scan_inputs` reads each file once in blocks and checks what
   :func:`~gecmetrics.readers.read_lines` checks (UTF-8, stray CR, empty file)
   and that all have the same number of lines, so a bad input fails at once,
   before any counting;
2. :func:`line_chunks` reads the files in lockstep, a chunk of lines at a
   time; the misalignment check of :mod:`gecmetrics.alignment` runs per
   chunk where the chunk is counted (a ``--jobs`` worker), and a shift is
   reported from the chunk where it shows (:func:`shift_reporter`);
3. corpus and mean level keep only the counts of each chunk
   (:func:`gecmetrics.chunked.chunked_statistics`); sentence level scores each
   chunk and writes its rows at once (:func:`write_sentence_scores`), so its
   memory does not grow with the number of lines.

The numbers are those of the in-memory path, bit for bit (tests/test_scale.py).
"""

from __future__ import annotations

import codecs
import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from .alignment import ShiftReporter
from .chunked import Chunk, is_chunked
from .readers import _LONE_CR, describe, is_stdin, read_lines, split_lines

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


def can_stream(metrics: Sequence[Any], source: str, references: Sequence[str],
               hypotheses: Sequence[str], m2: str | None) -> bool:
    """Whether ``score`` can read these inputs by chunks (see the module docstring)."""
    paths = [source, *references, *hypotheses]
    return (m2 is None and bool(references) and bool(hypotheses) and bool(metrics)
            and all(is_chunked(m) for m in metrics) and not any(is_stdin(p) for p in paths))


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
            if _LONE_CR.search(text):
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
    from .scoring import check_inputs, line_count_error

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


def write_sentence_scores(out: TextIO, inputs: Inputs, metrics: Sequence[Any],
                          betas: Sequence[float] | None, fmt: str, digits: int,
                          signature: Callable[[Any, float | None], str],
                          notes: list[str], chunk_size: int,
                          warn: Callable[[str], None] | None = None) -> None:
    """Sentence-level scores written to ``out`` as chunks finish, in input order.

    The text is that of :func:`gecmetrics.scoring.score_files` at
    ``level="sentence"``, except that table columns of scores are as wide as
    the widest possible score (100%) rather than the widest one present.
    """
    from .chunked import sentence_chunks
    from .metric import SystemResult
    from .scoring import signature_block

    beta_lists = [metric.resolve_betas(betas or None) for metric in metrics]
    columns = [SystemResult(metric.display_name, metric.spec, name, beta, "sentence")
               for metric, metric_betas in zip(metrics, beta_lists, strict=True)
               for beta in metric_betas for name in inputs.hypotheses]
    chunks = line_chunks(inputs, chunk_size)
    scored = sentence_chunks(chunks, metrics, beta_lists, shift_reporter(inputs, warn))
    signatures = [signature(metrics[i], beta)
                  for i, metric_betas in enumerate(beta_lists) for beta in metric_betas
                  for _ in inputs.hypotheses]
    if fmt == "json":
        _write_json(out, columns, signatures, scored, notes)
        return
    _write_table(out, columns, scored, fmt, digits, inputs.lines)
    text = signature_block(signatures, fmt, notes)
    if text:  # it starts with the line end that the last row already wrote
        out.write(text[1:] + "\n")


def _flat(per_metric: list[list[Any]]) -> list[Any]:
    """The (systems, sentences) arrays of a scored chunk as one row per column."""
    return [row for per_beta in per_metric for array in per_beta for row in array]


def _write_table(out: TextIO, columns: Sequence[Any], scored: Iterator[Any], fmt: str,
                 digits: int, total: int) -> None:
    """Rows rendered a chunk at a time with fixed column widths.

    Each chunk is rendered together with a sentinel row of the widest possible
    cells (the last line number, 100%), whose line is dropped: so every chunk
    has the widths, alignment and borders of one table.
    """
    from .formatting import percent, render
    from .scoring import _column

    headers = ["#"] + [f"{_column(c)} {c.hypothesis}" for c in columns]
    align = ["right"] * len(headers)
    sentinel = [str(total)] + [percent(1.0, digits)] * len(columns)
    probe = render(headers, [sentinel, sentinel], fmt, align).split("\n")
    # the two sentinel rows are the only two equal consecutive lines
    head = next(i for i in range(len(probe) - 1) if probe[i] == probe[i + 1])
    rows_at = head + 1
    done = 0
    tail: list[str] = []
    for chunk in scored:
        values = _flat(chunk)
        length = len(values[0]) if values else 0
        rows = [[str(done + i + 1)] + [percent(float(v[i]), digits) for v in values]
                for i in range(length)]
        lines = render(headers, [sentinel, *rows], fmt, align).split("\n")
        if done == 0:
            out.write("\n".join(lines[:head]) + "\n")
        body = lines[rows_at:rows_at + length]
        if body:
            out.write("\n".join(body) + "\n")
        tail = lines[rows_at + length:]
        done += length
    if tail:
        out.write("\n".join(tail) + "\n")


def _write_json(out: TextIO, columns: Sequence[Any], signatures: Sequence[str],
                scored: Iterator[Any], notes: list[str]) -> None:
    """The JSON array of :func:`gecmetrics.formatting.to_json`, each column's scores
    spooled to a temporary file as chunks finish, then written in order."""
    import math

    from .formatting import _JSON

    replaced = 0
    with tempfile.TemporaryDirectory(prefix="gecmetrics-") as folder:
        spools = [open(os.path.join(folder, str(i)), "w+", encoding="utf-8")  # noqa: SIM115
                  for i in range(len(columns))]
        try:
            started = [False] * len(columns)
            for chunk in scored:
                for i, row in enumerate(_flat(chunk)):
                    values = row.tolist()
                    words = [repr(v) if math.isfinite(v) else "null" for v in values]
                    replaced += sum(1 for v in values if not math.isfinite(v))
                    if words:
                        spools[i].write((", " if started[i] else "") + ", ".join(words))
                        started[i] = True
            out.write("[\n")
            for i, (column, sig) in enumerate(zip(columns, signatures, strict=True)):
                head = column.to_json()
                head.pop("scores", None)
                out.write(_JSON.encode(head)[:-1] + ', "scores": [')
                spools[i].seek(0)
                shutil.copyfileobj(spools[i], out)
                out.write('], "signature": ' + _JSON.encode(sig) + "}")
                out.write(",\n" if i + 1 < len(columns) else "\n")
            out.write("]\n")
        finally:
            for spool in spools:
                spool.close()
    if replaced:
        notes.append(f"note: {replaced} undefined value(s) (NaN or infinite) written as "
                     "null in the JSON")
