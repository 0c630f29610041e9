"""The meta-evaluation analyses beyond one correlation, wired to benchmarks and metrics.

The statistics live in :mod:`gecmetrics.stats` and :mod:`.sentence_agreement`
(pure functions); this module feeds them a selection's human scores and a
metric's cached per-sentence statistics (:func:`score_function`, shared by the
registered analyses that resample sentences), and returns the typed rows of
:mod:`.results` (each with its signature):

* :func:`sentence_level`: pairwise sentence-level agreement with the raw
  human rankings;
* :func:`sign`: every correlation row with its signature;

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

from .defaults import DEFAULT_FOLDS
from .result_rows import MetaResult, SentenceAgreement
from .selection import Selection, row_signature
from .sentence_agreement import TIE_POLICIES, pairwise_agreement

__all__ = ["DEFAULT_FOLDS", "DEFAULT_RESAMPLES", "DEFAULT_SEED",
           "TIE_POLICIES", "score_function", "sentence_level", "sign"]


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
