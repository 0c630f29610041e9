"""Run a model over many items: cache first, the model on the misses only, in batches.

:func:`run_batched` is the loop every model-based metric shares. Items whose
key is in the :class:`~gecmetrics.neural.cache.OutputCache` are never sent to
the model; duplicate keys (the same sentence output by several systems, very
common in GEC) are computed once; the rest go to ``fn`` in batches of
``batch_size``, in their given order; new results are written to the cache
after each batch (an interrupted run keeps what it computed). A progress bar
is drawn on stderr when it is a terminal (:func:`gecmetrics.progress.bar`).

:data:`TOTALS` counts, process-wide, items found in caches and items sent to
a model: the bench and the tests read it to prove that a rerun does no
inference (``TOTALS.computed`` unchanged).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..formatting import plural
from ..progress import bar
from .cache import OutputCache

T = TypeVar("T")


@dataclass
class Totals:
    """Process-wide counts of :func:`run_batched` (items, not batches)."""

    cached: int = 0
    computed: int = 0
    batches: int = 0

    def reset(self) -> None:
        self.cached = self.computed = self.batches = 0


TOTALS = Totals()


def run_batched(items: Sequence[T], fn: Callable[[list[T]], Sequence[Any]],
                batch_size: int, progress_label: str, *,
                cache: OutputCache | None = None,
                keys: Sequence[str] | None = None,
                progress: bool = True) -> list[Any]:
    """``fn`` applied to every item, batched, with the cache; results in item order.

    ``fn`` takes a list of at most ``batch_size`` items and returns one
    JSON-serialisable, non-None result per item. ``keys`` (one per item,
    from :func:`gecmetrics.neural.cache.cache_key`) identify items for the
    cache and for deduplication; without keys every item is computed.
    ``progress_label`` prefixes the progress bar ("SOME: scoring").
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    n = len(items)
    if keys is not None and len(keys) != n:
        raise ValueError(f"{n} items but {len(keys)} keys")
    results: list[Any] = [None] * n
    if keys is None:
        todo = list(range(n))
        groups: dict[str, list[int]] = {}
    else:
        found = cache.get_many(keys) if cache is not None else [None] * n
        groups = {}
        for i, (k, v) in enumerate(zip(keys, found, strict=True)):
            if v is not None:
                results[i] = v
                TOTALS.cached += 1
            else:
                groups.setdefault(k, []).append(i)
        todo = [idx[0] for idx in groups.values()]
    meter = bar(len(todo), f"{progress_label} {plural(len(todo), 'item')}", enabled=progress)
    try:
        for start in range(0, len(todo), batch_size):
            chunk = todo[start:start + batch_size]
            out = list(fn([items[i] for i in chunk]))
            if len(out) != len(chunk):
                raise RuntimeError(f"{progress_label}: the model gave {len(out)} results "
                                   f"for {len(chunk)} items")
            TOTALS.computed += len(chunk)
            TOTALS.batches += 1
            new_keys, new_values = [], []
            for i, value in zip(chunk, out, strict=True):
                if keys is None:
                    results[i] = value
                    continue
                for j in groups[keys[i]]:
                    results[j] = value
                new_keys.append(keys[i])
                new_values.append(value)
            if cache is not None and new_keys:
                cache.put_many(new_keys, new_values)
            meter.update(len(chunk))
    finally:
        meter.close()
    return results
