"""Rendering what :mod:`gecmetrics.scoring` computed: the output of ``gecmetrics score``.

Tables (plain, TSV, Markdown, LaTeX) put systems in rows and one column group
per (metric, beta), in percent rounded half up; JSON has 0-1 floats at full
precision. Every result carries its signature: a ``signature`` key in JSON,
one ``signature: ...`` line per distinct signature under a table (a LaTeX
comment in LaTeX); TSV stays a bare table for programs and its signature lines
go to the notes (the CLI prints them on stderr). This module sits above the
results: :mod:`gecmetrics.scoring` never imports it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import TextIO

from gecmetrics.errors import ConfigError
from gecmetrics.formatting import (
    JSON_ENCODER,
    fixed,
    percent,
    percents,
    render,
    signature_lines,
    to_json,
)
from gecmetrics.metric import SystemResult
from gecmetrics.scoring import ScoreResults, SentenceStream
from gecmetrics.validate import (
    MAX_DIGITS,
    SCORE_FORMATS,
    check_choice,
    check_instance,
    check_int_range,
)


def render_scores(scores: ScoreResults, fmt: str, digits: int = 2,
                  verbose: bool = False) -> tuple[str, list[str]]:
    """The text of ``scores`` in ``fmt`` and the lines meant for stderr.

    ``verbose`` (corpus level) adds the per-n tables of the metrics that have
    them; breakdowns (``scores.breakdowns``) add a table per system, or a
    ``breakdown`` object in the JSON rows.
    """
    check_instance(scores, "scores", ScoreResults, "a ScoreResults (what score() returns)")
    check_choice("fmt", fmt, SCORE_FORMATS)
    check_int_range(digits, "digits", 0, MAX_DIGITS, "a number of decimal places")
    notes = list(scores.notes)
    if fmt == "json":
        return to_json(scores.to_json(), notes), notes
    results = scores.results
    text = format_results(results, fmt, digits) + signature_block(scores.signatures, fmt, notes)
    if verbose and results and results[0].level == "corpus":
        text += "\n\n" + format_per_n(results, fmt, digits)
    if scores.breakdowns:
        from gecmetrics.breakdown import format_breakdown

        text += "\n\n" + "\n\n".join(
            format_breakdown(split, fmt, digits, f"{r.hypothesis}  {column_label(r)}")
            for r in results
            if (split := scores.breakdowns.get((r.spec, r.hypothesis, r.beta))) is not None)
    return text, notes


def write_sentence_stream(out: TextIO, stream: SentenceStream, fmt: str,
                          digits: int = 2) -> list[str]:
    """Write ``stream``'s sentence scores to ``out`` as its chunks are scored, in
    input order; returns the lines meant for stderr.

    The text is that of :func:`render_scores` at sentence level, except that
    table columns of scores are as wide as the widest possible score (100%)
    rather than the widest one present.
    """
    notes = list(stream.notes)
    if fmt == "json":
        _write_json(out, stream, notes)
        return notes
    _write_table(out, stream, fmt, digits)
    text = signature_block(stream.signatures, fmt, notes)
    if text:  # it starts with the line end that the last row already wrote
        out.write(text[1:] + "\n")
    return notes


def signature_block(signatures: Sequence[str], fmt: str, notes: list[str]) -> str:
    """What follows a table: one signature line per distinct signature (TSV: to ``notes``)."""
    if fmt == "tsv":
        notes.extend(f"signature: {sig}" for sig in dict.fromkeys(signatures))
        return ""
    return ("\n\n" if fmt == "markdown" else "\n") + signature_lines(signatures, fmt)


def column_label(result: SystemResult) -> str:
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
            columns[(column_label(r), r.hypothesis)] = r.scores or []
        headers = ["#"] + [f"{c} {h}" for c, h in columns]
        texts = [percents(v, digits) for v in columns.values()]
        rows = [[str(i + 1), *cells] for i, cells in enumerate(zip(*texts, strict=True))]
        return render(headers, rows, fmt, ["right"] * len(headers))
    groups: dict[str, dict[str, SystemResult]] = {}
    labels: dict[tuple[str, str, float | None], str] = {}  # one per column, not per result
    for r in results:
        key = (r.metric, r.spec, r.beta)
        label = labels.get(key)
        if label is None:
            label = labels[key] = column_label(r)
        group = groups.get(label)
        if group is None:
            group = groups[label] = {}
        group[r.hypothesis] = r
    systems = list(dict.fromkeys(r.hypothesis for r in results))
    with_pr = {g: any(r.precision is not None for r in rs.values()) for g, rs in groups.items()}
    paired = any(r.paired is not None for r in results)
    headers = ["hypothesis"]
    for g in groups:
        headers += [f"{g} P", f"{g} R", f"{g} F"] if with_pr[g] else [g]
        if paired:
            headers += [f"{g} delta", f"{g} 95% CI", f"{g} p"]
    # Column by column: the numbers of every column are formatted together (percents).
    numbers: list[float | None] = []
    plan: list[int | list[str]] = []  # a column: where its numbers start, or its texts
    for g, rs in groups.items():
        found = [rs.get(name) for name in systems]  # None: "-" in every cell
        for attribute in ("precision", "recall", "score") if with_pr[g] else ("score",):
            plan.append(len(numbers))
            numbers += [None if r is None else getattr(r, attribute) for r in found]
        if paired:
            cells = [["-"] * 3 if r is None else _paired_cells(r, digits) for r in found]
            plan += [list(column) for column in zip(*cells, strict=True)]
    cell_texts = percents(numbers, digits)
    size = len(systems)
    table = [systems, *(cell_texts[c:c + size] if isinstance(c, int) else c for c in plan)]
    rows = [list(row) for row in zip(*table, strict=True)]
    return render(headers, rows, fmt, ["left"] + ["right"] * (len(headers) - 1))


def _paired_cells(result: SystemResult, digits: int) -> list[str]:
    """delta, its 95% interval (percent) and p of a compared system; 'baseline' for the baseline."""
    c = result.paired
    if c is None or c.delta is None or c.delta_ci is None or c.p_value is None:
        return ["baseline", "-", "-"]
    low, high = (percent(v, digits) for v in c.delta_ci)
    return [percent(c.delta, digits), f"[{low}, {high}]", fixed(c.p_value, 4)]


def format_per_n(results: Sequence[SystemResult], fmt: str, digits: int) -> str:
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
        title = f"{r.hypothesis}  {column_label(r)}"
        blocks.append(title + "\n" + render(headers, rows, fmt, ["right"] * len(headers)))
    return "\n\n".join(blocks)


def _write_table(out: TextIO, stream: SentenceStream, fmt: str, digits: int) -> None:
    """Rows rendered a chunk at a time with fixed column widths.

    Each chunk is rendered together with a sentinel row of the widest possible
    cells (the last line number, 100%), whose line is dropped: so every chunk
    has the widths, alignment and borders of one table.
    """
    columns = stream.columns
    headers = ["#"] + [f"{column_label(c)} {c.hypothesis}" for c in columns]
    align = ["right"] * len(headers)
    sentinel = [str(stream.lines)] + [percent(1.0, digits)] * len(columns)
    probe = render(headers, [sentinel, sentinel], fmt, align).split("\n")
    # the two sentinel rows are the only two equal consecutive lines
    head = next(i for i in range(len(probe) - 1) if probe[i] == probe[i + 1])
    rows_at = head + 1
    done = 0
    tail: list[str] = []
    for values in stream.chunks:
        length = len(values[0]) if values else 0
        texts = [percents(list(map(float, v)), digits) for v in values]
        rows = [[str(done + i + 1), *cells]
                for i, cells in enumerate(zip(*texts, strict=True))]
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


def _write_json(out: TextIO, stream: SentenceStream, notes: list[str]) -> None:
    """The JSON array of :func:`gecmetrics.formatting.to_json`, each column's scores
    spooled to a temporary file as chunks finish, then written in order."""
    import shutil  # with tempfile, only for this streamed JSON: not in a plain run's start-up
    import tempfile

    columns = stream.columns
    replaced = 0
    with tempfile.TemporaryDirectory(prefix="gecmetrics-") as folder:
        spools = [open(os.path.join(folder, str(i)), "w+", encoding="utf-8")  # noqa: SIM115
                  for i in range(len(columns))]
        try:
            started = [False] * len(columns)
            for chunk in stream.chunks:
                for i, row in enumerate(chunk):
                    values = row.tolist()
                    words = [repr(v) if math.isfinite(v) else "null" for v in values]
                    replaced += sum(1 for v in values if not math.isfinite(v))
                    if words:
                        spools[i].write((", " if started[i] else "") + ", ".join(words))
                        started[i] = True
            out.write("[\n")
            for i, (column, sig) in enumerate(zip(columns, stream.signatures, strict=True)):
                head = column.to_json()
                head.pop("scores", None)
                out.write(JSON_ENCODER.encode(head)[:-1] + ', "scores": [')
                spools[i].seek(0)
                shutil.copyfileobj(spools[i], out)
                out.write('], "signature": ' + JSON_ENCODER.encode(sig) + "}")
                out.write(",\n" if i + 1 < len(columns) else "\n")
            out.write("]\n")
        finally:
            for spool in spools:
                spool.close()
    if replaced:
        notes.append(f"note: {replaced} undefined value(s) (NaN or infinite) written as "
                     "null in the JSON")

