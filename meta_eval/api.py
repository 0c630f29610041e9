"""Meta-evaluation as a library: options in, one typed :class:`MetaEvaluation` out.

    >>> import gecmetrics
    >>> result = gecmetrics.meta_evaluate(["conll14"], ["green"], data_dir=DIR)
    >>> result.to_frame()[["benchmark", "spec", "beta", "pearson", "spearman"]]
    >>> print(result.render("table")[0])

``gecmetrics meta-eval`` is :func:`run` plus a renderer (:mod:`.report`): the CLI
builds :class:`~.options.MetaEvalOptions` from its flags, this module loads the
benchmarks, scores and correlates, and runs the analyses asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gecmetrics.meta_eval.render import render_evaluation
from gecmetrics.validate import as_items

from . import correlation_analyses, pair_scoring, ratings
from .aggregate import AggregateSettings, check_sentence_scores, correlate_aggregated
from .analyses import ANALYSES
from .analysis import Context
from .benchmarks import load_benchmark
from .figures import save_figures
from .levels import AGGREGATION_LEVELS
from .options import MetaEvalOptions
from .results import MetaEvaluation, MetaResult
from .score_files import check_score_metrics
from .selection import Selection, correlate_selection, language_note, undefined_note
from .sweep import parse_grid, sweep

if TYPE_CHECKING:
    from gecmetrics.metric import Metric

    from .results import MetaResult


def meta_evaluate(benchmarks: str | Sequence[str], metrics: str | Metric | Sequence[Any] = (),
                  **options: Any) -> MetaEvaluation:
    """Correlate ``metrics`` with the human rankings of ``benchmarks``.

    ``metrics``: spec strings (``"green:tokenize=char,n=6"``) or :class:`Metric`
    objects (:func:`~.score_files.scores_metric` for scores computed elsewhere);
    ``options``: the fields of :class:`~.options.MetaEvalOptions` and of the
    registered analyses' settings (= the flags of ``gecmetrics meta-eval``:
    ``levels``, ``betas``, ``bootstrap``, ``compare``, ``rank_pairs``, ``data_dir``
    ...), checked before any data is read (a bad value raises
    :class:`~gecmetrics.errors.ConfigError` with the CLI's one-line message).
    Figures asked for (``plot``, ``window_plot`` ...) are saved before returning.
    """
    if isinstance(metrics, str) or not isinstance(metrics, Sequence):
        metrics = [metrics]
    names = as_items(benchmarks, "benchmarks", '["conll14"]')
    opts = MetaEvalOptions.from_keywords(benchmarks=names, metrics=tuple(metrics),
                                         explicit=frozenset(options), **options)
    result = run(opts)
    save_figures(result, notes=[*opts.notes, *result.notes])
    return result


def run(options: MetaEvalOptions) -> MetaEvaluation:
    """Everything ``options`` ask for, computed; figures are not drawn (see
    :func:`.figures.save_figures`)."""
    o = options
    metrics = list(o.metric_objects)
    notes: list[str] = []
    betas = list(o.betas) or None
    selections = []
    for name in o.benchmarks:
        bench = load_benchmark(name, o.data_dir, **o.benchmark_options(name))
        selections.append(Selection.make(bench, o.system_set, o.human))
        for analysis in ANALYSES:  # the data is read, nothing scored yet
            if analysis.on_load is not None:
                analysis.on_load(o.settings[analysis.name], selections[-1])
    # A benchmark rated per output (its ``rated`` facet) has sentence-level analyses only.
    rated = [sel for sel in selections if ratings.is_rated(sel)]
    if rated:
        ratings.check_options(o, rated[0].benchmark.name)
        for sel in rated:
            ratings.check_metrics(sel, metrics)
    system_level = [s for s in selections if not ratings.is_rated(s)]
    check_sentence_scores(metrics, o.levels)
    notes += check_score_metrics(metrics, system_level, o.levels if system_level else (),
                                 bootstrap=o.settings["bootstrap"].bootstrap is not None,
                                 compare=o.settings["compare"].compare,
                                 sentence_level=o.sentence_level)
    pair_scoring.check_resampled_metrics(metrics, o.settings["pair_stats"].spa,
                                       o.settings["clusters"].clusters)
    chosen = tuple(selections)
    notes += [note for sel in selections for metric in metrics
              if (note := language_note(metric, sel)) is not None]

    if o.mode == "sentence":
        agreements = []
        for sel in selections:
            pairs = (ratings.pairs if ratings.is_rated(sel)
                     else correlation_analyses.sentence_level)
            agreements += pairs(sel, metrics, betas, o.ties)
        agreements = _with_columns(Context(o, chosen, tuple(metrics), tuple(agreements),
                                           notes))
        registered = _registered(Context(o, chosen, tuple(metrics), tuple(agreements), notes))
        return MetaEvaluation(o, chosen, sentences=tuple(agreements), notes=tuple(notes),
                              registered=registered, renderer=render_evaluation)

    if o.mode == "sweep":
        assert o.grid is not None
        grid = parse_grid(o.grid)
        sweeps = tuple(sweep(sel, metric, grid, level)
                       for sel in selections for metric in metrics for level in o.levels)
        rows = [r for s in sweeps for r in s.results(o.grid)]
        notes += [note for s in sweeps for note in s.edge_notes(o.grid)]
        return MetaEvaluation(o, chosen, correlations=tuple(rows), sweeps=sweeps,
                              notes=tuple(notes), renderer=render_evaluation)

    results: list[MetaResult] = []
    rated_rows: list[MetaResult] = []
    for sel in selections:
        if ratings.is_rated(sel):
            rated_rows += ratings.correlations(sel, metrics, betas)
        else:
            results += correlate_levels(sel, metrics, betas, o)
    # resampled system scores, shared by bootstrap, compare, SPA and clusters
    cache: correlation_analyses.ScoreCache = {}
    results = correlation_analyses.sign(results, selections, metrics)
    # resampled scores, shared by the registered analyses that draw at random
    resampling = pair_scoring.Resampling(o.stat_resamples, o.seed_value, o.human_unit, cache)
    results = _with_columns(Context(o, chosen, tuple(metrics), tuple(results), notes,
                                    resampling))
    results += rated_rows  # sentence-level ratings benchmarks (tmu-gfm): correlations only
    by_name = {sel.benchmark.name: sel for sel in selections}
    notes += [note for r in results
              if (note := undefined_note(r, by_name[r.benchmark])) is not None]
    registered = _registered(Context(o, chosen, tuple(metrics), tuple(results), notes,
                                     resampling))
    return MetaEvaluation(o, chosen, correlations=tuple(results), notes=tuple(notes),
                          registered=registered, renderer=render_evaluation)


def correlate_levels(selection: Selection, metrics: Sequence[Metric],
                     betas: Sequence[float] | None, options: MetaEvalOptions
                     ) -> list[MetaResult]:
    """The correlation rows of every metric, level and beta (in that order): corpus and
    mean from :mod:`.selection`, ew and trueskill from :mod:`.aggregate`."""
    out = []
    for metric in metrics:
        for level in options.levels:
            if level in AGGREGATION_LEVELS:
                out += correlate_aggregated(selection, [metric], betas, level,
                                            AggregateSettings.of(options))
            else:
                out += correlate_selection(selection, [metric], betas, [level])
    return out


def _with_columns(context: Context) -> list[Any]:
    """The run's rows with the columns of the registered analyses that add some, in
    registry order."""
    rows = list(context.rows)
    for analysis in ANALYSES:
        settings = context.options.settings[analysis.name]
        if analysis.columns is not None and analysis.enabled(settings):
            rows = list(analysis.columns(replace(context, rows=tuple(rows)), settings))
    return rows


def _registered(context: Context) -> dict[str, tuple[Any, ...]]:
    """The rows of every registered analysis asked for, by name, in registry order."""
    settings = context.options.settings
    return {a.name: tuple(a.run(context, settings[a.name])) for a in ANALYSES
            if a.enabled(settings[a.name])}
