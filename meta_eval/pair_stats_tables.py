"""Text tables of the pairwise statistics, metric clusters and human intervals.

One table per analysis, rendered like :mod:`.report`'s (table, Markdown, LaTeX,
CSV); values as in the JSON but in percent where they are shares (accuracies,
SPA), correlations as they are; nothing is computed here.
"""

from __future__ import annotations

from collections.abc import Sequence

from gecmetrics.formatting import fixed, render

from .pair_stats_rows import ClusterRow, HumanIntervalRow
from .results import MetaResult, SentenceAgreement

DIGITS = 3


def _pct(value: float | None) -> str:
    return "-" if value is None or value != value else f"{100 * value:.1f}"


def _b(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _eps(value: float | None) -> str:
    return "-" if value is None or value != value else f"{value:.4g}"


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
        row = [r.benchmark, r.metric, r.spec, _b(r.beta), r.level, str(p.n_pairs)]
        if show["acc"]:
            row.append(_pct(p.pairwise_accuracy))
        if show["eq"]:
            row += [_pct(p.acc_eq), _eps(p.epsilon)]
        if show["spa"]:
            row.append(_pct(p.spa))
        cells.append(row)
    return render(headers, cells, fmt, ["left"] * 5 + ["right"] * (len(headers) - 5))


def cluster_table(rows: Sequence[ClusterRow], fmt: str) -> str:
    """The significance ranking: one row per metric, best first, with its cluster."""
    headers = ["benchmark", "level", "rank", "cluster", "metric", "spec", "β", "stat",
               "value", "95% CI", "p vs top"]
    cells = []
    for c in rows:
        share = c.stat in ("pairwise", "spa")
        value = _pct(c.value) if share else fixed(c.value, DIGITS)
        low, high = c.value_ci
        ci = (f"[{_pct(low)}, {_pct(high)}]" if share
              else f"[{fixed(low, DIGITS)}, {fixed(high, DIGITS)}]")
        cells.append([c.benchmark, c.level, str(c.rank), str(c.cluster), c.metric, c.spec,
                      _b(c.beta), c.stat + (" %" if share else ""), value, ci,
                      "-" if c.p_vs_top is None else f"{c.p_vs_top:.3f}"])
    return render(headers, cells, fmt, ["left", "left", "right", "right", "left", "left",
                                        "left", "left", "right", "right", "right"])


def human_table(rows: Sequence[HumanIntervalRow], fmt: str) -> str:
    """Every system's human score, 95% interval, rank, rank range and cluster."""
    headers = ["benchmark", "cluster", "rank", "range", "system", "score", "95% CI"]
    cells = []
    for h in rows:
        low, high = h.rank_range
        span = str(low) if low == high else f"{low}-{high}"
        cells.append([h.benchmark, str(h.cluster), str(h.rank), span, h.system,
                      fixed(h.score, DIGITS),
                      f"[{fixed(h.score_ci[0], DIGITS)}, {fixed(h.score_ci[1], DIGITS)}]"])
    return render(headers, cells, fmt, ["left", "right", "right", "right", "left", "right",
                                        "right"])


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
        cells.append([s.benchmark, s.metric, s.spec, _b(s.beta), str(tc.n_pairs),
                      str(tc.human_ties), _pct(tc.acc_eq), _eps(tc.epsilon),
                      *[_pct(v) for _, v in tc.accuracy_by_ties]])
    return render(headers, cells, fmt, ["left"] * 4 + ["right"] * (len(headers) - 4))
