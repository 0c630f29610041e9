"""`gecmetrics meta-eval`: correlate metrics with human rankings on benchmarks."""

from __future__ import annotations

import click

from ..cli import friendly_errors

BENCHMARKS = ("conll14", "seeda-s", "seeda-e")
SYSTEM_SETS = ("base", "+INPUT", "+fluency", "+REF-F_GPT-3.5", "all")
DEFAULT_GRID = "0:5:0.01"


@click.command()
@click.argument("benchmarks", nargs=-1, required=True, metavar="BENCHMARK...",
                type=click.Choice(BENCHMARKS))
@click.option("-m", "--metric", "specs", multiple=True, required=True, metavar="SPEC",
              help="Metric as name[:key=value,...]; repeat for several, e.g. "
                   "-m green -m green:tokenize=char,n=6.")
@click.option("--systems", "system_set", type=click.Choice(SYSTEM_SETS), default=None,
              help="Systems to correlate. Default: all 13 for conll14 (base = without "
                   "INPUT), base for SEEDA (12: no INPUT, REF-F, GPT-3.5); +INPUT adds "
                   "INPUT, +fluency adds REF-F and GPT-3.5 (no INPUT), all = 15.")
@click.option("--human", type=click.Choice(["ew", "ts"]), default="ew", show_default=True,
              help="Human system scores: Expected Wins (conll14: recomputed from the "
                   "judgments) or TrueSkill (published).")
@click.option("--level", "levels", type=click.Choice(["corpus", "mean"]), multiple=True,
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
@click.option("--seeda-corpus", type=click.Choice(["subset", "all"]), default="subset",
              show_default=True,
              help="SEEDA: score the judged subset (SEEDA's instruction) or all 1,312 "
                   "sentences (as the GREEN paper did).")
@click.option("--data-dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Folder with the benchmark data (laid out as upstream). Default: "
                   "$GECMETRICS_DATA, else ~/.cache/gecmetrics.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown", "latex", "csv"]),
              default="table", show_default=True,
              help="JSON: one object per (benchmark, metric, beta, level), full precision.")
@friendly_errors
def meta_eval(benchmarks, specs, system_set, human, levels, betas, grid, plot, seeda_corpus,
              data_dir, fmt) -> None:
    """Correlate metrics with human rankings (Pearson r, Spearman ρ, Kendall τ).

    Each system of a benchmark is scored by each metric; the system scores are
    correlated with the human scores of the chosen system set.

    \b
    Examples:
      gecmetrics meta-eval conll14 -m green -m green:tokenize=char,n=6
      gecmetrics meta-eval conll14 seeda-s seeda-e -m green --seeda-corpus all \\
          --level corpus --level mean --data-dir ~/gec-data
      gecmetrics meta-eval conll14 -m green --sweep-beta 0:5:0.01 --plot sweep.png
    """
    from ..meta_eval.run import run_meta_eval

    output, notes = run_meta_eval(
        benchmarks=list(dict.fromkeys(benchmarks)), specs=list(specs), system_set=system_set,
        human=human, levels=list(dict.fromkeys(levels)) or ["corpus"], betas=list(betas),
        grid=grid or (DEFAULT_GRID if plot else None), plot=plot, seeda_corpus=seeda_corpus,
        data_dir=data_dir, fmt=fmt,
    )
    click.echo(output)
    for note in notes:
        click.echo(note, err=True)
