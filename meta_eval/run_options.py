"""What the analyses read of a run's options: a Protocol below :mod:`.options`.

:class:`~.options.MetaEvalOptions` knows the registry of analyses (it offers
their flags, builds their settings and runs their checks), so it sits above
them; the analyses, :mod:`.analysis`, :mod:`.aggregate` and :mod:`.ratings`
read a few of its values while they run or check. They name this Protocol
instead of the class, so nothing below the options imports them (not even for
type checking: the package has no import circle). ``MetaEvalOptions`` matches it
structurally (its frozen fields and properties are read-only here); a new
analysis that needs another value of the options adds it below, as a property.

This module imports nothing at run time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from gecmetrics.metric import Metric


class RunOptions(Protocol):
    """The values of :class:`~.options.MetaEvalOptions` that the layers below it read
    (each documented there)."""

    @property
    def benchmarks(self) -> tuple[str, ...]: ...

    @property
    def betas(self) -> tuple[float, ...]: ...

    @property
    def levels(self) -> tuple[str, ...]: ...

    @property
    def grid(self) -> str | None: ...

    @property
    def sentence_level(self) -> bool: ...

    @property
    def ties(self) -> str: ...

    @property
    def aggregate_items(self) -> str: ...

    @property
    def trueskill_runs(self) -> int: ...

    @property
    def human_unit(self) -> str: ...

    @property
    def data_dir(self) -> str | None: ...

    @property
    def settings(self) -> Mapping[str, Any]: ...

    @property
    def explicit(self) -> frozenset[str]: ...

    @property
    def metric_objects(self) -> tuple[Metric, ...]: ...

    @property
    def aggregation_levels(self) -> list[str]: ...

    @property
    def seed_value(self) -> int: ...

    @property
    def compare_resamples(self) -> int: ...

    @property
    def stat_resamples(self) -> int: ...

    @property
    def mode(self) -> str: ...
