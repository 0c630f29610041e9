"""Cross-validated beta* (``--cv-beta K``): which beta the data supports, held out.

As the GREEN paper describes (:func:`..cv_beta.cv_beta`): the test sentences are
split into K folds; on each fold's training part (the other K-1) the beta of the
grid (``--cv-grid``) with the highest Pearson r is that fold's optimum; beta* is
the mean of the K optima, reported with their spread and r, rho and tau at beta*
on all sentences. A column analysis: it adds a :class:`CVBeta` to every
correlation row (JSON: ``beta_star`` ... ``cv_seed``) and has no rows of its own;
its section summarises them, one line per (benchmark, metric, level).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gecmetrics.errors import ConfigError
from gecmetrics.formatting import fixed, render
from gecmetrics.validate import check_folds, parse_beta_grid

from ..analysis import Analysis, Context, refuse_aggregation, refuse_sweep
from ..defaults import DEFAULT_FOLDS, DEFAULT_GRID
from ..flags import count, option
from ..result_rows import CVBeta, MetaResult  # defined with the rows

if TYPE_CHECKING:
    from gecmetrics.metric import Metric

    from ..run_options import RunOptions
    from ..selection import Selection

NAME = "cv_beta"


@dataclass(frozen=True)
class CVBetaSettings:
    cv_folds: int | None = option(
        None, "--cv-beta", kind="int", alone=DEFAULT_FOLDS, metavar="K",
        help="Cross-validated beta*: optimum of r on each of K training parts (alone: "
             "10; 2 to 100), beta* = their mean, with r and rho at beta*.")
    cv_grid: str | None = option(
        None, "--cv-grid", metavar="START:STOP:STEP",
        requires=("--cv-beta K", lambda s: s.cv_folds is not None),
        help="--cv-beta: the beta grid. [default: 0:5:0.01]")

    def __post_init__(self) -> None:  # True: the flag alone; the API may pass 10.0
        object.__setattr__(self, "cv_folds", count("--cv-beta", self.cv_folds, DEFAULT_FOLDS))

    @property
    def grid_text(self) -> str:
        return DEFAULT_GRID if self.cv_grid is None else self.cv_grid


def _score_at_beta(metric: Metric, selection: Selection, level: str) -> Any:
    """``(beta, idx) -> scores``: the form :func:`..cv_beta.cv_beta` asks for."""
    from ..correlation_analyses import score_function

    def score(beta: float, idx: Any) -> Any:
        return score_function(metric, selection, float(beta), level)(idx)

    return score


def add_cv_beta(results: Sequence[MetaResult], selections: Sequence[Selection],
                metrics: Sequence[Metric], grid: Any, k: int = DEFAULT_FOLDS,
                seed: int = 12345, grid_text: str = "") -> list[MetaResult]:
    """Each row with its :class:`CVBeta`: ``beta_star`` (mean of the k folds' optima on
    their training parts, criterion Pearson), the fold optima, their standard deviation
    and the correlations at beta* on all sentences; None for metrics without beta.
    ``grid_text``: how the grid was given, for the signature."""
    from gecmetrics.meta_eval.cv_folds import cv_beta

    from ..correlation_analyses import metric_for

    by_name = {sel.benchmark.name: sel for sel in selections}
    by_spec = metric_for(results, metrics)
    cache: dict[tuple[str, str, str], CVBeta] = {}
    out = []
    for r in results:
        key = (r.benchmark, r.spec, r.level)
        if key not in cache:
            sel, metric = by_name[r.benchmark], by_spec[r.spec]
            if not metric.has_beta:
                cache[key] = CVBeta(k, seed, grid=grid_text)
            else:
                stats = metric.statistics(sel.benchmark.corpus)
                stats.precompute(list(grid))
                res = cv_beta(_score_at_beta(metric, sel, r.level), sel.human, grid,
                              sel.benchmark.corpus.num_sentences, k, seed)
                cache[key] = CVBeta(res.k, res.seed, res.beta_star,
                                    tuple(res.beta_star_folds), res.beta_star_std,
                                    res.pearson, res.spearman, res.kendall, res.criterion,
                                    grid=grid_text)
        out.append(r.with_column(cache[key]))
    return out


def columns(context: Context, settings: CVBetaSettings) -> list[MetaResult]:
    """The correlation rows of the run with their :class:`CVBeta`, signed again (the
    folds, seed and grid enter the signature)."""
    from ..correlation_analyses import sign
    from ..sweep import parse_grid

    assert settings.cv_folds is not None
    grid = parse_grid(settings.grid_text, "--cv-grid")
    rows = add_cv_beta(context.rows, context.selections, context.metrics, grid,
                       settings.cv_folds, context.options.seed_value, settings.grid_text)
    context.notes.extend(edge_notes(rows, grid, settings.grid_text))
    return sign(rows, context.selections, context.metrics)


def edge_notes(rows: Sequence[MetaResult], grid: Any, grid_text: str) -> list[str]:
    """A note per (benchmark, metric, level) whose fold optima reach the grid's edge:
    beta* is their mean, so it cannot leave the grid even when the data would."""
    from ..sweep import grid_edge

    notes, seen = [], set()
    for r in rows:
        key = (r.benchmark, r.spec, r.level)
        if key in seen or r.cv is None or not r.cv.beta_star_folds:
            continue
        seen.add(key)
        folds = r.cv.beta_star_folds
        for edge, beta in (("upper", max(folds)), ("lower", min(folds))):
            if grid_edge(beta, grid) == edge:
                on_edge = sum(1 for b in folds if b == beta)
                side = "above" if edge == "upper" else "below"
                notes.append(f"note: {r.benchmark} {r.metric} ({r.level}): {on_edge} of "
                             f"{len(folds)} fold optima of --cv-beta are {beta:g}, the {edge} "
                             f"end of the grid (--cv-grid {grid_text}); beta* may lie {side} "
                             "it: widen the grid")
    return notes


def run(context: Context, settings: CVBetaSettings) -> list[Any]:
    return []  # its values are columns of the correlation rows


def check(settings: CVBetaSettings, options: RunOptions) -> None:
    if settings.cv_folds is None:
        return
    refuse_sweep("--cv-beta", options)
    if options.sentence_level:
        raise ConfigError("--sentence-level cannot be combined with --cv-beta")
    refuse_aggregation("--cv-beta", options)
    check_folds(settings.cv_folds)
    parse_beta_grid(settings.grid_text, "--cv-grid")


def title(settings: CVBetaSettings, rows: Sequence[MetaResult],
          options: RunOptions) -> str:
    return (f"Cross-validated β* ({settings.cv_folds} folds of test sentences, seed "
            f"{options.seed_value}, grid {settings.grid_text}, optimum of r on each "
            "training part; β* = their mean)")


def table(rows: Sequence[MetaResult], fmt: str) -> str:
    """One row per (benchmark, metric, level)."""
    headers = ["benchmark", "metric", "spec", "level", "β* (CV)", "sd", "fold optima",
               "r at β*", "ρ at β*"]
    seen, cells = set(), []
    for r in rows:
        key = (r.benchmark, r.spec, r.level)
        if key in seen or r.cv is None:
            continue
        seen.add(key)
        cv = r.cv
        if cv.beta_star is None or cv.beta_star_folds is None or cv.beta_star_std is None:
            cells.append([r.benchmark, r.metric, r.spec, r.level, "-", "-", "(no β)", "-", "-"])
            continue
        folds = cv.beta_star_folds
        cells.append([r.benchmark, r.metric, r.spec, r.level, f"{cv.beta_star:.3f}",
                      f"{cv.beta_star_std:.3f}", f"{min(folds):g}-{max(folds):g}",
                      fixed(cv.pearson, 3), fixed(cv.spearman, 3)])
    return render(headers, cells, fmt, ["left"] * 4 + ["right"] * 5)


CV_BETA = Analysis(NAME, CVBetaSettings, lambda s: s.cv_folds is not None, run, title, table,
                   check=check, columns=columns, help_after="window_plot",
    row=MetaResult,
    random=("--cv-beta", lambda s: s.cv_folds is not None),
    beta=("--cv-beta", lambda s: s.cv_folds is not None),
    column=CVBeta)
