"""`gecmetrics mbr`: minimum-Bayes-risk selection among candidate corrections (docs/mbr.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from gecmetrics.errors import InputError
from gecmetrics.formatting import percent, to_json
from gecmetrics.formatting import render as render_table
from gecmetrics.interface.commands.common import (
    friendly_errors,
    out,
    refuse_digits_with_json,
    write_text,
)
from gecmetrics.interface.commands.score import GreedyCommand
from gecmetrics.interface.score_report import signature_block
from gecmetrics.readers import (
    check_one_stdin,
    describe,
    line_count_error,
    read_bounded,
    short_names,
)
from gecmetrics.validate import MAX_DIGITS, SCORE_FORMATS, check_output_file

if TYPE_CHECKING:
    from gecmetrics.mbr import MbrResult


@dataclass(frozen=True)
class MbrCommandOptions:
    """One ``gecmetrics mbr`` run: the files, the selection's options, the output."""

    spec: str
    source: str
    candidates: tuple[str, ...]
    references: tuple[str, ...] = ()
    include_self: bool = True
    fmt: str = "table"
    digits: int = 2
    output: str | None = None


class MbrCommand(GreedyCommand):
    """``-c`` and ``-r`` take several files after one flag, as in ``score``."""

    greedy = ("-c", "--candidates", "-r", "--pseudo-references")


@click.command("mbr", cls=MbrCommand)
@click.option("-m", "--metric", "spec", default="chrf", show_default=True, metavar="SPEC",
              help="The utility: a metric with sentence scores, name[:key=value,...] "
                   "(chrf, bleu, gleu, green, errant, m2, ...).")
@click.option("-s", "--source", required=True, metavar="FILE", help="Source sentences.")
@click.option("-c", "--candidates", "candidates", multiple=True, required=True,
              metavar="FILE...",
              help="Candidate files, one candidate per source line each; several may "
                   "follow one -c. Ties go to the first file.")
@click.option("-r", "--pseudo-references", "references", multiple=True, metavar="FILE...",
              help="Compare with these files instead of the candidates themselves.")
@click.option("--exclude-self", is_flag=True,
              help="Average each candidate's utility over the other candidates only (the "
                   "default, as mbrs, includes the candidate itself).")
@click.option("-o", "--output", default=None, metavar="FILE",
              help="Write the selected texts here, one a line (default: only the table).")
@click.option("--format", "fmt", type=click.Choice(SCORE_FORMATS), default="table",
              show_default=True,
              help="The table of choices: JSON has 0-1 floats at full precision and every "
                   "candidate's expected utility; the others percent.")
@click.option("-d", "--digits", type=click.IntRange(0, MAX_DIGITS), default=2,
              show_default=True, help="Decimal places of the percentages in tables.")
@click.pass_context
@friendly_errors
def mbr_cmd(ctx: click.Context, spec: str, source: str, candidates: tuple[str, ...],
            references: tuple[str, ...], **flags: Any) -> None:
    """Choose, per source sentence, the candidate with the highest expected utility.

    The utility of a candidate against another is the metric's sentence score
    with the other as the single reference; its expected utility is the mean
    over the candidates (itself included unless --exclude-self) or over the
    -r files. Prints one row per sentence: the chosen file, its expected
    utility and text; -o writes the selected texts.

    \b
    Example:
      gecmetrics mbr -m chrf -s data/example/source.txt \\
          -c data/example/system_a.txt data/example/system_b.txt -o selected.txt
    """
    refuse_digits_with_json(ctx, flags["fmt"])
    output = flags["output"]
    if output is not None:
        check_output_file(output, "-o/--output")
    options = MbrCommandOptions(spec, source, tuple(candidates), tuple(references),
                                not flags["exclude_self"], flags["fmt"], flags["digits"],
                                output)
    result = run(options)
    notes: list[str] = []
    out(render(result, options.fmt, options.digits, notes))
    for note in notes:
        click.echo(note, err=True)
    if output is not None:
        write_text("".join(f"{text}\n" for text in result.texts), output)


def run(options: MbrCommandOptions) -> MbrResult:
    """Read and check the files, then select (the command without its output)."""
    from gecmetrics.mbr import MbrOptions, select

    mbr_options = MbrOptions(options.spec, include_self=options.include_self)
    mbr_options.make_metric()  # an unknown or unsuitable metric: one line before any reading
    for flag, paths in (("-c/--candidates", options.candidates),
                        ("-r/--pseudo-references", options.references)):
        if len(set(paths)) != len(paths):
            twice = next(p for p in paths if paths.count(p) > 1)
            raise InputError(f"{flag}: file {twice} is given twice; list each file once")
    check_one_stdin([("-s/--source", options.source),
                     *(("-c/--candidates", p) for p in options.candidates),
                     *(("-r/--pseudo-references", p) for p in options.references)])
    texts = read_bounded([(options.source, "source"),
                          *((p, "candidates") for p in options.candidates),
                          *((p, "pseudo-reference") for p in options.references)])
    source_name = describe(options.source, "source")
    roles = (["candidates"] * len(options.candidates)
             + ["pseudo-reference"] * len(options.references))
    for path, role, lines in zip([*options.candidates, *options.references], roles, texts[1:],
                                 strict=True):
        if len(lines) != len(texts[0]):
            raise line_count_error(describe(path, role), len(lines), source_name,
                                   len(texts[0]))
    cands = texts[1:1 + len(options.candidates)]
    names = short_names(options.candidates)
    refs = texts[1 + len(options.candidates):] or None
    return select(texts[0], dict(zip(names, cands, strict=True)), mbr_options, refs)


def render(result: MbrResult, fmt: str, digits: int, notes: list[str]) -> str:
    """The choices as a table, TSV (percent) or JSON (0-1), with the signature."""
    if fmt == "json":
        return to_json([{**row, "signature": result.signature} for row in result.to_json()],
                       notes)
    rows = [[d + 1, result.candidates[i], percent(float(result.expected[d, i]), digits), text]
            for d, (i, text) in enumerate(zip(result.chosen, result.texts, strict=True))]
    table = render_table(["#", "chosen", "utility", "text"], rows, fmt)
    return table + signature_block([result.signature], fmt, notes)
