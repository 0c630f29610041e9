"""Scoring a corpus a part of the sentences at a time, keeping only compact counts.

A metric whose statistics are built from per-sentence counts declares it with
the optional capability :meth:`gecmetrics.metric.Metric.counting`, a
:class:`~gecmetrics.metric.Counting`: how to count a part of the corpus, how to join the counts of
consecutive parts, how to build the statistics from the joined counts, and
whether the per-part sums of sentence statistics are additive. Counts of
consecutive parts joined in order are the counts of the whole corpus, so

* corpus and mean level: count each chunk, join, build the statistics once
  (:func:`count_chunks`, :func:`statistics_of_parts`): the same arrays, hence
  the same numbers, as one whole-corpus count, while the texts and token
  arrays of only one chunk per process are alive at any time;
* sentence level: a sentence's score depends on its own counts only, so each
  chunk is scored as it is counted (:func:`sentence_chunks`) and its rows can
  be written at once; nothing grows with the number of lines.

Chunks are counted by :func:`gecmetrics.parallel.map_ordered` (``--jobs``),
in input order. This module is also the unit the distributed runner
(:mod:`gecmetrics.workflows.distributed`, the dask extra) maps: :func:`count_corpus` is a
pure function from a part's corpus to its counts, and
:attr:`~gecmetrics.metric.Counting.join` the reduction.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .alignment import chunk_shifts
from .corpus import Corpus
from .edits.statistics import EditCounts
from .metric import Counting, Metric, Statistics
from .parallel import map_ordered, return_freed_memory

if TYPE_CHECKING:
    from .alignment import ShiftReporter


def counting_of(metric: Metric) -> Counting:
    """The metric's :class:`Counting` (callers check the capability first)."""
    counting = metric.counting()
    if counting is None:  # pragma: no cover - callers check
        raise AssertionError(f"{metric.spec} has no per-sentence counts")
    return counting


def join_edit_counts(pieces: Sequence[Any]) -> Any:
    """:class:`~gecmetrics.edits.statistics.EditCounts` of consecutive parts as one:
    annotator columns aligned on the sorted union of annotator ids (an id
    absent from a part is not present there, so it is never chosen, as in a
    whole-corpus count)."""
    if len(pieces) == 1:
        return pieces[0]
    annotators = tuple(sorted({a for p in pieces for a in p.annotators}))
    col = {a: k for k, a in enumerate(annotators)}
    arrays: dict[str, list[np.ndarray]] = {"tp": [], "fp": [], "fn": [], "present": []}
    for p in pieces:
        where = [col[a] for a in p.annotators]
        for name in arrays:
            src = getattr(p, name)
            shape = src.shape[:-1] + (len(annotators),)
            wide = np.zeros(shape, dtype=src.dtype)
            wide[..., where] = src
            arrays[name].append(wide)
    return EditCounts(pieces[0].systems, tp=np.concatenate(arrays["tp"], axis=1),
                      fp=np.concatenate(arrays["fp"], axis=1),
                      fn=np.concatenate(arrays["fn"], axis=1),
                      present=np.concatenate(arrays["present"], axis=0),
                      annotators=annotators)


def statistics_of(metric: Metric, systems: tuple[str, ...], counts: Any) -> Statistics:
    """The metric's statistics from (joined) counts, bound to the instance's beta
    as :meth:`~gecmetrics.metric.Metric.statistics` binds them."""
    stats = counting_of(metric).statistics(systems, counts)
    return stats.bound(metric.default_beta) if metric.has_beta else stats


#: A chunk of aligned texts: sources, reference sets, and hypotheses by system.
Chunk = tuple[Sequence[str], Sequence[Sequence[str]], Mapping[str, Sequence[str]]]


def count_corpus(corpus: Corpus, metrics: Sequence[Metric]) -> list[Any]:
    """Every metric's counts of one part (the metrics share its tokenisation)."""
    return [counting_of(metric).count(corpus) for metric in metrics]


def count_chunk(task: tuple[Chunk, Sequence[Metric]]) -> list[Any]:
    """:func:`count_corpus` of a chunk of texts."""
    (sources, references, hypotheses), metrics = task
    return count_corpus(Corpus(sources, references, hypotheses), metrics)


def count_checked_chunk(task: tuple[Chunk, Sequence[Metric], bool]
                        ) -> tuple[list[Any], int, list[Any]]:
    """:func:`count_chunk`, the chunk's number of lines, and (when asked) the
    shifts of its references and outputs (:func:`gecmetrics.alignment.chunk_shifts`)."""
    chunk, metrics, check = task
    return count_chunk((chunk, metrics)), len(chunk[0]), _shifts(chunk, check)


def _shifts(chunk: Chunk, check: bool) -> list[Any]:
    if not check:
        return []

    sources, references, hypotheses = chunk
    return chunk_shifts(sources, [*references, *hypotheses.values()])


def count_chunks(chunks: Iterable[Chunk], metrics: Sequence[Metric],
                 shifts: ShiftReporter | None = None, lines: int | None = None
                 ) -> list[list[Any]]:
    """Per metric, the counts of every chunk, in order: all chunks counted in
    one pass over the texts (every metric at once, ``--jobs`` processes).
    ``shifts``: where the chunks' misalignment checks are reported (None: no
    check); the checks run with the counting. ``lines``: the sentences of all
    chunks, if known (the default ``--jobs`` starts no pool for small work:
    :func:`gecmetrics.parallel.workers_for`)."""
    return_freed_memory()
    parts: list[list[Any]] = [[] for _ in metrics]
    tasks = ((chunk, metrics, shifts is not None) for chunk in chunks)
    work = None if lines is None else lines * len(metrics)
    for counted, num_lines, found in map_ordered(count_checked_chunk, tasks, work=work):
        if shifts is not None:
            shifts.report(num_lines, found)
        for store, counts in zip(parts, counted, strict=True):
            store.append(counts)
    return parts


def statistics_of_parts(metric: Metric, systems: tuple[str, ...],
                        parts: list[Any]) -> Statistics:
    """The statistics of the corpus whose chunks' counts are ``parts``; the
    list is emptied on the way, so the chunks' arrays are freed as soon as
    they are joined."""
    joined = counting_of(metric).join(parts)
    parts.clear()
    return statistics_of(metric, systems, joined)


def score_chunk(task: tuple[Chunk, Sequence[Metric], Sequence[Sequence[float | None]], bool]
                ) -> tuple[list[list[np.ndarray]], int, list[Any]]:
    """Sentence scores of one chunk (per metric, per beta, an array (systems,
    sentences)), its number of lines and its shifts (as :func:`count_checked_chunk`)."""
    chunk, metrics, betas, check = task
    out = []
    for metric, counts, metric_betas in zip(metrics, count_chunk((chunk, metrics)), betas,
                                            strict=True):
        stats = statistics_of(metric, tuple(chunk[2]), counts)
        out.append([stats.sentence(beta) for beta in metric_betas])
    return out, len(chunk[0]), _shifts(chunk, check)


def sentence_chunks(chunks: Iterable[Chunk], metrics: Sequence[Metric],
                    betas: Sequence[Sequence[float | None]],
                    shifts: ShiftReporter | None = None, lines: int | None = None
                    ) -> Iterator[list[list[np.ndarray]]]:
    """:func:`score_chunk`'s scores of each chunk, in input order, as the
    chunks are counted; their shifts go to ``shifts`` (None: no check).
    ``lines``: as for :func:`count_chunks`."""
    return_freed_memory()
    tasks = ((chunk, metrics, betas, shifts is not None) for chunk in chunks)
    work = None if lines is None else lines * len(metrics)
    for scores, num_lines, found in map_ordered(score_chunk, tasks, work=work):
        if shifts is not None:
            shifts.report(num_lines, found)
        yield scores
