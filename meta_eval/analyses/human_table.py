"""Human table (``--human-table``): the benchmark's mean human ratings per system and part.

A benchmark whose outputs were rated on several criteria and split into parts
(sv-gec: grammaticality, fluency, meaning preservation and NLD per CEFR level, the
paper's Table 4) offers that table through its ``human_table`` facet; this section
prints it beside the correlations, so that the human side of a correlation can be
read (and compared with the paper) in the same run. Nothing is resampled; the
ratings are printed as they are (1-4, not scaled to 0-1 in JSON: they are not
scores of a metric). A benchmark without the facet is refused when it is loaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gecmetrics.errors import ConfigError
from gecmetrics.formatting import fixed, render

from ..analysis import Analysis, Context, refuse_sweep
from ..flags import option
from ..rows import num

if TYPE_CHECKING:
    from ..run_options import RunOptions
    from ..selection import Selection

NAME = "human_table"
RATING_DIGITS = 2  # a mean rating on a 1-4 scale
OTHER_DIGITS = 3  # a measure that is not a rating (sv-gec's NLD, a distance 0-1)


@dataclass(frozen=True)
class HumanTableSettings:
    human_table: bool = option(
        False, "--human-table", kind="flag",
        help="Print the benchmark's mean human ratings per system and part of the data "
             "(sv-gec: the paper's Table 4, per CEFR level).")


@dataclass(frozen=True)
class HumanTableRow:
    """One cell: the mean ``criterion`` rating of ``system`` (the paper's ``label``)
    on ``level``, over ``n`` rated outputs (``other`` rated off the scale, left out),
    and the number of each rating, highest first."""

    benchmark: str
    criterion: str
    system: str
    label: str
    level: str
    mean: float
    n: int
    other: int
    counts: tuple[int, ...]
    signature: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis": NAME, "benchmark": self.benchmark, "criterion": self.criterion,
            "system": self.system, "label": self.label, "level": self.level,
            "mean": num(self.mean), "n": self.n, "other": self.other,
            "counts": list(self.counts)}
        if self.signature:
            out["signature"] = self.signature
        return out


def on_load(settings: HumanTableSettings, selection: Selection) -> None:
    bench = selection.benchmark
    if settings.human_table and bench.human_table is None:
        raise ConfigError(f"--human-table: benchmark {bench.name} has no table of human "
                          "ratings per part (sv-gec has); drop --human-table")


def run(context: Context, settings: HumanTableSettings) -> list[HumanTableRow]:
    """Every cell of each selected benchmark's table, in the benchmark's order."""
    from gecmetrics.signature import Signature

    out = []
    for sel in context.selections:
        bench = sel.benchmark
        if bench.human_table is None:
            continue
        signature = str(Signature("human_table").extend(
            benchmark=bench.name, systems=sel.system_set, corpus=bench.corpus_label))
        keep = set(sel.systems)
        out += [HumanTableRow(bench.name, c.criterion, c.system, c.label, c.level,
                              c.mean, c.n, c.other, c.counts, signature)
                for c in bench.human_table() if c.system in keep]
    return out


def check(settings: HumanTableSettings, options: RunOptions) -> None:
    if settings.human_table:
        refuse_sweep("--human-table", options)


def title(settings: HumanTableSettings, rows: Sequence[HumanTableRow],
          options: RunOptions) -> str:
    return ("Human ratings: mean per system and part (ratings 1-4, \"other\" left out; "
            "sv-gec: the paper's Table 4)")


def table(rows: Sequence[HumanTableRow], fmt: str) -> str:
    """One line per benchmark, criterion and system; one column per part."""
    levels = list(dict.fromkeys(r.level for r in rows))
    lines: dict[tuple[str, str, str], dict[str, HumanTableRow]] = {}
    for r in rows:
        lines.setdefault((r.benchmark, r.criterion, r.label), {})[r.level] = r
    cells = []
    for (bench, criterion, label), by_level in lines.items():
        digits = RATING_DIGITS if any(r.counts for r in by_level.values()) else OTHER_DIGITS
        cells.append([bench, criterion, label,
                      *[fixed(by_level[lv].mean, digits) if lv in by_level else ""
                        for lv in levels]])
    return render(["benchmark", "criterion", "system", *levels], cells, fmt,
                  ["left", "left", "left", *["right"] * len(levels)])


HUMAN_TABLE = Analysis(NAME, HumanTableSettings, lambda s: s.human_table, run, title, table,
                       check=check, help_after="human_plot", on_load=on_load,
    row=HumanTableRow)
