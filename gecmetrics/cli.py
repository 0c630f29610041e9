"""The ``gecmetrics`` command line (click). Thin over the Python API.

Heavy libraries (numpy, pandas, scipy, matplotlib) are imported inside the
commands that use them, so ``gecmetrics --help`` starts fast.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import Any

import click

from .errors import GecMetricsError

LEVEL_HELP = "corpus: one score from summed statistics; sentence: one per line; mean: mean of sentence scores."


def friendly_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn user errors into one line on stderr and exit code 2 (no traceback)."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except GecMetricsError as err:
            click.echo(f"error: {err}", err=True)
            sys.exit(2)
        except BrokenPipeError:  # e.g. `gecmetrics score ... | head`
            sys.exit(0)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="gecmetrics")
def main() -> None:
    """Evaluate grammatical error correction: many metrics side by side, and how well
    each metric agrees with human rankings.

    \b
    Examples:
      gecmetrics list
      gecmetrics score -m green -s src.txt -r ref0.txt ref1.txt -c sysA.txt sysB.txt
      gecmetrics score -m green:tokenize=char,n=6 -m green -b 0.5 -b 2 -s src.txt -r ref.txt -c sys.txt
      gecmetrics m2-to-text official-2014.combined.m2 --annotator 0 > ref0.txt
    """


@main.command("list")
@friendly_errors
def list_cmd() -> None:
    """List every available metric (built-in and plug-in) with one line about it."""
    from .registry import list_metrics

    metrics = list_metrics()
    width = max(map(len, metrics)) if metrics else 0
    for name, text in metrics.items():
        click.echo(f"{name.ljust(width)}  {text}")


class GreedyCommand(click.Command):
    """A command whose list options take several values after one flag.

    ``-r a.txt b.txt -c x.txt y.txt`` is rewritten to ``-r a.txt -r b.txt -c x.txt
    -c y.txt`` before click parses it, so both spellings work.
    """

    greedy = ("-r", "--reference", "-c", "--hypothesis")

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        out: list[str] = []
        current: str | None = None
        for arg in args:
            if arg in self.greedy:
                current = arg
                out.append(arg)
                continue
            if current and out and out[-1] != current and not arg.startswith("-"):
                out.extend([current, arg])
                continue
            if arg.startswith("-"):
                current = None
            out.append(arg)
        return super().parse_args(ctx, out)


@main.command(cls=GreedyCommand)
@click.option("-m", "--metric", "specs", multiple=True, default=("green",), show_default=True,
              metavar="SPEC",
              help="Metric as name[:key=value,...], e.g. green:tokenize=char,n=6. Repeat to "
                   "score several metrics in one run (reading and counting are shared).")
@click.option("-s", "--source", required=True, metavar="FILE",
              help="Source sentences, one a line (UTF-8).")
@click.option("-r", "--reference", "references", multiple=True, metavar="FILE...",
              help="Reference file(s); several may follow one -r, or repeat -r.")
@click.option("-c", "--hypothesis", "hypotheses", multiple=True, metavar="FILE...",
              help="System output file(s) to score; several may follow one -c.")
@click.option("-b", "--beta", "betas", multiple=True, metavar="BETA",
              help="F-beta weight for every metric that has one (repeat for several; "
                   "default: each metric's own, e.g. 2.0 for GREEN).")
@click.option("--level", type=click.Choice(["corpus", "sentence", "mean"]), default="corpus",
              show_default=True, help=LEVEL_HELP)
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json", "markdown", "latex"]),
              default="table", show_default=True,
              help="Output format. JSON has 0-1 floats at full precision; the others percent.")
@click.option("-d", "--digits", type=click.IntRange(0, 15), default=2, show_default=True,
              help="Decimal places of the percentages in table formats (rounded half up).")
@click.option("-v", "--verbose", is_flag=True,
              help="Corpus level: also print, per metric and system, the per-n breakdown "
                   "(GREEN: the seven region counts, P, R, F for each n).")
@friendly_errors
def score(specs, source, references, hypotheses, betas, level, fmt, digits, verbose) -> None:
    """Score system outputs against references with one or more metrics.

    Files are UTF-8 with one sentence a line; only the line ending (LF or CRLF) is
    removed, spaces are kept. All files must have the same number of lines.

    \b
    Example:
      gecmetrics score -m green -m green:tokenize=char,n=6 -b 2 \\
          -s data/example/source.txt -r data/example/ref0.txt data/example/ref1.txt \\
          -c data/example/system_a.txt data/example/system_b.txt
    """
    from .metric import check_beta
    from .scoring import score_files

    betas = [check_beta(b) for b in betas]
    output = score_files(
        specs=list(specs), source=source, references=list(references),
        hypotheses=list(hypotheses), betas=betas, level=level, fmt=fmt,
        digits=digits, verbose=verbose,
    )
    click.echo(output)


@main.command("m2-to-text")
@click.argument("m2_file", metavar="FILE.m2")
@click.option("--source", "want_source", is_flag=True, help="Write the source sentences.")
@click.option("--annotator", type=int, default=None, metavar="K",
              help="Write annotator K's corrected text (edits applied right to left).")
@click.option("--strict", is_flag=True,
              help="For a sentence where annotator K has no line at all, write the unchanged "
                   "source instead of the lowest-numbered annotator present (the default, as "
                   "the M2 scorer sees such sentences).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write to this file instead of standard output.")
@friendly_errors
def m2_to_text(m2_file, want_source, annotator, strict, output) -> None:
    """Turn an M2 file into plain text: the source or one annotator's correction."""
    from .errors import ConfigError
    from .m2 import read_m2

    if want_source == (annotator is not None):
        raise ConfigError("give exactly one of --source or --annotator K")
    m2 = read_m2(m2_file)
    if want_source:
        lines = m2.sources
    else:
        if not 0 <= annotator < m2.num_annotators:
            raise ConfigError(
                f"--annotator {annotator} is out of range: {m2_file} has annotators "
                f"0..{m2.num_annotators - 1}"
            )
        lines = m2.references(strict=strict)[annotator]
    text = "".join(line + "\n" for line in lines)
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        click.echo(text, nl=False)


def run() -> None:
    """Console entry point: click usage errors become one line and exit code 2."""
    try:
        main.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(1)
    except click.exceptions.NoArgsIsHelpError as err:
        click.echo(err.ctx.get_help() if err.ctx else str(err))
        sys.exit(0)
    except click.UsageError as err:
        command = err.ctx.command_path if err.ctx else "gecmetrics"
        click.echo(f"error: {err.format_message()} (see `{command} --help`)", err=True)
        sys.exit(2)
    except click.exceptions.Exit as err:
        sys.exit(err.exit_code)
    except click.ClickException as err:
        click.echo(f"error: {err.format_message()}", err=True)
        sys.exit(err.exit_code)


if __name__ == "__main__":  # pragma: no cover
    run()
