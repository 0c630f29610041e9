"""Scoring a corpus a chunk of sentences at a time, keeping only compact counts.

Every n-gram metric (GREEN, GLEU, chrF) is a :class:`ChunkedMetric`: it turns a
corpus into :class:`SentenceCounts` (its per-sentence sufficient statistics,
small integer arrays with one axis over sentences) and builds its
:class:`~gecmetrics.metric.Statistics` from such counts. Counts of consecutive
chunks joined along that axis are the counts of the whole corpus, so

* corpus and mean level: count each chunk, join, build the statistics once
  (:func:`chunked_statistics`): the same arrays, hence the same numbers, as
  one whole-corpus count, while the texts and token arrays of only one chunk
  per process are alive at any time;
* sentence level: a sentence's score depends on its own counts only, so each
  chunk is scored as it is counted (:func:`sentence_chunks`) and its rows can
  be written at once; nothing grows with the number of lines.

Chunks are counted by :func:`gecmetrics.parallel.map_ordered` (``--jobs``),
in input order. This module is also the unit the distributed runner
(:mod:`gecmetrics.distributed`, the dask extra) maps: :func:`count_chunk` is a
pure function from a chunk's texts to its counts, and
:meth:`SentenceCounts.concat` the reduction.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from .corpus import Corpus
from .metric import Statistics

if TYPE_CHECKING:
    from .alignment import ShiftReporter


@dataclass(frozen=True)
class SentenceCounts:
    """Named integer arrays of per-sentence statistics; ``axes[name]`` is the
    axis of ``arrays[name]`` that runs over sentences."""

    arrays: Mapping[str, np.ndarray]
    axes: Mapping[str, int]

    @classmethod
    def concat(cls, parts: Sequence[SentenceCounts]) -> SentenceCounts:
        """The counts of consecutive chunks as one."""
        first = parts[0]
        if len(parts) == 1:
            return first
        arrays = {name: np.concatenate([p.arrays[name] for p in parts], axis=axis)
                  for name, axis in first.axes.items()}
        return cls(arrays, first.axes)

    @property
    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in self.arrays.values())


@runtime_checkable
class ChunkedMetric(Protocol):
    """A metric whose statistics are built from per-sentence counts."""

    def counts(self, corpus: Corpus) -> SentenceCounts:
        """This metric's per-sentence counts of ``corpus`` (sharing the corpus cache)."""

    def from_counts(self, systems: tuple[str, ...], counts: SentenceCounts) -> Statistics:
        """The statistics of the corpus whose counts are ``counts``."""


def is_chunked(metric: Any) -> bool:
    return isinstance(metric, ChunkedMetric)


#: A chunk of aligned texts: sources, reference sets, and hypotheses by system.
Chunk = tuple[Sequence[str], Sequence[Sequence[str]], Mapping[str, Sequence[str]]]


def count_chunk(task: tuple[Chunk, Sequence[Any]]) -> list[SentenceCounts]:
    """Every metric's counts of one chunk (the metrics share the chunk's tokenisation)."""
    (sources, references, hypotheses), metrics = task
    corpus = Corpus(sources, references, hypotheses)
    return [metric.counts(corpus) for metric in metrics]


def count_checked_chunk(task: tuple[Chunk, Sequence[Any], bool]
                        ) -> tuple[list[SentenceCounts], int, list[Any]]:
    """:func:`count_chunk`, the chunk's number of lines, and (when asked) the
    shifts of its references and outputs (:func:`gecmetrics.alignment.chunk_shifts`)."""
    chunk, metrics, check = task
    return count_chunk((chunk, metrics)), len(chunk[0]), _shifts(chunk, check)


def _shifts(chunk: Chunk, check: bool) -> list[Any]:
    if not check:
        return []
    from .alignment import chunk_shifts

    sources, references, hypotheses = chunk
    return chunk_shifts(sources, [*references, *hypotheses.values()])


def count_chunks(chunks: Iterable[Chunk], metrics: Sequence[Any],
                 shifts: ShiftReporter | None = None) -> list[list[SentenceCounts]]:
    """Per metric, the counts of every chunk, in order: all chunks counted in
    one pass over the texts (every metric at once, ``--jobs`` processes).
    ``shifts``: where the chunks' misalignment checks are reported (None: no
    check); the checks run with the counting."""
    from .parallel import map_ordered, return_freed_memory

    return_freed_memory()
    parts: list[list[SentenceCounts]] = [[] for _ in metrics]
    tasks = ((chunk, metrics, shifts is not None) for chunk in chunks)
    for counted, lines, found in map_ordered(count_checked_chunk, tasks):
        if shifts is not None:
            shifts.report(lines, found)
        for store, counts in zip(parts, counted, strict=True):
            store.append(counts)
    return parts


def statistics_of_parts(metric: Any, systems: tuple[str, ...],
                        parts: list[SentenceCounts]) -> Statistics:
    """The statistics of the corpus whose chunks' counts are ``parts``; the
    list is emptied on the way, so the chunks' arrays are freed as soon as
    they are joined."""
    joined = SentenceCounts.concat(parts)
    parts.clear()
    return metric.from_counts(systems, joined)


def chunked_statistics(chunks: Iterable[Chunk], metrics: Sequence[Any],
                       systems: tuple[str, ...], shifts: ShiftReporter | None = None
                       ) -> Iterator[Statistics]:
    """Each metric's statistics of the corpus made of ``chunks`` (in order).

    All chunks are counted (:func:`count_chunks`), then the statistics are
    built one metric at a time as the caller asks for them, each from its
    joined counts, which are dropped on the way.
    """
    parts = count_chunks(chunks, metrics, shifts)
    for metric, metric_parts in zip(metrics, parts, strict=True):
        yield statistics_of_parts(metric, systems, metric_parts)


def score_chunk(task: tuple[Chunk, Sequence[Any], Sequence[Sequence[float | None]], bool]
                ) -> tuple[list[list[np.ndarray]], int, list[Any]]:
    """Sentence scores of one chunk (per metric, per beta, an array (systems,
    sentences)), its number of lines and its shifts (as :func:`count_checked_chunk`)."""
    chunk, metrics, betas, check = task
    out = []
    for metric, counts, metric_betas in zip(metrics, count_chunk((chunk, metrics)), betas,
                                            strict=True):
        stats = metric.from_counts(tuple(chunk[2]), counts)
        out.append([stats.sentence(beta) for beta in metric_betas])
    return out, len(chunk[0]), _shifts(chunk, check)


def sentence_chunks(chunks: Iterable[Chunk], metrics: Sequence[Any],
                    betas: Sequence[Sequence[float | None]],
                    shifts: ShiftReporter | None = None) -> Iterator[list[list[np.ndarray]]]:
    """:func:`score_chunk`'s scores of each chunk, in input order, as the
    chunks are counted; their shifts go to ``shifts`` (None: no check)."""
    from .parallel import map_ordered, return_freed_memory

    return_freed_memory()
    tasks = ((chunk, metrics, betas, shifts is not None) for chunk in chunks)
    for scores, lines, found in map_ordered(score_chunk, tasks):
        if shifts is not None:
            shifts.report(lines, found)
        yield scores
