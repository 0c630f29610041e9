"""The meta-evaluation analyses beyond one correlation, wired to benchmarks and metrics.

The statistics live in :mod:`gecmetrics.stats`, :mod:`.sentence_agreement`, :mod:`.window`
and :mod:`.cv_beta` (pure functions); this module feeds them a selection's
human scores and a metric's cached per-sentence statistics, and returns the
typed rows of :mod:`.results` (each with its signature):

* :func:`add_bootstrap`: 95% bootstrap :class:`~.results.Intervals` added to
  the correlation rows;
* :func:`compare_metrics`: Williams' test and the paired bootstrap for every
  pair of metrics on a benchmark;
* :func:`sentence_level`: pairwise sentence-level agreement with the raw
  human rankings;
* :func:`windows`: window analysis;
* :func:`add_cv_beta`: cross-validated beta*.

A resample is a gather over the cached statistics (``stats.corpus_scores(beta,
sentences=idx)``), so 1000 resamples of 13 systems take about a second or two.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.metric import Metric
from gecmetrics.stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from gecmetrics.stats.intervals import bootstrap_ci
from gecmetrics.stats.significance import paired_bootstrap_test, williams_sig_diff

from .cv_beta import cv_beta
from .defaults import DEFAULT_FOLDS, DEFAULT_WINDOW
from .results import (
    Comparison,
    CVBeta,
    Intervals,
    MetaResult,
    SentenceAgreement,
    WindowRow,
    row_signature,
)
from .selection import Selection, system_scores
from .sentence_agreement import TIE_POLICIES, pairwise_agreement
from .window import window_correlations

__all__ = ["DEFAULT_FOLDS", "DEFAULT_RESAMPLES", "DEFAULT_SEED", "DEFAULT_WINDOW",
           "TIE_POLICIES", "add_bootstrap", "add_cv_beta", "compare_metrics",
           "score_function", "sentence_level", "sign", "windows"]


ScoreCache = dict[tuple[Any, ...], dict[bytes, np.ndarray]]


def score_function(metric: Metric, selection: Selection, beta: float | None,
                   level: str, cache: ScoreCache | None = None
                   ) -> Callable[[np.ndarray], np.ndarray]:
    """``idx -> scores`` of the selected systems on the sentences ``idx`` (repeats allowed),
    from the metric's cached statistics (no rescoring).

    With ``cache`` (a dict shared by the analyses of one run) the scores of every
    resample are remembered per (benchmark, metric, beta, level), so the intervals
    and the pairwise comparisons of one metric draw on the same resamples without
    recomputing them (a GLEU resample averages 500 reference draws: ~50 ms).
    """
    stats = metric.statistics(selection.benchmark.corpus)
    order = selection.indices(stats.systems)

    def compute(idx: np.ndarray) -> np.ndarray:
        if level == "corpus":
            return np.asarray(stats.corpus_scores(beta, idx), dtype=float)[order]
        return np.asarray(stats.mean(beta, idx), dtype=float)[order]

    if cache is None:
        return compute
    memo = cache.setdefault((id(selection.benchmark.corpus), tuple(selection.systems),
                             metric.spec, beta, level), {})

    def cached(idx: np.ndarray) -> np.ndarray:
        key = hashlib.blake2b(np.ascontiguousarray(idx, dtype=np.int64).tobytes(),
                              digest_size=20).digest()
        if key not in memo:
            memo[key] = compute(idx)
        return memo[key]

    return cached


def metric_for(results: Sequence[MetaResult], metrics: Sequence[Metric]) -> dict[str, Metric]:
    by_spec = {m.spec: m for m in metrics}
    missing = {r.spec for r in results} - set(by_spec)
    if missing:  # pragma: no cover - results always come from these metrics
        raise ValueError(f"no metric for specs {sorted(missing)}")
    return by_spec


def _signed(result: MetaResult, metric: Metric, selection: Selection) -> MetaResult:
    """``result`` with its signature, from the analyses it carries."""
    fields: dict[str, Any] = {}
    if result.intervals is not None:
        fields.update(resamples=result.intervals.resamples, seed=result.intervals.seed)
    if result.cv is not None:
        fields.update(cv_folds=result.cv.folds, cv_seed=result.cv.seed,
                      cv_grid=result.cv.grid)
    if result.aggregation is not None:
        fields.update(result.aggregation.signature_fields())
    return dataclasses.replace(result, signature=row_signature(
        metric, selection, result.level, result.beta, **fields))


def sign(results: Sequence[MetaResult], selections: Sequence[Selection],
         metrics: Sequence[Metric]) -> list[MetaResult]:
    """Every row with its signature (metric, references, benchmark, analyses' settings)."""
    by_name = {sel.benchmark.name: sel for sel in selections}
    by_spec = metric_for(results, metrics)
    return [_signed(r, by_spec[r.spec], by_name[r.benchmark]) for r in results]


# -- bootstrap intervals -------------------------------------------------------------


def add_bootstrap(results: Sequence[MetaResult], selections: Sequence[Selection],
                  metrics: Sequence[Metric], n_resamples: int = DEFAULT_RESAMPLES,
                  seed: int = DEFAULT_SEED, cache: ScoreCache | None = None
                  ) -> list[MetaResult]:
    """Each row with its 95% percentile bootstrap :class:`~.results.Intervals` over the
    test sentences (JSON: ``pearson_ci`` ... ``bootstrap`` (resamples) and ``seed``)."""
    by_name = {sel.benchmark.name: sel for sel in selections}
    by_spec = metric_for(results, metrics)
    out = []
    for r in results:
        sel = by_name[r.benchmark]
        metric = by_spec[r.spec]
        metric.statistics(sel.benchmark.corpus).precompute([r.beta])
        ci = bootstrap_ci(score_function(metric, sel, r.beta, r.level, cache), sel.human,
                          sel.benchmark.corpus.num_sentences, n_resamples, seed)
        out.append(dataclasses.replace(r, intervals=Intervals(
            ci.pearson_ci, ci.spearman_ci, ci.kendall_ci, ci.n_resamples, ci.seed)))
    return out


# -- two metrics ----------------------------------------------------------------------


def compare_metrics(selection: Selection, metrics: Sequence[Metric],
                    betas: Sequence[float] | None = None, levels: Sequence[str] = ("corpus",),
                    n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                    cache: ScoreCache | None = None) -> list[Comparison]:
    """One :class:`~.results.Comparison` per pair of (metric, beta) configurations of
    different metrics.

    ``williams_p``: Williams' test (one-sided, in the observed direction) for the
    difference of the two Pearson correlations, which share the human scores;
    ``bootstrap_p``: paired bootstrap (one-sided: share of resamples in which the
    metric with the higher r on all sentences does not have the higher r).
    """
    if len(metrics) < 2:
        raise ConfigError("--compare needs at least two metrics (-m ... -m ...)")
    n = selection.benchmark.corpus.num_sentences
    out = []
    for level in levels:
        configs = [(m, b) for m in metrics for b in m.resolve_betas(betas)]
        for i, (ma, ba) in enumerate(configs):
            for mb, bb in configs[i + 1:]:
                if ma.spec == mb.spec:
                    continue
                for metric, beta in ((ma, ba), (mb, bb)):
                    metric.statistics(selection.benchmark.corpus).precompute([beta])
                sa = system_scores(ma, selection, ba, level)
                sb = system_scores(mb, selection, bb, level)
                w = williams_sig_diff(sa, sb, selection.human)
                if cache is None:
                    cache = {}
                pb = paired_bootstrap_test(score_function(ma, selection, ba, level, cache),
                                           score_function(mb, selection, bb, level, cache),
                                           selection.human, n, n_resamples, seed, "pearson")
                signature = " vs ".join(
                    row_signature(m, selection, level, b, resamples=n_resamples, seed=pb.seed)
                    for m, b in ((ma, ba), (mb, bb)))
                out.append(Comparison(
                    selection.benchmark.name, selection.human_kind, selection.system_set,
                    selection.benchmark.corpus_label, level, len(selection.systems),
                    ma.display_name, ma.spec, ba, mb.display_name, mb.spec, bb,
                    w.r_a, w.r_b, w.r_ab, w.t, w.p, pb.p, pb.delta_ci, n_resamples, pb.seed,
                    signature))
    return out


# -- sentence level ---------------------------------------------------------------------


def sentence_level(selection: Selection, metrics: Sequence[Metric],
                   betas: Sequence[float] | None = None, ties: str = "seeda"
                   ) -> list[SentenceAgreement]:
    """Pairwise sentence-level agreement of every metric (and beta) with the raw human
    rankings of the benchmark, restricted to the selection's system set."""
    if ties not in TIE_POLICIES:
        raise ConfigError(f"--ties must be one of {', '.join(TIE_POLICIES)} (got {ties!r})")
    bench = selection.benchmark
    judgments = bench.judgments
    if judgments is None or not judgments.items:
        raise ConfigError(f"benchmark {bench.name} has no sentence-level human judgments")
    items = judgments.items
    columns = selection.benchmark.sentence_columns()
    outside = sorted({item.sentence for item in items} - set(columns))
    if outside:
        raise InputError(
            f"benchmark {bench.name}: {len(outside)} judged sentences (e.g. {outside[0]}) are "
            "not in the scored corpus"
        )
    sentences = np.array(sorted(columns))
    cols = np.array([columns[s] for s in sentences])
    out = []
    for metric in metrics:
        stats = metric.statistics(bench.corpus)
        for beta in metric.resolve_betas(betas):
            matrix = np.asarray(stats.sentence(beta), dtype=float)[:, cols]
            score = {}
            for row, name in enumerate(stats.systems):
                score[name] = dict(zip(sentences.tolist(), matrix[row].tolist(), strict=True))
            res = pairwise_agreement(items, score, systems=selection.systems, ties=ties)
            human = judgments.kind
            out.append(SentenceAgreement(
                bench.name, human, selection.system_set, bench.corpus_label,
                metric.display_name, metric.spec, beta, len(selection.systems), ties,
                res.accuracy, res.kendall_like, res.n_pairs, res.concordant, res.discordant,
                res.metric_ties, res.n_items,
                row_signature(metric, selection, "sentence", beta, human=human, ties=ties)))
    return out


# -- windows ---------------------------------------------------------------------------


def windows(results: Sequence[MetaResult], selections: Sequence[Selection],
            metrics: Sequence[Metric], window: int = DEFAULT_WINDOW) -> list[WindowRow]:
    """Window analysis of every correlation row: systems sorted by human score, Pearson
    and Spearman within each run of ``window`` consecutive systems."""
    by_name = {sel.benchmark.name: sel for sel in selections}
    by_spec = metric_for(results, metrics)
    out = []
    for r in results:
        sel = by_name[r.benchmark]
        if window > len(sel.systems) or window < 2:
            raise ConfigError(f"--window must be between 2 and the number of systems "
                              f"({len(sel.systems)} in {sel.benchmark.name}); got {window}")
        scores = (np.asarray(r.aggregation.scores) if r.aggregation is not None
                  else system_scores(by_spec[r.spec], sel, r.beta, r.level))
        human = dict(zip(sel.systems, sel.human.tolist(), strict=True))
        metric = dict(zip(sel.systems, scores.tolist(), strict=True))
        extra = r.aggregation.signature_fields() if r.aggregation is not None else {}
        signature = row_signature(by_spec[r.spec], sel, r.level, r.beta, window=window, **extra)
        for w in window_correlations(metric, human, window):
            out.append(WindowRow(
                r.benchmark, r.human, r.systems, r.corpus, r.metric, r.spec, r.beta, r.level,
                window, w.window_start, tuple(w.systems_in_window), w.pearson, w.spearman,
                signature))
    return out


# -- cross-validated beta* -----------------------------------------------------------------


def _score_at_beta(metric: Metric, selection: Selection, level: str
                   ) -> Callable[[float, np.ndarray], np.ndarray]:
    """``(beta, idx) -> scores``: the form :func:`.cv_beta.cv_beta` asks for."""
    def score(beta: float, idx: np.ndarray) -> np.ndarray:
        return score_function(metric, selection, float(beta), level)(idx)

    return score


def add_cv_beta(results: Sequence[MetaResult], selections: Sequence[Selection],
                metrics: Sequence[Metric], grid: np.ndarray, k: int = DEFAULT_FOLDS,
                seed: int = DEFAULT_SEED, grid_text: str = "") -> list[MetaResult]:
    """Each row with its :class:`~.results.CVBeta`: ``beta_star`` (mean of the k folds'
    optima on their training parts, criterion Pearson), the fold optima, their standard
    deviation and the correlations at beta* on all sentences; None for metrics without
    beta. ``grid_text``: how the grid was given, for the signature."""
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
        out.append(dataclasses.replace(r, cv=cache[key]))
    return out
