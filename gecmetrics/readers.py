"""Reading text files: one sentence a line, UTF-8.

Only the line terminator is removed (LF or CRLF, since two CoNLL-2014
submissions use CRLF). Every other character is kept, trailing spaces
included, because character-level metrics count them. A missing final
newline is fine; a lone CR (old Mac line ends) is an error, because it would
silently merge lines. The path ``-`` reads standard input. All input checks
live here so that every command reports bad files the same way.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence

from .errors import InputError

STDIN = "-"


def split_lines(text: str) -> list[str]:
    """Split ``text`` into lines, removing only ``\\n`` and ``\\r\\n`` terminators."""
    if text == "":
        return []
    lines = text.split("\n")
    if lines[-1] == "":  # final newline
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def is_stdin(path: str | os.PathLike[str]) -> bool:
    """True for the argument ``-``, which means standard input wherever a file is read."""
    return isinstance(path, str) and path == STDIN


def display_name(path: str | os.PathLike[str]) -> str:
    """The name of an input in messages: the path, or "standard input" for ``-``."""
    return "standard input" if is_stdin(path) else os.fspath(path)


def describe(path: str | os.PathLike[str], role: str) -> str:
    """An input as messages name it: "hypothesis file x.txt" or "hypothesis from standard input"."""
    return f"{role} from standard input" if is_stdin(path) else f"{role} file {os.fspath(path)}"


def read_lines(path: str | os.PathLike[str], role: str = "input",
               expected: str = "one sentence a line") -> list[str]:
    """Read a UTF-8 file (or standard input, for ``-``) into a list of lines.

    Bad input raises :class:`InputError` with one clear line. ``role`` names
    the file's job ("source", "reference", "hypothesis") in messages, so a
    user knows which option to correct; ``expected`` says what an empty file
    should have held (an M2 file is not one sentence a line).
    """
    name = display_name(path)
    what = describe(path, role)
    data = _read_bytes(path, role)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line_no = data[: err.start].count(b"\n") + 1
        raise InputError(
            f"{what} is not valid UTF-8 (byte {err.start}, line {line_no}); "
            "convert it, e.g. with `iconv -f LATIN1 -t UTF-8`"
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]  # a byte-order mark is not part of the first sentence
    lone_cr = LONE_CR.search(text)
    if lone_cr:
        # Without this check a file with old Mac line ends is one long line and
        # the user sees only a line-count mismatch, with no hint why.
        raise InputError(_lone_cr_message(what, name, text, lone_cr.start()))
    lines = split_lines(text)
    if not lines:
        if is_stdin(path):
            raise InputError(f"{role} from standard input is empty (expected {expected})")
        raise InputError(f"{role} file is empty: {name} (expected {expected})")
    return lines


# A CR that does not end a CRLF pair; a CR that ends the text is a harmless
# final terminator and is stripped like the CR of CRLF.
LONE_CR = re.compile(r"\r(?!\n|\Z)")


def _lone_cr_message(what: str, name: str, text: str, at: int) -> str:
    fix = f"`tr '\\r' '\\n' < {name} > fixed.txt` or `dos2unix -c mac {name}`"
    if "\n" not in text:
        return (f"{what} has carriage-return (\\r) line ends (old Mac style), which would make "
                f"it one line; convert them to LF, e.g. with {fix}")
    line_no = text.count("\n", 0, at) + 1
    return (f"{what} has a carriage return (\\r) not followed by a newline in line {line_no}: "
            f"mixed line ends or a stray \\r; lines must end in LF or CRLF (for CR line ends "
            f"convert with {fix}, else delete the stray \\r)")


def _read_bytes(path: str | os.PathLike[str], role: str) -> bytes:
    if is_stdin(path):
        return sys.stdin.buffer.read()
    path = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise InputError(f"{role} file not found: {path} (check the path)") from None
    except IsADirectoryError:
        raise InputError(f"{role} path is a directory, not a file: {path}") from None
    except PermissionError:
        raise InputError(f"{role} file is not readable: {path} (check its permissions)") from None


def check_one_stdin(named: Sequence[tuple[str, str | os.PathLike[str] | None]]) -> None:
    """Raise when more than one input of a command is ``-`` (standard input is read once).

    ``named`` pairs an option as the user typed it (``-s``, ``-c``) with its value.
    """
    flags = [flag for flag, value in named if value is not None and is_stdin(value)]
    if len(flags) > 1:
        raise InputError(
            f"standard input (-) is given {len(flags)} times ({', '.join(flags)}); it can be "
            "read only once: pass at most one input as -, the others as files"
        )


def check_same_length(named: Sequence[tuple[str, Sequence[str]]]) -> None:
    """Raise when the named line lists do not all have the same number of lines."""
    if not named:
        return
    first_name, first = named[0]
    for name, lines in named[1:]:
        if len(lines) != len(first):
            raise InputError(
                f"{name} has {len(lines)} lines but {first_name} has {len(first)}; "
                "every file must have one line per source sentence"
            )


def check_inputs(source: str, references: Sequence[str], hypotheses: Sequence[str],
                 m2: str | None) -> None:
    """The checks of a scoring run's file arguments that need no file read."""
    check_one_stdin([("-s/--source", source), ("--m2", m2),
                     *(("-r/--reference", path) for path in references),
                     *(("-c/--hypothesis", path) for path in hypotheses)])
    if not references and m2 is None:
        raise InputError("no reference given; pass reference files with -r/--reference "
                         "or an M2 file with --m2")
    if not hypotheses:
        raise InputError("no hypothesis file given; pass one or more with -c/--hypothesis")
    seen: set[str] = set()
    for path in hypotheses:
        if path in seen:
            raise InputError(f"hypothesis file {path} is given twice; list each file once")
        seen.add(path)


def line_count_error(name: str, lines: int, source_name: str, source_lines: int) -> InputError:
    return InputError(f"{name} has {lines} lines but {source_name} has {source_lines}; "
                      "every file needs one line per source sentence")
