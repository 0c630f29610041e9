"""Pairwise statistics (``--pairwise``, ``--tie-calibration``, ``--spa``): how often a
metric orders two systems as the humans do.

A column analysis: it adds a :class:`~..pair_stats_rows.PairStats` to every
system-level correlation row (pairwise accuracy, Kocmi et al. 2021; tie-calibrated
accuracy acc_eq and its epsilon, Deutsch et al. 2023; soft pairwise accuracy,
Thompson et al. 2024) and, with ``--sentence-level``, a
:class:`~..pair_stats_rows.SentenceTies` to every sentence-level row (acc_eq over
the human ranking items). The statistics are computed by :mod:`..pair_stats`; SPA
draws the run's shared resamples (those of ``--bootstrap``, ``--clusters`` and
``--human-intervals``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gecmetrics.errors import ConfigError
from gecmetrics.formatting import render

from ..analysis import Analysis, Context
from ..flags import option
from ..pair_stats_rows import PairStats
from ..result_rows import MetaResult, SentenceAgreement

if TYPE_CHECKING:
    from ..result_rows import SentenceAgreement
    from ..run_options import RunOptions

NAME = "pair_stats"


@dataclass(frozen=True)
class PairStatsSettings:
    pairwise: bool = option(
        False, "--pairwise", kind="flag",
        help="Add pairwise_accuracy: the share of system pairs the metric orders as "
             "the humans (a tie agrees only with a tie; Kocmi et al. 2021).")
    tie_calibration: bool = option(
        False, "--tie-calibration", kind="flag",
        help="Add acc_eq and epsilon (Deutsch et al. 2023): metric differences "
             "|d| <= epsilon are ties, epsilon maximises acc_eq. System level, and "
             "with --sentence-level over the human ranking items (recommended over "
             "--ties).")
    spa: bool = option(
        False, "--spa", kind="flag",
        help="Add soft pairwise accuracy (Thompson et al. 2024): mean over system "
             "pairs of 1 - |p_human - p_metric|, p-values from resampling sentences "
             "(metric) and judgments (humans); --bootstrap N resamples (default 1000).")


def columns(context: Context, settings: PairStatsSettings) -> list[Any]:
    """The run's rows with their pairwise statistics (sentence-level rows: their tie
    calibration)."""
    from gecmetrics.meta_eval.pair_scoring import Resampling, add_pair_stats, add_sentence_ties

    from ..ratings import is_rated

    o = context.options
    system_level = [sel for sel in context.selections if not is_rated(sel)]
    if o.mode == "sentence":
        return add_sentence_ties(context.rows, system_level, context.metrics)
    resampling = context.resampling or Resampling(o.stat_resamples, o.seed_value,
                                                  o.human_unit)
    return add_pair_stats(context.rows, system_level, context.metrics, settings.pairwise,
                          settings.tie_calibration, settings.spa, resampling)


def run(context: Context, settings: PairStatsSettings) -> list[Any]:
    return []  # its values are columns of the correlation (or sentence-level) rows


def check(settings: PairStatsSettings, options: RunOptions) -> None:
    s = settings
    aggregated = options.aggregation_levels
    if aggregated:
        asked = [flag for flag, on in (
            ("--pairwise", s.pairwise), ("--tie-calibration", s.tie_calibration),
            ("--spa", s.spa)) if on]
        if asked:  # they read the metric's corpus/mean system scores
            raise ConfigError(f"{asked[0]} works on corpus or mean system scores, not "
                              f"--level {aggregated[0]}; use --level corpus or mean with "
                              f"{asked[0]}, or drop it")
    system_only = [flag for flag, on in (("--pairwise", s.pairwise), ("--spa", s.spa)) if on]
    if system_only and options.sentence_level:
        raise ConfigError(f"{system_only[0]} is a system-level statistic; drop it or drop "
                          "--sentence-level (--tie-calibration works at both levels)")
    if options.grid is not None and (system_only or s.tie_calibration):
        raise ConfigError(f"{(system_only or ['--tie-calibration'])[0]} works at the given "
                          "betas; it cannot be combined with --sweep-beta/--plot")


def title(settings: PairStatsSettings, rows: Sequence[Any], options: RunOptions) -> str:
    if options.mode == "sentence":
        return ("Tie calibration (Deutsch et al. 2023): every pair of outputs in an item, "
                "human ties included; |Δ| <= ε is a metric tie; accuracy under each --ties "
                "policy for comparison")
    spa = (f" (SPA: {options.stat_resamples} resamples, seed {options.seed_value})"
           if settings.spa else "")
    return f"Pairwise statistics over system pairs{spa}"


def _pct(value: float | None) -> str:
    return "-" if value is None or value != value else f"{100 * value:.1f}"


def _beta(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _eps(value: float | None) -> str:
    return "-" if value is None or value != value else f"{value:.4g}"


def table(rows: Sequence[Any], fmt: str) -> str:
    """The statistics of the correlation rows, or the tie calibration of the
    sentence-level rows."""
    if rows and isinstance(rows[0], SentenceAgreement):
        return sentence_ties_table(rows, fmt)
    return pair_table(rows, fmt)


def pair_table(results: Sequence[MetaResult], fmt: str) -> str:
    """Per row: pairwise accuracy, acc_eq and its epsilon, SPA (those computed), in %."""
    rows = [r for r in results if r.pairs is not None]
    show = {"acc": any(r.pairs.pairwise_accuracy is not None for r in rows if r.pairs),
            "eq": any(r.pairs.acc_eq is not None for r in rows if r.pairs),
            "spa": any(r.pairs.spa is not None for r in rows if r.pairs)}
    headers = ["benchmark", "metric", "spec", "β", "level", "pairs"]
    headers += (["pairwise acc %"] if show["acc"] else []) + (
        ["acc_eq %", "ε"] if show["eq"] else []) + (["SPA %"] if show["spa"] else [])
    cells = []
    for r in rows:
        p = r.pairs
        assert p is not None
        row = [r.benchmark, r.metric, r.spec, _beta(r.beta), r.level, str(p.n_pairs)]
        if show["acc"]:
            row.append(_pct(p.pairwise_accuracy))
        if show["eq"]:
            row += [_pct(p.acc_eq), _eps(p.epsilon)]
        if show["spa"]:
            row.append(_pct(p.spa))
        cells.append(row)
    return render(headers, cells, fmt, ["left"] * 5 + ["right"] * (len(headers) - 5))


def sentence_ties_table(rows: Sequence[SentenceAgreement], fmt: str) -> str:
    """Tie-calibrated accuracy of the sentence-level rows, with the accuracy under
    every tie policy for comparison (all in %)."""
    with_tc = [s for s in rows if s.tie_calibration is not None]
    policies = ([name for name, _ in with_tc[0].tie_calibration.accuracy_by_ties]
                if with_tc and with_tc[0].tie_calibration else [])
    headers = ["benchmark", "metric", "spec", "β", "pairs", "human ties", "acc_eq %", "ε",
               *[f"acc ({p}) %" for p in policies]]
    cells = []
    for s in with_tc:
        tc = s.tie_calibration
        assert tc is not None
        cells.append([s.benchmark, s.metric, s.spec, _beta(s.beta), str(tc.n_pairs),
                      str(tc.human_ties), _pct(tc.acc_eq), _eps(tc.epsilon),
                      *[_pct(v) for _, v in tc.accuracy_by_ties]])
    return render(headers, cells, fmt, ["left"] * 4 + ["right"] * (len(headers) - 4))


PAIR_STATS = Analysis(NAME, PairStatsSettings,
                      lambda s: s.pairwise or s.tie_calibration or s.spa, run, title, table,
                      check=check, columns=columns, help_after="subsets_plot",
    row=MetaResult,
    random=("--spa", lambda s: s.spa),
    resamples_humans=("--spa", lambda s: s.spa),
    column=PairStats)
