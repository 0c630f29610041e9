"""Pooled leaderboard: one metric's results on every benchmark, its mean rank and a
weighted average, like the pooled rankings of the WMT metrics shared tasks.

Why: a metric that wins on CoNLL-2014's rankings may lose on GMEG's ratings;
a reader wants one table that shows every benchmark side by side and two
summary numbers, with the human score kinds kept apart (a ranking is not a
rating) rather than averaged away.

Input: the rows of one meta-evaluation. A *column* is one (benchmark, human
score kind, level, measure): ``pearson`` of a correlation row (system level,
or sentence level on a ratings benchmark), ``accuracy`` of a
``--sentence-level`` row. Each column is labelled with what its human scores
are (:data:`KIND_TYPES`: ``ranking`` or ``rating``). An *entry* is one
(metric spec, beta).

* ``rank``: within a column, entries sorted by value, highest first, rank 1 =
  best; tied values share the mean of their ranks (fractional ranking); an
  entry without a value (null: undefined correlation) has no rank there.
* ``mean_rank``: the mean of the entry's ranks over the columns where it has one.
* ``weighted``: ``sum_c w_c v_c / sum_c w_c`` over every column c, where
  ``w_c = W_b / n_b``: ``W_b`` is the weight of the column's benchmark
  (``--pool-weights BENCH=W,...``; default 1 for each benchmark) and ``n_b``
  the number of columns of that benchmark, so each benchmark weighs ``W_b``
  however many human kinds or levels it contributes. If the entry lacks a
  value in some column with positive weight, ``weighted`` is null (a note says
  which), never a silent average over fewer columns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from gecmetrics.errors import ConfigError
from gecmetrics.formatting import fixed, render
from gecmetrics.validate import check_plot_file

from ..analysis import Analysis, Context
from ..flags import option
from ..rows import num as _num

if TYPE_CHECKING:
    from ..result_rows import MetaResult, SentenceAgreement
    from ..run_options import RunOptions

# What each human score kind measures: the columns keep it in their label.
KIND_TYPES: dict[str, str] = {
    "rating": "rating", "grammaticality": "rating", "fluency": "rating", "meaning": "rating",
}


def kind_type(human: str) -> str:
    """``rating`` for scores given to outputs one by one, else ``ranking`` (relative
    judgments turned into Expected Wins / TrueSkill, or SEEDA/GJG15 rankings)."""
    return KIND_TYPES.get(human, "ranking")


@dataclass(frozen=True)
class PoolColumn:
    """One column of the leaderboard."""

    benchmark: str
    human: str
    level: str
    measure: str  # pearson | accuracy

    @property
    def label(self) -> str:
        return f"{self.benchmark}:{self.human}({kind_type(self.human)}):{self.level}:{self.measure}"


@dataclass(frozen=True)
class PoolRow:
    """One entry (metric spec, beta) of the pooled leaderboard."""

    metric: str
    spec: str
    beta: float | None
    columns: tuple[PoolColumn, ...]
    values: tuple[float | None, ...]  # one per column, null where undefined
    ranks: tuple[float | None, ...]
    weights: tuple[float, ...]  # w_c of each column (sum over a benchmark = its weight)
    mean_rank: float | None
    weighted: float | None
    signature: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis": "pool", "metric": self.metric, "spec": self.spec, "beta": self.beta,
            "mean_rank": _num(self.mean_rank), "weighted": _num(self.weighted),
            "n_columns": len(self.columns),
            "columns": {c.label: _num(v) for c, v in zip(self.columns, self.values,
                                                         strict=True)},
            "ranks": {c.label: r for c, r in zip(self.columns, self.ranks, strict=True)},
            "weights": {c.label: w for c, w in zip(self.columns, self.weights, strict=True)},
        }
        if self.signature:
            out["signature"] = self.signature
        return out

    def frame_records(self, rec: dict[str, Any]) -> list[dict[str, Any]]:
        """One frame row per column of the leaderboard (``rec``: this row's JSON as the
        frame holds it): its benchmark, human, level, ``measure``, ``value``, ``rank``
        and ``weight``, with the entry's ``mean_rank`` and ``weighted``."""
        out = []
        for label, value in rec["columns"].items():
            benchmark, human, level, measure = label.split(":")
            one = {k: v for k, v in rec.items() if k not in ("columns", "ranks", "weights")}
            one.update(benchmark=benchmark, human=human.partition("(")[0], level=level,
                       measure=measure, value=value, rank=rec["ranks"][label],
                       weight=rec["weights"][label])
            out.append(one)
        return out


@dataclass(frozen=True)
class PoolSettings:
    pool: bool = option(
        False, "--pool", kind="flag",
        help="Pooled leaderboard: each metric's r (accuracy with --sentence-level) on "
             "every benchmark and human kind, its mean rank and a weighted average "
             "(docs/meta-eval.md).")
    pool_weights: str | None = option(  # "BENCH=W,..."; default 1 per benchmark
        None, "--pool-weights", metavar="BENCH=W,...",
        requires=("--pool", lambda s: s.pool),
        help="--pool: weight of each benchmark (split equally among its columns). "
             "[default: 1 each]")
    pool_plot: str | None = option(
        None, "--pool-plot", kind="file", metavar="FILE",
        requires=("--pool", lambda s: s.pool),
        help="--pool: plot the leaderboard (.png, .svg or .pdf).")


def check(settings: PoolSettings, options: RunOptions) -> None:
    if settings.pool and options.grid is not None:
        raise ConfigError("--pool ranks metrics at the given betas; it cannot be combined "
                          "with --sweep-beta/--plot")
    if settings.pool:
        parse_weights(settings.pool_weights, options.benchmarks)
    if settings.pool_plot is not None:
        check_plot_file(settings.pool_plot, "--pool-plot")


def run(context: Context, settings: PoolSettings) -> list[PoolRow]:
    """The leaderboard of the run's correlation (or sentence-level) rows."""
    weights = parse_weights(settings.pool_weights, context.options.benchmarks)
    return pool(context.rows, weights, context.notes)


def title(settings: PoolSettings, rows: Sequence[PoolRow], options: RunOptions) -> str:
    weights = ", ".join(f"{c.label}={w:.3g}" for c, w in zip(
        rows[0].columns, rows[0].weights, strict=True))
    return (f"Pooled leaderboard (values in %; rank 1 = best, ties share the mean rank; "
            f"weighted = sum w*v / sum w with w: {weights})")


def parse_weights(text: str | None, benchmarks: Sequence[str]) -> dict[str, float]:
    """``BENCH=W,...`` -> weight per benchmark (unnamed benchmarks keep weight 1)."""
    weights = {name: 1.0 for name in benchmarks}
    if text is None:
        return weights
    seen: set[str] = set()
    for part in text.split(","):
        name, eq, value = part.strip().partition("=")
        name = name.strip()
        if not eq or not name:
            raise ConfigError(f"--pool-weights: {part.strip()!r} is not BENCH=W; write e.g. "
                              "--pool-weights conll14=2,gmeg-fce=0.5")
        if name not in weights:
            raise ConfigError(f"--pool-weights: {name!r} is not a benchmark of this run "
                              f"(chosen: {', '.join(benchmarks)})")
        if name in seen:
            raise ConfigError(f"--pool-weights: {name} is given twice; give it once")
        seen.add(name)
        try:
            weight = float(value)
        except ValueError:
            weight = math.nan
        if not math.isfinite(weight) or weight < 0:
            raise ConfigError(f"--pool-weights: weight of {name} must be a number >= 0 "
                              f"(got {value.strip()!r})")
        weights[name] = weight
    if not any(weights.values()):
        raise ConfigError("--pool-weights: every weight is 0; give at least one benchmark a "
                          "positive weight")
    return weights


def fractional_ranks(values: Sequence[float | None]) -> list[float | None]:
    """Rank 1 = highest; ties share the mean of their ranks; None/NaN get no rank."""
    ranks: list[float | None] = [None] * len(values)
    start = 0
    ordered = sorted(((v, i) for i, v in enumerate(values)
                      if v is not None and not math.isnan(v)), key=lambda p: -p[0])
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and ordered[end + 1][0] == ordered[start][0]:
            end += 1
        for _, i in ordered[start:end + 1]:
            ranks[i] = (start + end) / 2 + 1
        start = end + 1
    return ranks


Source = Union["MetaResult", "SentenceAgreement"]


def _column(row: Source) -> tuple[PoolColumn, float | None]:
    if hasattr(row, "accuracy"):  # a sentence-level agreement row: its measure is accuracy
        return PoolColumn(row.benchmark, row.human, "sentence", "accuracy"), _num(row.accuracy)
    return PoolColumn(row.benchmark, row.human, row.level, "pearson"), _num(row.pearson)


def pool(rows: Sequence[Source], weights: Mapping[str, float] | None = None,
         notes: list[str] | None = None) -> list[PoolRow]:
    """The pooled leaderboard of ``rows``, best weighted average first."""
    columns: list[PoolColumn] = []
    entries: dict[tuple[str, str, float | None], str] = {}
    value: dict[tuple[tuple[str, str, float | None], PoolColumn], float | None] = {}
    signatures: dict[tuple[str, str, float | None], list[str]] = {}
    for row in rows:
        column, v = _column(row)
        if column not in columns:
            columns.append(column)
        key = (row.metric, row.spec, row.beta)
        entries.setdefault(key, row.metric)
        value[(key, column)] = v
        signatures.setdefault(key, []).append(row.signature)
    if not columns:
        return []
    weights = dict(weights or {})
    per_bench: dict[str, int] = {}
    for c in columns:
        per_bench[c.benchmark] = per_bench.get(c.benchmark, 0) + 1
    w = tuple(weights.get(c.benchmark, 1.0) / per_bench[c.benchmark] for c in columns)
    keys = list(entries)
    table = [[value.get((k, c)) for c in columns] for k in keys]
    ranks_by_column = [fractional_ranks([table[i][j] for i in range(len(keys))])
                       for j in range(len(columns))]
    out = []
    for i, key in enumerate(keys):
        ranks = tuple(ranks_by_column[j][i] for j in range(len(columns)))
        given = [r for r in ranks if r is not None]
        mean_rank = sum(given) / len(given) if given else None
        lacking = [c.label for c, v, wc in zip(columns, table[i], w, strict=True)
                   if wc > 0 and v is None]
        weighted = None
        if lacking:
            if notes is not None:
                notes.append(f"note: pool: {key[1]} has no value in {lacking[0]}"
                             + (f" (and {len(lacking) - 1} more)" if len(lacking) > 1 else "")
                             + "; its weighted average is null")
        else:
            total = sum(wc for wc in w)
            weighted = sum(wc * float(v) for wc, v in zip(w, table[i], strict=True)
                           if wc > 0 and v is not None) / total
        out.append(PoolRow(key[0], key[1], key[2], tuple(columns), tuple(table[i]), ranks, w,
                           mean_rank, weighted,
                           _signature(signatures[key], columns, weights, per_bench)))
    out.sort(key=lambda r: (r.weighted is None, -(r.weighted or 0.0),
                            math.inf if r.mean_rank is None else r.mean_rank))
    return out


def _signature(row_signatures: Sequence[str], columns: Sequence[PoolColumn],
               weights: Mapping[str, float], per_bench: Mapping[str, int]) -> str:
    """The metric's own signature (before ``|refs:`` of its rows), the pooled columns
    and the benchmark weights; each column's full signature is on its own row."""
    first = next((s for s in row_signatures if s), "")
    if not first:
        return ""
    metric, version = first.split("|refs:")[0], first.rpartition("|")[2]
    return (f"{metric}|pool:{';'.join(c.label for c in columns)}|weights:"
            + ",".join(f"{b}={weights.get(b, 1.0):g}" for b in per_bench) + f"|{version}")


def pool_table(rows: Sequence[PoolRow], fmt: str) -> str:
    """Rows: entries; columns: every (benchmark, human, level) value in percent, then the
    mean rank and the weighted average (percent)."""
    if not rows:
        return ""
    columns = rows[0].columns
    headers = ["metric", "spec", "β", *[c.label for c in columns], "mean rank", "weighted"]
    cells = []
    for r in rows:
        cells.append([r.metric, r.spec, "-" if r.beta is None else f"{r.beta:g}",
                      *["-" if v is None else fixed(100 * v, 1) for v in r.values],
                      "-" if r.mean_rank is None else fixed(r.mean_rank, 2),
                      "-" if r.weighted is None else fixed(100 * r.weighted, 1)])
    return render(headers, cells, fmt, ["left"] * 3 + ["right"] * (len(headers) - 3))


def plot_pool(rows: Sequence[PoolRow], path: str) -> str:
    """One panel: per entry, a marker per column (its value) and a bar (weighted average)."""
    from ..plot import check_plot_path, new_figure, save_figure

    path = check_plot_path(path)
    fig = new_figure(max(5.0, 1.2 * len(rows) + 3), 4.0)
    ax = fig.subplots()
    names = [r.spec if r.beta is None else f"{r.spec} β={r.beta:g}" for r in rows]
    x = list(range(len(rows)))
    ax.bar(x, [float("nan") if r.weighted is None else r.weighted for r in rows],
           color="0.85", label="weighted average")
    markers = "osD^v<>ph*"
    for j, column in enumerate(rows[0].columns if rows else ()):
        ys = [math.nan if r.values[j] is None else float(r.values[j] or 0.0) for r in rows]
        ax.plot(x, ys,
                linestyle="none", marker=markers[j % len(markers)], label=column.label)
    ax.set_xticks(x, names, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("correlation / accuracy")
    ax.axhline(0, color="0.5", linewidth=0.6)
    ax.legend(fontsize=7, loc="best")
    ax.set_title("pooled leaderboard (labels: benchmark:human(kind):level:measure)",
                 fontsize=9)
    return save_figure(lambda: fig, path)


POOL = Analysis("pool", PoolSettings, lambda s: s.pool, run, title, pool_table, check=check,
                figure=plot_pool, plot="pool_plot",
    row=PoolRow)
