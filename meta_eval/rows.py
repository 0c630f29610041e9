"""What every meta-evaluation row shares: which correlation it is about, and how
its numbers reach JSON.

A row of ``gecmetrics meta-eval`` (a correlation, a window, a cluster rank, a
subset summary ...) is always about one metric configuration on one benchmark's
system set and human scores. :class:`RowIdentity` holds those eight fields once,
in the order the JSON contract has always printed them (benchmark, human,
systems, corpus, metric, spec, beta, level), so each row type adds only its own
numbers and cannot drift from the others in naming or order. :func:`num` and
:func:`num_list` turn NaN (an undefined correlation) into JSON null.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gecmetrics.formatting import finite_or_none


def num(value: float | None) -> float | None:
    """NaN or infinity -> None, as JSON has neither."""
    return None if value is None else finite_or_none(float(value))


def num_list(values: Sequence[float | None]) -> list[float | None]:
    return [num(v) for v in values]


@dataclass(frozen=True)
class RowIdentity:
    """Benchmark, human scores, system set, corpus, metric (display name and spec),
    beta and level of one row; subclasses append their own fields after these."""

    benchmark: str
    human: str
    systems: str
    corpus: str
    metric: str
    spec: str
    beta: float | None
    level: str

    def identity_json(self) -> dict[str, Any]:
        """The eight fields as JSON keys, in the contract's order."""
        return {"benchmark": self.benchmark, "human": self.human, "systems": self.systems,
                "corpus": self.corpus, "metric": self.metric, "spec": self.spec,
                "beta": self.beta, "level": self.level}
