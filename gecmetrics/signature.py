"""Score signatures: one line naming everything a number depends on.

A score is only comparable with another made with the same metric options,
the same references read the same way, the same level and the same code
version (sacrebleu prints such a line for the same reason). A
:class:`Signature` is that line as data: a head (the metric name) and ordered
``key:value`` fields, written ``name|key:value|...|version:X``.

This module is the one place that builds them: :func:`metric_signature` for a
metric's options (what ``Metric.signature()`` returns), :func:`score_signature`
for one scored result of ``gecmetrics score``; meta-evaluation and attribution
extend a metric's signature with their own fields (benchmark, system set, human
ranking, seed, resamples; the attribution method) through
:meth:`Signature.extend_apart`, which keeps every key once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .version import __version__

if TYPE_CHECKING:
    from .corpus import Corpus

#: How the references of a corpus were obtained (the ``refs_from`` field).
REFERENCE_SOURCES = ("text", "m2-lenient", "m2-strict")


def _text(value: Any) -> str:
    """A field value as written in a signature ('|' separates fields, so it becomes '/')."""
    return str(value).replace("|", "/")


@dataclass(frozen=True)
class Signature:
    """``name|key:value|...|version:X``; fields keep the order they were added in."""

    name: str
    fields: tuple[tuple[str, str], ...] = ()

    def extend(self, **fields: Any) -> Signature:
        """A signature with more fields; a key already present gets the new value in place."""
        current = dict(self.fields)  # a key updated keeps its place, a new one comes last
        current.update({key: _text(value) for key, value in fields.items()})
        return Signature(self.name, tuple(current.items()))

    def extend_apart(self, owner: str, **fields: Any) -> Signature:
        """A signature with the fields of another layer (``owner``: a meta-evaluation's
        analyses, an attribution) that describe that layer, not the metric: a key the
        signature already has (GLEU's ``seed``, ERRANT's ``edits``) is written
        ``{owner}_{key}``, so that no key is repeated and none is overwritten."""
        present = {key for key, _ in self.fields}
        return self.extend(**{f"{owner}_{key}" if key in present else key: value
                              for key, value in fields.items()})

    def __getitem__(self, key: str) -> str:
        return dict(self.fields)[key]

    def __str__(self) -> str:
        parts = [self.name, *(f"{key}:{value}" for key, value in self.fields)]
        return "|".join([*parts, f"version:{__version__}"])


class Signed(Protocol):
    """What a signature reads of a metric (:class:`gecmetrics.metric.Metric` is one):
    named here rather than imported, so that the metric module, which asks for
    its own signature, and this one do not import each other."""

    @property
    def name(self) -> str: ...

    @property
    def config(self) -> Any: ...

    def extra_signature(self, corpus: Corpus) -> dict[str, Any]: ...


def metric_signature(metric: Signed, corpus: Corpus | None = None) -> Signature:
    """The metric's name and every option of its config, defaults included (but an
    option marked :data:`gecmetrics.metric.SIGNED_WHEN_SET` only when it is set);
    with ``corpus``, also what the metric's scores depend on in it
    (:meth:`Metric.extra_signature`, and ``refs_per_item:varying`` where items have
    different numbers of references)."""
    extra = metric.extra_signature(corpus) if corpus is not None else {}
    if corpus is not None and corpus.reference_counts is not None:
        # Items scored against fewer references than others (MultiGEC essays): the
        # same files read with every reference on every item would score otherwise.
        extra = {**extra, "refs_per_item": "varying"}
    config = metric.config
    return Signature(metric.name).extend(**{
        f.name: getattr(config, f.name) for f in dataclasses.fields(config)
        if not (f.metadata.get("signed_when_set") and getattr(config, f.name) == f.default)},
        **extra)


def score_signature(metric: Signed, references: int, refs_from: str, level: str,
                    beta: float | None = None, corpus: Corpus | None = None,
                    base: Signature | None = None) -> Signature:
    """The signature of one scored result: options (``beta`` the one used), references, level.

    ``references`` is the number of reference sets, ``refs_from`` one of
    :data:`REFERENCE_SOURCES`. ``base``: ``metric_signature(metric, corpus)`` when the
    caller already has it (a beta sweep signs hundreds of results of one metric).
    """
    if refs_from not in REFERENCE_SOURCES:
        raise ValueError(f"refs_from must be one of {REFERENCE_SOURCES} (got {refs_from!r})")
    sig = metric_signature(metric, corpus) if base is None else base
    with_beta = {} if beta is None else {"beta": float(beta)}
    return sig.extend(**with_beta, refs=references, refs_from=refs_from, level=level)
