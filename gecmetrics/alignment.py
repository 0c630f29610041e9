"""A cheap check that a system output is aligned line by line with its source.

The most common silent error in GEC evaluation is an output shifted by one
line: a sentence dropped near the top and an empty line added at the end (or
a line inserted) keeps the line count, so every later sentence is scored
against the wrong source and references, and the score is simply low.

The check compares each output line with its own source line and with the
source lines just after and before it, by the Jaccard overlap of their
token sets. An aligned output is closest to its own source line, even when
it is rewritten heavily; a shifted one is closest to a neighbour. The check
reports a shift only when, in some window of :data:`WINDOW` consecutive
lines, at least :data:`MIN_SHIFTED` lines are closer to the same neighbour
by more than :data:`MARGIN`: a lone repeated or rewritten sentence does not
trigger it. On the real CoNLL-2014, SEEDA and GMEG outputs the largest such
count in any window is 4 of 10; a CoNLL-2014 output with one line dropped
reaches 10 of 10. Linear in the number of lines, a few milliseconds per file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import kernels

try:  # the compiled speed path (numbering words, counting overlaps); optional by design
    from ._kernel import line_overlaps, word_ids
    _compiled: tuple[Callable[..., Any], Callable[..., Any]] | None = (word_ids, line_overlaps)
except ImportError:  # pragma: no cover - depends on the build (or a kernel built before them)
    _compiled = None

WINDOW = 10
MIN_SHIFTED = 8
MARGIN = 0.2
MIN_LINES = 5  # shorter files are not checked: too few lines to tell


@dataclass(frozen=True)
class Shift:
    """Output line ``line`` (1-based) and the following ones match the source
    line ``line + offset`` better than their own (offset +1: a line dropped
    above; -1: a line inserted)."""

    line: int
    offset: int

    def message(self, name: str) -> str:
        neighbour, cause = ("next", "dropped") if self.offset > 0 else ("previous", "inserted")
        return (
            f"{name} looks shifted by one line against the source from line {self.line}: "
            f"that line and most of the {WINDOW - 1} after it match the {neighbour} source "
            f"line better than their own (a line {cause} near line {self.line}?); the "
            "scores are computed on the files as given"
        )


def token_sets(lines: Sequence[str]) -> list[frozenset[str]]:
    """The token sets the check compares (whitespace tokens, each counted once)."""
    return [frozenset(line.split()) for line in lines]


def find_shift(sources: Sequence[str], output: Sequence[str],
               source_sets: Sequence[frozenset[str]] | None = None) -> Shift | None:
    """The first place where ``output`` looks shifted by one line against ``sources``.

    ``output`` has one line per source line; ``source_sets``, the
    :func:`token_sets` of ``sources``, can be passed to share them between
    outputs. Returns ``None`` for an aligned output.
    """
    n = len(sources)
    if n < MIN_LINES or len(output) != n:
        return None
    if source_sets is None:
        source_sets = token_sets(sources)
    window = min(WINDOW, n - 1)
    need = -(-MIN_SHIFTED * window // WINDOW)  # ceil: 8 of 10, scaled for short files
    # A run of `need` closer lines within `window` consecutive lines has at most
    # window - need others there, so at least `even_need` of its even lines are
    # closer: when the even lines alone have no such run, neither have all lines
    # (the usual case, for half the work).
    even_need = window // 2 - (window - need)
    even = _closer_lines(sources, output, source_sets, 0)
    if even_need > 0 and _first_run(even, even_need, window) is None:
        return None
    odd = _closer_lines(sources, output, source_sets, 1)
    return _first_run({offset: sorted(even[offset] + odd[offset]) for offset in even},
                      need, window)


def _closer_lines(sources: Sequence[str], output: Sequence[str],
                  source_sets: Sequence[frozenset[str]], first: int) -> dict[int, list[int]]:
    """{offset: the lines, every other one from ``first``, clearly closer to the source
    line at that offset than to their own}."""
    n = len(sources)
    closer: dict[int, list[int]] = {1: [], -1: []}
    for i in range(first, n, 2):
        line = output[i]
        if line == sources[i]:  # unchanged (40% of CoNLL-2014 team lines): nothing to do
            continue
        hyp = frozenset(line.split())
        bar = _jaccard(hyp, source_sets[i]) + MARGIN
        if bar >= 1.0:  # no neighbour can beat its own line: the common case
            continue
        for offset in (1, -1):
            j = i + offset
            if 0 <= j < n and _jaccard(hyp, source_sets[j]) > bar:
                closer[offset].append(i)
    return closer


def _first_run(closer: dict[int, list[int]], need: int, window: int) -> Shift | None:
    """The earliest run of ``need`` of ``closer``'s lines (one offset) within ``window``
    consecutive lines, as a :class:`Shift`."""
    found: Shift | None = None
    for offset, lines in closer.items():
        for k in range(len(lines) - need + 1):
            if lines[k + need - 1] - lines[k] < window:
                if found is None or lines[k] + 1 < found.line:
                    found = Shift(lines[k] + 1, offset)
                break
    return found


def find_shifts(sources: Sequence[str], outputs: Sequence[Sequence[str]]) -> list[Shift | None]:
    """:func:`find_shift` of each of ``outputs`` against ``sources``.

    With the compiled kernel, the words of all lines are numbered at once and the
    overlaps counted in C (:func:`_kernel_shifts`): every line compared, which
    gives :func:`find_shift`'s answers (a line equal to its source has overlap 1
    with it, or is empty, and is never closer to a neighbour). Otherwise the
    token sets of the sources are made once and shared.
    """
    n = len(sources)
    checked = [i for i, lines in enumerate(outputs) if len(lines) == n]
    found: list[Shift | None] = [None] * len(outputs)
    if n < MIN_LINES or not checked:
        return found
    if _compiled is not None and not kernels.forced_python():
        shifts = _kernel_shifts(sources, [outputs[i] for i in checked])
    else:
        source_sets = token_sets(sources)
        shifts = [find_shift(sources, outputs[i], source_sets) for i in checked]
    for i, shift in zip(checked, shifts, strict=True):
        found[i] = shift
    return found


def _kernel_shifts(sources: Sequence[str], outputs: Sequence[Sequence[str]]
                   ) -> list[Shift | None]:
    """:func:`find_shifts` by the kernel's word numbering and overlap counts (every
    output has one line per source line)."""
    import numpy as np

    assert _compiled is not None
    numbered, overlaps = _compiled
    n = len(sources)
    lines = list(sources)
    for output in outputs:
        lines += output
    ids, counts, distinct = numbered(lines)
    sizes, common = overlaps(ids, counts, n, len(distinct))
    source_size = sizes[:n]
    window = min(WINDOW, n - 1)
    need = -(-MIN_SHIFTED * window // WINDOW)
    # The source line after / before each line (its size; none past either end), the
    # same for every output: (offset, column of common, neighbour sizes, exists).
    after, before = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    after[:-1], before[1:] = source_size[1:], source_size[:-1]
    exists_after, exists_before = np.arange(n) < n - 1, np.arange(n) > 0
    neighbours = ((1, 1, after, exists_after), (-1, 2, before, exists_before))
    found: list[Shift | None] = []
    for f in range(len(outputs)):
        size = sizes[(f + 1) * n:(f + 2) * n]
        own = _overlap(common[f, :, 0], size + source_size - common[f, :, 0])
        bar = own + MARGIN
        closer: dict[int, list[int]] = {}
        for offset, column, neighbour, exists in neighbours:
            shared = common[f, :, column]
            near = _overlap(shared, size + neighbour - shared)
            closer[offset] = np.flatnonzero(exists & (bar < 1.0) & (near > bar)).tolist()
        found.append(_first_run(closer, need, window))
    return found


def _overlap(common, union):
    """Jaccard overlaps, elementwise: :func:`_jaccard`'s division (0 for an empty union)."""
    import numpy as np

    out = np.zeros(len(common))
    np.divide(common, union, out=out, where=union > 0)
    return out


def chunk_shifts(sources: Sequence[str], others: Sequence[Sequence[str]]) -> list[Shift | None]:
    """:func:`find_shifts` of a chunk's references and outputs (``others``) against
    the chunk's ``sources``.

    Runs where the chunk is counted (a ``--jobs`` worker), so the check costs
    the process that reads and dispatches the chunks nothing; lines are
    1-based within the chunk (:class:`ShiftReporter` adds the chunk's start).
    """
    return find_shifts(sources, others)


@dataclass
class ShiftReporter:
    """Warns once per file, at the first shift found, given the
    :func:`chunk_shifts` of consecutive chunks in input order."""

    names: Sequence[str]
    warn: Callable[[str], None]
    start: int = 0
    warned: set[str] = field(default_factory=set)

    def report(self, lines: int, shifts: Sequence[Shift | None]) -> None:
        """The shifts of the next chunk, of ``lines`` lines."""
        for name, shift in zip(self.names, shifts, strict=True):
            if shift is not None and name not in self.warned:
                self.warned.add(name)
                self.warn(Shift(shift.line + self.start, shift.offset).message(name))
        self.start += lines


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    common = len(a & b)
    union = len(a) + len(b) - common
    return common / union if union else 0.0
