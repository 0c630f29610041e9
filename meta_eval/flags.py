"""How an option of a meta-evaluation is spelled on the command line, declared once.

Every field of :class:`~.options.MetaEvalOptions` and of an analysis's settings
(:mod:`.analyses`) that the CLI offers carries a :class:`Flag` in its dataclass
metadata (:func:`option`). ``gecmetrics meta-eval`` builds its click options from
these, in field order, and reads the parsed values back by field name, so an
option is written once: its field, default, flag, help and what it needs.

This module is light (no click): the library builds options without the CLI.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, Literal

from gecmetrics.errors import ConfigError

Kind = Literal["text", "int", "flag", "file", "folder", "choice"]


@dataclass(frozen=True)
class Flag:
    """One command-line option.

    ``decls``: its names (``("-m", "--metric")``); ``kind``: what it takes (a file
    to write, a folder, a choice of ``choices`` (a tuple, or a function read when
    the CLI is used, for choices from the benchmark registry) ...); ``alone``: the
    value of the flag given without one (``--bootstrap`` alone: 1000);
    ``requires``: ``(other, present)`` (``other`` may be a function giving the text,
    read from a registry when checked): the flag only means something together with
    ``other`` (its spelling in the message), ``present(options)`` says whether it was
    given: checked when the option differs from its default.
    """

    decls: tuple[str, ...]
    help: str
    kind: Kind = "text"
    metavar: str | None = None
    choices: Sequence[str] | Callable[[], Sequence[str]] | None = None
    multiple: bool = False
    alone: Any = None
    show_default: bool = False
    requires: tuple[str | Callable[[], str], Callable[[Any], bool]] | None = None
    trailing: bool = False  # --help lists it after the analyses' flags (--data-dir)

    @property
    def name(self) -> str:
        """The long name (``--metric``), as messages spell it."""
        return next(d for d in self.decls if d.startswith("--"))


def option(default: Any, *decls: str, help: str, **flag: Any) -> Any:
    """A dataclass field with its :class:`Flag` (keywords: the flag's other fields)."""
    return field(default=default, metadata={"flag": Flag(decls, help, **flag)})


def flagged(cls: Any) -> Iterator[tuple[Field[Any], Flag]]:
    """The fields of dataclass ``cls`` that have a flag, with it, in field order."""
    for f in fields(cls):
        if "flag" in f.metadata:
            yield f, f.metadata["flag"]


def default_of(f: Field[Any]) -> Any:
    return None if f.default is MISSING else f.default


def count(option: str, value: Any, default: int) -> int | None:
    """``None`` (off), ``True`` (the flag alone: ``default``) or a whole number."""
    if value is None or value is False:
        return None
    if value is True:
        return default
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int):
        raise ConfigError(f"{option} takes a whole number (got {value!r})")
    return value


def check_switches(owner: Any) -> None:
    """Every on/off option (``kind="flag"``) of dataclass ``owner`` is a bool.

    The CLI can only give True or False; a library caller may pass anything, and
    ``pairwise=float("nan")`` or ``spa="no"`` would be truthy: the analysis would
    run, silently, where it was not asked for.
    """
    for f, flag in flagged(type(owner)):
        value = getattr(owner, f.name)
        if flag.kind == "flag" and not isinstance(value, bool):
            raise ConfigError(f"{flag.name} is on or off: give {f.name}=True or False "
                              f"(got {value!r})")
