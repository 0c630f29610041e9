"""Which benchmarks exist and what each accepts, read from their data descriptions.

A benchmark is declared in one place: the ``"meta_eval"`` section of its data
description ``data/<name>.json``, which names the module that loads it (a
``load(root, name=..., **options)`` returning a :class:`~.base.Benchmark`) and
states what the CLI and :class:`~gecmetrics.meta_eval.options.MetaEvalOptions`
must know before any data is read::

    "meta_eval": {
      "options": {"split": {"flag": "--split", "values": ["test", "dev"],
                            "default": "test", "label": "the GMEG benchmarks"}},
      "benchmarks": {
        "gmeg-fce": {"order": 30, "module": "gmeg", "language": "en",
                     "system_sets": ["all", "+INPUT", "base"], "default_set": "all",
                     "set_aliases": {"+source": "+INPUT"},
                     "human": ["rating"], "default_human": "rating",
                     "options": ["split"]}}}

``options`` at the top level describes the benchmark-specific options (the
field of ``MetaEvalOptions``, its flag, its values and default, and how the
"applies only to ..." message names the benchmarks that take it); each
benchmark lists the ones it takes. Every CLI choice (benchmark names,
``--systems``, ``--human``, ``--split`` ...) and every applicability check is
derived from these specs, so adding a benchmark is its module plus its
description. ``order`` sorts the benchmarks in the CLI's lists; ``language`` (ISO
639-1) is the language of the benchmark's texts.

Only :mod:`json` and :mod:`importlib.resources` are used: ``gecmetrics --help``
reads the choices from here and must stay fast. Descriptions are looked for in
the packages of :data:`PACKAGES` (``gecmetrics.data``; a plugin package may be
added there before the first call, or in tests with :func:`reset`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from gecmetrics.errors import ConfigError
from gecmetrics.readers import parse_json

# Packages whose ``*.json`` files are searched for a ``"meta_eval"`` section.
PACKAGES: list[str] = ["gecmetrics.data"]


@dataclass(frozen=True)
class OptionSpec:
    """A benchmark-specific option: ``field`` of MetaEvalOptions, shown as ``flag``."""

    field: str
    flag: str
    values: tuple[str, ...]
    default: str | tuple[str, ...]
    label: str  # "the GMEG benchmarks": completes "--split applies only to ..."
    multiple: bool = False  # several values at once (a tuple field; the flag repeats)
    help: str = ""


@dataclass(frozen=True)
class BenchmarkSpec:
    """What one benchmark accepts (its systems sets, human score kinds, options)."""

    name: str
    module: str  # absolute module name of the loader
    description: str  # the data description (file stem) that declares it
    system_sets: tuple[str, ...]
    default_set: str
    human: tuple[str, ...]
    default_human: str
    options: tuple[str, ...] = ()
    set_aliases: Mapping[str, str] | None = None
    order: int = 100
    #: The language of its texts (ISO 639-1; None: not stated): a metric made for
    #: another one gets a note (:func:`gecmetrics.meta_eval.selection.language_mismatch`).
    language: str | None = None


def _descriptions() -> list[tuple[str, str, dict[str, Any]]]:
    """``(package, file stem, description)`` of every description with benchmarks."""
    found = []
    for package in PACKAGES:
        for entry in sorted(resources.files(package).iterdir(), key=lambda e: e.name):
            if not entry.name.endswith(".json"):
                continue
            desc = parse_json(entry.read_text("utf-8"), f"{package}/{entry.name}",
                              error=ConfigError)
            if isinstance(desc, dict) and "meta_eval" in desc:
                found.append((package, entry.name.removesuffix(".json"), desc["meta_eval"]))
    return found


def _module(name: str) -> str:
    """A bare module name is one of gecmetrics' benchmark modules; a dotted one is absolute."""
    return name if "." in name else f"{__name__.rpartition('.')[0]}.{name}"


@lru_cache(maxsize=1)
def _registry() -> tuple[dict[str, BenchmarkSpec], dict[str, OptionSpec]]:
    specs: dict[str, BenchmarkSpec] = {}
    options: dict[str, OptionSpec] = {}
    for package, stem, desc in _descriptions():
        where = f"{package}/{stem}.json"
        for field, o in desc.get("options", {}).items():
            option = OptionSpec(
                field=field, flag=o["flag"], values=tuple(o["values"]),
                default=tuple(o["default"]) if o.get("multiple") else o["default"],
                label=o["label"], multiple=bool(o.get("multiple")), help=o.get("help", ""))
            if field in options and options[field] != option:
                raise ConfigError(f"{where}: option {field!r} is described differently in "
                                  "two benchmark descriptions; describe it once")
            options[field] = option
        for name, b in desc["benchmarks"].items():
            if name in specs:
                raise ConfigError(f"{where}: benchmark {name!r} is declared twice")
            specs[name] = BenchmarkSpec(
                name=name, module=_module(b["module"]), description=stem,
                system_sets=tuple(b["system_sets"]), default_set=b["default_set"],
                human=tuple(b["human"]), default_human=b["default_human"],
                options=tuple(b.get("options", ())), set_aliases=b.get("set_aliases", {}),
                order=int(b.get("order", 100)), language=b.get("language"))
    for spec in specs.values():
        unknown = [o for o in spec.options if o not in options]
        if unknown:
            raise ConfigError(f"benchmark {spec.name}: option {unknown[0]!r} is not described "
                              "in any benchmark description's \"options\"")
    ordered = dict(sorted(specs.items(), key=lambda kv: kv[1].order))
    return ordered, options


def reset() -> None:
    """Forget what was read (after changing :data:`PACKAGES`)."""
    _registry.cache_clear()


def specs() -> dict[str, BenchmarkSpec]:
    """Every benchmark's spec, by name, in CLI order."""
    return _registry()[0]


def spec(name: str) -> BenchmarkSpec:
    known = specs()
    if name not in known:
        raise ConfigError(f"unknown benchmark {name!r}; choose from: {', '.join(known)}")
    return known[name]


def benchmark_names() -> tuple[str, ...]:
    return tuple(specs())


def option(field: str) -> OptionSpec:
    """The description of a benchmark-specific option (``split``, ``seeda_corpus`` ...)."""
    return _registry()[1][field]


def benchmark_options() -> dict[str, OptionSpec]:
    return dict(_registry()[1])


def takes(field: str) -> tuple[str, ...]:
    """The benchmarks that take option ``field``."""
    return tuple(name for name, s in specs().items() if field in s.options)


def set_aliases() -> dict[str, str]:
    """Other names of system sets (``+source`` = ``+INPUT``), from every benchmark."""
    out: dict[str, str] = {}
    for s in specs().values():
        out.update(s.set_aliases or {})
    return out


def system_set_choices() -> tuple[str, ...]:
    """Every system set name and alias any benchmark accepts (``--systems``)."""
    names = [n for s in specs().values() for n in s.system_sets]
    return tuple(dict.fromkeys([*names, *set_aliases()]))


def human_kinds() -> tuple[str, ...]:
    """Every human score kind any benchmark offers (``--human``)."""
    return tuple(dict.fromkeys(k for s in specs().values() for k in s.human))

