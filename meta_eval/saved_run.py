"""A meta-evaluation as a value: what to run, saved to JSON and run again.

A :class:`MetaEvalRun` holds everything a run of ``gecmetrics meta-eval`` was
asked for (benchmarks, metric specs, score files, each analysis with its
settings, the other options, the output format), as mt-metrics-eval's
``tasks.py`` keeps its tasks: ``meta-eval ... --save-run run.json`` writes it,
``meta-eval --run run.json`` runs it again with the same output. It is built
from a checked :class:`~.options.MetaEvalOptions` and gives one back, so a
saved run is checked again, with the same one-line messages, when it is read.

Only the values given are kept (an analysis's settings: the fields that differ
from their defaults), so a file stays short and readable; ``explicit`` keeps
which options were given, as the checks of "applies only to" need it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.paths import atomic_output
from gecmetrics.readers import parse_json, read_text

from .analyses import ANALYSES
from .options import MetaEvalOptions

if TYPE_CHECKING:
    from .results import MetaEvaluation

#: The version of the file's layout (``"meta_eval_run"``), checked when read.
RUN_VERSION = 1
# Options that are not part of what is run: derived, or the run's own bookkeeping.
_NOT_SAVED = ("benchmarks", "metrics", "scores", "settings", "explicit")


def _plain(value: Any) -> Any:
    """A JSON value of an option: tuples become lists (in mappings too)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return [_plain(v) for v in value] if isinstance(value, tuple) else value


def _typed(value: Any) -> Any:
    """An option's value from JSON: lists become tuples (the options hold tuples)."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    return tuple(_typed(v) for v in value) if isinstance(value, list) else value


def _default(f: Any) -> Any:
    """A field's default, also where it is made by a factory (``{}``)."""
    if f.default is MISSING and f.default_factory is not MISSING:
        return f.default_factory()
    return f.default


def _specs(values: tuple[Any, ...], what: str) -> tuple[str, ...]:
    bad = [v for v in values if not isinstance(v, str)]
    if bad:
        raise ConfigError(f"a run can be saved only with {what} given as text (got "
                          f"{bad[0]!r}); give its spec string instead")
    return tuple(values)


@dataclass(frozen=True)
class MetaEvalRun:
    """One meta-evaluation, as data: see the module's docstring.

    ``options``: the other fields of :class:`MetaEvalOptions` that are not at their
    default, by name; ``analyses``: each analysis asked for (or given a setting),
    by name, with its settings that are not at their default.
    """

    benchmarks: tuple[str, ...]
    metrics: tuple[str, ...] = ()
    scores: tuple[str, ...] = ()
    analyses: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    explicit: tuple[str, ...] = ()
    format: str = "table"

    @classmethod
    def of(cls, options: MetaEvalOptions, fmt: str = "table") -> MetaEvalRun:
        """The run that ``options`` describe (metrics and score files as text)."""
        given = {f.name: _plain(getattr(options, f.name)) for f in fields(options)
                 if f.init and f.name not in _NOT_SAVED
                 and getattr(options, f.name) != _default(f)}
        analyses = {}
        for analysis in ANALYSES:
            settings = options.settings[analysis.name]
            changed = {f.name: _plain(getattr(settings, f.name)) for f in fields(settings)
                       if getattr(settings, f.name) != f.default}
            if changed:
                analyses[analysis.name] = changed
        return cls(benchmarks=tuple(options.benchmarks),
                   metrics=_specs(options.metrics, "metrics"),
                   scores=_specs(options.scores, "--scores"),
                   analyses=analyses, options=given,
                   explicit=tuple(sorted(options.explicit)), format=fmt)

    def meta_eval_options(self) -> MetaEvalOptions:
        """The checked options of this run (a ConfigError names what is wrong)."""
        known = {a.name: a for a in ANALYSES}
        unknown = [name for name in self.analyses if name not in known]
        if unknown:
            raise ConfigError(f"saved run: unknown analysis {unknown[0]!r}; known: "
                              f"{', '.join(known)}")
        settings = {name: known[name].settings(**{k: _typed(v) for k, v in values.items()})
                    for name, values in self.analyses.items()}
        keywords = {name: _typed(value) for name, value in self.options.items()}
        try:
            return MetaEvalOptions(benchmarks=self.benchmarks, metrics=self.metrics,
                                   scores=self.scores, settings=settings,
                                   explicit=frozenset(self.explicit), **keywords)
        except TypeError as err:  # an option this version does not know
            raise ConfigError(f"saved run: {err}") from None

    def execute(self) -> MetaEvaluation:
        """Run it: :func:`.api.run` of its options (figures are saved by the caller)."""
        from .api import run

        return run(self.meta_eval_options())

    def to_json(self) -> dict[str, Any]:
        """The run as one JSON object (``json.dumps`` of it is the saved file)."""
        return {"meta_eval_run": RUN_VERSION, "benchmarks": list(self.benchmarks),
                "metrics": list(self.metrics), "scores": list(self.scores),
                "analyses": {k: dict(v) for k, v in self.analyses.items()},
                "options": dict(self.options), "explicit": list(self.explicit),
                "format": self.format}

    @classmethod
    def from_json(cls, obj: Any) -> MetaEvalRun:
        """The run of a :meth:`to_json` object (a ConfigError if it is not one)."""
        if not isinstance(obj, dict) or obj.get("meta_eval_run") != RUN_VERSION:
            raise ConfigError("not a saved meta-evaluation run (written by meta-eval "
                              f"--save-run: an object with \"meta_eval_run\": {RUN_VERSION})")
        try:
            return cls(benchmarks=tuple(obj["benchmarks"]), metrics=tuple(obj["metrics"]),
                       scores=tuple(obj["scores"]), analyses=dict(obj["analyses"]),
                       options=dict(obj["options"]), explicit=tuple(obj["explicit"]),
                       format=str(obj["format"]))
        except (KeyError, TypeError, ValueError) as err:
            raise ConfigError(f"saved run: missing or malformed entry {err}") from None

    def save(self, path: str) -> None:
        """Write the run to ``path``, whole or not at all
        (:func:`~gecmetrics.paths.atomic_output`)."""
        with atomic_output(path) as part, open(part, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, indent=2, ensure_ascii=False)
            f.write("\n")

    @classmethod
    def load(cls, path: str) -> MetaEvalRun:
        """The run saved at ``path``, read as every input is (:func:`~gecmetrics.readers.
        read_text`: UTF-8, a byte-order mark or CRLF line ends allowed, NUL bytes, UTF-16
        and over-long lines refused with the line)."""
        text = read_text(path, "--run")
        if not text.strip():
            raise InputError(f"--run file {path} is empty; expected the JSON that "
                             "meta-eval --save-run writes")
        return cls.from_json(parse_json(text, f"--run {path}", error=ConfigError))
