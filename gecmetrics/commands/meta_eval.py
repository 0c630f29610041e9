"""`gecmetrics meta-eval`: correlate metrics with human rankings on benchmarks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

# The choices come from the benchmark registry (the data descriptions, read with
# json only) and the options module: light to import, --help must stay fast.
from ..meta_eval.benchmarks import registry
from ..meta_eval.options import (  # noqa: E402
    AGGREGATE_ITEMS,
    CLUSTER_STATS,
    DEFAULT_GRID,
    DEFAULT_RESAMPLES,
    DEFAULT_SUBSETS_MAX,
    DEFAULT_TRUESKILL_RUNS,
    HUMAN_UNITS,
    LEVELS,
    TIES,
)
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
        aggregate_items=p["aggregate_items"], trueskill_runs=p["trueskill_runs"],
        subsets=p["subsets"], subsets_max=p["subsets_max"], subsets_plot=p["subsets_plot"],
        pairwise=p["pairwise"], tie_calibration=p["tie_calibration"], spa=p["spa"],
        clusters=p["clusters"], clusters_plot=p["clusters_plot"],
        human_intervals=p["human_intervals"], human_plot=p["human_plot"],
        human_unit=p["human_unit"],
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
              help="System score: the metric's corpus score, the mean of its sentence "
                   "scores, or its sentence scores compared pairwise and aggregated as the "
                   "humans' judgments are: Expected Wins (ew) or TrueSkill (trueskill). "
                   "Repeatable. [default: corpus]")
@click.option("--aggregate-items", type=click.Choice(AGGREGATE_ITEMS), default="judged",
              show_default=True,
              help="--level ew/trueskill: compare systems on the ranking items the humans "
                   "judged (judged) or on every sentence and every pair of systems (all).")
@click.option("--trueskill-runs", type=int, default=DEFAULT_TRUESKILL_RUNS, show_default=True,
              metavar="R",
              help="--level trueskill: rate the comparisons in R seeded random orders and "
                   "average (0: once, in the data's order, as gec-metrics).")
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
              help="--sentence-level and --level ew/trueskill: how a metric tie counts "
                   "(seeda: a loss for the system earlier in alphabetical order, as SEEDA's "
                   "corr_sentence.py; neutral: a draw, the default at ew/trueskill).")
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
@click.option("--subsets", type=int, default=None, metavar="K",
              help="System-set robustness: each correlation over every subset of K systems "
                   "(or --subsets-max random ones): quartiles and the share of subsets in "
                   "which each metric is best.")
@click.option("--subsets-max", type=int, default=DEFAULT_SUBSETS_MAX, show_default=True,
              metavar="N",
              help="--subsets: draw N seeded random subsets when there are more than N.")
@click.option("--subsets-plot", type=click.Path(dir_okay=False), metavar="FILE",
              help="Box plot of the --subsets correlations per metric (.png, .svg or .pdf).")
@click.option("--pairwise", is_flag=True,
              help="Add pairwise_accuracy: the share of system pairs the metric orders as "
                   "the humans (a tie agrees only with a tie; Kocmi et al. 2021).")
@click.option("--tie-calibration", is_flag=True,
              help="Add acc_eq and epsilon (Deutsch et al. 2023): metric differences "
                   "|d| <= epsilon are ties, epsilon maximises acc_eq. System level, and "
                   "with --sentence-level over the human ranking items (recommended over "
                   "--ties).")
@click.option("--spa", is_flag=True,
              help="Add soft pairwise accuracy (Thompson et al. 2024): mean over system "
                   "pairs of 1 - |p_human - p_metric|, p-values from resampling sentences "
                   "(metric) and judgments (humans); --bootstrap N resamples (default 1000).")
@click.option("--clusters", type=click.Choice(CLUSTER_STATS), default=None,
              help="Rank the metrics by this statistic into significance clusters: paired "
                   "bootstrap over systems and sentences; a new cluster starts when a "
                   "metric is significantly (p < 0.05) worse than the top of the current one.")
@click.option("--clusters-plot", type=click.Path(dir_okay=False), metavar="FILE",
              help="Plot the --clusters ranking with 95% intervals (.png, .svg or .pdf).")
@click.option("--human-intervals", is_flag=True,
              help="Bootstrap the human judgments: each system's Expected Wins (GMEG: "
                   "rating) with a 95% interval, rank range and cluster.")
@click.option("--human-plot", type=click.Path(dir_okay=False), metavar="FILE",
              help="Plot the --human-intervals (.png, .svg or .pdf).")
@click.option("--human-unit", type=click.Choice(HUMAN_UNITS), default="items",
              show_default=True,
              help="What the human bootstrap draws: ranking items, or single pairwise "
                   "comparisons (as GJG15 did; reproduces their Table 3b).")
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
      gecmetrics meta-eval seeda-s -m green -m gleu --level corpus --level trueskill
      gecmetrics meta-eval seeda-s -m green -m gleu --subsets 8 --subsets-plot subsets.png
      gecmetrics meta-eval seeda-s -m green -m m2 --pairwise --tie-calibration --spa \\
          --clusters spa --human-intervals
      gecmetrics meta-eval conll14 seeda-s gmeg-fce -m green -m gleu --pool
    """
    from ..meta_eval.api import run

    options = options_from_click(ctx)
    for note in options.notes:  # before the work: seen even if reading the data fails
        click.echo(note, err=True)
    result = run(options)
    output, notes = result.render(fmt)
    # Figures after the results are rendered: one that cannot be saved still lets
    # the results be printed (PartialOutputError carries them).
    notes += result.save_plots(output, notes)
    click.echo(output)
    for note in notes:
        click.echo(note, err=True)
