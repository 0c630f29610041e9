"""Scoring on a Dask cluster (the ``dask`` extra): partitions are counted where they
live, and only per-sentence integer statistics travel.

The metrics that can be counted by parts (the capability
:meth:`~gecmetrics.metric.Metric.counting`: GREEN, GLEU, chrF and M2) keep,
per sentence, a few integers per order, reference and hypothesis. A
partition of (source, references, hypotheses) is therefore scored exactly as
``gecmetrics score`` scores a chunk of lines: the same
:func:`~gecmetrics.chunked.count_corpus`, no second counting path. Then

* **sentence level**: a sentence's score depends on its own counts only, so
  each partition's scores are computed on its worker and come back as a Dask
  DataFrame, one column (a Dask Series) per (metric, beta, system);
* **corpus level**, two exact reductions:

  - ``corpus="gather"`` (default): the partitions' counts are joined in input
    order (a tree of concatenations) and the metric's ``from_counts`` builds
    its statistics once, on the client: the code path of the chunked
    single-process run, so every number (score, precision, recall, details)
    is that run's, bit for bit, for every metric and option (GLEU's reference
    draws and M2's running annotator choice included). The client holds the
    counts of the whole corpus (see docs/scale.md for their size);
  - ``corpus="sum"``: each partition reduces its sentences' statistics (with
    the reference chosen per sentence) to integer sums
    (:meth:`~gecmetrics.metric.Statistics.sentence_statistics`), the sums are
    added up (integers: exact in any order), and the metric's corpus formula
    is applied once. Nothing grows with the corpus; only the F-score comes
    back (precision and recall are ``None``). Valid only where the metric's
    counting says its statistics are additive over parts (each sentence's
    choice is its own: GREEN, chrF and GLEU ``mode=max``); GLEU's default
    sampling (a mean over reference draws) and M2 (the annotator chosen on the
    running corpus totals) are refused with the reason they give.

Dask is imported only inside these functions: neither ``gecmetrics --help``
nor any core path imports it. See docs/scale.md ("On a cluster").
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from gecmetrics import extras
from gecmetrics.chunked import count_corpus, counting_of, statistics_of
from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.m2_format import M2File, M2Sentence, parse_edit
from gecmetrics.metric import Metric, SentenceCounts, Statistics, SystemResult
from gecmetrics.signature import score_signature

#: The two corpus reductions (see the module docstring).
CorpusReduction = Literal["gather", "sum"]

def _require_dask() -> None:
    """A one-line error instead of an ImportError traceback without the extra."""
    for module in extras.EXTRAS["dask"]:
        extras.require("gecmetrics.workflows.distributed", "dask", module)


def check_metrics(metrics: Sequence[Metric], corpus: CorpusReduction = "gather") -> None:
    """Refuse, in one line, a metric whose statistics are not per-sentence counts,
    or whose corpus score is not a sum when ``corpus="sum"``."""
    if corpus not in ("gather", "sum"):
        raise ConfigError(f"corpus reduction {corpus!r} is unknown; use 'gather' or 'sum'")
    if not metrics:
        raise ConfigError("no metric given; pass at least one, e.g. [get_metric('green')]")
    for metric in metrics:
        counting = metric.counting()
        if counting is None:
            raise ConfigError(
                f"metric {metric.spec!r} cannot be scored by gecmetrics.workflows.distributed: its "
                "statistics are not per-sentence counts; use green, gleu, chrf or m2, or "
                "score it in one process (gecmetrics score)")
        if corpus == "sum" and counting.not_additive is not None:
            variant = counting.additive_variant
            raise ConfigError(
                f"metric {metric.spec!r}: corpus='sum' is not exact for "
                f"{counting.not_additive}; use corpus='gather'"
                + (f" or {variant}" if variant else ""))


# -- partitions ---------------------------------------------------------------


@dataclass(frozen=True)
class PartitionCounts:
    """What one partition sends back: its size and each metric's counts."""

    size: int
    counts: tuple[Any, ...]  # per metric: what its Counting.count returns


def _corpus(records: Sequence[Mapping[str, Any]], systems: Sequence[str],
            needs_m2: bool) -> Corpus:
    """The partition's records as a :class:`Corpus` (with its M2 sentences for M2)."""
    sources = [r["source"] for r in records]
    num_refs = len(records[0]["references"]) if records else 0
    references = [[r["references"][k] for r in records] for k in range(num_refs)]
    hypotheses = {name: [r["hypotheses"][name] for r in records] for name in systems}
    m2 = None
    if needs_m2:
        if any(r.get("m2") is None for r in records):
            raise InputError("an M2 metric needs the gold edits of every sentence: give each "
                             "record an 'm2' field (its M2 block as text, or a "
                             "gecmetrics.m2_format.M2Sentence), e.g. from "
                             "gecmetrics.workflows.distributed.records(corpus)")
        m2 = M2File("<partition>", [m2_sentence(r["m2"]) for r in records])
    return Corpus(sources, references, hypotheses, m2=m2)


def m2_sentence(value: Any) -> Any:
    """An :class:`~gecmetrics.m2_format.M2Sentence` from one sentence's M2 block (its ``S``
    line and ``A`` lines, as text: what a dataframe or Parquet column holds), each
    ``A`` line checked by the M2 reader's own parser; an M2Sentence as it is."""
    if isinstance(value, M2Sentence):
        return value
    lines = [line for line in str(value).split("\n") if line.strip()]
    name = "m2 field"
    if not lines or not lines[0].startswith("S "):
        raise InputError(f"{name}: {str(value)[:40]!r} does not start with an 'S ' line; give "
                         "each sentence's M2 block ('S ...' then its 'A ...' lines)")
    source = lines[0][2:]
    n_tokens = len(source.split())
    edits = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.startswith("A "):
            raise InputError(f"{name}, line {number} of the block {source[:30]!r}: expected "
                             "an 'A ' line; give one sentence's M2 block per record")
        edits.append(parse_edit(line, f"{name} ({source[:30]!r})", number, n_tokens))
    return M2Sentence(source, tuple(edits))


def count_partition(records: Sequence[Mapping[str, Any]], metrics: Sequence[Metric],
                    systems: Sequence[str]) -> PartitionCounts:
    """Every metric's per-sentence counts of one partition (a pure function: the
    unit a cluster maps)."""
    records = list(records)
    if not records:
        return PartitionCounts(0, tuple(None for _ in metrics))
    corpus = _corpus(records, systems, any(counting_of(m).needs_gold for m in metrics))
    return PartitionCounts(len(records), tuple(count_corpus(corpus, metrics)))


def _columns(metrics: Sequence[Metric], systems: Sequence[str],
             betas: Sequence[Sequence[float | None]]) -> list[str]:
    """Column names of the sentence scores: ``spec|system``, or ``spec|beta=B|system``
    when a metric is scored at several betas."""
    names: list[str] = []
    for metric, metric_betas in zip(metrics, betas, strict=True):
        for beta in metric_betas:
            tag = f"|beta={beta}" if len(metric_betas) > 1 else ""
            names.extend(f"{metric.spec}{tag}|{system}" for system in systems)
    return names


def sentence_scores(part: PartitionCounts, metrics: Sequence[Metric], systems: Sequence[str],
                    betas: Iterable[float] | None = None, offset: int = 0,
                    index: Any = None) -> Any:
    """One partition's sentence scores as a pandas DataFrame, one float64 column
    per (metric, beta, system) named as in :class:`DistributedScores`; the index
    is ``index``, else ``offset, offset + 1, ...``."""
    import pandas as pd

    systems = tuple(systems)
    beta_lists = [metric.resolve_betas(betas) for metric in metrics]
    columns = _columns(metrics, systems, beta_lists)
    data: dict[str, Any] = {}
    names = iter(columns)
    for metric, counts, metric_betas in zip(metrics, part.counts, beta_lists, strict=True):
        stats = statistics_of(metric, systems, counts) if part.size else None
        for beta in metric_betas:
            values = stats.sentence(beta) if stats is not None else np.zeros((len(systems), 0))
            for h in range(len(systems)):
                data[next(names)] = np.asarray(values[h], dtype=np.float64)
    if index is None:
        index = pd.RangeIndex(offset, offset + part.size)
    return pd.DataFrame(data, index=index, columns=columns)


def partial_sums(part: PartitionCounts, metrics: Sequence[Metric], systems: Sequence[str],
                 betas: Iterable[float] | None = None) -> list[list[np.ndarray | None]]:
    """Per metric and beta, the partition's int64 sums over sentences of each
    sentence's statistics with its own reference choice (``corpus="sum"``; any
    engine: add them with :func:`add_sums`, score with :func:`corpus_from_sums`)."""
    check_metrics(metrics, "sum")
    systems = tuple(systems)
    beta_lists = [metric.resolve_betas(betas) for metric in metrics]
    out: list[list[np.ndarray | None]] = []
    for metric, counts, metric_betas in zip(metrics, part.counts, beta_lists, strict=True):
        if not part.size:
            out.append([None for _ in metric_betas])
            continue
        stats = statistics_of(metric, systems, counts)
        sums: list[np.ndarray | None] = []
        for beta in metric_betas:
            per, _ = _sums_view(stats, metric, beta)
            if not np.issubdtype(per.dtype, np.integer):  # pragma: no cover - guard
                raise AssertionError(f"{metric.spec}: sentence statistics are not integers")
            sums.append(per.sum(axis=1, dtype=np.int64))
        out.append(sums)
    return out


def _sums_view(stats: Statistics, metric: Metric, beta: float | None
               ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The sentence statistics and corpus formula of an additive metric."""
    view = stats.sentence_statistics(beta)
    if view is None:  # pragma: no cover - check_metrics admits additive countings only
        raise AssertionError(f"{metric.spec}: additive statistics without sentence sums")
    return view


def add_sums(parts: Sequence[list[list[np.ndarray | None]]]) -> list[list[np.ndarray | None]]:
    """Element-wise integer sum of :func:`partial_sums` (``None``: an empty partition);
    exact in any order and grouping."""
    total = parts[0]
    for part in parts[1:]:
        total = [[b if a is None else a if b is None else a + b
                  for a, b in zip(ta, tb, strict=True)] for ta, tb in zip(total, part, strict=True)]
    return total


def _join_counts(parts: Sequence[PartitionCounts], metrics: Sequence[Metric]
                 ) -> PartitionCounts:
    """Counts of consecutive partitions as one, in order (empty ones dropped), each
    metric's joined by its counting."""
    parts = [p for p in parts if p.size]
    if not parts:
        return PartitionCounts(0, ())
    if len(parts) == 1:
        return parts[0]
    joined = [counting_of(metric).join([p.counts[i] for p in parts])
              for i, metric in enumerate(metrics)]
    return PartitionCounts(sum(p.size for p in parts), tuple(joined))


def _tree(items: list[Any], combine: Any, fan_in: int = 8) -> Any:
    """Reduce delayed ``items`` in order by a tree of ``combine`` calls (no single
    task receives every partition's result)."""
    from dask import delayed

    while len(items) > 1:
        items = [delayed(combine)(items[i:i + fan_in]) for i in range(0, len(items), fan_in)]
    return items[0]


def _corpus_gather(joined: PartitionCounts, metrics: Sequence[Metric], systems: tuple[str, ...],
                   betas: Sequence[Sequence[float | None]]) -> list[SystemResult]:
    if not joined.size:
        raise InputError("the collection is empty: no sentence to score")
    results: list[SystemResult] = []
    for metric, counts, metric_betas in zip(metrics, joined.counts, betas, strict=True):
        stats = statistics_of(metric, systems, counts)
        given = [b for b in metric_betas if b is not None] or None  # [None]: no beta
        results.extend(metric.evaluate_statistics(stats, "corpus", given))
    return results


def corpus_from_sums(total: list[list[np.ndarray | None]], metrics: Sequence[Metric],
                     systems: Sequence[str], example: PartitionCounts | None,
                     betas: Iterable[float] | None = None) -> list[SystemResult]:
    """Corpus results (F only) from the summed statistics. The metric's formula is
    taken from the statistics of ``example``, the counts of any non-empty
    partition (e.g. ``count_partition(records[:1], ...)``): it depends only on
    the metric and beta, not on the sentences."""
    if example is None or not example.size:
        raise InputError("the collection is empty: no sentence to score")
    systems = tuple(systems)
    beta_lists = [metric.resolve_betas(betas) for metric in metrics]
    template = _head(example)
    results: list[SystemResult] = []
    for m, (metric, metric_betas) in enumerate(zip(metrics, beta_lists, strict=True)):
        stats = statistics_of(metric, systems, template.counts[m])
        for b, beta in enumerate(metric_betas):
            sums = total[m][b]
            if sums is None:
                raise InputError("the collection is empty: no sentence to score")
            _, formula = _sums_view(stats, metric, beta)
            scores = np.asarray(formula(sums), dtype=np.float64)
            for h, name in enumerate(systems):
                results.append(SystemResult(metric.display_name, metric.spec, name, beta,
                                            "corpus", float(scores[h])))
    return results


def _head(part: PartitionCounts) -> PartitionCounts:
    """The counts of the first sentence of a non-empty partition (for the formula;
    ``corpus="sum"`` takes additive metrics only, whose counts are SentenceCounts)."""
    return PartitionCounts(1, tuple(
        SentenceCounts({k: np.take(a, [0], axis=c.axes[k]) for k, a in c.arrays.items()},
                       c.axes) for c in part.counts))


def _first_head(parts: Sequence[PartitionCounts]) -> PartitionCounts | None:
    for part in parts:
        if part.size:
            return _head(part)
    return None


def _first_of(heads: Sequence[PartitionCounts | None]) -> PartitionCounts | None:
    return next((h for h in heads if h is not None), None)


# -- the API ------------------------------------------------------------------


@dataclass(frozen=True)
class DistributedScores:
    """Lazy results of :func:`score_bag` / :func:`score_dataframe`.

    ``sentence``: a Dask DataFrame, one float column (a Dask Series) per
    (metric, beta, system) named by :attr:`columns`; ``corpus``: a Dask
    Delayed of the list of :class:`~gecmetrics.metric.SystemResult` at corpus
    level (``to_json()`` as ``gecmetrics score --format json``). Both share
    the counting tasks: :meth:`compute` computes them together, so every
    partition is counted once.
    """

    sentence: Any
    corpus: Any
    columns: tuple[str, ...]

    def compute(self, **kwargs: Any) -> tuple[Any, list[SystemResult]]:
        """``(pandas DataFrame of sentence scores, corpus results)`` in one pass."""
        import dask
        import pandas as pd

        # The frame's partitions as Delayed objects: one graph with the corpus result.
        parts, corpus = dask.compute(self.sentence.to_delayed(), self.corpus, **kwargs)
        frame = pd.concat(parts) if parts else self.sentence._meta
        return frame, corpus


def _score(parts: list[Any], indexes: list[Any] | None, meta_index: Any,
           metrics: Sequence[Metric], systems: Sequence[str], betas: Iterable[float] | None,
           corpus: CorpusReduction, divisions: Any = None) -> DistributedScores:
    """Shared by both entry points: ``parts`` are delayed lists of records."""
    import dask.dataframe as dd
    import pandas as pd
    from dask import delayed

    check_metrics(metrics, corpus)
    betas = None if betas is None else list(betas)
    names = tuple(systems)
    if not names:
        raise ConfigError("no system given; pass the names of the hypotheses, e.g. systems=['AMU']")
    beta_lists = [metric.resolve_betas(betas) for metric in metrics]
    columns = _columns(metrics, names, beta_lists)
    counted = [delayed(count_partition)(part, metrics, names) for part in parts]
    meta = pd.DataFrame({c: pd.Series(dtype="float64") for c in columns},
                        index=meta_index, columns=columns)
    if indexes is None:  # a bag: the index is the position in the bag
        sizes = [delayed(lambda p: p.size)(c) for c in counted]
        offsets: list[Any] = [0]
        for size in sizes[:-1]:
            offsets.append(delayed(lambda a, b: a + b)(offsets[-1], size))
        frames = [delayed(sentence_scores)(c, metrics, names, betas, off)
                  for c, off in zip(counted, offsets, strict=True)]
    else:
        frames = [delayed(sentence_scores)(c, metrics, names, betas, 0, idx)
                  for c, idx in zip(counted, indexes, strict=True)]
    sentence = dd.from_delayed(frames, meta=meta, divisions=divisions, verify_meta=False)
    if corpus == "gather":
        joined = _tree(counted, functools.partial(_join_counts, metrics=metrics))
        result = delayed(_corpus_gather)(joined, metrics, names, beta_lists)
    else:
        partial = [delayed(partial_sums)(c, metrics, names, betas) for c in counted]
        example = _tree([delayed(_first_head)([c]) for c in counted], _first_of)
        result = delayed(corpus_from_sums)(_tree(partial, add_sums), metrics, names, example,
                                           betas)
    return DistributedScores(sentence, result, tuple(columns))


def score_bag(bag: Any, metrics: Sequence[Metric], systems: Sequence[str], *,
              betas: Iterable[float] | None = None,
              corpus: CorpusReduction = "gather") -> DistributedScores:
    """Score a Dask Bag of records, in the bag's order.

    A record is a mapping ``{"source": str, "references": [str, ...],
    "hypotheses": {system: str}}`` (the same number of references in every
    record), plus ``"m2"`` (a :class:`gecmetrics.m2_format.M2Sentence`) for M2;
    :func:`records` makes them from a :class:`~gecmetrics.corpus.Corpus`.
    ``systems`` names the hypotheses to score (the columns of the result).
    The sentence scores' index is the record's position in the bag.
    """
    _require_dask()
    import pandas as pd

    return _score(list(bag.to_delayed()), None, pd.RangeIndex(0), metrics, systems, betas,
                  corpus)


def score_dataframe(ddf: Any, metrics: Sequence[Metric], *, source: str = "source",
                    references: Sequence[str], hypotheses: Mapping[str, str] | Sequence[str],
                    m2: str | None = None, betas: Iterable[float] | None = None,
                    corpus: CorpusReduction = "gather") -> DistributedScores:
    """Score a Dask DataFrame with one row per sentence, in its partition order.

    ``source``, ``references`` (column names) and ``hypotheses`` (system name
    -> column, or column names used as system names) say where the texts are;
    ``m2``: a column of :class:`gecmetrics.m2_format.M2Sentence` for M2. The sentence
    scores keep ``ddf``'s index (and its divisions, when known).
    """
    _require_dask()
    from dask import delayed

    hyp_cols = (dict(hypotheses) if isinstance(hypotheses, Mapping)
                else {str(c): str(c) for c in hypotheses})
    refs = list(references)
    if not refs:
        raise ConfigError("no reference column given; pass references=['ref0', ...]")
    wanted = [source, *refs, *hyp_cols.values(), *([m2] if m2 else [])]
    missing = [c for c in wanted if c not in ddf.columns]
    if missing:
        raise InputError(f"the dataframe has no column {missing[0]!r} (columns: "
                         f"{', '.join(map(str, ddf.columns))}); name the right columns in "
                         "source=, references=, hypotheses=, m2=")

    def to_records(frame: Any) -> list[dict[str, Any]]:
        srcs = frame[source].tolist()
        ref_lists = [frame[c].tolist() for c in refs]
        hyps = {name: frame[c].tolist() for name, c in hyp_cols.items()}
        golds = frame[m2].tolist() if m2 else None
        return [{"source": s, "references": [r[i] for r in ref_lists],
                 "hypotheses": {name: h[i] for name, h in hyps.items()},
                 **({"m2": golds[i]} if golds is not None else {})}
                for i, s in enumerate(srcs)]

    parts = list(ddf.to_delayed())
    records_parts = [delayed(to_records)(p) for p in parts]
    indexes = [delayed(lambda frame: frame.index)(p) for p in parts]
    return _score(records_parts, indexes, ddf._meta.index, metrics, list(hyp_cols), betas,
                  corpus, ddf.divisions if ddf.known_divisions else None)


def signed_json(results: Sequence[SystemResult], metrics: Sequence[Metric], references: int,
                refs_from: str = "text") -> list[dict[str, Any]]:
    """The JSON objects of ``results`` as ``gecmetrics score --format json`` writes
    them, each with its ``signature`` (options, beta, number of reference sets,
    where the references came from: ``text``, ``m2-lenient`` or ``m2-strict``)."""
    by_spec = {metric.spec: metric for metric in metrics}
    return [{**r.to_json(), "signature": str(score_signature(
                by_spec[r.spec], references, refs_from, r.level, r.beta))}
            for r in results]


def records(corpus: Corpus) -> list[dict[str, Any]]:
    """The records :func:`score_bag` reads, one per sentence of ``corpus`` (with
    ``"m2"`` when the corpus has M2 gold edits)."""
    golds = corpus.m2.sentences if corpus.m2 is not None else None
    return [{"source": s, "references": [ref[i] for ref in corpus.references],
             "hypotheses": {name: hyp[i] for name, hyp in corpus.hypotheses.items()},
             **({"m2": golds[i]} if golds is not None else {})}
            for i, s in enumerate(corpus.sources)]
