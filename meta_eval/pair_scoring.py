"""Pairwise accuracy, tie calibration and SPA, wired to benchmarks and metrics; the
resampled scores that they, the metric clusters and the human intervals share.

The statistics are pure functions in :mod:`gecmetrics.stats` (``pairwise_accuracy``,
``spa``, ``clusters``, ``intervals``); this module feeds them a
selection's human data and a metric's cached statistics, as :mod:`.analyses`
does for the older analyses, and returns the typed rows of :mod:`.pair_stats_rows`:

* :func:`add_pair_stats`: ``pairwise_accuracy``, ``acc_eq``/``epsilon`` and ``spa``
  added to the system-level rows (:class:`~.pair_stats_rows.PairStats`);
* :func:`add_sentence_ties`: acc_eq and epsilon over the human ranking items, and
  the accuracy under every tie policy, added to the sentence-level rows;
* :func:`human_samples` and :func:`metric_samples`: the resampled human and metric
  scores, which ``--clusters`` (:mod:`.analyses.clusters`) and ``--human-intervals``
  (:mod:`.analyses.human_intervals`) read too.

Metric resamples are those of ``--bootstrap`` (same seed, same sentence draws,
shared through the score cache); human resamples draw the ranking items (GMEG:
the sentences of its segment ratings) with an rng of the same seed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from gecmetrics.errors import ConfigError
from gecmetrics.meta_eval.correlation_analyses import ScoreCache, score_function, sentence_level
from gecmetrics.meta_eval.human import RankingItem
from gecmetrics.meta_eval.judgment_arrays import (
    bootstrap_expected_wins,
    full_expected_wins,
    item_comparisons,
    win_matrix,
)
from gecmetrics.meta_eval.pair_stats_rows import PairStats, SentenceTies
from gecmetrics.meta_eval.result_rows import MetaResult, SentenceAgreement
from gecmetrics.meta_eval.score_files import ScoresMetric
from gecmetrics.meta_eval.selection import Selection, row_signature, system_scores
from gecmetrics.meta_eval.sentence_agreement import TIE_POLICIES
from gecmetrics.metric import Metric
from gecmetrics.stats.intervals import bootstrap_ratings
from gecmetrics.stats.pairwise_accuracy import (
    pair_differences,
    pairwise_accuracy,
    tie_calibrated_accuracy,
)
from gecmetrics.stats.resampling import bootstrap_system_scores
from gecmetrics.stats.spa import pair_p_values, soft_pairwise_accuracy

HumanCache = dict[tuple[Any, ...], "HumanSamples"]


@dataclasses.dataclass(frozen=True)
class HumanSamples:
    """A selection's human scores on all judgments and on B resamples of them."""

    kind: str  # ew / rating (sv-gec: its criterion)
    point: np.ndarray  # (S,)
    samples: np.ndarray  # (B, S)
    resampled: str  # "ranking items" / "sentences"
    n_resampled: int


def check_resampled_metrics(metrics: Sequence[Metric], spa: bool, clusters: str | None
                            ) -> None:
    """--spa and --clusters resample sentences: a --scores file with system scores only
    cannot take part (checked before any scoring)."""
    flag = "--spa" if spa else ("--clusters" if clusters is not None else None)
    for metric in metrics:
        if flag and isinstance(metric, ScoresMetric) and not metric.sentence_level:
            raise ConfigError(f"{flag} resamples sentences, but --scores "
                              f"{metric.display_name} ({metric.table.source}) has system "
                              f"scores only; give one score per sentence, or drop {flag}")


def _judged(selection: Selection) -> Sequence[RankingItem]:
    judgments = selection.benchmark.judgments
    return () if judgments is None else judgments.items


def human_samples(selection: Selection, n_resamples: int, seed: int,
                  cache: HumanCache | None = None, unit: str = "items") -> HumanSamples:
    """Expected Wins of the selection's systems on resamples of the ranking items (or of
    the pairwise comparisons, ``unit="comparisons"``, as GJG15 did; EW over every
    system the benchmark's EW covers, as the human scores are computed); GMEG (sv-gec:
    the criterion asked for): the mean segment rating on resamples of the sentences
    (``unit`` does not apply)."""
    bench = selection.benchmark
    key = (id(bench), tuple(selection.systems), n_resamples, seed, unit)
    if cache is not None and key in cache:
        return cache[key]
    segment = bench.segment_scores
    if segment is not None:
        samples = bootstrap_ratings(segment, selection.systems, n_resamples, seed)
        point = np.array([np.mean([v for v in segment[s] if v is not None])
                          for s in selection.systems])
        out = HumanSamples(selection.human_kind, point, samples, "sentences",
                           len(next(iter(segment.values()))))
    else:
        items = bench.judgments.items if bench.judgments is not None else ()
        if not items or "ew" not in bench.human:
            raise ConfigError(f"benchmark {bench.name} has no human judgments to resample")
        universe = list(bench.human["ew"])
        where = [universe.index(s) for s in selection.systems]

        samples = bootstrap_expected_wins(items, universe, n_resamples, seed, unit)[:, where]
        point = full_expected_wins(items, universe)[where]
        drawn = len(items) if unit == "items" else win_matrix(items, universe, unit).shape[0]
        out = HumanSamples("ew", point, samples,
                           "ranking items" if unit == "items" else "comparisons", drawn)
    if cache is not None:
        cache[key] = out
    return out


def metric_samples(metric: Metric, selection: Selection, beta: float | None, level: str,
                    n_resamples: int, seed: int, cache: ScoreCache | None) -> np.ndarray:
    """(B, S) system scores on the sentence resamples of ``--bootstrap`` (same draws)."""
    metric.statistics(selection.benchmark.corpus).precompute([beta])
    return bootstrap_system_scores(score_function(metric, selection, beta, level, cache),
                                   selection.benchmark.corpus.num_sentences, n_resamples,
                                   seed)


def _by(results: Sequence[Any], selections: Sequence[Selection], metrics: Sequence[Metric]
        ) -> tuple[dict[str, Selection], dict[str, Metric]]:
    return {s.benchmark.name: s for s in selections}, {m.spec: m for m in metrics}


# -- system level: pairwise accuracy, acc_eq, SPA ------------------------------------------


@dataclasses.dataclass(frozen=True)
class Resampling:
    """How SPA and the clusters draw: resamples, seed, what the human bootstrap draws
    (``items`` or ``comparisons``), and the resampled scores shared within one run."""

    n_resamples: int = 1000
    seed: int = 12345
    human_unit: str = "items"
    cache: ScoreCache = dataclasses.field(default_factory=dict)
    human_cache: HumanCache = dataclasses.field(default_factory=dict)


def add_pair_stats(results: Sequence[MetaResult], selections: Sequence[Selection],
                   metrics: Sequence[Metric], pairwise: bool = False,
                   tie_calibration: bool = False, spa: bool = False,
                   resampling: Resampling | None = None) -> list[MetaResult]:
    """Each row with its :class:`~.pair_stats_rows.PairStats` (those asked for)."""
    r_ = resampling or Resampling()
    n_resamples, seed, human_unit = r_.n_resamples, r_.seed, r_.human_unit
    cache, human_cache = r_.cache, r_.human_cache
    by_name, by_spec = _by(results, selections, metrics)
    out = []
    for r in results:
        sel, metric = by_name[r.benchmark], by_spec[r.spec]
        scores = system_scores(metric, sel, r.beta, r.level)
        n_pairs = len(sel.systems) * (len(sel.systems) - 1) // 2
        fields: dict[str, Any] = {}
        if pairwise:
            fields["pairwise_accuracy"] = pairwise_accuracy(scores, sel.human)
        if tie_calibration:
            tc = tie_calibrated_accuracy(pair_differences(scores), pair_differences(sel.human))
            fields.update(acc_eq=tc.acc_eq, epsilon=tc.epsilon)
        if spa:
            human = human_samples(sel, n_resamples, seed, human_cache, human_unit)
            p_metric = pair_p_values(metric_samples(metric, sel, r.beta, r.level,
                                                     n_resamples, seed, cache))
            fields.update(spa=soft_pairwise_accuracy(pair_p_values(human.samples), p_metric),
                          spa_human=human.kind, resamples=n_resamples, seed=seed)
            # the signature names the resamples SPA drew (those of --bootstrap too) and
            # what the human bootstrap drew
            extra: dict[str, Any] = {"resamples": n_resamples, "seed": seed}
            if r.cv is not None:
                extra.update(cv_folds=r.cv.folds, cv_seed=r.cv.seed, cv_grid=r.cv.grid)
            r = dataclasses.replace(r, signature=row_signature(
                metric, sel, r.level, r.beta, **extra,
                human_resample="sentences" if human.resampled == "sentences" else human_unit))
        out.append(r.with_column(PairStats(n_pairs, **fields)))
    return out


# -- sentence level: tie calibration over the ranking items --------------------------------


def add_sentence_ties(rows: Sequence[SentenceAgreement], selections: Sequence[Selection],
                      metrics: Sequence[Metric]) -> list[SentenceAgreement]:
    """Each sentence-level row with acc_eq and epsilon over every pair of outputs ranked
    in the same item (human ties included, pooled over the items), and the accuracy of
    the same scores under each tie policy of :mod:`.sentence_agreement` for comparison."""
    by_name, by_spec = _by(rows, selections, metrics)
    out = []
    for row in rows:
        sel, metric = by_name[row.benchmark], by_spec[row.spec]
        stats = metric.statistics(sel.benchmark.corpus)
        matrix = np.asarray(stats.sentence(row.beta), dtype=float)
        position = {name: i for i, name in enumerate(stats.systems)}
        columns = sel.benchmark.sentence_columns()
        sentences, first, second, human = item_comparisons(_judged(sel),
                                                           sel.systems)
        cols = np.array([columns[s] for s in sentences.tolist()], dtype=int)
        a = np.array([position[s] for s in first], dtype=int)
        b = np.array([position[s] for s in second], dtype=int)
        diffs = (matrix[a, cols] - matrix[b, cols]) if cols.size else np.zeros(0)
        tc = tie_calibrated_accuracy(diffs, human)
        betas = None if row.beta is None else [row.beta]
        by_policy = tuple(
            (policy, row.accuracy if policy == row.ties
             else sentence_level(sel, [metric], betas, policy)[0].accuracy)
            for policy in TIE_POLICIES)
        out.append(dataclasses.replace(row, tie_calibration=SentenceTies(
            tc.acc_eq, tc.epsilon, tc.n_pairs, tc.human_ties, tc.metric_ties, by_policy)))
    return out
