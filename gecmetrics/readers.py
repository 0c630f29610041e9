"""Reading text files: one sentence a line, UTF-8.

Only the line terminator is removed (LF or CRLF, since two CoNLL-2014
submissions use CRLF). Every other character is kept, trailing spaces
included, because character-level metrics count them. A missing final
newline is fine. All input checks live here so that every command reports
bad files the same way.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .errors import InputError


def split_lines(text: str) -> list[str]:
    """Split ``text`` into lines, removing only ``\\n`` and ``\\r\\n`` terminators."""
    if text == "":
        return []
    lines = text.split("\n")
    if lines[-1] == "":  # final newline
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def read_lines(path: str | os.PathLike[str], role: str = "input") -> list[str]:
    """Read a UTF-8 file into a list of lines, with clear errors for bad files.

    ``role`` names the file's job ("source", "reference", "hypothesis") in
    messages, so a user knows which option to correct.
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise InputError(f"{role} file not found: {path} (check the path)") from None
    except IsADirectoryError:
        raise InputError(f"{role} path is a directory, not a file: {path}") from None
    except PermissionError:
        raise InputError(f"{role} file is not readable: {path} (check its permissions)") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line_no = data[: err.start].count(b"\n") + 1
        raise InputError(
            f"{role} file {path} is not valid UTF-8 (byte {err.start}, line {line_no}); "
            "convert it, e.g. with `iconv -f LATIN1 -t UTF-8`"
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]  # a byte-order mark is not part of the first sentence
    lines = split_lines(text)
    if not lines:
        raise InputError(f"{role} file is empty: {path} (expected one sentence a line)")
    return lines


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
