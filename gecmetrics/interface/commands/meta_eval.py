"""`gecmetrics meta-eval`: correlate metrics with human rankings on benchmarks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

from gecmetrics.errors import ConfigError, PartialOutputError
from gecmetrics.interface.commands.common import explicit, friendly_errors, out

# The flags come from the options' field metadata and the choices from the
# benchmark registry (the data descriptions, read with json only): light to
# import, --help must stay fast.
from gecmetrics.meta_eval.analyses import ANALYSES
from gecmetrics.meta_eval.benchmarks import registry
from gecmetrics.meta_eval.flags import Flag, default_of, flagged
from gecmetrics.meta_eval.options import MetaEvalOptions
from gecmetrics.validate import (
    check_folds,
    check_output_file,
    check_outputs,
    check_resamples,
    check_window,
    parse_beta_grid,
)


class RegistryChoice(click.Choice):
    """A choice whose values are read from the benchmark registry when used, so a
    benchmark registered after this module was imported is offered too."""

    def __init__(self, values: Callable[[], Sequence[str]]) -> None:
        self._values = values
        super().__init__((), case_sensitive=True)

    @property  # type: ignore[override]
    def choices(self) -> Sequence[str]:
        return tuple(self._values())

    @choices.setter
    def choices(self, _: Sequence[str]) -> None:  # click.Choice.__init__ sets it
        pass


def click_option(name: str, flag: Flag, default: Any) -> Callable[[Any], Any]:
    """The click option of field ``name`` from its :class:`Flag`."""
    kwargs: dict[str, Any] = {"help": flag.help, "metavar": flag.metavar,
                              "multiple": flag.multiple, "show_default": flag.show_default}
    if flag.kind == "flag":
        kwargs["is_flag"] = True
    else:
        kwargs["default"] = () if flag.multiple else default
    if flag.kind == "int":
        kwargs["type"] = int
    elif flag.kind == "file":
        kwargs["type"] = click.Path(dir_okay=False)
    elif flag.kind == "folder":
        kwargs["type"] = click.Path(file_okay=False)
    elif flag.kind == "choice":
        assert flag.choices is not None
        kwargs["type"] = (RegistryChoice(flag.choices) if callable(flag.choices)
                          else click.Choice(flag.choices))
    if flag.alone is not None:
        kwargs.update(is_flag=False, flag_value=flag.alone)
    if kwargs["metavar"] is None:
        del kwargs["metavar"]
    return click.option(*flag.decls, name, **kwargs)


def benchmark_option(name: str) -> Callable[[Any], Any]:
    """The click option of a benchmark's own option that has no field in
    :class:`MetaEvalOptions`: everything from its data description (flag, values,
    default, help), read into ``benchmark_settings``."""
    spec = registry.option(name)
    default = spec.default if isinstance(spec.default, str) else ", ".join(spec.default)
    help_ = f"{spec.help or spec.label + ': a benchmark option.'} [default: {default}]"
    return click.option(spec.flag, name, type=RegistryChoice(lambda: registry.option(name).values),
                        multiple=spec.multiple, default=() if spec.multiple else None,
                        help=help_)


def with_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``command`` with a click option for every flagged field of the options, then of
    each registered analysis's settings (after the field its ``help_after`` names),
    then each benchmark's own options that have no field (from the benchmark
    registry), then the options marked ``trailing``."""
    common = list(flagged(MetaEvalOptions))
    ordered = [pair for pair in common if not pair[1].trailing]
    for analysis in ANALYSES:
        names = [f.name for f, _ in ordered]
        at = (names.index(analysis.help_after) + 1 if analysis.help_after in names
              else len(ordered))
        ordered[at:at] = flagged(analysis.settings)
    for f, flag in reversed([pair for pair in common if pair[1].trailing]):
        command = click_option(f.name, flag, default_of(f))(command)
    for name in reversed([n for n in registry.benchmark_options()
                          if n not in MetaEvalOptions.__dataclass_fields__]):
        command = benchmark_option(name)(command)
    for f, flag in reversed(ordered):
        command = click_option(f.name, flag, default_of(f))(command)
    return command


class MetaEvalCommand(click.Command):
    """Options with an optional value report a negative value as out of range.

    click reads ``--bootstrap -5`` (and even ``--bootstrap=-5``) as the flag alone
    followed by an unknown option ``-5``; the range check says what the option takes.
    """

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The help text, then the benchmarks, generated from the benchmark registry (a
        benchmark registered there is listed without editing the help)."""
        super().format_help_text(ctx, formatter)
        rows = []
        for spec in registry.specs().values():
            human = ", ".join(f"{h} (default)" if h == spec.default_human else h
                              for h in spec.human)
            sets = ", ".join(f"{s} (default)" if s == spec.default_set else s
                             for s in spec.system_sets)
            rows.append((spec.name, f"--human {human}; --systems {sets}."))
        heading = "Benchmarks (docs/benchmarks.md; the data: gecmetrics download BENCHMARK)"
        with formatter.section(heading):
            formatter.write_dl(rows)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        checks: dict[str, Callable[..., Any]] = {
            "--bootstrap": check_resamples, "--window": check_window,
            "--cv-beta": check_folds, "--sweep-beta": parse_beta_grid}
        pairs = [(a, b) for a, b in zip(args, args[1:], strict=False)]
        pairs += [(a.partition("=")[0], a.partition("=")[2]) for a in args if "=" in a]
        for option, value in pairs:
            if (option in checks and len(value) > 1 and value[0] == "-"
                    and (value[1].isdigit() or value[1] == ".")):
                try:
                    checks[option](value if option == "--sweep-beta" else _int(value, option))
                except ConfigError as err:
                    raise click.UsageError(str(err), ctx) from None
        ctx.meta["meta_eval.args"] = list(args)  # --run checks it is given alone
        return super().parse_args(ctx, args)


def _int(text: str, option: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"{option} takes a whole number (got {text!r})") from None


def options_from_click(ctx: click.Context) -> MetaEvalOptions:
    """The :class:`MetaEvalOptions` of a parsed ``meta-eval`` command line.

    Options given on the command line are passed as ``explicit``, so an option
    with a real default that applies to nothing chosen is an error (see
    :mod:`gecmetrics.meta_eval.options`). ``docs/generate/make_results.py`` builds its runs
    through this too, so the commands printed on the results page are what ran.
    """
    own = ("fmt", "save_run")  # the command's own flags, not options of the run
    values = {name: tuple(value) if isinstance(value, list | tuple) else value
              for name, value in ctx.params.items() if name not in own}
    return MetaEvalOptions.from_keywords(
        **values, explicit=frozenset(n for n in explicit(ctx) if n not in own))


@click.command(cls=MetaEvalCommand)
@click.argument("benchmarks", nargs=-1, required=True, metavar="BENCHMARK...",
                type=RegistryChoice(registry.benchmark_names))
@with_options
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown", "latex", "csv"]),
              default="table", show_default=True,
              help="JSON: one object per (benchmark, metric, beta, level), full precision, "
                   "each with its reproducibility signature; tables: one signature line per "
                   "distinct signature under the output (CSV: on stderr).")
@click.option("--save-run", "save_run", type=click.Path(dir_okay=False), metavar="FILE.json",
              help="Also save this run (benchmarks, metrics, analyses, options, format) as "
                   "JSON, to run it again with --run (docs/meta-eval.md).")
@click.option("--run", "run_file", type=click.Path(dir_okay=False), metavar="FILE.json",
              is_eager=True, expose_value=False, callback=lambda ctx, _, path: _replay(ctx, path),
              help="Run a run saved with --save-run again (give it alone).")
@click.pass_context
@friendly_errors
def meta_eval(ctx, fmt, save_run, **params) -> None:
    """Correlate metrics with human rankings (Pearson r, Spearman ρ, Kendall τ).

    Each system of a benchmark is scored by each metric; the system scores are
    correlated with the human scores of the chosen system set.

    \b
    Examples:
      gecmetrics meta-eval conll14 -m green -m green:tokenize=char,n=6
      gecmetrics meta-eval conll14 seeda-s seeda-e -m green --seeda-corpus all \\
          --level corpus --level mean --data-dir ~/gec-data
      gecmetrics meta-eval conll14 -m green --sweep-beta 0:5:0.01 --plot sweep.png
      gecmetrics meta-eval gmeg-fce gmeg-wiki -m green -m gleu --bootstrap --compare
      gecmetrics meta-eval seeda-s seeda-e -m green --sentence-level --ties seeda
      gecmetrics meta-eval seeda-s -m green --window 4 --window-plot windows.png
      gecmetrics meta-eval conll14 -m green --cv-beta 10
      gecmetrics meta-eval seeda-s -m green --scores mymetric=my_scores.json --bootstrap
      gecmetrics meta-eval seeda-s -m green -m gleu --level corpus --level trueskill
      gecmetrics meta-eval seeda-s -m green -m gleu --subsets 8 --subsets-plot subsets.png
      gecmetrics meta-eval seeda-s -m green -m m2 --pairwise --tie-calibration --spa \\
          --clusters spa --human-intervals
      gecmetrics meta-eval conll14 seeda-s gmeg-fce -m green -m gleu --pool
    """
    options = options_from_click(ctx)
    if save_run is not None:
        from gecmetrics.meta_eval.saved_run import MetaEvalRun

        check_output_file(save_run, "--save-run", (".json",))
        check_outputs([*options.output_files(), ("--save-run", save_run)],
                      options.input_files())
        run_value = MetaEvalRun.of(options, fmt)
        try:
            run_value.save(save_run)
        except OSError as err:

            raise ConfigError(f"--save-run {save_run} could not be written "
                              f"({err.strerror or err})") from None
    _run_and_print(options, fmt)


def _run_and_print(options: MetaEvalOptions, fmt: str) -> None:
    """Run ``options`` and print the results, notes, figures and HTML report."""
    from gecmetrics.meta_eval.api import run
    from gecmetrics.meta_eval.figures import save_figures
    from gecmetrics.meta_eval.render import render_evaluation

    for note in options.notes:  # before the work: seen even if reading the data fails
        click.echo(note, err=True)
    result = run(options)
    output, notes = render_evaluation(result, fmt)
    # Figures after the results are rendered: one that cannot be saved still lets
    # the results be printed (PartialOutputError carries them).
    notes += save_figures(result, output, notes)
    if options.html is not None:
        from gecmetrics.interface.html_report import render_meta_eval, size_note, write_html

        try:
            notes.append(size_note(write_html(render_meta_eval(result), options.html)))
        except OSError as err:

            raise PartialOutputError(f"--html {options.html} could not be written "
                                     f"({err.strerror or err}); the results are above",
                                     output, notes) from None
    out(output)
    for note in notes:
        click.echo(note, err=True)


@friendly_errors
def _replay(ctx: click.Context, path: str | None) -> None:
    """``--run FILE``: run a saved run (eager: before the arguments are checked, as it
    brings its own), then stop."""
    if path is None:
        return
    from gecmetrics.meta_eval.saved_run import MetaEvalRun

    given = ctx.meta.get("meta_eval.args", [])
    if [a for a in given if a not in ("--run", path, f"--run={path}")]:
        raise ConfigError("--run replays a saved run as it was saved: give it alone "
                          "(the file holds the benchmarks, metrics, options and format)")
    saved = MetaEvalRun.load(path)
    options = saved.meta_eval_options()
    check_outputs(options.output_files(), [("--run", path), *options.input_files()])
    _run_and_print(options, saved.format)
    ctx.exit(0)
