"""`gecmetrics meta-eval`: correlate metrics with human rankings on benchmarks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

# The choices come from the benchmark registry (the data descriptions, read with
# json only) and the options module: light to import, --help must stay fast.
from ..meta_eval.benchmarks import registry
from ..meta_eval.options import DEFAULT_GRID, DEFAULT_RESAMPLES, LEVELS, TIES
from .common import explicit, friendly_errors


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


def _option_choice(field: str) -> RegistryChoice:
    return RegistryChoice(lambda: registry.option(field).values)


class MetaEvalCommand(click.Command):
    """Options with an optional value report a negative value as out of range.

    click reads ``--bootstrap -5`` (and even ``--bootstrap=-5``) as the flag alone
    followed by an unknown option ``-5``; the range check says what the option takes.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        from ..errors import ConfigError
        from ..validate import check_folds, check_resamples, check_window, parse_beta_grid

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
        return super().parse_args(ctx, args)


def _int(text: str, option: str) -> int:
    from ..errors import ConfigError

    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"{option} takes a whole number (got {text!r})") from None


def options_from_click(ctx: click.Context) -> Any:
    """The :class:`MetaEvalOptions` of a parsed ``meta-eval`` command line.

    Options given on the command line are passed as ``explicit``, so an option
    with a real default that applies to nothing chosen is an error (see
    :mod:`gecmetrics.meta_eval.options`). ``docs/make_results.py`` builds its runs
    through this too, so the commands printed on the results page are what ran.
    """
    from ..meta_eval.options import MetaEvalOptions

    p, given = ctx.params, explicit(ctx)
    names = {"specs": "metrics", "score_files": "scores"}
    return MetaEvalOptions(
        benchmarks=tuple(p["benchmarks"]), metrics=tuple(p["specs"]),
        scores=tuple(p["score_files"]), system_set=p["system_set"], human=p["human"],
        levels=tuple(p["levels"]), betas=tuple(p["betas"]), grid=p["grid"], plot=p["plot"],
        seeda_corpus=p["seeda_corpus"], split=p["split"],
        references=tuple(p["references"]) or None, bootstrap=p["bootstrap"],
        seed=p["seed"], compare=p["compare"], sentence_level=p["sentence_level"],
        ties=p["ties"], window=p["window"], window_plot=p["window_plot"],
        cv_folds=p["cv_folds"], cv_grid=p["cv_grid"], data_dir=p["data_dir"],
        pool=p["pool"], pool_weights=p["pool_weights"], pool_plot=p["pool_plot"],
        explicit=frozenset(names.get(name, name) for name in given
                           if name not in ("fmt",)))


@click.command(cls=MetaEvalCommand)
@click.argument("benchmarks", nargs=-1, required=True, metavar="BENCHMARK...",
                type=RegistryChoice(registry.benchmark_names))
@click.option("-m", "--metric", "specs", multiple=True, metavar="SPEC",
              help="Metric as name[:key=value,...]; repeat for several, e.g. "
                   "-m green -m green:tokenize=char,n=6. At least one -m or --scores.")
@click.option("--scores", "score_files", multiple=True, metavar="NAME=PATH[:OPTS]",
              help="Your own metric's scores computed elsewhere: a system<TAB>score TSV, JSON "
                   "{system: score | [sentence scores]}, a folder of per-system sentence "
                   "scores, or `gecmetrics score --format json` output; shown as NAME. "
                   "Options: order=lower (lower is better), beta=B, spec=SPEC (last). "
                   "Repeatable; see docs/own-metric.md.")
@click.option("--systems", "system_set", type=RegistryChoice(registry.system_set_choices),
              default=None,
              help="Systems to correlate. Default: all 13 for conll14 (base = without "
                   "INPUT), base for SEEDA (12: no INPUT, REF-F, GPT-3.5; +INPUT adds "
                   "INPUT, +fluency adds REF-F and GPT-3.5 (no INPUT), all = 15), all 7 for "
                   "GMEG (6 systems + source; base = the 6; +source = +INPUT = all).")
@click.option("--human", type=RegistryChoice(registry.human_kinds), default=None,
              help="Human system scores: Expected Wins (conll14: recomputed from the "
                   "judgments) or TrueSkill (published); GMEG has only its ratings "
                   "(rating); conll14 also has napoles15-ew/-ts (Napoles et al. 2015; "
                   "see docs/benchmarks.md). [default: ew; GMEG: rating]")
@click.option("--level", "levels", type=click.Choice(LEVELS), multiple=True,
              help="System score: the metric's corpus score, or the mean of its sentence "
                   "scores. Repeat for both. [default: corpus]")
@click.option("-b", "--beta", "betas", multiple=True, metavar="BETA",
              help="Beta for every metric that has one (repeat for several; default: each "
                   "metric's own).")
@click.option("--sweep-beta", "grid", is_flag=False, flag_value=DEFAULT_GRID, default=None,
              metavar="START:STOP:STEP",
              help=f"Sweep beta over a grid (STOP included; alone: {DEFAULT_GRID}) and report "
                   "the best beta for r and for rho.")
@click.option("--plot", type=click.Path(dir_okay=False), metavar="FILE",
              help="Plot r and rho against beta for every swept metric (.png, .svg or .pdf). "
                   "Implies --sweep-beta.")
@click.option("--seeda-corpus", type=_option_choice("seeda_corpus"), default=None,
              help="SEEDA: score the judged subset (SEEDA's instruction) or all 1,312 "
                   "sentences (as the GREEN paper did). [default: "
                   f"{registry.option('seeda_corpus').default}]")
@click.option("--split", type=_option_choice("split"), default=None,
              help=f"GMEG: the split to score. [default: {registry.option('split').default}]")
@click.option("--references", "references", type=_option_choice("references"),
              multiple=True, metavar="SET",
              help="conll14: the reference sets (repeat to combine): nucle (the official M2, "
                   "2 annotators), expert-fluency, expert-minimal, turker-fluency, "
                   "turker-minimal (Sakaguchi et al. 2016, 2 annotators each). [default: "
                   "nucle]")
@click.option("--bootstrap", type=int, is_flag=False, flag_value=DEFAULT_RESAMPLES,
              default=None, metavar="N",
              help="Add 95% bootstrap confidence intervals of r, rho and tau: N resamples of "
                   f"the test sentences (alone: {DEFAULT_RESAMPLES}; 100 to 1000000); also the "
                   "resamples of --compare.")
@click.option("--seed", type=int, default=None, metavar="S",
              help="Seed of the bootstrap resamples and CV folds, 0 to 2**32-1 (recorded). "
                   "[default: 12345]")
@click.option("--compare", is_flag=True,
              help="With two or more -m: for every pair of metrics, Williams' test and a "
                   "paired bootstrap test of the difference of their Pearson r.")
@click.option("--sentence-level", is_flag=True,
              help="Sentence-level meta-evaluation over the raw pairwise human judgments "
                   "(SEEDA, conll14/GJG15; GMEG: its segment ratings): accuracy and "
                   "Kendall-like tau.")
@click.option("--ties", type=click.Choice(TIES), default="seeda", show_default=True,
              help="--sentence-level: how a metric tie counts (seeda: a loss for the system "
                   "earlier in alphabetical order, as SEEDA's corr_sentence.py).")
@click.option("--window", type=int, is_flag=False, flag_value=4, default=None, metavar="W",
              help="Window analysis: r and rho within each run of W systems of similar human "
                   "score (alone: 4, as SEEDA).")
@click.option("--window-plot", type=click.Path(dir_okay=False), metavar="FILE",
              help="Plot the window analysis (.png, .svg or .pdf); needs --window.")
@click.option("--cv-beta", "cv_folds", type=int, is_flag=False, flag_value=10, default=None,
              metavar="K",
              help="Cross-validated beta*: optimum of r on each of K training parts (alone: "
                   "10; 2 to 100), beta* = their mean, with r and rho at beta*.")
@click.option("--cv-grid", default=None, metavar="START:STOP:STEP",
              help="--cv-beta: the beta grid. [default: 0:5:0.01]")
@click.option("--pool", is_flag=True,
              help="Pooled leaderboard: each metric's r (accuracy with --sentence-level) on "
                   "every benchmark and human kind, its mean rank and a weighted average "
                   "(docs/meta-eval.md).")
@click.option("--pool-weights", metavar="BENCH=W,...", default=None,
              help="--pool: weight of each benchmark (split equally among its columns). "
                   "[default: 1 each]")
@click.option("--pool-plot", type=click.Path(dir_okay=False), metavar="FILE",
              help="--pool: plot the leaderboard (.png, .svg or .pdf).")
@click.option("--data-dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Folder with the benchmark data (laid out as upstream). Default: "
                   "$GECMETRICS_DATA, else $XDG_CACHE_HOME/gecmetrics, else ~/.cache/gecmetrics.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown", "latex", "csv"]),
              default="table", show_default=True,
              help="JSON: one object per (benchmark, metric, beta, level), full precision, "
                   "each with its reproducibility signature; tables: one signature line per "
                   "distinct signature under the output (CSV: on stderr).")
@click.pass_context
@friendly_errors
def meta_eval(ctx, fmt, **params) -> None:
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
      gecmetrics meta-eval conll14 seeda-s gmeg-fce -m green -m gleu --pool
    """
    from ..meta_eval.run import render_options

    options = options_from_click(ctx)
    for note in options.notes:  # before the work: seen even if reading the data fails
        click.echo(note, err=True)
    output, notes = render_options(options, fmt, option_notes=False)
    click.echo(output)
    for note in notes:
        click.echo(note, err=True)
