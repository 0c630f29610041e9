"""Reading the tokenizer registry: a tokenizer by name, its extra, and each metric's choices.

Everything that needs to know the tokenizers asks here, so that none keeps a list
of its own: the ``tokenize=`` option checks (:func:`spec`, :func:`check`), the
extras a metric needs (:func:`required_extras`), the n-gram counting
(:func:`tokenizer`, ``word_local``), and the choices the metrics accept and print
in their descriptions and errors (:func:`bleu_tokenizers`, :func:`tokenize_choices`,
:func:`tokenize_option`). A tokenizer's module is imported on first use.
"""

from __future__ import annotations

import importlib
import typing
from collections.abc import Iterable, Iterator, Mapping, Sequence

from .. import extras
from ..errors import ConfigError
from .entry import Split, TokenizerSpec
from .external import bounded, check_lines
from .registry import TABLE

#: The type of a ``tokenize=`` option: a registered name, checked at run time by
#: :func:`spec` (a ``Literal`` would need an edit for every new tokenizer).
Tokenize = str

_SPECS: dict[str, TokenizerSpec] = {}  # by registry target: each module imported once
_LOADED: dict[str, Split] = {}  # the optional tokenizers, loaded on first use


def _resolve(name: str, target: str | TokenizerSpec) -> TokenizerSpec:
    if isinstance(target, TokenizerSpec):
        return target
    found = _SPECS.get(target)
    if found is None:
        module, _, attr = target.partition(":")
        found = getattr(importlib.import_module(module, __package__), attr or "TOKENIZER", None)
        if not isinstance(found, TokenizerSpec):
            raise ConfigError(f"tokenizer {name!r} ({target}) is no TokenizerSpec "
                              "(gecmetrics/tokenizers/registry.py)")
        _SPECS[target] = found
    return found


class _Registry(Mapping[str, TokenizerSpec]):
    """The registered tokenizers by name, in registry order; reading an entry
    imports its module (listing the names imports none)."""

    def __getitem__(self, name: str) -> TokenizerSpec:
        return _resolve(name, TABLE[name])

    def __iter__(self) -> Iterator[str]:
        return iter(TABLE)

    def __len__(self) -> int:
        return len(TABLE)


#: Every registered tokenizer's :class:`TokenizerSpec`, by name.
REGISTRY: Mapping[str, TokenizerSpec] = _Registry()


def spec(name: str) -> TokenizerSpec:
    """The registry entry of ``name``; an unknown name is a one-line ConfigError
    that lists the known ones."""
    try:
        target = TABLE[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(TABLE))
        raise ConfigError(f"unknown tokenize={name!r}; choose one of: {known} "
                          "(docs/tokenizers.md)") from None
    return _resolve(name, target)


def check(name: str, user: str) -> None:
    """``name`` is a known tokenizer whose extra (if any) is installed; else the one
    ConfigError (for ``user``, e.g. ``metric 'green'``), before any file is read."""
    extra = spec(name).extra
    if extra is not None:
        extras.check(f"{user} (tokenize={name})", extra)


def required_extras(name: str) -> tuple[str, ...]:
    """The extras tokenizer ``name`` needs (empty for the built-in ones)."""
    extra = spec(name).extra
    return () if extra is None else (extra,)


def tokenizer(name: str) -> Split:
    """The function of tokenizer ``name`` (an optional one is loaded on first use)."""
    entry = spec(name)
    if entry.split is not None:
        return entry.split
    split = _LOADED.get(name)
    if split is None:
        assert entry.load is not None
        split = entry.load()
        if entry.external:
            split = bounded(name, split)
        _LOADED[name] = split
    return typing.cast(Split, split)


def check_line_lengths(name: str, named: Iterable[tuple[str, Sequence[str]]]) -> None:
    """InputError naming the first line of ``named`` ((what, lines) pairs) that is
    longer than tokenizer ``name`` takes (an external one's bound,
    :mod:`gecmetrics.tokenizers.external`); for a pre-pass before any tokenizing."""
    if spec(name).external:
        check_lines(name, named)


def tokenizer_language(name: str) -> str | None:
    """The one language tokenizer ``name`` (a registry name, or BLEU's name for one) is
    made for, or None (any language; an unknown name: its metric reports it)."""
    target = name if name in TABLE else bleu_tokenizers().get(name)
    return None if target is None else spec(target).language


# -- the choices of each metric ------------------------------------------------------

def bleu_tokenizers() -> dict[str, str]:
    """BLEU's tokenizers: the name BLEU (sacrebleu) gives each, to its registry name,
    in registry order (``none`` is ``word``, ``char`` is ``char-nospace``)."""
    out = {}
    for name, entry in REGISTRY.items():
        if entry.bleu is not False:
            out[name if entry.bleu is True else entry.bleu] = name
    return out


def tokenize_choices(default: str, bleu: bool = False) -> list[str]:
    """The tokenizer names a metric names, its ``default`` first, then in registry
    order: BLEU's (:func:`bleu_tokenizers`), or else the ``listed`` ones of the
    word-level metrics (which accept every registered name)."""
    names = (list(bleu_tokenizers()) if bleu
             else [name for name, entry in REGISTRY.items() if entry.listed])
    return [default, *(name for name in names if name != default)]


def tokenize_option(default: str, bleu: bool = False) -> str:
    """``tokenize=A|B|...``, the option as a metric's description shows it."""
    return "tokenize=" + "|".join(tokenize_choices(default, bleu))
