"""A toy analysis (``--toy``): a random number per correlation row, as a column (its
section reads those rows); it draws at random, so ``--seed`` applies to it."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gecmetrics.meta_eval.analysis import Analysis, Context
from gecmetrics.meta_eval.flags import option
from gecmetrics.meta_eval.result_rows import MetaResult

NAME = "toy"


@dataclass(frozen=True)
class ToySettings:
    toy: bool = option(False, "--toy", kind="flag", help="A toy analysis.")


@dataclass(frozen=True)
class ToyColumn:
    lucky: float

    def to_json(self) -> dict[str, Any]:
        return {"lucky": self.lucky}


def columns(context: Context, settings: ToySettings) -> list[MetaResult]:
    draw = random.Random(context.options.seed_value)
    return [r.with_column(ToyColumn(draw.random())) for r in context.rows]


def run(context: Context, settings: ToySettings) -> list[MetaResult]:
    return []  # a column analysis: its section reads the correlation rows


def table(rows: Sequence[MetaResult], fmt: str) -> str:
    return "\n".join(f"{r.spec} {column.lucky:.3f}" for r in rows
                     if (column := r.column(ToyColumn)) is not None)


TOY = Analysis(NAME, ToySettings, lambda s: s.toy, run, lambda s, rows, o: "Toy", table,
               row=MetaResult, random=("--toy", lambda s: s.toy), column=ToyColumn,
               columns=columns)
