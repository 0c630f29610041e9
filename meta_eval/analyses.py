"""The meta-evaluation analyses beyond one correlation, wired to benchmarks and metrics.

The statistics live in :mod:`.significance`, :mod:`.pairwise`, :mod:`.window`
and :mod:`.cv_beta` (pure functions); this module feeds them a selection's
human scores and a metric's cached per-sentence statistics, and turns the
results into the JSON objects of ``gecmetrics meta-eval``:

* :func:`add_bootstrap`: 95% bootstrap intervals (``pearson_ci`` ...) added to
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
from gecmetrics.formatting import finite_or_none
from gecmetrics.metric import Metric

from .cv_beta import DEFAULT_FOLDS, cv_beta
from .evaluate import MetaResult, Selection, corpus_label, system_scores
from .pairwise import TIE_POLICIES, pairwise_agreement
from .significance import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    bootstrap_ci,
    paired_bootstrap_test,
    williams_sig_diff,
)
from .window import DEFAULT_WINDOW, window_correlations

__all__ = ["DEFAULT_FOLDS", "DEFAULT_RESAMPLES", "DEFAULT_SEED", "DEFAULT_WINDOW",
           "TIE_POLICIES", "add_bootstrap", "add_cv_beta", "compare_metrics",
           "score_function", "sentence_level", "windows"]


_num = finite_or_none  # NaN (an undefined correlation) -> null in JSON


def _pair(values: Sequence[float]) -> list[float | None]:
    return [_num(float(v)) for v in values]


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


def _metric_for(results: Sequence[MetaResult], metrics: Sequence[Metric]) -> dict[str, Metric]:
    by_spec = {m.spec: m for m in metrics}
    missing = {r.spec for r in results} - set(by_spec)
    if missing:  # pragma: no cover - results always come from these metrics
        raise ValueError(f"no metric for specs {sorted(missing)}")
    return by_spec


def _with(result: MetaResult, extra: dict[str, Any]) -> MetaResult:
    return dataclasses.replace(result, extra={**result.extra, **extra})


# -- bootstrap intervals -------------------------------------------------------------


def add_bootstrap(results: Sequence[MetaResult], selections: Sequence[Selection],
                  metrics: Sequence[Metric], n_resamples: int = DEFAULT_RESAMPLES,
                  seed: int = DEFAULT_SEED, cache: ScoreCache | None = None
                  ) -> list[MetaResult]:
    """Each row with ``pearson_ci``, ``spearman_ci``, ``kendall_ci`` (95% percentile
    bootstrap over test sentences), ``bootstrap`` (resamples) and ``seed``."""
    by_name = {sel.benchmark.name: sel for sel in selections}
    by_spec = _metric_for(results, metrics)
    out = []
    for r in results:
        sel = by_name[r.benchmark]
        metric = by_spec[r.spec]
        metric.statistics(sel.benchmark.corpus).precompute([r.beta])
        ci = bootstrap_ci(score_function(metric, sel, r.beta, r.level, cache), sel.human,
                          sel.benchmark.corpus.num_sentences, n_resamples, seed)
        out.append(_with(r, {
            "pearson_ci": _pair(ci.pearson_ci), "spearman_ci": _pair(ci.spearman_ci),
            "kendall_ci": _pair(ci.kendall_ci), "bootstrap": ci.n_resamples, "seed": ci.seed,
        }))
    return out


# -- two metrics ----------------------------------------------------------------------


def compare_metrics(selection: Selection, metrics: Sequence[Metric],
                    betas: Sequence[float] | None = None, levels: Sequence[str] = ("corpus",),
                    n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                    cache: ScoreCache | None = None) -> list[dict[str, Any]]:
    """One object per pair of (metric, beta) configurations of different metrics.

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
                out.append({
                    "analysis": "compare", "benchmark": selection.benchmark.name,
                    "human": selection.human_kind, "systems": selection.system_set,
                    "corpus": corpus_label(selection.benchmark), "level": level,
                    "n_systems": len(selection.systems),
                    "metric_a": ma.display_name, "spec_a": ma.spec, "beta_a": ba,
                    "metric_b": mb.display_name, "spec_b": mb.spec, "beta_b": bb,
                    "pearson_a": _num(w.r_a), "pearson_b": _num(w.r_b),
                    "pearson_ab": _num(w.r_ab), "williams_t": _num(w.t),
                    "williams_p": _num(w.p), "bootstrap_p": _num(pb.p),
                    "delta_ci": _pair(pb.delta_ci), "bootstrap": n_resamples, "seed": pb.seed,
                    "one_sided": True,
                })
    return out


# -- sentence level ---------------------------------------------------------------------


def _sentence_columns(selection: Selection) -> dict[int, int]:
    """Judgment sentence index (0-based, as in the XML after the base shift) -> corpus column."""
    info = selection.benchmark.info
    positions = info.get("sentence_positions")
    if positions is None:
        positions = range(selection.benchmark.corpus.num_sentences)
    return {int(p): col for col, p in enumerate(positions)}


def sentence_level(selection: Selection, metrics: Sequence[Metric],
                   betas: Sequence[float] | None = None, ties: str = "seeda"
                   ) -> list[dict[str, Any]]:
    """Pairwise sentence-level agreement of every metric (and beta) with the raw human
    rankings of the benchmark, restricted to the selection's system set."""
    if ties not in TIE_POLICIES:
        raise ConfigError(f"--ties must be one of {', '.join(TIE_POLICIES)} (got {ties!r})")
    bench = selection.benchmark
    items = bench.info.get("judgments")
    if not items:
        raise ConfigError(f"benchmark {bench.name} has no sentence-level human judgments")
    columns = _sentence_columns(selection)
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
            out.append({
                "analysis": "sentence", "benchmark": bench.name,
                "human": bench.info.get("judgments_kind", "judgments"),
                "systems": selection.system_set, "corpus": corpus_label(bench),
                "metric": metric.display_name, "spec": metric.spec, "beta": beta,
                "n_systems": len(selection.systems), "ties": ties,
                "accuracy": _num(res.accuracy), "kendall_like": _num(res.kendall_like),
                "n_pairs": res.n_pairs, "concordant": res.concordant,
                "discordant": res.discordant, "metric_ties": res.metric_ties,
                "n_items": res.n_items,
            })
    return out


# -- windows ---------------------------------------------------------------------------


def windows(results: Sequence[MetaResult], selections: Sequence[Selection],
            metrics: Sequence[Metric], window: int = DEFAULT_WINDOW) -> list[dict[str, Any]]:
    """Window analysis of every correlation row: systems sorted by human score, Pearson
    and Spearman within each run of ``window`` consecutive systems."""
    by_name = {sel.benchmark.name: sel for sel in selections}
    by_spec = _metric_for(results, metrics)
    out = []
    for r in results:
        sel = by_name[r.benchmark]
        if window > len(sel.systems) or window < 2:
            raise ConfigError(f"--window must be between 2 and the number of systems "
                              f"({len(sel.systems)} in {sel.benchmark.name}); got {window}")
        scores = system_scores(by_spec[r.spec], sel, r.beta, r.level)
        human = dict(zip(sel.systems, sel.human.tolist(), strict=True))
        metric = dict(zip(sel.systems, scores.tolist(), strict=True))
        for w in window_correlations(metric, human, window):
            out.append({
                "analysis": "window", "benchmark": r.benchmark, "human": r.human,
                "systems": r.systems, "corpus": r.corpus, "metric": r.metric, "spec": r.spec,
                "beta": r.beta, "level": r.level, "window": window, **w.to_json(),
            })
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
                seed: int = DEFAULT_SEED) -> list[MetaResult]:
    """Each row with ``beta_star`` (mean of the k folds' optima on their training
    parts, criterion Pearson), ``beta_star_folds``, ``beta_star_std`` and the
    correlations at beta* on all sentences; null for metrics without beta."""
    by_name = {sel.benchmark.name: sel for sel in selections}
    by_spec = _metric_for(results, metrics)
    cache: dict[tuple[str, str, str], dict[str, Any]] = {}
    out = []
    for r in results:
        key = (r.benchmark, r.spec, r.level)
        if key not in cache:
            sel, metric = by_name[r.benchmark], by_spec[r.spec]
            if not metric.has_beta:
                cache[key] = {"beta_star": None, "beta_star_folds": None, "beta_star_std": None,
                              "pearson_at_beta_star": None, "spearman_at_beta_star": None,
                              "kendall_at_beta_star": None, "cv_folds": k, "cv_seed": seed}
            else:
                stats = metric.statistics(sel.benchmark.corpus)
                stats.precompute(list(grid))
                res = cv_beta(_score_at_beta(metric, sel, r.level), sel.human, grid,
                              sel.benchmark.corpus.num_sentences, k, seed)
                cache[key] = {k_: _num(v) for k_, v in res.to_json().items()}
        out.append(_with(r, cache[key]))
    return out
