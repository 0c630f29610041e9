"""Pairwise accuracy, tie calibration, SPA, metric clusters and human intervals, wired
to benchmarks and metrics.

The statistics are pure functions in :mod:`gecmetrics.stats` (``pairwise_accuracy``,
``spa``, ``clusters``, ``intervals``); this module feeds them a
selection's human data and a metric's cached statistics, as :mod:`.analyses`
does for the older analyses, and returns the typed rows of :mod:`.pair_stats_rows`:

* :func:`add_pair_stats`: ``pairwise_accuracy``, ``acc_eq``/``epsilon`` and ``spa``
  added to the system-level rows (:class:`~.pair_stats_rows.PairStats`);
* :func:`add_sentence_ties`: acc_eq and epsilon over the human ranking items, and
  the accuracy under every tie policy, added to the sentence-level rows;
* :func:`metric_clusters`: the significance ranking of the metrics (``--clusters``);
* :func:`human_intervals`: the human scores' bootstrap intervals (``--human-intervals``).

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
from gecmetrics.metric import Metric
from gecmetrics.signature import Signature
from gecmetrics.stats.clusters import (
    greedy_clusters,
    pair_weights,
    paired_p_values,
    weighted_pair_mean,
)
from gecmetrics.stats.correlation import correlate_one
from gecmetrics.stats.intervals import bootstrap_ratings, percentile_interval
from gecmetrics.stats.intervals import human_intervals as intervals_of
from gecmetrics.stats.pairwise_accuracy import (
    pair_differences,
    pairwise_accuracy,
    tie_calibrated_accuracy,
)
from gecmetrics.stats.resampling import bootstrap_system_scores, draw_counts, system_resamples
from gecmetrics.stats.spa import pair_p_values, soft_pairwise_accuracy, spa_terms

from .correlation_analyses import ScoreCache, score_function, sentence_level
from .human import RankingItem
from .judgment_arrays import (
    bootstrap_expected_wins,
    full_expected_wins,
    item_comparisons,
    win_matrix,
)
from .pair_stats_rows import ClusterRow, HumanIntervalRow, PairStats, SentenceTies
from .results import MetaResult, SentenceAgreement, row_signature
from .score_files import ScoresMetric
from .selection import Selection, system_scores
from .sentence_agreement import TIE_POLICIES

HumanCache = dict[tuple[Any, ...], "HumanSamples"]


@dataclasses.dataclass(frozen=True)
class HumanSamples:
    """A selection's human scores on all judgments and on B resamples of them."""

    kind: str  # ew / rating
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
    system the benchmark's EW covers, as the human scores are computed); GMEG: the
    mean segment rating on resamples of the sentences (``unit`` does not apply)."""
    bench = selection.benchmark
    key = (id(bench), tuple(selection.systems), n_resamples, seed, unit)
    if cache is not None and key in cache:
        return cache[key]
    segment = bench.segment_scores
    if segment is not None:
        samples = bootstrap_ratings(segment, selection.systems, n_resamples, seed)
        point = np.array([np.mean([v for v in segment[s] if v is not None])
                          for s in selection.systems])
        out = HumanSamples("rating", point, samples, "sentences",
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


def _metric_samples(metric: Metric, selection: Selection, beta: float | None, level: str,
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
            p_metric = pair_p_values(_metric_samples(metric, sel, r.beta, r.level,
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
                human_resample="sentences" if human.kind == "rating" else human_unit))
        out.append(dataclasses.replace(r, pairs=PairStats(n_pairs, **fields)))
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


# -- clusters of metrics --------------------------------------------------------------------


def _resampled_stat(stat: str, samples: np.ndarray, human: np.ndarray, picks: np.ndarray,
                    weights: np.ndarray, spa_pairs: np.ndarray | None) -> np.ndarray:
    """The statistic of one metric on every (systems, sentences) resample: (B,)."""
    if stat == "spa":
        assert spa_pairs is not None
        return weighted_pair_mean(spa_pairs[None, :], weights)
    if stat == "pairwise":
        agree = np.sign(pair_differences(samples)) == np.sign(pair_differences(human))
        return weighted_pair_mean(agree.astype(float), weights)
    rows = np.take_along_axis(samples, picks, axis=1)
    return np.array([correlate_one(rows[b], human[picks[b]], stat)
                     for b in range(rows.shape[0])])


def metric_clusters(results: Sequence[MetaResult], selections: Sequence[Selection],
                    metrics: Sequence[Metric], stat: str,
                    resampling: Resampling | None = None) -> list[ClusterRow]:
    """The significance ranking of the metric rows of each (benchmark, level) by
    ``stat`` (pearson, spearman, kendall, pairwise, spa); see :mod:`gecmetrics.stats.clusters`."""
    r_ = resampling or Resampling()
    n_resamples, seed, human_unit = r_.n_resamples, r_.seed, r_.human_unit
    cache, human_cache = r_.cache, r_.human_cache
    by_name, by_spec = _by(results, selections, metrics)
    groups: dict[tuple[str, str], list[MetaResult]] = {}
    for r in results:
        groups.setdefault((r.benchmark, r.level), []).append(r)
    out = []
    for (bench, level), rows in groups.items():
        sel = by_name[bench]
        size = len(sel.systems)
        picks = system_resamples(size, n_resamples, seed)
        weights = pair_weights(draw_counts(picks, size))
        p_human = (pair_p_values(human_samples(sel, n_resamples, seed, human_cache,
                                               human_unit).samples)
                   if stat == "spa" else None)
        point, resampled = [], []
        for r in rows:
            metric = by_spec[r.spec]
            samples = _metric_samples(metric, sel, r.beta, level, n_resamples, seed, cache)
            scores = system_scores(metric, sel, r.beta, level)
            terms = None
            if stat == "spa":
                assert p_human is not None
                terms = spa_terms(p_human, pair_p_values(samples))
                point.append(float(terms.mean()))
            elif stat == "pairwise":
                point.append(pairwise_accuracy(scores, sel.human))
            else:
                point.append(getattr(r, stat))
            resampled.append(_resampled_stat(stat, samples, sel.human, picks, weights, terms))
        values = np.array(point, dtype=float)
        matrix = np.column_stack(resampled)
        p = paired_p_values(matrix, values)
        ranking = greedy_clusters(values, p)
        for k in ranking.order:
            r = rows[k]
            above = ranking.order[:ranking.rank[k] - 1]
            p_values = tuple((rows[a].spec if rows[a].beta is None
                              else f"{rows[a].spec}@{rows[a].beta:g}",
                              None if np.isnan(p[a, k]) else float(p[a, k])) for a in above)
            top = rows[ranking.top[k]]
            out.append(ClusterRow(
                r.benchmark, r.human, r.systems, r.corpus, r.metric, r.spec, r.beta, level,
                stat, values[k], ranking.rank[k], ranking.cluster[k], top.spec,
                ranking.p_vs_top[k], p_values, percentile_interval(matrix[:, k]),
                n_resamples, seed,
                row_signature(by_spec[r.spec], sel, level, r.beta, stat=stat,
                              resample="systems+sentences", resamples=n_resamples,
                              seed=seed, **({"human_resample": human_unit}
                                            if stat == "spa" else {}))))
    return out


# -- human intervals --------------------------------------------------------------------------


def human_intervals(selections: Sequence[Selection], n_resamples: int = 1000,
                    seed: int = 12345, human_cache: HumanCache | None = None,
                    human_unit: str = "items") -> list[HumanIntervalRow]:
    """Every selected system's human score with its 95% interval, rank range and cluster,
    best first (see :mod:`gecmetrics.stats.intervals`)."""

    out = []
    for sel in selections:
        h = human_samples(sel, n_resamples, seed, human_cache, human_unit)
        res = intervals_of(sel.systems, h.point, h.samples)
        signature = str(Signature("human").extend(
            benchmark=sel.benchmark.name, systems=sel.system_set,
            corpus=sel.benchmark.corpus_label, human=h.kind, resampled=h.resampled,
            resamples=n_resamples, seed=seed))
        order = sorted(range(len(sel.systems)), key=lambda i: (-h.point[i], i))
        for i in order:
            out.append(HumanIntervalRow(
                sel.benchmark.name, h.kind, sel.system_set, sel.benchmark.corpus_label,
                sel.systems[i], float(h.point[i]), (float(res.low[i]), float(res.high[i])),
                int(res.rank[i]), (int(res.rank_low[i]), int(res.rank_high[i])),
                int(res.cluster[i]), h.resampled, h.n_resampled, n_resamples, seed,
                signature))
    return out
