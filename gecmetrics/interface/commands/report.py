"""`gecmetrics report`: one self-contained HTML page to explore and share scores."""

from __future__ import annotations

from typing import Any

import click

from gecmetrics.errors import ConfigError
from gecmetrics.interface.commands.common import friendly_errors
from gecmetrics.interface.commands.score import (
    INPUT_OPTIONS,
    JOBS_OPTION,
    PAIRED_OPTIONS,
    GreedyCommand,
    paired_options,
    with_options,
)


@click.command(cls=GreedyCommand)
@with_options(INPUT_OPTIONS)
@click.option("-o", "--output", required=True, metavar="FILE.html",
              help="Where the report goes (.html). Its folder must exist.")
@click.option("--title", default="gecmetrics report", show_default=True,
              help="The page's title.")
@click.option("--edits", "edits", type=click.Choice(["auto", "errant", "diff"]),
              default="auto", show_default=True,
              help="Edits shown in the sentence explorer: ERRANT's with error types "
                   "(errant extra), a token diff, or auto (ERRANT's when installed).")
@click.option("--attribution", type=click.Choice(["none", "shapley", "sampling", "add",
                                                  "remove"]),
              default="none", show_default=True,
              help="Colour each shown edit by its share of the sentence's score under each "
                   "metric with sentence scores (docs/attribution.md): exact Shapley values "
                   "(sampled beyond 10 edits, with a note), sampled ones, or add-one / "
                   "remove-one. Off by default: it costs several times the report.")
@click.option("--no-significance", is_flag=True,
              help="No paired test (by default a paired bootstrap of 1000 resamples "
                   "marks each system against the baseline chosen in the page).")
@with_options(PAIRED_OPTIONS)
@with_options((JOBS_OPTION,))
@click.pass_context
@friendly_errors
def report(ctx: click.Context, specs: tuple[str, ...], source: str,
           references: tuple[str, ...], hypotheses: tuple[str, ...], m2: str | None,
           **flags: Any) -> None:
    """Write an HTML report: a leaderboard and a sentence explorer, in one file.

    The inputs are those of `gecmetrics score` (same files, checks and metrics). The
    page needs no network: it opens offline in any current browser, and can be
    attached to a paper or sent to a colleague (docs/report.md).

    \b
    Example:
      gecmetrics report -m m2 -m gleu -m green -s src.txt --m2 gold.m2 \\
          -c sysA.txt sysB.txt -o report.html
    """
    from gecmetrics.interface.html_report import render_report, size_note, write_html
    from gecmetrics.workflows.report_data import ReportOptions, gather

    paired = paired_options(flags)
    if flags["no_significance"] and paired is not None:
        raise ConfigError("--no-significance and --paired-bootstrap/--paired-ar contradict "
                          "each other; drop one")
    options = ReportOptions(source, references, hypotheses, specs, m2, flags["betas"],
                            paired, flags["jobs"], flags["edits"], flags["output"],
                            not flags["no_significance"], flags["attribution"])

    def warn(message: str) -> None:
        click.echo(f"warning: {message}", err=True)

    data = gather(options, warn)
    for note in data.notes:
        click.echo(note, err=True)
    path = write_html(render_report(data, flags["title"]), flags["output"])
    click.echo(size_note(path), err=True)
