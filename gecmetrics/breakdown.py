"""Breakdowns of an edit metric's corpus score: per annotator, per error type.

``gecmetrics score --breakdown KIND`` (and :func:`breakdowns` in Python)
split the TP, FP and FN of M2 and ERRANT:

* ``annotator``: the system against each annotator alone, summed over the
  sentences that annotator annotated (no annotator choice): the scores the
  official scorers give on an M2 file holding only that annotator's edits.
* ``cat3``: per error type, as ``errant_compare -cat 3`` (for ERRANT: a TP
  and an FN typed by the reference edit, an FP by the hypothesis edit, on the
  annotators the corpus score chose). For M2, per type of the M2 file (the
  CoNLL-2014 file's NUCLE types ``ArtOrDet``, ``Nn`` ...): TP and FN by gold
  type; the official scorer's hypothesis edits have no type, so FP, precision
  and F of a type are null and the FP are one untyped total
  (docs/metrics/m2.md).
* ``cat1`` / ``cat2``: ERRANT's operation tier (``M``, ``R``, ``U``) and main
  tier (``NOUN``, ``VERB:SVA`` ...), summed from ``cat3`` as
  ``errant_compare -cat 1`` / ``-cat 2`` do (``UNK`` kept as it is); only for
  ERRANT-style types.

Counts are integers; P, R and F are 0-1 (percent in tables), computed by
:func:`gecmetrics.fscore.prf` (P = 1 with no FP, R = 1 with no FN).

What differs between metrics (their types, where the types come from, how
they count a sentence without an annotator's edits) is asked of the metric
(:class:`~gecmetrics.edits.metric.EditMetric`), never decided from its class.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .corpus import Corpus
from .edits.metric import EditMetric, TypeCounts
from .edits.statistics import EditStatistics
from .errors import ConfigError
from .formatting import percent, render
from .fscore import prf
from .metric import Metric

KINDS = ("annotator", "cat1", "cat2", "cat3")

#: An ERRANT type: operation tier M/R/U, a colon, the main tier (or UNK).
ERRANT_TYPE = re.compile(r"^[MRU]:\S+$|^UNK$")


@dataclass(frozen=True)
class BreakdownRow:
    """One group (an annotator id or an error type) of a breakdown."""

    group: str
    tp: int
    fp: int | None  # None: not split by this group (M2 per type)
    fn: int
    precision: float | None
    recall: float
    f: float | None

    def to_json(self) -> dict[str, Any]:
        return {"group": self.group, "TP": self.tp, "FP": self.fp, "FN": self.fn,
                "precision": self.precision, "recall": self.recall, "f": self.f}


@dataclass(frozen=True)
class Breakdown:
    """The breakdown of one (metric, system, beta) corpus score.

    ``total`` is the corpus score's own (TP, FP, FN, P, R, F) row;
    ``untyped_fp`` the FP not split by type (M2 per type), else None.
    """

    metric: str
    spec: str
    hypothesis: str
    beta: float
    kind: str
    rows: tuple[BreakdownRow, ...]
    total: BreakdownRow
    untyped_fp: int | None = None
    signature: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "rows": [r.to_json() for r in self.rows],
                "total": self.total.to_json(), "untyped_FP": self.untyped_fp,
                "signature": self.signature}


def _row(group: str, tp: int, fp: int | None, fn: int, beta: float) -> BreakdownRow:
    if fp is None:
        r = prf(tp, 0, fn, beta)[1]
        return BreakdownRow(group, tp, None, fn, None, r, None)
    p, r, f = prf(tp, fp, fn, beta)
    return BreakdownRow(group, tp, fp, fn, p, r, f)


def category(typ: str, kind: str) -> str:
    """``errant_compare``'s ``processCategories``: the operation (cat1) or the
    main tier (cat2) of a type; ``UNK`` stays ``UNK``."""
    if typ == "UNK" or kind == "cat3":
        return typ
    return typ[0] if kind == "cat1" else typ[2:]


def check(metrics: Sequence[Metric], kind: str, corpus: Corpus | None = None) -> None:
    """Raise :class:`ConfigError` before any scoring when ``kind`` cannot be
    computed: not a kind, no edit metric, or ``cat1``/``cat2`` with an M2
    file whose types are not ERRANT's (checked when ``corpus`` is given)."""
    if kind not in KINDS:
        raise ConfigError(f"--breakdown must be one of {', '.join(KINDS)} (got {kind!r})")
    edit = [m for m in metrics if isinstance(m, EditMetric)]
    if not edit:
        raise ConfigError("--breakdown splits the counts of edit metrics (m2, errant); add "
                          "-m m2 or -m errant, or drop --breakdown")
    from_file = [m for m in edit if m.types_from_m2_file]
    if kind in ("cat1", "cat2") and corpus is not None and corpus.m2 is not None and from_file:
        for d, sent in enumerate(corpus.m2.sentences):
            for e in sent.edits:
                if e.type != "noop" and not ERRANT_TYPE.match(e.type):
                    raise ConfigError(
                        f"--breakdown {kind} groups ERRANT types (M:, R:, U:), but "
                        f"{corpus.m2.path} sentence {d + 1} has type {e.type!r} for "
                        f"{from_file[0].name}; use --breakdown cat3 for the M2 file's own "
                        "types")


def breakdowns(metric: Metric, corpus: Corpus, kind: str, beta: float | None = None,
               signatures: dict[str, str] | None = None) -> list[Breakdown]:
    """One :class:`Breakdown` per system of ``corpus`` for an edit metric.

    ``signatures`` maps a system name to its score's signature (the CLI's),
    stored on each breakdown.
    """
    check([metric], kind)
    assert isinstance(metric, EditMetric)
    stats = metric.statistics(corpus)
    assert isinstance(stats, EditStatistics)
    beta = stats.resolve_beta(beta)
    counts = stats.counts
    totals = stats.totals(beta).tolist()
    typed: list[TypeCounts] | None = None
    if kind != "annotator":
        typed = metric.type_counts(corpus, stats, beta)
        if typed is None:
            raise ConfigError(f"metric {metric.name!r} has no error types; use "
                              "--breakdown annotator")
    absent: list[int] = []
    absent_fp = None
    if kind == "annotator":
        # A sentence without an annotator's A lines: that annotator made no
        # edit there, so every hypothesis edit is an FP against them (as the
        # official scorers count on a file of that annotator's edits alone).
        absent = np.flatnonzero(~counts.present.all(axis=1)).tolist()
        if absent:
            absent_fp = metric.fp_without_gold(corpus, absent)
            if absent_fp is None:
                raise ConfigError(f"--breakdown annotator: metric {metric.name!r} does not "
                                  "say how to count a sentence without an annotator's edits")
    out = []
    for h, name in enumerate(counts.systems):
        t, f_, n = totals[h]
        total = _row("all", t, f_, n, beta)
        if typed is None:
            rows = []
            for k, a in enumerate(counts.annotators):
                mask = counts.present[:, k]
                a_fp = int(counts.fp[h, mask, k].sum())
                if absent_fp is not None:
                    cols = [absent.index(int(d)) for d in np.flatnonzero(~mask)]
                    a_fp += int(absent_fp[h, cols].sum())
                rows.append(_row(str(a), int(counts.tp[h, mask, k].sum()), a_fp,
                                 int(counts.fn[h, mask, k].sum()), beta))
        else:
            groups: dict[str, list[Any]] = {}
            for typ, (tp, fp, fn) in typed[h].per_type.items():
                acc = groups.setdefault(category(typ, kind), [0, 0 if fp is not None else None, 0])
                acc[0] += tp
                acc[2] += fn
                if fp is not None:
                    acc[1] += fp
            rows = [_row(g, v[0], v[1], v[2], beta) for g, v in sorted(groups.items())]
        sig = (signatures or {}).get(name, "")
        untyped = typed[h].untyped_fp if typed is not None else None
        out.append(Breakdown(metric.display_name, metric.spec, name, beta, kind, tuple(rows),
                             total, untyped, sig))
    return out


def to_frame(items: Sequence[Breakdown]) -> Any:
    """A long pandas DataFrame: one row per (metric, system, group), with the
    columns metric, spec, hypothesis, beta, kind, group, TP, FP, FN,
    precision, recall, f, signature (the total as group ``all``)."""
    import pandas as pd

    records = []
    for b in items:
        for row in (*b.rows, b.total):
            records.append({"metric": b.metric, "spec": b.spec, "hypothesis": b.hypothesis,
                            "beta": b.beta, "kind": b.kind, **row.to_json(),
                            "signature": b.signature})
    return pd.DataFrame.from_records(records)


def format_breakdown(b: Breakdown, fmt: str, digits: int, title: str) -> str:
    """One table: a row per group, then the total; counts as integers, P/R/F in percent."""
    def cell(v: float | None) -> str:
        return "-" if v is None else percent(v, digits)

    head = "annotator" if b.kind == "annotator" else "type"
    rows = [[r.group, str(r.tp), "-" if r.fp is None else str(r.fp), str(r.fn),
             cell(r.precision), cell(r.recall), cell(r.f)] for r in (*b.rows, b.total)]
    if b.untyped_fp is not None:
        title += f"  (FP not typed: {b.untyped_fp})"
    return title + "\n" + render([head, "TP", "FP", "FN", "P", "R", "F"], rows, fmt,
                                 ["left"] + ["right"] * 6)
