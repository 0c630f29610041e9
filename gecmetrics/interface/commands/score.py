"""`gecmetrics score`: score system outputs with one or more metrics."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from gecmetrics.errors import ConfigError
from gecmetrics.interface.commands.common import (
    friendly_errors,
    out,
    refuse_digits_with_json,
    writing_stdout,
)
from gecmetrics.stats import DEFAULT_SEED
from gecmetrics.validate import LEVELS, MAX_DIGITS, SCORE_FORMATS, check_paired_request, needs

if TYPE_CHECKING:
    from gecmetrics.paired import PairedOptions

LEVEL_HELP = (
    "corpus: one score from summed statistics; sentence: one per line; "
    "mean: mean of sentence scores."
)


class GreedyCommand(click.Command):
    """A command whose list options take several values after one flag.

    ``-r a.txt b.txt -c x.txt y.txt`` is rewritten to ``-r a.txt -r b.txt -c x.txt
    -c y.txt`` before click parses it, so both spellings work. A lone ``-``
    (standard input) is a value, not an option.
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
            is_value = arg == "-" or not arg.startswith("-")
            if current and out and out[-1] != current and is_value:
                out.extend([current, arg])
                continue
            if not is_value:
                current = None
            out.append(arg)
        return super().parse_args(ctx, out)

    def make_parser(self, ctx: click.Context) -> Any:
        """click's parser, matching a short option (``-b 0.5``) without first trying it
        as a long one: that try builds a refusal with a translated message and
        difflib's close matches, a tenth of a run given a thousand ``-b`` options.
        The refusal it skips is the one click discards before matching short
        options, so what is parsed and every error message stay as they are."""
        parser = super().make_parser(ctx)
        long_options = getattr(parser, "_long_opt", None)
        prefixes = getattr(parser, "_opt_prefixes", None)
        match_long = getattr(parser, "_match_long_opt", None)
        if long_options is None or prefixes is None or match_long is None:
            return parser  # another click: its own parsing, slower but the same

        def match_long_first(opt: str, explicit_value: str | None, state: Any) -> None:
            if opt in long_options or opt[:2] in prefixes:
                match_long(opt, explicit_value, state)
                return
            raise click.NoSuchOption(opt, message=opt, ctx=ctx)  # click goes on to short options

        setattr(parser, "_match_long_opt", match_long_first)  # noqa: B010 (mypy refuses assigning a method)
        return parser


#: The options that say what to score, shared by ``score`` and ``report`` (one
#: definition: both commands read and check their inputs alike).
INPUT_OPTIONS: tuple[Callable[[Any], Any], ...] = (
    click.option("-m", "--metric", "specs", multiple=True, default=("green",), show_default=True,
                 metavar="SPEC",
                 help="Metric as name[:key=value,...], e.g. green:tokenize=char,n=6. Repeat to "
                      "score several metrics in one run (reading and counting are shared)."),
    click.option("-s", "--source", required=True, metavar="FILE",
                 help="Source sentences, one a line (UTF-8); - reads standard input."),
    click.option("-r", "--reference", "references", multiple=True, metavar="FILE...",
                 help="Reference file(s); several may follow one -r, or repeat -r."),
    click.option("--m2", "m2", metavar="FILE.m2", default=None,
                 help="Gold edits as an M2 file (needed by m2 and errant). Without -r, the "
                      "text references of the other metrics are derived from it, one per "
                      "annotator."),
    click.option("-c", "--hypothesis", "hypotheses", multiple=True, metavar="FILE...",
                 help="System output file(s) to score; several may follow one -c."),
    click.option("-b", "--beta", "betas", multiple=True, metavar="BETA",
                 help="F-beta weight for every metric that has one (repeat for several; "
                      "default: each metric's own, e.g. 2.0 for GREEN)."),
)

#: The paired-significance options (``--paired-bootstrap``, ``--paired-ar``, ``--seed``),
#: shared by ``score`` and ``report``; :func:`paired_options` reads them.
PAIRED_OPTIONS: tuple[Callable[[Any], Any], ...] = (
    click.option("--paired-bootstrap", "paired_bs", type=int, default=None, metavar="N",
                 help="Paired bootstrap test (Koehn 2004) with N resamples: the first -c file "
                      "is the baseline; every other gets delta, its 95% interval and a p-value "
                      "per metric (sacrebleu's conventions; docs/paired.md)."),
    click.option("--paired-ar", "paired_ar", type=int, default=None, metavar="N",
                 help="Paired approximate randomization test (Riezler & Maxwell 2005) with N "
                      "trials, instead of --paired-bootstrap (sacrebleu uses 10000)."),
    click.option("--seed", type=int, default=None, metavar="SEED",
                 help="Seed of the paired test's resamples/trials (default 12345, as sacrebleu)."),
)

JOBS_OPTION = click.option(
    "-j", "--jobs", type=int, default=None, metavar="N",
    help="Processes that count n-grams, a chunk of sentences each (default: the "
         "number of cores; 1: no extra process). The scores do not depend on it.")


def with_options(options: Sequence[Callable[[Any], Any]]) -> Callable[[Any], Any]:
    """A decorator applying the click ``options`` in order (the first is listed first)."""
    def apply(command: Any) -> Any:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


@click.command(cls=GreedyCommand)
@with_options(INPUT_OPTIONS)
@click.option("--level", type=click.Choice(LEVELS), default="corpus",
              show_default=True, help=LEVEL_HELP)
@click.option("--format", "fmt", type=click.Choice(SCORE_FORMATS),
              default="table", show_default=True,
              help="Output format. JSON has 0-1 floats at full precision; the others percent.")
@click.option("-d", "--digits", type=click.IntRange(0, MAX_DIGITS), default=2, show_default=True,
              help="Decimal places of the percentages in table formats (rounded half up).")
@click.option("-v", "--verbose", is_flag=True,
              help="Corpus level: also print, per metric and system, the per-n breakdown "
                   "(GREEN: the seven region counts, P, R, F for each n).")
@click.option("--breakdown", type=click.Choice(["annotator", "cat1", "cat2", "cat3"]),
              default=None,
              help="Corpus level, edit metrics (m2, errant): TP/FP/FN/P/R/F per annotator, "
                   "or per error type as errant_compare -cat 1|2|3 (m2: the M2 file's "
                   "types, FP untyped). JSON: a 'breakdown' object per row.")
@with_options(PAIRED_OPTIONS)
@with_options((JOBS_OPTION,))
@click.option("--chunk-size", type=int, default=None, metavar="LINES",
              help="Sentences counted at a time (default 2000; 0: all at once). Only what "
                   "each sentence needs is kept, so memory grows with it, not with the file.")
@click.pass_context
@friendly_errors
def score(ctx: click.Context, specs: tuple[str, ...], source: str,
          references: tuple[str, ...], hypotheses: tuple[str, ...], m2: str | None,
          **flags: Any) -> None:
    """Score system outputs against references with one or more metrics.

    Files are UTF-8 with one sentence a line; only the line ending (LF or CRLF) is
    removed, spaces are kept. All files must have the same number of lines. One
    file (at most) may be - for standard input. A reference or system output that
    looks shifted by a line against the source gets a warning on stderr. A line may
    be at most 8 MiB long; set GECMETRICS_MAX_LINE_BYTES (bytes) to allow longer ones.

    \b
    Example:
      gecmetrics score -m green -m green:tokenize=char,n=6 -b 2 \\
          -s data/example/source.txt -r data/example/ref0.txt data/example/ref1.txt \\
          -c data/example/system_a.txt data/example/system_b.txt
      gecmetrics score -m m2 -m green -s src.txt --m2 gold.m2 -c sysA.txt sysB.txt
    """
    from gecmetrics.interface.score_report import render_scores, write_sentence_stream
    from gecmetrics.scoring import ScoreOptions, score, stream_sentence_scores

    fmt, digits, verbose, level = flags["fmt"], flags["digits"], flags["verbose"], flags["level"]
    paired = paired_options(flags)
    refuse_digits_with_json(ctx, fmt)
    if verbose and (fmt == "json" or level != "corpus"):
        raise ConfigError("-v/--verbose adds per-n tables at --level corpus, not to --format "
                          f"{fmt} --level {level}; drop -v")
    options = ScoreOptions(source, references, hypotheses, specs, m2, flags["betas"], level,
                           flags["breakdown"], paired, flags["jobs"], flags["chunk_size"])

    def warn(message: str) -> None:
        click.echo(f"warning: {message}", err=True)

    stream = stream_sentence_scores(options, warn)
    if stream is not None:
        with writing_stdout():
            notes = write_sentence_stream(sys.stdout, stream, fmt, digits)
    else:
        text, notes = render_scores(score(options, warn), fmt, digits, verbose)
        out(text)
    for note in notes:
        click.echo(note, err=True)


def paired_options(flags: dict[str, Any]) -> PairedOptions | None:
    """The paired test asked for by ``--paired-bootstrap/--paired-ar/--seed``, or None."""
    request = check_paired_request(flags["paired_bs"], flags["paired_ar"])
    seed = flags["seed"]
    if request is None:
        if seed is not None:
            needs("--seed", "--paired-bootstrap or --paired-ar", False)
        return None
    from gecmetrics.paired import PairedOptions

    return PairedOptions(request[0], request[1], DEFAULT_SEED if seed is None else seed)
