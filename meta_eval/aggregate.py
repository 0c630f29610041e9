"""Human-like aggregation of a metric's sentence scores: ``--level ew`` and ``--level trueskill``.

Humans rank GEC systems by comparing outputs of the same sentence pairwise and
aggregating the comparisons with a rating algorithm (Expected Wins, TrueSkill);
metrics usually average or pool sentence statistics instead. Goto, Sakai and
Watanabe (ACL 2025, "Rethinking Evaluation Metrics for Grammatical Error
Correction: Why Use a Different Evaluation Process than Human?") aggregate the
metric the human way: each pair of outputs of one sentence becomes a comparison
won by the output with the higher sentence score, and the comparisons go
through the same rating algorithm as the human judgments. This module does that:

* :func:`comparisons`: which pairs are compared. ``items="judged"``: exactly the
  ranking items the humans judged (every pair of distinct systems of each
  ranking item, restricted to the system set: SEEDA ``judgments_{sent,edit}.xml``,
  GJG15 ``judgments.xml``, GMEG the systems rated on each segment);
  ``items="all"``: every corpus sentence and every pair of systems (what
  gec-metrics' ``rank_systems(aggregation=...)`` does), sentence by sentence, the
  pairs in alphabetical order of the names;
* :func:`outcomes`: who won each comparison, with the tie policy ``ties``
  (``neutral``, the default: a draw, which TrueSkill rates as a draw and Expected
  Wins leaves out, as gec-metrics does; ``seeda``: a loss for the alphabetically
  earlier system, the sentence-level meta-evaluation's rule; ``exclude``: dropped);
* :func:`expected_wins_scores` (vectorised; the same formula as
  :func:`.human.expected_wins`, which the tests use as its oracle) and
  :func:`trueskill_mus` (the closed-form two-player TrueSkill update with the
  ``trueskill`` package's own normal functions, so it equals ``TrueSkill.rate``
  to rounding; settings of gec-metrics and the GJG15/WMT scripts: mu 0, sigma
  0.5, beta 0.25, tau 0, draw probability 0.25). TrueSkill depends on the order of
  the comparisons: ``runs`` seeded random orders are rated and their means
  averaged (the spread across runs is reported); ``runs=0`` rates once in the
  data's own order (gec-metrics' choice, for reproducing it).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.stats.correlation import correlate, correlation_rows
from gecmetrics.stats.resampling import permutations

from .defaults import AGGREGATE_ITEMS, DEFAULT_TRUESKILL_RUNS
from .levels import AGGREGATION_LEVELS
from .result_rows import Aggregation, MetaResult
from .score_files import ScoresMetric
from .trueskill import draw_margin, two_player

if TYPE_CHECKING:
    from gecmetrics.metric import Metric

    from .run_options import RunOptions
    from .selection import Selection

AGGREGATION_TIES = ("seeda", "neutral", "exclude")
DEFAULT_ITEMS = "judged"

# TrueSkill environment of gec-metrics' run_trueskill (and of the WMT/GJG15 scripts):
# scores on a 0-centred scale, sigma 0.5, performance noise beta = sigma / 2, no
# dynamics (tau 0: the systems do not change while they are rated).
TS_MU = 0.0
TS_SIGMA = 0.5
TS_BETA = 0.25
TS_TAU = 0.0
TS_DRAW_PROBABILITY = 0.25


@dataclass(frozen=True)
class Comparisons:
    """The comparisons to rate: comparison k is ``systems[a[k]]`` vs ``systems[b[k]]``
    on corpus sentence (column) ``column[k]``, in rating order."""

    systems: tuple[str, ...]  # the selection's systems, in its order
    column: np.ndarray
    a: np.ndarray
    b: np.ndarray
    items: str  # judged / all
    n_items: int  # ranking items (judged) or sentences (all) giving a comparison

    def __len__(self) -> int:
        return len(self.column)


def comparisons(selection: Selection, items: str = DEFAULT_ITEMS) -> Comparisons:
    """The pairs of systems to compare (see the module docstring)."""
    if items not in AGGREGATE_ITEMS:
        raise ConfigError(f"--aggregate-items must be one of {', '.join(AGGREGATE_ITEMS)} "
                          f"(got {items!r})")
    bench = selection.benchmark
    systems = tuple(selection.systems)
    index = {name: i for i, name in enumerate(systems)}
    column: list[int] = []
    a: list[int] = []
    b: list[int] = []
    n_items = 0
    if items == "all":
        ordered = sorted(systems)
        pairs = [(index[x], index[y]) for x, y in itertools.combinations(ordered, 2)]
        for col in range(bench.corpus.num_sentences):
            column.extend([col] * len(pairs))
            a.extend(p for p, _ in pairs)
            b.extend(q for _, q in pairs)
        n_items = bench.corpus.num_sentences if pairs else 0
    else:
        judged = bench.judgments.items if bench.judgments is not None else ()
        if not judged:
            raise ConfigError(f"benchmark {bench.name} has no human judgments to aggregate "
                              "on; use --aggregate-items all")
        columns = selection.benchmark.sentence_columns()
        for item in judged:
            names = [n for n in dict.fromkeys(item.systems) if n in index]
            if len(names) < 2:
                continue
            if item.sentence not in columns:
                raise InputError(f"benchmark {bench.name}: judged sentence {item.sentence} is "
                                 "not in the scored corpus; use --aggregate-items all")
            col = columns[item.sentence]
            n_items += 1
            for x, y in itertools.combinations(names, 2):
                column.append(col)
                a.append(index[x])
                b.append(index[y])
    as_int = np.asarray
    return Comparisons(systems, as_int(column, dtype=np.int64), as_int(a, dtype=np.int64),
                       as_int(b, dtype=np.int64), items, n_items)


def outcomes(scores: np.ndarray, comps: Comparisons, ties: str = "neutral"
             ) -> tuple[np.ndarray, np.ndarray]:
    """``(outcome, keep)``: outcome +1 when ``a`` won, -1 when ``b`` won, 0 a draw;
    ``keep`` marks the comparisons rated. ``scores``: (systems, sentences), higher
    is better, systems in ``comps.systems`` order."""
    if ties not in AGGREGATION_TIES:
        raise ConfigError(f"--ties {ties} does not apply to --level ew/trueskill (there is "
                          "no human judgment for a metric tie to disagree with); choose one "
                          f"of {', '.join(AGGREGATION_TIES)}")
    sa = scores[comps.a, comps.column]
    sb = scores[comps.b, comps.column]
    if np.isnan(sa).any() or np.isnan(sb).any():
        raise InputError("a sentence score is NaN, so the comparison cannot be decided; "
                         "check the metric's sentence scores")
    outcome = np.sign(sa - sb).astype(np.int8)
    tie = outcome == 0
    keep = np.ones(len(outcome), dtype=bool)
    if ties == "seeda":
        position = {name: i for i, name in enumerate(sorted(comps.systems))}
        rank = np.array([position[name] for name in comps.systems])
        # the earlier system (alphabetically) is read as having the lower score
        outcome[tie] = np.where(rank[comps.a[tie]] < rank[comps.b[tie]], -1, 1)
    elif ties == "exclude":
        keep = ~tie
    return outcome, keep


def expected_wins_scores(n_systems: int, a: np.ndarray, b: np.ndarray,
                         outcome: np.ndarray) -> np.ndarray:
    """Expected Wins (Bojar et al., 2013) of every system from decided comparisons::

        EW(i) = 1 / (n - 1) * sum_{j != i, w_ij + w_ji > 0} w_ij / (w_ij + w_ji)

    draws (outcome 0) count nowhere. The formula of :func:`.human.expected_wins`
    on a count matrix, so a million comparisons take milliseconds.
    """
    if n_systems < 2:
        raise ConfigError("Expected Wins needs at least two systems")
    decided = outcome != 0
    winner = np.where(outcome > 0, a, b)[decided]
    loser = np.where(outcome > 0, b, a)[decided]
    wins = np.zeros((n_systems, n_systems))
    np.add.at(wins, (winner, loser), 1.0)
    total = wins + wins.T
    share = np.divide(wins, total, out=np.zeros_like(wins), where=total > 0)
    return np.asarray(share.sum(axis=1) / (n_systems - 1))


def trueskill_mus(n_systems: int, a: np.ndarray, b: np.ndarray, outcome: np.ndarray,
                  orders: Sequence[np.ndarray]) -> np.ndarray:
    """TrueSkill means after rating the comparisons in each of ``orders``: (runs, systems).

    Each comparison is a two-player match (Herbrich, Minka and Graepel, 2006), rated
    with the closed-form update of :func:`.trueskill.two_player` (the ``trueskill``
    package's v/w functions and draw margin, without its per-match factor graph),
    under gec-metrics' settings (``TS_*`` above).
    """
    try:
        import trueskill
    except ImportError:  # pragma: no cover - a core dependency
        raise ConfigError("--level trueskill needs the trueskill package: "
                          "pip install 'trueskill>=0.4.5'") from None
    env = trueskill.TrueSkill(mu=TS_MU, sigma=TS_SIGMA, beta=TS_BETA, tau=TS_TAU,
                              draw_probability=TS_DRAW_PROBABILITY)
    margin = draw_margin(env)
    win_first = [int(x) for x in np.where(outcome >= 0, a, b)]
    win_second = [int(x) for x in np.where(outcome >= 0, b, a)]
    drawn = [bool(x) for x in outcome == 0]
    out = np.empty((len(orders), n_systems))
    for run, order in enumerate(orders):
        mu = [TS_MU] * n_systems
        var = [TS_SIGMA ** 2 + TS_TAU ** 2] * n_systems
        for k in order.tolist():
            i, j = win_first[k], win_second[k]
            mu[i], var[i], mu[j], var[j] = two_player(env, mu[i], var[i], mu[j], var[j],
                                                      drawn[k], margin)
        out[run] = mu
    return out


def trueskill_orders(n: int, runs: int, seed: int) -> list[np.ndarray]:
    """``runs`` seeded random orders of ``n`` comparisons (``runs=0``: the data's order)."""
    if runs == 0:
        return [np.arange(n)]
    return permutations(n, runs, seed)


@dataclass(frozen=True)
class AggregateSettings:
    """The options of the aggregation levels (``--aggregate-items``, ``--ties``,
    ``--trueskill-runs``, ``--seed``)."""

    items: str = DEFAULT_ITEMS
    ties: str = "neutral"
    runs: int = DEFAULT_TRUESKILL_RUNS
    seed: int = 12345

    @classmethod
    def of(cls, options: RunOptions) -> AggregateSettings:
        """The settings of ``options`` (``ties``: as given, else ``neutral``)."""
        # A metric tie is a draw unless --ties says otherwise: the seeda rule (a loss for
        # the alphabetically earlier system) would rank systems by name wherever outputs
        # coincide (GJG15's items group identical outputs: AMU would lose them all).
        ties = options.ties if "ties" in options.explicit else "neutral"
        return cls(options.aggregate_items, ties, options.trueskill_runs, options.seed_value)


def aggregate(metric: Metric, selection: Selection, beta: float | None, level: str,
              settings: AggregateSettings, comps: Comparisons | None = None
              ) -> tuple[np.ndarray, Aggregation]:
    """The ``level`` (ew / trueskill) system scores of ``metric`` on ``selection``."""
    if level not in AGGREGATION_LEVELS:
        raise ConfigError(f"unknown aggregation level {level!r}; choose one of: "
                          f"{', '.join(AGGREGATION_LEVELS)}")
    comps = comps if comps is not None else comparisons(selection, settings.items)
    stats = metric.statistics(selection.benchmark.corpus)
    sentence = np.asarray(stats.sentence(beta), dtype=float)[selection.indices(stats.systems)]
    outcome, keep = outcomes(sentence, comps, settings.ties)
    a, b, outcome = comps.a[keep], comps.b[keep], outcome[keep]
    n = len(comps.systems)
    rated, n_items = int(keep.sum()), comps.n_items
    if level == "ew":
        scores = expected_wins_scores(n, a, b, outcome)
        return scores, Aggregation(level, comps.items, settings.ties, rated, n_items,
                                   tuple(scores.tolist()))
    runs = trueskill_mus(n, a, b, outcome, trueskill_orders(len(a), settings.runs,
                                                            settings.seed))
    scores = runs.mean(axis=0)
    ranges: dict[str, tuple[float, float]] = {}
    for name in ("pearson", "spearman", "kendall"):
        per_run = correlation_rows(runs, selection.human, name)
        ranges[name] = (float(np.min(per_run)), float(np.max(per_run)))
    return scores, Aggregation(
        level, comps.items, settings.ties, rated, n_items, tuple(scores.tolist()),
        runs=settings.runs, seed=settings.seed if settings.runs else None,
        pearson_range=ranges["pearson"], spearman_range=ranges["spearman"],
        kendall_range=ranges["kendall"], mu_sd_max=float(runs.std(axis=0).max()))


def correlate_aggregated(selection: Selection, metrics: Sequence[Metric],
                         betas: Sequence[float] | None, level: str,
                         settings: AggregateSettings) -> list[MetaResult]:
    """One :class:`~.results.MetaResult` per (metric, beta) at an aggregation level."""
    comps = comparisons(selection, settings.items)
    out = []
    for metric in metrics:
        for beta in metric.resolve_betas(betas):
            scores, agg = aggregate(metric, selection, beta, level, settings, comps)
            corr = correlate(scores, selection.human)
            out.append(MetaResult(
                selection.benchmark.name, selection.human_kind, selection.system_set,
                selection.benchmark.corpus_label, metric.display_name, metric.spec, beta,
                level, corr.n, corr.pearson, corr.spearman, corr.kendall, aggregation=agg))
    return out


def check_sentence_scores(metrics: Sequence[Metric], levels: Sequence[str]) -> None:
    """``--scores`` with system scores only cannot be aggregated: say so before the work."""
    asked = [level for level in levels if level in AGGREGATION_LEVELS]
    if not asked:
        return
    for metric in metrics:
        if isinstance(metric, ScoresMetric) and not metric.sentence_level:
            raise ConfigError(f"--level {asked[0]} compares sentence scores, but --scores "
                              f"{metric.display_name} ({metric.table.source}) has system "
                              "scores only; give one score per sentence, or drop --level "
                              f"{asked[0]}")
