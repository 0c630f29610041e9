"""``gecmetrics score``: read files, score with several metrics, format the results.

Kept apart from the CLI so that scripts can call :func:`score_corpus` and get
the same :class:`~gecmetrics.metric.SystemResult` objects the CLI prints.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from .alignment import find_shift, token_sets
from .corpus import Corpus
from .errors import ConfigError, InputError
from .formatting import fixed, percent, render, to_json
from .metric import Metric, SystemResult
from .readers import check_one_stdin, describe, read_lines
from .registry import metric_from_spec
from .signature import score_signature
from .validate import beta_options_apply

if TYPE_CHECKING:
    from .breakdown import Breakdown
    from .paired import PairedOptions


def load_corpus(source: str, references: Sequence[str], hypotheses: Sequence[str],
                m2: str | None = None, warn: Callable[[str], None] | None = None) -> Corpus:
    """Read the files of a scoring run into a checked corpus.

    With ``m2`` (an M2 file), the gold edits are read for edit-based metrics
    and, unless ``references`` are given too, the plain-text references of
    the other metrics are derived from it (one per annotator, lenient reading).
    One input (at most) may be ``-``, standard input. A reference or
    hypothesis file that looks shifted by a line against the source (see
    :mod:`gecmetrics.alignment`) is reported through ``warn`` (default: a
    :class:`MisalignmentWarning`) and still scored.
    """
    check_inputs(source, references, hypotheses, m2)
    gold = None
    if m2 is not None:
        from .m2 import read_m2

        gold = read_m2(m2)
    src = read_lines(source, "source")
    refs = [read_lines(path, "reference") for path in references]
    hyps = {path: read_lines(path, "hypothesis") for path in hypotheses}
    source_name = describe(source, "source")
    named = [(source_name, src)]
    if gold is not None:
        named.append((f"{describe(gold.path, 'M2')} (sentences)", gold.sources))
        if not references:
            refs = gold.references()
    texts = [(describe(p, "reference"), r) for p, r in zip(references, refs, strict=False)]
    texts += [(describe(p, "hypothesis"), h) for p, h in hyps.items()]
    named += texts
    for name, lines in named[1:]:
        if len(lines) != len(src):
            raise line_count_error(name, len(lines), source_name, len(src))
    _warn_shifted(src, texts, warn)
    return Corpus(src, refs, hyps, m2=gold)


def check_inputs(source: str, references: Sequence[str], hypotheses: Sequence[str],
                 m2: str | None) -> None:
    """The checks of a scoring run's file arguments that need no file read."""
    check_one_stdin([("-s/--source", source), ("--m2", m2),
                     *(("-r/--reference", path) for path in references),
                     *(("-c/--hypothesis", path) for path in hypotheses)])
    if not references and m2 is None:
        raise InputError("no reference given; pass reference files with -r/--reference "
                         "or an M2 file with --m2")
    if not hypotheses:
        raise InputError("no hypothesis file given; pass one or more with -c/--hypothesis")
    seen: set[str] = set()
    for path in hypotheses:
        if path in seen:
            raise InputError(f"hypothesis file {path} is given twice; list each file once")
        seen.add(path)


def line_count_error(name: str, lines: int, source_name: str, source_lines: int) -> InputError:
    return InputError(f"{name} has {lines} lines but {source_name} has {source_lines}; "
                      "every file needs one line per source sentence")


class MisalignmentWarning(UserWarning):
    """A reference or hypothesis file looks shifted by a line against the source."""


def _warn_shifted(sources: list[str], texts: Sequence[tuple[str, list[str]]],
                  warn: Callable[[str], None] | None) -> None:
    """One warning per text file that looks shifted (the first suspicious line)."""
    source_sets = token_sets(sources)
    for name, lines in texts:
        shift = find_shift(sources, lines, source_sets)
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
    check_paired_metrics(metrics, paired)
    results: list[SystemResult] = []
    for metric in metrics:
        scored = metric.evaluate(corpus, level, betas or None)
        if paired is not None:
            scored = _with_paired(metric, corpus, scored, level, paired)
        results.extend(scored)
    return results


def check_paired_metrics(metrics: Sequence[Metric], paired: PairedOptions | None) -> None:
    """Every metric can be tested as asked (AR needs summable sentence statistics)."""
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


def score_files(specs: Sequence[str], source: str, references: Sequence[str],
                hypotheses: Sequence[str], betas: Sequence[float], level: str, fmt: str,
                digits: int, verbose: bool = False, m2: str | None = None,
                notes: list[str] | None = None,
                warn: Callable[[str], None] | None = None,
                breakdown: str | None = None,
                paired: PairedOptions | None = None) -> str:
    """The output of ``gecmetrics score``; every result carries its signature.

    JSON objects get a ``signature`` key; tables get one ``signature: ...`` line
    per distinct signature under the table (a LaTeX comment in LaTeX). TSV stays
    a bare table for programs; its signature lines are appended to ``notes``
    (the CLI prints them on stderr). ``notes`` (if given) receives every line
    meant for stderr. ``breakdown`` (a :data:`gecmetrics.breakdown.KINDS`)
    adds per-annotator or per-type counts of the edit metrics: a
    ``breakdown`` object in their JSON rows, a table per system otherwise.

    With ``paired`` (a paired test against the first hypothesis file), JSON
    objects also get ``baseline``, ``paired_test``, ``delta``, ``delta_ci`` and
    ``p_value``, tables three more columns per metric (docs/paired.md), and the
    signatures the test, its N and its seed.
    """
    notes = [] if notes is None else notes
    metrics = [metric_from_spec(spec) for spec in specs]  # bad specs fail before reading
    beta_options_apply(metrics, notes, **{"-b/--beta": bool(betas)})
    if breakdown is not None:
        from . import breakdown as bd

        if level != "corpus":
            raise ConfigError(f"--breakdown splits corpus scores; drop --level {level} or "
                              "--breakdown")
        bd.check(metrics, breakdown)
    check_paired_metrics(metrics, paired)  # before reading the files
    from .streaming import can_stream

    corpus = None
    if (breakdown is None and paired is None
            and can_stream(metrics, source, references, hypotheses, m2)):
        results, num_refs = _chunked_results(metrics, source, references, hypotheses, level,
                                             betas, warn)
    else:  # edit metrics, stdin, breakdowns and paired tests need the whole corpus
        corpus = load_corpus(source, references, hypotheses, m2, warn)
        if breakdown is not None:
            bd.check(metrics, breakdown, corpus)
        results = score_corpus(corpus, metrics, level, betas, paired)
        num_refs = len(corpus.references)
    by_spec = {metric.spec: metric for metric in metrics}
    refs_from = "text" if references else "m2-lenient"
    extra = paired.signature_fields() if paired is not None else {}
    signatures = [str(score_signature(by_spec[r.spec], num_refs, refs_from,
                                      r.level, r.beta, corpus).extend(**extra)) for r in results]
    split = (_breakdowns(corpus, by_spec, results, signatures, breakdown)
             if breakdown is not None and corpus is not None else {})
    if fmt == "json":
        rows = []
        for r, sig in zip(results, signatures, strict=True):
            row = {**r.to_json(), "signature": sig}
            if (r.spec, r.hypothesis, r.beta) in split:
                row["breakdown"] = split[(r.spec, r.hypothesis, r.beta)].to_json()
            rows.append(row)
        return to_json(rows, notes)
    text = format_results(results, fmt, digits) + signature_block(signatures, fmt, notes)
    if verbose and level == "corpus":
        text += "\n\n" + format_breakdowns(results, fmt, digits)
    if split:
        from .breakdown import format_breakdown

        text += "\n\n" + "\n\n".join(
            format_breakdown(split[key], fmt, digits, f"{r.hypothesis}  {_column(r)}")
            for r in results if (key := (r.spec, r.hypothesis, r.beta)) in split)
    return text


def _breakdowns(corpus: Corpus, by_spec: dict[str, Metric], results: Sequence[SystemResult],
                signatures: Sequence[str], kind: str) -> dict[tuple, Breakdown]:
    """{(spec, hypothesis, beta): Breakdown} of the edit metrics' results."""
    from .breakdown import breakdowns
    from .edits.metric import EditMetric

    out: dict[tuple, Breakdown] = {}
    sig = {(r.spec, r.hypothesis, r.beta): s for r, s in zip(results, signatures, strict=True)}
    for spec, beta in dict.fromkeys((r.spec, r.beta) for r in results):
        metric = by_spec[spec]
        if not isinstance(metric, EditMetric):
            continue
        names = {h: sig[(spec, h, beta)] for h in corpus.hypotheses}
        for b in breakdowns(metric, corpus, kind, beta, names):
            out[(spec, b.hypothesis, beta)] = b
    return out
def stream_sentence_scores(out: TextIO, specs: Sequence[str], source: str,
                           references: Sequence[str], hypotheses: Sequence[str],
                           betas: Sequence[float], level: str, fmt: str, digits: int,
                           m2: str | None = None, notes: list[str] | None = None,
                           warn: Callable[[str], None] | None = None) -> bool:
    """Write what :func:`score_files` returns at sentence level to ``out``, a chunk
    of lines at a time; False (nothing written) where the inputs cannot be read
    by chunks (:func:`gecmetrics.streaming.can_stream`)."""
    from .parallel import current
    from .streaming import can_stream, scan_inputs, write_sentence_scores

    notes = [] if notes is None else notes
    metrics = [metric_from_spec(spec) for spec in specs]
    if level != "sentence" or not can_stream(metrics, source, references, hypotheses, m2):
        return False
    beta_options_apply(metrics, notes, **{"-b/--beta": bool(betas)})
    inputs = scan_inputs(source, references, hypotheses)

    def signature(metric: Metric, beta: float | None) -> str:
        return str(score_signature(metric, len(references), "text", level, beta))

    write_sentence_scores(out, inputs, metrics, betas, fmt, digits, signature, notes,
                          current().chunk_size, warn)
    return True


def _chunked_results(metrics: Sequence[Metric], source: str, references: Sequence[str],
                     hypotheses: Sequence[str], level: str, betas: Sequence[float] | None,
                     warn: Callable[[str], None] | None) -> tuple[list[SystemResult], int]:
    """Results of n-gram metrics from files read and counted by chunks
    (:mod:`gecmetrics.streaming`): only the per-sentence counts are kept."""
    from .chunked import count_chunks, statistics_of_parts
    from .parallel import current
    from .streaming import line_chunks, scan_inputs, shift_reporter

    inputs = scan_inputs(source, references, hypotheses)
    chunks = line_chunks(inputs, current().chunk_size)
    shifts = shift_reporter(inputs, warn or (
        lambda message: warnings.warn(message, MisalignmentWarning, stacklevel=4)))
    parts = count_chunks(chunks, metrics, shifts)

    def evaluate(i: int) -> list[SystemResult]:
        stats = statistics_of_parts(metrics[i], inputs.hypotheses, parts[i])
        return metrics[i].evaluate_statistics(stats, level, betas or None)

    # After the counting, each metric's statistics and scores are built
    # independently: with --jobs N, N metrics at a time in threads (their
    # large array operations release the GIL), so this last step, which no
    # worker process can share, is not one core's alone. Same results.
    threads = min(current().workers, len(metrics))
    if threads <= 1:
        per_metric = [evaluate(i) for i in range(len(metrics))]
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(threads) as pool:
            per_metric = list(pool.map(evaluate, range(len(metrics))))
    return [r for results in per_metric for r in results], len(references)


def signature_block(signatures: Sequence[str], fmt: str, notes: list[str]) -> str:
    """What follows a table: one signature line per distinct signature (TSV: to ``notes``)."""
    lines = [f"signature: {sig}" for sig in dict.fromkeys(signatures)]
    if fmt == "tsv":
        notes.extend(lines)
        return ""
    if fmt == "latex":
        return "\n" + "\n".join(f"% {line}" for line in lines)
    if fmt == "markdown":
        return "\n\n" + "  \n".join(f"`{line}`" for line in lines)
    return "\n" + "\n".join(lines)


def _column(result: SystemResult) -> str:
    """Column label: display name, the spec's options, beta.

    ``tokenize=X`` is left out only where the display name already says it
    (``charGREEN``); BLEU's name does not, so ``bleu`` and
    ``bleu:tokenize=none`` keep two columns instead of one overwriting the other.
    """
    options = [o for o in result.spec.partition(":")[2].split(",")
               if o and not o.startswith("beta=")
               and not (o.startswith("tokenize=")
                        and result.metric.startswith(o.partition("=")[2]))]
    label = result.metric + (f"({','.join(options)})" if options else "")
    return label if result.beta is None else f"{label} b={result.beta:g}"


def format_results(results: Sequence[SystemResult], fmt: str, digits: int) -> str:
    """Systems as rows, one column group per (metric, beta); percent, rounded half up."""
    if not results:
        raise ConfigError("nothing to show")
    if results[0].level == "sentence":
        columns: dict[tuple[str, str], list[float]] = {}
        for r in results:
            columns[(_column(r), r.hypothesis)] = r.scores or []
        headers = ["#"] + [f"{c} {h}" for c, h in columns]
        length = len(next(iter(columns.values())))
        rows = [[str(i + 1)] + [percent(v[i], digits) for v in columns.values()]
                for i in range(length)]
        return render(headers, rows, fmt, ["right"] * len(headers))
    groups: dict[str, dict[str, SystemResult]] = {}
    for r in results:
        groups.setdefault(_column(r), {})[r.hypothesis] = r
    systems = list(dict.fromkeys(r.hypothesis for r in results))
    with_pr = {g: any(r.precision is not None for r in rs.values()) for g, rs in groups.items()}
    paired = any(r.paired is not None for r in results)
    headers = ["hypothesis"]
    for g in groups:
        headers += [f"{g} P", f"{g} R", f"{g} F"] if with_pr[g] else [g]
        if paired:
            headers += [f"{g} delta", f"{g} 95% CI", f"{g} p"]
    rows = []
    for name in systems:
        row = [name]
        for g, rs in groups.items():
            res = rs.get(name)
            width = (3 if with_pr[g] else 1) + (3 if paired else 0)
            if res is None:
                row += ["-"] * width
                continue
            values = [res.precision, res.recall, res.score] if with_pr[g] else [res.score]
            row += [percent(v, digits) for v in values]
            if paired:
                row += _paired_cells(res, digits)
        rows.append(row)
    return render(headers, rows, fmt, ["left"] + ["right"] * (len(headers) - 1))


def _paired_cells(result: SystemResult, digits: int) -> list[str]:
    """delta, its 95% interval (percent) and p of a compared system; 'baseline' for the baseline."""
    c = result.paired
    if c is None or c.delta is None or c.delta_ci is None or c.p_value is None:
        return ["baseline", "-", "-"]
    low, high = (percent(v, digits) for v in c.delta_ci)
    return [percent(c.delta, digits), f"[{low}, {high}]", fixed(c.p_value, 4)]


def format_breakdowns(results: Sequence[SystemResult], fmt: str, digits: int) -> str:
    """Per-n tables (the official GREEN tool's ``-v`` view) for results that have one."""
    blocks = []
    for r in results:
        per_n = r.details.get("per_n") if r.details else None
        if not per_n:
            continue
        count_keys = [k for k in per_n[0] if k not in ("n", "precision", "recall", "f")]
        headers = ["n", *count_keys, "P", "R", "F"]
        rows = [[str(row["n"]), *(str(row[k]) for k in count_keys),
                 percent(row["precision"], digits), percent(row["recall"], digits),
                 percent(row["f"], digits)] for row in per_n]
        rows.append(["all", *([""] * len(count_keys)), percent(r.precision, digits),
                     percent(r.recall, digits), percent(r.score, digits)])
        title = f"{r.hypothesis}  {_column(r)}"
        blocks.append(title + "\n" + render(headers, rows, fmt, ["right"] * len(headers)))
    return "\n\n".join(blocks)
