"""Metric registry: built-ins by name, third-party metrics by entry point.

A new built-in metric is one module in ``metrics/`` plus one line in
``BUILTIN``. Other packages add metrics without touching gecmetrics by
declaring an entry point in the group ``gecmetrics.metrics``::

    [project.entry-points."gecmetrics.metrics"]
    mymetric = "mypackage.module:MyMetric"

where ``MyMetric`` subclasses :class:`gecmetrics.metric.Metric`. Modules are
imported only when a metric is asked for, so the CLI starts fast; even
``gecmetrics list`` imports none of the built-in ones (nor numpy): a built-in's
one-line description is its class's ``description``, read from the module's
source (:mod:`gecmetrics.descriptions`), so it is written once, in the class,
and ``list`` reads those descriptions from the table derived from the sources
(:mod:`gecmetrics.builtin_descriptions`).
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from .entry_points import entry_points
from .errors import ConfigError
from .validate import check_text

if TYPE_CHECKING:
    from .metric import Metric

ENTRY_POINT_GROUP = "gecmetrics.metrics"

BUILTIN: dict[str, str] = {
    "green": "gecmetrics.metrics.green:Green",
    "gleu": "gecmetrics.metrics.gleu:Gleu",
    "chrf": "gecmetrics.metrics.chrf:Chrf",
    "m2": "gecmetrics.metrics.m2:M2",
    "errant": "gecmetrics.metrics.errant:Errant",
    "bleu": "gecmetrics.metrics.bleu:Bleu",
    "imeasure": "gecmetrics.metrics.imeasure:Imeasure",
    "gotoscorer": "gecmetrics.metrics.gotoscorer:GoToScorer",
    "cleme": "gecmetrics.metrics.cleme:Cleme",
    "cleme2": "gecmetrics.metrics.cleme:Cleme2",
    "some": "gecmetrics.metrics.some:Some",
    "impara": "gecmetrics.metrics.impara:Impara",
    "scribendi": "gecmetrics.metrics.scribendi:Scribendi",
    "ptm2": "gecmetrics.metrics.ptm2:PTM2",
    "pterrant": "gecmetrics.metrics.pterrant:PTErrant",
    "llm-judge": "gecmetrics.metrics.llm_judge:LlmJudge",
}

_registered: dict[str, type[Metric] | str] = {}


def register_metric(name: str, metric: type[Metric] | str) -> None:
    """Register a metric class (or a ``module:Class`` path) under ``name``."""
    check_text(name, "register_metric name")
    if not isinstance(metric, (type, str)) or (isinstance(metric, str) and not all(
            metric.partition(":")[::2])):
        raise ConfigError(f"register_metric metric must be a Metric class or a "
                          f"'module:Class' string (got {type(metric).__name__}: {metric!r})")
    _registered[name] = metric


def _entry_points() -> dict[str, Any]:
    """The plug-ins: every entry point of :data:`ENTRY_POINT_GROUP`, by name.

    Read by :mod:`gecmetrics.entry_points` from the installed distributions' metadata
    folders, as :func:`importlib.metadata.entry_points` finds them; importing that module
    (email, zipfile, socket, ...) would cost more than the rest of ``gecmetrics list``.
    """
    return {ep.name: ep for ep in entry_points(ENTRY_POINT_GROUP)}


def _known() -> dict[str, Any]:
    known: dict[str, Any] = dict(_entry_points())
    known.update(BUILTIN)
    known.update(_registered)
    return known


def _load(name: str, target: Any) -> type[Metric]:
    from .metric import Metric

    if isinstance(target, type):
        cls = target
    elif isinstance(target, str):
        module, _, attr = target.partition(":")
        try:
            cls = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError, ValueError) as err:
            raise ConfigError(f"metric {name!r} points to {target!r}, which cannot be "
                              f"loaded ({err})") from None
    else:  # an importlib.metadata.EntryPoint
        try:
            cls = target.load()
        except Exception as err:  # a broken plugin must not break the others
            raise ConfigError(f"metric plugin {name!r} failed to load: {err}") from None
    if not (isinstance(cls, type) and issubclass(cls, Metric)):
        raise ConfigError(f"metric {name!r} does not point to a gecmetrics Metric class")
    return cls


def metric_class(name: str) -> type[Metric]:
    check_text(name, "metric name")
    if name in _registered:  # the same precedence as _known(), without reading plug-ins
        return _load(name, _registered[name])
    if name in BUILTIN:
        return _load(name, BUILTIN[name])
    known = _known()
    if name not in known:
        raise ConfigError(
            f"unknown metric {name!r}; known metrics: {', '.join(sorted(known))} "
            "(`gecmetrics list` describes them)"
        )
    return _load(name, known[name])


def get_metric(name: str, **options: Any) -> Metric:
    """Make a metric by name, e.g. ``get_metric("green", tokenize="char", n=6)``."""
    return metric_class(name)(**options)


def list_metrics() -> dict[str, str]:
    """Every metric name with its one-line description.

    A built-in metric (not replaced by :func:`register_metric`) is described from
    its module's source, without importing it: from the table derived from the
    sources (:data:`gecmetrics.builtin_descriptions.DESCRIPTIONS`) while the
    tokenizer registry is the one it was derived with (a tokenizer registered at run
    time changes the ``tokenize=`` choices a description names), else read from the
    source (:mod:`gecmetrics.descriptions`); imported when the source cannot say.
    The others are loaded.
    """
    table = _derived_descriptions()
    out = {}
    for name, target in sorted(_known().items()):
        if name in BUILTIN and target == BUILTIN[name]:
            text = table.get(name)
            if text is None:
                from .descriptions import read_description

                text = read_description(target)
            if text is not None:
                out[name] = text
                continue
        try:
            out[name] = _load(name, target).description
        except ConfigError as err:
            out[name] = f"(unavailable: {err})"
    return out


def _derived_descriptions() -> dict[str, str]:
    """The derived table of built-in descriptions, or {} when the tokenizer registry
    (if imported) no longer holds the tokenizers the table was derived with."""
    from .builtin_descriptions import DESCRIPTIONS, TOKENIZERS

    tokenizers = sys.modules.get("gecmetrics.tokenizers.registry")
    if tokenizers is not None and tuple(tokenizers.TABLE) != TOKENIZERS:
        return {}
    return DESCRIPTIONS


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,key=value`` into the name and string options."""
    check_text(spec, "metric spec", empty=True)
    name, _, rest = spec.strip().partition(":")
    if not name:
        raise ConfigError(f"empty metric name in spec {spec!r}; write e.g. green:tokenize=char")
    options: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ConfigError(
                f"bad option {part!r} in metric spec {spec!r}; write key=value, e.g. n=6"
            )
        key = key.strip()
        if key in options:  # silently keeping one of two values would hide a typo
            raise ConfigError(f"option {key!r} is given twice in metric spec {spec!r}; "
                              "give each option once")
        options[key] = value.strip()
    return name, options


def metric_from_spec(spec: str) -> Metric:
    name, options = parse_spec(spec)
    return get_metric(name, **options)
