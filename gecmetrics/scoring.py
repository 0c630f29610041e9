"""Scoring files with several metrics: the library behind ``gecmetrics score``.

:class:`ScoreOptions` says what to score and is checked once, when made (the
CLI builds it from its flags, scripts build it directly); :func:`score`
returns typed :class:`ScoreResults`, and :func:`stream_sentence_scores` the
sentence scores of files too large to hold, a chunk at a time. Rendering them
(tables, TSV, JSON, Markdown, LaTeX) is :mod:`gecmetrics.interface.score_report`'s job.

How a run is executed is decided in one place, :func:`plan`, from the
metrics' declared capability (:meth:`~gecmetrics.metric.Metric.counting`) and
the inputs: the whole corpus in memory, or files read and counted by chunks
(:mod:`gecmetrics.streaming`, :mod:`gecmetrics.chunked`); either way counting
uses ``jobs`` processes (:mod:`gecmetrics.parallel`). The numbers never depend
on that choice. :func:`score_corpus` scores a :class:`~gecmetrics.corpus.Corpus`
already in memory.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .alignment import find_shifts
from .chunked import count_chunks, sentence_chunks, statistics_of_parts
from .corpus import Corpus
from .errors import ConfigError, InputError
from .essays import essay_corpus, essay_inputs
from .formatting import plural
from .metric import Metric, SystemResult, check_partial_references
from .parallel import current, default_jobs, execution, pool_size, workers_for
from .readers import (
    LineBound,
    check_inputs,
    describe,
    line_count_error,
    read_bounded,
)
from .registry import metric_from_spec
from .signature import Signature, metric_signature, score_signature
from .streaming import files_only, line_chunks, scan_inputs, shift_reporter
from .validate import (
    LEVELS,
    Level,
    as_items,
    beta_options_apply,
    check_betas,
    check_choice,
    check_chunk_size,
    check_count,
    check_instance,
    check_jobs,
    check_paired_use,
    check_path,
    check_paths,
)

if TYPE_CHECKING:
    import pandas as pd

    from .breakdown import Breakdown
    from .paired import PairedOptions

# The edit breakdowns, the paired tests and the M2 reader are imported where a run
# asks for them: a plain n-gram score (BLEU in a third of a second) does without.

#: How a run is executed: ``"corpus"``, every file read whole into one corpus;
#: ``"chunked"``, files read and counted a chunk of lines at a time.
Strategy = Literal["corpus", "chunked"]

#: The key of a result: (spec, hypothesis, beta).
ResultKey = tuple[str, str, "float | None"]


@dataclass(frozen=True)
class ScoreOptions:
    """What one scoring run computes: files, metrics, betas, level and extras.

    ``metrics`` are specs (``"green:tokenize=char"``) or :class:`Metric`
    objects; ``betas`` apply to the metrics that have one (empty: each
    metric's own); ``m2`` is an M2 file of gold edits (without
    ``references``, the text references are derived from it);
    ``breakdown`` one of :data:`gecmetrics.breakdown.KINDS`; ``paired`` a
    paired test against the first hypothesis file. ``jobs`` and
    ``chunk_size`` (None: the settings in force,
    :func:`gecmetrics.parallel.execution`) change speed and memory, never a
    number. Every value is checked when the object is made, before any file
    is read; errors name the CLI flag. ``notes`` holds the lines meant for
    stderr that the checks produced (e.g. ``-b`` ignored by GLEU).
    """

    source: str
    references: Sequence[str] = ()
    hypotheses: Sequence[str] = ()
    metrics: Sequence[str | Metric] = ("green",)
    m2: str | None = None
    betas: Sequence[float] = ()
    level: Level = "corpus"
    breakdown: str | None = None
    paired: PairedOptions | None = None
    jobs: int | None = None
    chunk_size: int | None = None
    metric_objects: tuple[Metric, ...] = field(init=False, repr=False, compare=False)
    notes: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        def set_(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        check_path(self.source, "source")
        set_("references", check_paths(self.references, "references"))
        set_("hypotheses", check_paths(self.hypotheses, "hypotheses"))
        if self.m2 is not None:
            check_path(self.m2, "m2")
        set_("metrics", as_items(self.metrics, "metrics", '["green", "m2"]'))
        for metric in self.metrics:
            if not isinstance(metric, (str, Metric)):
                raise ConfigError(f"metrics must hold specs (\"green:n=4\") or Metric objects "
                                  f"(got {type(metric).__name__}: {metric!r})")
        set_("betas", tuple(check_betas(self.betas, "-b/--beta")))
        if self.jobs is not None:
            check_jobs(self.jobs, "-j/--jobs")
        if self.chunk_size is not None:
            check_chunk_size(self.chunk_size)
        if self.level not in LEVELS:
            raise ConfigError(f"unknown level {self.level!r}; choose one of: "
                              f"{', '.join(LEVELS)}")
        _check_paired_options(self.paired)
        if self.paired is not None:
            check_paired_use(self.paired.test, len(self.hypotheses), self.level)
        # bad specs fail before any file is read
        metrics = tuple(m if isinstance(m, Metric) else metric_from_spec(m)
                        for m in self.metrics)
        notes: list[str] = []
        if self.jobs is not None:
            jobs_note(self.jobs, notes)
        beta_options_apply(metrics, notes, **{"-b/--beta": bool(self.betas)})
        if self.breakdown is not None:
            from .breakdown import check as check_breakdown

            if self.level != "corpus":
                raise ConfigError(f"--breakdown splits corpus scores; drop --level "
                                  f"{self.level} or --breakdown")
            check_breakdown(metrics, self.breakdown)
        check_paired_metrics(metrics, self.paired)
        set_("metric_objects", metrics)
        set_("notes", tuple(notes))


def _check_options(options: Any) -> None:
    check_instance(options, "options", ScoreOptions, "a ScoreOptions")


def _check_paired_options(paired: Any) -> None:
    if paired is not None:
        from .paired import PairedOptions

        check_instance(paired, "paired", PairedOptions, "a PairedOptions or None")


def _metric_list(metrics: Any) -> list[Metric]:
    """``metrics`` of a library call: Metric objects (one alone is taken as a list)."""
    items = [metrics] if isinstance(metrics, Metric) else as_items(
        metrics, "metrics", '[get_metric("green")]')
    for metric in items:
        check_instance(metric, "metrics item", Metric, 'a Metric (get_metric("green"))')
    return list(items)


def jobs_note(jobs: int, notes: list[str]) -> None:
    """A note when ``--jobs`` asks for more processes than the cores this process may
    use: the pool is capped there (:func:`gecmetrics.parallel.pool_size`), silently
    also at the number of chunks, which is no mistake of the user's."""
    check_count(jobs, "jobs", 1)
    check_instance(notes, "notes", list, "a list (the notes are appended to it)")
    cores = default_jobs()
    if jobs > cores:
        notes.append(f"note: -j/--jobs {jobs} is more than the {plural(cores, 'core')} this "
                     f"process may use; at most {cores} count at a time")


def plan(options: ScoreOptions) -> Strategy:
    """The one choice of how ``options`` are executed.

    ``"chunked"`` where every metric can be counted by parts without gold
    edits (its :meth:`~gecmetrics.metric.Metric.counting`), every input is a
    file read by lines (:func:`gecmetrics.streaming.files_only`), and no
    breakdown or paired test (which need the whole corpus) is asked for;
    ``"corpus"`` otherwise, and for MultiGEC essay files (an essay is an item,
    read by :func:`gecmetrics.essays.essay_corpus`).
    """
    _check_options(options)
    countings = [m.counting() for m in options.metric_objects]
    if (options.breakdown is None and options.paired is None and countings
            and all(c is not None and not c.needs_gold for c in countings)
            and files_only(options.source, options.references, options.hypotheses,
                           options.m2)
            and not essay_inputs(options.source, options.references, options.hypotheses)):
        return "chunked"
    return "corpus"


@dataclass(frozen=True)
class ScoreResults:
    """What a scoring run computed.

    ``results``: one :class:`SystemResult` per (metric, beta, system), metrics
    in the order given; ``signatures``: each result's signature (same order);
    ``breakdowns``: the edit metrics' :class:`~gecmetrics.breakdown.Breakdown`
    by (spec, hypothesis, beta) when a breakdown was asked for; ``notes``:
    lines meant for stderr.
    """

    results: tuple[SystemResult, ...]
    signatures: tuple[str, ...]
    breakdowns: Mapping[ResultKey, Breakdown] = field(
        default_factory=lambda: MappingProxyType({}))
    notes: tuple[str, ...] = ()

    def to_json(self) -> list[dict[str, Any]]:
        """The JSON objects of ``gecmetrics score --format json``."""
        rows = []
        for r, sig in zip(self.results, self.signatures, strict=True):
            row = {**r.to_json(), "signature": sig}
            split = self.breakdowns.get((r.spec, r.hypothesis, r.beta))
            if split is not None:
                row["breakdown"] = split.to_json()
            rows.append(row)
        return rows

    def to_frame(self) -> pd.DataFrame:
        """One row per result (sentence level: per result and sentence, with a
        0-based ``sentence`` column), the JSON keys as columns (0-1 floats)."""
        import pandas as pd

        rows: list[dict[str, Any]] = []
        for row in self.to_json():
            row.pop("breakdown", None)
            scores = row.pop("scores", None)
            if scores is None:
                rows.append(row)
                continue
            signature = row.pop("signature")
            rows.extend({**row, "sentence": i, "score": v, "signature": signature}
                        for i, v in enumerate(scores))
        return pd.DataFrame(rows)


@dataclass(frozen=True)
class SentenceStream:
    """Sentence scores of files read by chunks: the columns are known at once, the
    scores come chunk by chunk as :attr:`chunks` is iterated (in input order).

    ``columns``: one :class:`SystemResult` without scores per (metric, beta,
    system), with its signature in ``signatures``; ``lines``: the number of
    sentences; each item of ``chunks`` holds, per column, the chunk's scores.
    """

    columns: tuple[SystemResult, ...]
    signatures: tuple[str, ...]
    lines: int
    chunks: Iterator[list[np.ndarray]]
    notes: tuple[str, ...] = ()


def score(options: ScoreOptions, warn: Callable[[str], None] | None = None) -> ScoreResults:
    """Score the files of ``options``; every result carries its signature.

    A reference or hypothesis file that looks shifted by a line against the
    source is reported through ``warn`` (default: a :class:`MisalignmentWarning`)
    and still scored.
    """
    _check_options(options)
    metrics = options.metric_objects
    corpus = None
    with execution(jobs=options.jobs, chunk_size=options.chunk_size):
        if plan(options) == "chunked":
            results = _chunked_results(options, warn)
            num_refs = len(options.references)
        else:  # edit metrics, stdin, breakdowns and paired tests need the whole corpus
            corpus = load_corpus(options.source, options.references, options.hypotheses,
                                 options.m2, warn)
            if options.breakdown is not None:
                from .breakdown import check as check_breakdown

                check_breakdown(metrics, options.breakdown, corpus)
            results = score_corpus(corpus, metrics, options.level, options.betas,
                                   options.paired)
            num_refs = len(corpus.references)
    by_spec = {metric.spec: metric for metric in metrics}
    refs_from = "text" if options.references else "m2-lenient"
    extra = options.paired.signature_fields() if options.paired is not None else {}
    # A signature depends on the metric, level and beta only: made once for each
    # (a 501-beta sweep of 13 systems has 13 times fewer than it has results), from
    # the metric's own part, made once per metric.
    made: dict[tuple[str, str, float | None], str] = {}
    bases: dict[str, tuple[Signature, tuple[int, str]]] = {}

    def signature(spec: str, level: str, beta: float | None) -> str:
        sig = made.get((spec, level, beta))
        if sig is None:
            metric = by_spec[spec]
            base = bases.get(spec)
            if base is None:
                base = bases[spec] = (metric_signature(metric, corpus), references_field(
                    metric, corpus, num_refs, refs_from))
            sig = made[(spec, level, beta)] = str(score_signature(
                metric, *base[1], level, beta, corpus, base=base[0]).extend(**extra))
        return sig

    listed: list[str] = []
    last, sig = None, ""
    for r in results:  # a metric's results at one beta come together: one lookup for them
        key = (r.spec, r.level, r.beta)
        if key != last:
            last, sig = key, signature(*key)
        listed.append(sig)
    signatures = tuple(listed)
    split = (_breakdowns(corpus, by_spec, results, signatures, options.breakdown)
             if options.breakdown is not None and corpus is not None else {})
    return ScoreResults(tuple(results), signatures, MappingProxyType(split), options.notes)


def references_field(metric: Metric, corpus: Corpus | None, num_refs: int,
                      refs_from: str) -> tuple[int, str]:
    """The signature's (refs, refs_from) of ``metric``'s scores: the M2 file's annotators
    for a metric that scores its edits, even when ``-r`` gave the other metrics text
    references (it said ``refs_from:text`` there, though the scores came from the M2
    file); else the references the run read."""
    check_instance(metric, "metric", Metric, "a Metric")
    if corpus is not None:
        check_instance(corpus, "corpus", Corpus, "a Corpus or None")
    check_count(num_refs, "num_refs", 0)
    if corpus is not None and corpus.m2 is not None and metric.gold_from_m2(corpus):
        return corpus.m2.num_annotators, "m2-lenient"
    return num_refs, refs_from


def stream_sentence_scores(options: ScoreOptions, warn: Callable[[str], None] | None = None
                           ) -> SentenceStream | None:
    """The sentence scores of ``options``' files, a chunk of lines at a time; None
    where the run is not at sentence level or cannot be read by chunks
    (:func:`plan`). The files are checked at once; counting starts when
    :attr:`SentenceStream.chunks` is iterated."""
    _check_options(options)
    if options.level != "sentence" or plan(options) != "chunked":
        return None
    metrics = options.metric_objects
    inputs = scan_inputs(options.source, options.references, options.hypotheses)
    beta_lists = [metric.resolve_betas(options.betas or None) for metric in metrics]
    columns = tuple(SystemResult(metric.display_name, metric.spec, name, beta, "sentence")
                    for metric, metric_betas in zip(metrics, beta_lists, strict=True)
                    for beta in metric_betas for name in inputs.hypotheses)
    signatures = tuple(str(score_signature(metric, len(options.references), "text",
                                           "sentence", beta))
                       for metric, metric_betas in zip(metrics, beta_lists, strict=True)
                       for beta in metric_betas for _ in inputs.hypotheses)

    def chunks() -> Iterator[list[np.ndarray]]:
        with execution(jobs=options.jobs, chunk_size=options.chunk_size):
            parts = line_chunks(inputs, current().chunk_size)
            for chunk in sentence_chunks(parts, metrics, beta_lists,
                                         shift_reporter(inputs, warn), inputs.lines):
                yield [row for per_beta in chunk for array in per_beta for row in array]

    return SentenceStream(columns, signatures, inputs.lines, chunks(), options.notes)


def load_corpus(source: str, references: Sequence[str], hypotheses: Sequence[str],
                m2: str | None = None, warn: Callable[[str], None] | None = None) -> Corpus:
    """Read the files of a scoring run into a checked corpus.

    With ``m2`` (an M2 file), the gold edits are read for edit-based metrics
    and, unless ``references`` are given too, the plain-text references of
    the other metrics are derived from it (one per annotator, lenient reading).
    One input (at most) may be ``-``, standard input. MultiGEC essay files
    (``### essay_id = N`` blocks, :mod:`gecmetrics.essays`) are read as
    ``gecmetrics multigec --tokenize whitespace`` reads them: one item per essay
    of the source, its line breaks as tabs, references that cover only some
    essays as :attr:`Corpus.reference_counts`. A reference or
    hypothesis file that looks shifted by a line against the source (see
    :mod:`gecmetrics.alignment`) is reported through ``warn`` (default: a
    :class:`MisalignmentWarning`) and still scored.
    """
    check_path(source, "source")
    references = check_paths(references, "references")
    hypotheses = check_paths(hypotheses, "hypotheses")
    if m2 is not None:
        check_path(m2, "m2")
    check_inputs(source, references, hypotheses, m2)
    if essay_inputs(source, references, hypotheses):
        if m2 is not None:
            raise InputError(f"{describe(m2, 'M2')} holds one block per sentence but the "
                             f"inputs are MultiGEC essays; give the references as essay files "
                             f"with -r instead of --m2")
        return essay_corpus(source, references, hypotheses).corpus
    gold = None
    if m2 is not None:
        from .m2_format import read_m2

        gold = read_m2(m2)
    bound = None if gold is None else LineBound(len(gold.sources), describe(gold.path, "M2"),
                                                 "sentence")
    texts_read = read_bounded([(source, "source"), *((p, "reference") for p in references),
                               *((p, "hypothesis") for p in hypotheses)], bound)
    src = texts_read[0]
    refs = texts_read[1:1 + len(references)]
    hyps = dict(zip(hypotheses, texts_read[1 + len(references):], strict=True))
    source_name = describe(source, "source")
    named = [(source_name, src)]
    if gold is not None:
        if len(gold.sources) != len(src):

            raise InputError(
                f"{describe(gold.path, 'M2')} has {plural(len(gold.sources), 'sentence')} "
                f"(blocks of an 'S' line and its edits) but {source_name} has "
                f"{plural(len(src), 'line')}; the M2 file needs one block per source sentence")
        if not references:
            refs = gold.references()
            overlap = gold.first_overlap()
            if overlap is not None:  # the M2 metrics are right; the derived text is not
                message = (f"{overlap}; the text references derived from it keep only one "
                           "of the two (give -r for the text metrics)")
                if warn is None:
                    warnings.warn(message, UserWarning, stacklevel=2)
                else:
                    warn(message)
    texts = [(describe(p, "reference"), r) for p, r in zip(references, refs, strict=False)]
    texts += [(describe(p, "hypothesis"), h) for p, h in hyps.items()]
    named += texts
    for name, lines in named[1:]:
        if len(lines) != len(src):
            raise line_count_error(name, len(lines), source_name, len(src))
    _warn_shifted(src, texts, warn)
    return Corpus(src, refs, hyps, m2=gold)


class MisalignmentWarning(UserWarning):
    """A reference or hypothesis file looks shifted by a line against the source."""


def _warn_shifted(sources: list[str], texts: Sequence[tuple[str, list[str]]],
                  warn: Callable[[str], None] | None) -> None:
    """One warning per text file that looks shifted (the first suspicious line)."""
    for (name, _), shift in zip(texts, find_shifts(sources, [lines for _, lines in texts]),
                                strict=True):
        if shift is None:
            continue
        if warn is None:
            warnings.warn(shift.message(name), MisalignmentWarning, stacklevel=3)
        else:
            warn(shift.message(name))


def score_corpus(corpus: Corpus, metrics: Sequence[Metric], level: str = "corpus",
                 betas: Sequence[float] | None = None,
                 paired: PairedOptions | None = None) -> list[SystemResult]:
    """Every metric on every system; ``betas`` apply to the metrics that have a beta.

    With ``paired``, every result also carries its :class:`~gecmetrics.paired.PairedResult`
    (``result.paired``): the first system of the corpus is the baseline.
    """
    check_instance(corpus, "corpus", Corpus, "a Corpus")
    metrics = _metric_list(metrics)
    check_choice("level", level, LEVELS)
    check_paired_metrics(metrics, paired)
    for metric in metrics:  # every refusal before the first metric's work
        check_partial_references(metric, corpus)
    results: list[SystemResult] = []
    for metric in metrics:
        scored = metric.evaluate(corpus, level, betas or None)
        if paired is not None:
            scored = _with_paired(metric, corpus, scored, level, paired)
        results.extend(scored)
    return results


def check_paired_metrics(metrics: Sequence[Metric], paired: PairedOptions | None) -> None:
    """Every metric can be tested as asked (AR needs summable sentence statistics)."""
    metrics = _metric_list(metrics)
    _check_paired_options(paired)
    if paired is None or paired.test != "ar":
        return
    for metric in metrics:
        problem = metric.paired_ar_problem()
        if problem:
            raise ConfigError(f"--paired-ar: {problem}")


def _with_paired(metric: Metric, corpus: Corpus, results: list[SystemResult], level: str,
                 options: PairedOptions) -> list[SystemResult]:
    """``results`` (systems in corpus order, per beta) with their paired comparisons."""
    from .paired import compare_with_baseline

    stats = metric.statistics(corpus)
    per_beta: dict[float | None, list[SystemResult]] = {}
    for r in results:
        per_beta.setdefault(r.beta, []).append(r)
    out: list[SystemResult] = []
    for beta, rows in per_beta.items():
        scores = [float(r.score) if r.score is not None else float("nan") for r in rows]
        compared = compare_with_baseline(stats, scores, level, beta, options)
        out.extend(dataclasses.replace(r, paired=c) for r, c in zip(rows, compared, strict=True))
    return out


def _breakdowns(corpus: Corpus, by_spec: dict[str, Metric], results: Sequence[SystemResult],
                signatures: Sequence[str], kind: str) -> dict[ResultKey, Breakdown]:
    """{(spec, hypothesis, beta): Breakdown} of the edit metrics' results."""
    from .breakdown import breakdowns
    from .edits.metric import EditMetric

    out: dict[ResultKey, Breakdown] = {}
    sig = {(r.spec, r.hypothesis, r.beta): s for r, s in zip(results, signatures, strict=True)}
    for spec, beta in dict.fromkeys((r.spec, r.beta) for r in results):
        metric = by_spec[spec]
        if not isinstance(metric, EditMetric):
            continue
        names = {h: sig[(spec, h, beta)] for h in corpus.hypotheses}
        for b in breakdowns(metric, corpus, kind, beta, names):
            out[(spec, b.hypothesis, beta)] = b
    return out


#: What building a metric's statistics and scores from its counts weighs, per
#: sentence, in the unit of :data:`gecmetrics.parallel.WORK_UNIT_S` (a whole
#: sentence x metric, counting included): for word and char GREEN on the 13
#: CoNLL-2014 outputs, 0.12-0.17 s of the run's 0.45 s of CPU. The default
#: ``--jobs`` sizes this step's threads from it, not from the counting's work:
#: on that case it had started 2 threads, 1.31x slower than ``-j 1`` on a
#: busy machine.
SCORES_STEP_WORK = 1 / 3


def _chunked_results(options: ScoreOptions, warn: Callable[[str], None] | None
                     ) -> list[SystemResult]:
    """Results of metrics counted by parts from files read and counted by chunks
    (:mod:`gecmetrics.streaming`): only the per-sentence counts are kept."""
    metrics = options.metric_objects
    inputs = scan_inputs(options.source, options.references, options.hypotheses)
    chunks = line_chunks(inputs, current().chunk_size)
    shifts = shift_reporter(inputs, warn or (
        lambda message: warnings.warn(message, MisalignmentWarning, stacklevel=4)))
    parts = count_chunks(chunks, metrics, shifts, inputs.lines)

    def evaluate(i: int) -> list[SystemResult]:
        stats = statistics_of_parts(metrics[i], inputs.hypotheses, parts[i])
        return metrics[i].evaluate_statistics(stats, options.level, options.betas or None)

    # After the counting, each metric's statistics and scores are built
    # independently: with --jobs N, N metrics at a time in threads (their
    # large array operations release the GIL), so this last step, which no
    # worker process can share, is not one core's alone. Same results. The
    # default --jobs starts no threads for small work or on busy cores
    # (parallel.workers_for).
    work = inputs.lines * len(metrics) * SCORES_STEP_WORK
    threads = pool_size(workers_for(work, len(metrics)), len(metrics))
    if threads <= 1:
        per_metric = [evaluate(i) for i in range(len(metrics))]
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(threads) as pool:
            per_metric = list(pool.map(evaluate, range(len(metrics))))
    return [r for results in per_metric for r in results]
