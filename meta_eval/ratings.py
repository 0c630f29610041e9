"""Sentence-level meta-evaluation on rated outputs (TMU-GFM): correlations and pairs.

A ratings benchmark (``benchmark.rated``, e.g.
:mod:`.benchmarks.tmu_gfm`) has a human rating per *output*, not a ranking of
systems, and no references. Its analyses are therefore sentence-level:

* :func:`correlations`: Pearson, Spearman and Kendall (tau-b) between the
  metric's score of each rated output and the mean of the annotators'
  ratings of the chosen aspect, over every rated output (rows ``level:
  sentence``, ``n_systems`` = number of outputs correlated);
* :func:`pairs`: pairwise agreement (:func:`.pairwise.pairwise_agreement`)
  on the pairs of *different* outputs of the same source whose mean ratings
  differ (an output shared by several systems counts once).

Only given scores (``--scores``) can run (no references). Besides the usual
The scores are one per rated output: the corpus of a ratings benchmark is
one pseudo-system ``rows`` whose sentences are the rated outputs, so a
``--scores`` file is ``{"rows": [score per CSV data row]}`` (or a folder with
a file ``rows``, one score a line), in the order of the CSV.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.metric import Metric
from gecmetrics.stats.correlation import correlate

from .benchmarks.base import RatedOutputs
from .human import RankingItem
from .result_rows import MetaResult, SentenceAgreement
from .score_files import ScoresMetric
from .selection import Selection, row_signature
from .sentence_agreement import TIE_POLICIES, pairwise_agreement

if TYPE_CHECKING:
    from .run_options import RunOptions


def is_rated(selection: Selection) -> bool:
    return selection.benchmark.rated is not None


def _rated(selection: Selection) -> RatedOutputs:
    rated = selection.benchmark.rated
    if rated is None:  # pragma: no cover - callers check is_rated first
        raise ConfigError(f"benchmark {selection.benchmark.name} has no ratings per output")
    return rated


def check_metrics(selection: Selection, metrics: Sequence[Metric]) -> None:
    """Before any scoring: only given scores, and they fit the benchmark (one line if not)."""
    bench = selection.benchmark
    rated = _rated(selection)
    rows_name = rated.hypotheses
    for metric in metrics:
        if metric.reference_free and not isinstance(metric, ScoresMetric):
            continue  # reads sources and outputs only: scored on the rated rows
        if not isinstance(metric, ScoresMetric):
            raise ConfigError(
                f"benchmark {bench.name} has no references, so {metric.display_name} (a "
                "reference-based metric) cannot run on it; meta-evaluate a reference-free "
                f"metric's scores with --scores NAME=PATH (one score per CSV row as "
                f'{{"{rows_name}": [...]}}; see docs/benchmarks.md)')
        if not metric.sentence_level:
            raise ConfigError(f"--scores {metric.display_name} ({metric.table.source}) has "
                              f"system scores only; {bench.name} is sentence-level: give "
                              f'one score per CSV row ({{"{rows_name}": [...]}})')
        n_rows = len(rated.rows)
        if set(metric.table.values) != {rows_name}:
            raise InputError(f"{metric.table.source}: {bench.name} takes one score per rated "
                             f'output (CSV data row) as {{"{rows_name}": [...]}} or a folder '
                             f"with a file {rows_name}; got scores of "
                             f"{', '.join(metric.table.values)}")
        given = len(metric.table.values[rows_name])  # type: ignore[arg-type]
        if given != n_rows:
            raise InputError(f"{metric.table.where[rows_name]}: {given} row scores but "
                             f"{bench.name} has {n_rows} rated outputs (CSV data rows); "
                             "give one score per row, in CSV order")


def row_scores(metric: Metric, selection: Selection, beta: float | None = None) -> np.ndarray:
    """The metric's score of every rated output, in CSV row order (higher = better)."""
    stats = metric.statistics(selection.benchmark.corpus)  # sign of order=lower applied
    position = list(stats.systems).index(_rated(selection).hypotheses)
    return np.asarray(stats.sentence(beta), dtype=float)[position]


def human_rows(selection: Selection) -> np.ndarray:
    """The mean rating of the selection's aspect for every rated output (NaN: unrated)."""
    return np.array([r.ratings[selection.human_kind]
                     for r in _rated(selection).rows])


def correlations(selection: Selection, metrics: Sequence[Metric],
                 betas: Sequence[float] | None = None) -> list[MetaResult]:
    """Sentence-level correlations over the rated outputs (unrated ones left out)."""
    human = human_rows(selection)
    rated = ~np.isnan(human)
    out = []
    for metric in metrics:
        for beta in metric.resolve_betas(betas):
            corr = correlate(row_scores(metric, selection, beta)[rated], human[rated])
            out.append(MetaResult(
                selection.benchmark.name, selection.human_kind, selection.system_set,
                selection.benchmark.corpus_label, metric.display_name, metric.spec, beta,
                "sentence", corr.n, corr.pearson, corr.spearman, corr.kendall,
                signature=row_signature(metric, selection, "sentence", beta)))
    return out


def items(selection: Selection) -> tuple[list[RankingItem], dict[int, list[int]]]:
    """One ranking item per occurrence of a source: its distinct outputs, each under
    the alphabetically first system that produced it, grouped by equal mean rating
    (best first); and item -> its rows. A source that occurs twice in the test set
    (its rows list a system twice) gives two items."""
    aspect = selection.human_kind
    keep = set(selection.systems)
    occurrences: dict[int, list[list[int]]] = {}
    rows = _rated(selection).rows
    for r in rows:
        systems = set(r.systems) & keep
        if not systems or math.isnan(r.ratings[aspect]):
            continue
        slots = occurrences.setdefault(r.sentence, [])
        for slot in slots:
            if not systems & {s for i in slot for s in rows[i].systems}:
                slot.append(r.row)
                break
        else:
            slots.append([r.row])
    out: list[RankingItem] = []
    members: dict[int, list[int]] = {}
    for sentence in sorted(occurrences):
        for slot in occurrences[sentence]:
            rating = {min(set(rows[i].systems) & keep): rows[i].ratings[aspect] for i in slot}
            values = sorted(set(rating.values()), reverse=True)
            groups = tuple((rank, tuple(s for s in sorted(rating) if rating[s] == v))
                           for rank, v in enumerate(values, start=1))
            if len(groups) > 1:
                members[len(out)] = slot
                out.append(RankingItem(len(out), aspect, groups))
    return out, members


def pairs(selection: Selection, metrics: Sequence[Metric],
          betas: Sequence[float] | None = None, ties: str = "seeda") -> list[SentenceAgreement]:
    """Pairwise agreement on pairs of different outputs of the same source."""
    if ties not in TIE_POLICIES:
        raise ConfigError(f"--ties must be one of {', '.join(TIE_POLICIES)} (got {ties!r})")
    found, members = items(selection)
    rows = _rated(selection).rows
    keep = set(selection.systems)
    out = []
    for metric in metrics:
        for beta in metric.resolve_betas(betas):
            scores = row_scores(metric, selection, beta)
            score: dict[str, dict[int, float]] = {}
            for index, slot in members.items():
                for i in slot:
                    score.setdefault(min(set(rows[i].systems) & keep), {})[index] = scores[i]
            res = pairwise_agreement(found, score, ties=ties)
            out.append(SentenceAgreement(
                selection.benchmark.name, selection.human_kind, selection.system_set,
                selection.benchmark.corpus_label, metric.display_name, metric.spec, beta,
                len(selection.systems), ties, res.accuracy, res.kendall_like, res.n_pairs,
                res.concordant, res.discordant, res.metric_ties, res.n_items,
                row_signature(metric, selection, "sentence", beta, ties=ties,
                              analysis="pairs")))
    return out


def check_options(options: RunOptions, benchmark: str) -> None:
    """The system-level analyses have no meaning on rated outputs: one line, before work."""
    o = options
    asked = [flag for flag, on in (
        ("--sweep-beta/--plot", o.grid is not None),
        ("--bootstrap", o.settings["bootstrap"].bootstrap is not None),
        ("--compare", o.settings["compare"].compare),
        ("--window", o.settings["window"].window is not None),
        ("--cv-beta", o.settings["cv_beta"].cv_folds is not None),
        ("--level", "levels" in o.explicit),
        ("--pairwise", o.settings["pair_stats"].pairwise),
        ("--tie-calibration", o.settings["pair_stats"].tie_calibration),
        ("--spa", o.settings["pair_stats"].spa),
        ("--clusters", o.settings["clusters"].clusters is not None),
        ("--human-intervals", o.settings["human_intervals"].human_intervals),
        ("--subsets", o.settings["subsets"].subsets is not None)) if on]
    if asked:
        raise ConfigError(f"{asked[0]} does not apply to {benchmark} (sentence-level ratings: "
                          "correlations over rated outputs, or --sentence-level for pairs); "
                          f"drop {asked[0]} or run {benchmark} separately")
