"""Reading text files: one sentence a line, UTF-8.

Only the line terminator is removed (LF or CRLF, since two CoNLL-2014
submissions use CRLF). Every other character is kept, trailing spaces
included, because character-level metrics count them. A missing final
newline is fine; a lone CR (old Mac line ends) is an error, because it would
silently merge lines. The path ``-`` reads standard input. All input checks
live here so that every command reports bad files the same way.

Input is read in blocks (:func:`read_blocks`), and no line may be longer than
:data:`MAX_LINE_BYTES` (raise it with the environment variable
``GECMETRICS_MAX_LINE_BYTES``): the check runs while reading, so endless input
without a line end (``-s - < /dev/zero``) stops with one line at the limit
instead of filling the memory, and a signal is acted on between blocks. The
total size is not bounded: a large file is valid (``docs/scale.md`` reads such
files by chunks through the same blocks). Text in UTF-16 or UTF-32 and binary
data (NUL bytes) are named as such, with the conversion that fixes them.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

from .errors import ConfigError, GecMetricsError, InputError
from .formatting import plural

STDIN = "-"

#: The longest line read, in bytes without the line end: 8 MiB. The longest line of
#: the public benchmarks' files is 3.5 KB (GMEG's wiki outputs), a 10,000-token essay
#: on one line about 60 KB, and a ``--scores`` JSON written on one line by
#: ``json.dump`` (15 systems x 1,312 sentence scores) about 0.4 MB; a longer line is
#: not one sentence but data without line ends (``/dev/zero``, a binary file). Raise
#: it for one run with :data:`ENV_MAX_LINE_BYTES`.
MAX_LINE_BYTES = 8 << 20

#: The environment variable that sets the line limit (a whole number of bytes), for
#: the command line and the Python API alike (and the worker processes they start).
ENV_MAX_LINE_BYTES = "GECMETRICS_MAX_LINE_BYTES"

#: Bytes read at a time: the memory a reader needs beyond the text it keeps.
READ_BYTES = 1 << 20


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


def short_names(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """Names for ``paths`` in a table or a page: each path's shortest suffix of whole
    folders that no other path ends with (``d1/sys.txt`` and ``d2/sys.txt``, but just
    ``a.txt`` beside ``b.txt``). Paths that stay alike to the end (``a.txt`` and
    ``./a.txt``) are shown as given."""
    parts = [[p for p in os.fspath(path).replace(os.sep, "/").split("/") if p not in ("", ".")]
             or [os.fspath(path)] for path in paths]
    take = [1] * len(parts)
    while True:
        names = ["/".join(p[-k:]) for p, k in zip(parts, take, strict=True)]
        seen: dict[str, list[int]] = {}
        for i, name in enumerate(names):
            seen.setdefault(name, []).append(i)
        grow = [i for same in seen.values() if len(same) > 1 for i in same
                if take[i] < len(parts[i])]
        if not grow:
            break
        for i in grow:
            take[i] += 1
    return [name if len(seen[name]) == 1 else os.fspath(path)
            for name, path in zip(names, paths, strict=True)]


def describe(path: str | os.PathLike[str], role: str) -> str:
    """An input as messages name it: "hypothesis file x.txt" or "hypothesis from standard input"."""
    return f"{role} from standard input" if is_stdin(path) else f"{role} file {os.fspath(path)}"


def max_line_bytes() -> int:
    """The line limit of this run: :data:`ENV_MAX_LINE_BYTES` if set, else
    :data:`MAX_LINE_BYTES` (read at call time, as :mod:`gecmetrics.paths` reads its
    variables, so a test or a caller may set it after import)."""
    return env_bytes(ENV_MAX_LINE_BYTES, MAX_LINE_BYTES)


def env_bytes(variable: str, default: int) -> int:
    """A size limit in bytes set by the environment ``variable``, else ``default``;
    ConfigError for a value that is not a whole number >= 1."""
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigError(f"{variable}={raw!r} is not a whole number of bytes >= 1; "
                          f"set it to e.g. {default * 4} (the default is {default})")
    return value


def read_blocks(handle: BinaryIO, what: str, limit: int | None = None) -> Iterator[bytes]:
    """The bytes of ``handle`` a block at a time, each checked before it is yielded:
    :class:`InputError` as soon as a line grows past ``limit`` bytes (default
    :func:`max_line_bytes`), so endless input costs at most the limit in memory.

    A block is at most ``limit`` bytes, so a line that starts and ends in one block
    is within the limit; only the line that runs on from block to block is counted.
    ``what`` names the input in the message (:func:`describe`).
    """
    limit = max_line_bytes() if limit is None else limit
    size = min(READ_BYTES, limit)
    line_no = 1
    run = 0  # bytes of the current line read so far
    while block := handle.read(size):
        end = block.find(b"\n")
        if end < 0:
            run += len(block)
        else:
            run += end
        if run > limit:
            raise InputError(_too_long_message(what, line_no, limit, block))
        if end >= 0:
            line_no += block.count(b"\n")
            run = len(block) - block.rfind(b"\n") - 1
        yield block


def _too_long_message(what: str, line_no: int, limit: int, block: bytes) -> str:
    """Which input, which line, the limit, what the data probably is, how to raise it."""
    raise_it = f"to allow longer lines, set the environment variable {ENV_MAX_LINE_BYTES}=" \
        f"{limit * 4}"
    start = f"{what}: line {line_no} is longer than {limit:,} bytes"
    if b"\x00" in block:
        return (f"{start} and holds NUL bytes: a binary file? expected UTF-8 text, one "
                f"sentence a line (if it is text, {raise_it})")
    if b"\r" in block:
        return (f"{start} and holds carriage returns (\\r): old Mac line ends? convert them "
                f"to LF, e.g. with `tr '\\r' '\\n'` (if it is one line, {raise_it})")
    return f"{start}, the limit for one line (one sentence a line is expected); {raise_it}"


#: Called with each checked block of whole lines as it is read, in order (a parser
#: that raises at the first line that cannot belong to the format).
BlockCheck = Callable[[str], None]


def read_text(path: str | os.PathLike[str], role: str = "input",
              bound: LineBound | None = None, check: BlockCheck | None = None) -> str:
    """The checked text of a UTF-8 file (or standard input, for ``-``): no byte-order
    mark, no lone CR, no NUL; it may be empty. :func:`read_lines` splits it.

    Each block is checked as it is read (:func:`checked_blocks`), so binary data on
    a stream (``- < /dev/urandom``) stops at its first block; with ``bound``, input
    past ``bound.count`` lines stops at the block where it shows (:class:`LineBound`),
    and ``check`` sees each block as it is read (a format's reader stops endless
    data that is not its format at the first line).
    A path that is not a regular file (a pipe, ``<(zcat f.gz)``) is read once: a
    second read in the same process returns the same text (:func:`_stream_text`).
    """
    if is_stream(path):
        return _stream_text(path, role, bound, check)
    with _open(os.fspath(path), role) as handle:
        return _collect(handle, path, role, bound, check)


def _collect(handle: BinaryIO, path: str | os.PathLike[str], role: str,
             bound: LineBound | None, check: BlockCheck | None = None) -> str:
    """The checked text of ``handle`` (:func:`checked_blocks`), within ``bound``."""
    what = describe(path, role)
    parts = []
    lines = 0
    for text in checked_blocks(handle, what, display_name(path)):
        lines = _within(bound, what, lines, text)
        if check is not None:
            check(text)
        parts.append(text)
    return "".join(parts)


@dataclass(frozen=True)
class LineBound:
    """The number of lines an input must have (that of another input already read):
    a stream is read only until it shows more (:func:`read_lines`), so endless input
    (``yes | gecmetrics score ... -c -``) stops at the first line too many.

    ``name`` names the input counted ("source file source.txt") and ``unit`` what
    it counted ("line"; "sentence" for an M2 file).
    """

    count: int
    name: str
    unit: str = "line"

    def error(self, what: str) -> InputError:
        """The message for ``what``, which has more lines than :attr:`count`."""
        counted = self.count if self.unit == "line" else plural(self.count, self.unit)
        return InputError(f"{what} has more than {plural(self.count, 'line')} but {self.name} "
                          f"has {counted}; every file needs one line per source sentence")


def _within(bound: LineBound | None, what: str, lines: int, text: str) -> int:
    """Lines ended so far, after ``text``; raises once they pass ``bound``. A text
    after the last line end that ``bound`` allows is a line too many."""
    lines += text.count("\n")
    if bound is not None and (lines > bound.count or (lines == bound.count and text
                                                        and not text.endswith("\n"))):
        raise bound.error(what)
    return lines


#: Streams read so far: (device, inode) -> (the open handle, its text). The handle
#: stays open so that no other pipe can take the inode while the entry lives.
_STREAMS: dict[tuple[int, int], tuple[BinaryIO, str]] = {}


def _stream_text(path: str | os.PathLike[str], role: str, bound: LineBound | None,
                 check: BlockCheck | None = None) -> str:
    """The text of standard input, a pipe, a FIFO or a device, read once per process
    (the kernel keeps no copy: a second read would find it empty, and ``count_lines``
    then ``read_lines`` would see "0 lines"). A second read is checked against
    ``bound`` like the first. A stream without a descriptor (a test's in-memory
    standard input) is read each time it is asked for."""
    what = describe(path, role)
    try:  # looked up before opening: opening a FIFO waits for a writer
        info = os.fstat(sys.stdin.buffer.fileno()) if is_stdin(path) else os.stat(path)
        key: tuple[int, int] | None = (info.st_dev, info.st_ino)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        key = None
    if key is not None and key in _STREAMS:
        text = _STREAMS[key][1]
        _within(bound, what, 0, text)
        if check is not None:
            check(text)
        return text
    handle = sys.stdin.buffer if is_stdin(path) else _open(os.fspath(path), role)
    try:
        text = _collect(handle, path, role, bound, check)
    except BaseException:
        if handle is not sys.stdin.buffer:
            handle.close()
        raise
    if key is not None:
        _STREAMS[key] = (handle, text)
    elif handle is not sys.stdin.buffer:
        handle.close()
    return text


def is_stream(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is standard input or names something that is not a regular
    file (a pipe, ``<(zcat f.gz)``, a FIFO, a device): what can be read only once, and
    only from its start. A path that cannot be looked at is not one (its reader says
    why)."""
    if is_stdin(path):
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_lines(path: str | os.PathLike[str], role: str = "input",
               expected: str = "one sentence a line", bound: LineBound | None = None,
               check: BlockCheck | None = None) -> list[str]:
    """Read a UTF-8 file (or standard input, for ``-``) into a list of lines.

    Bad input raises :class:`InputError` with one clear line. ``role`` names
    the file's job ("source", "reference", "hypothesis") in messages, so a
    user knows which option to correct; ``expected`` says what an empty file
    should have held (an M2 file is not one sentence a line); ``bound`` stops the
    reading at the first line past its count (:class:`LineBound`); ``check`` sees
    each block as it is read (:func:`read_text`). A MultiGEC essay file (a line
    ``### essay_id = ID``) is refused: its headers and paragraphs would be read as
    sentences (:mod:`gecmetrics.essays` reads such files).
    """
    text = read_text(path, role, bound, check)
    if ESSAY_MARK in text:
        _refuse_essays(text, describe(path, role))
    return nonempty_lines(text, path, role, expected)


def nonempty_lines(text: str, path: str | os.PathLike[str], role: str = "input",
                   expected: str = "one sentence a line") -> list[str]:
    """The lines of ``text`` read from ``path`` (:func:`split_lines`); an empty input is
    an error naming it and what it should have held."""
    lines = split_lines(text)
    if not lines:
        raise _empty(path, role, expected)
    return lines


def open_text(path: str | os.PathLike[str], role: str, expected: str) -> io.StringIO:
    """The checked text of a file (:func:`read_text`; empty is an error, as in
    :func:`read_lines`) as a file object, for a parser that reads one (``csv``).

    Line ends are left to the parser (a quoted CSV field may hold a CRLF)."""
    text = read_text(path, role)
    if not text:
        raise _empty(path, role, expected)
    return io.StringIO(text, newline="")


def _empty(path: str | os.PathLike[str], role: str, expected: str) -> InputError:
    if is_stdin(path):
        return InputError(f"{role} from standard input is empty (expected {expected})")
    return InputError(f"{role} file is empty: {display_name(path)} (expected {expected})")


#: The header line of a MultiGEC essay block (``### essay_id = 17``), the format of
#: :mod:`gecmetrics.essays`; defined here, below it, so that every line reader knows it.
ESSAY_HEADER = re.compile(r"### essay_id =(.*)")
#: What every essay header starts with: text without it holds no essay.
ESSAY_MARK = "### essay_id ="


def essay_header_line(text: str) -> int | None:
    """The 1-based number of the first essay header line of ``text`` (None: none)."""
    at = text.find(ESSAY_MARK)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        if ESSAY_HEADER.fullmatch(text[start:len(text) if end < 0 else end].rstrip()):
            return text.count("\n", 0, start) + 1
        at = text.find(ESSAY_MARK, at + 1)
    return None


def _refuse_essays(text: str, what: str) -> None:
    line = essay_header_line(text)
    if line is not None:
        raise InputError(
            f"{what} holds MultiGEC essays (line {line} is an '{ESSAY_MARK} ID' header) where "
            "one sentence a line is expected; score essays with `gecmetrics multigec`, or give "
            "the essay files by name (not through a pipe) to score, report or attribute")


# A CR that does not end a CRLF pair; a CR that ends the text is a harmless
# final terminator and is stripped like the CR of CRLF.
LONE_CR = re.compile(r"\r(?!\n|\Z)")


def _lone_cr_message(what: str, name: str, text: str, at: int, lines_before: int = 0) -> str:
    """``text`` begins at line ``lines_before + 1`` of the input (a block of a file
    read by :func:`count_lines`)."""
    fix = f"`tr '\\r' '\\n' < {name} > fixed.txt` or `dos2unix -c mac {name}`"
    if "\n" not in text and not lines_before:
        return (f"{what} has carriage-return (\\r) line ends (old Mac style), which would make "
                f"it one line; convert them to LF, e.g. with {fix}")
    line_no = lines_before + text.count("\n", 0, at) + 1
    return (f"{what} has a carriage return (\\r) not followed by a newline in line {line_no}: "
            f"mixed line ends or a stray \\r; lines must end in LF or CRLF (for CR line ends "
            f"convert with {fix}, else delete the stray \\r)")


def _utf8_message(what: str, data: bytes | bytearray, start: int, offset: int = 0,
                  lines_before: int = 0) -> str:
    """``data`` begins at byte ``offset``, line ``lines_before + 1``, of the input."""
    line_no = lines_before + data.count(b"\n", 0, start) + 1
    return (f"{what} is not valid UTF-8 (byte {offset + start}, line {line_no}); "
            "convert it, e.g. with `iconv -f LATIN1 -t UTF-8`")


# Byte-order marks, longest first (UTF-32LE's begins with UTF-16LE's).
BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
        (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))

# Without a byte-order mark, mostly-ASCII UTF-16/32 text shows as NUL bytes in fixed
# positions of each code unit: (encoding, code unit size, positions of the NULs).
NUL_PATTERNS = (("UTF-32LE", 4, (1, 2, 3)), ("UTF-32BE", 4, (0, 1, 2)),
                ("UTF-16LE", 2, (1,)), ("UTF-16BE", 2, (0,)))


def _wrong_encoding(data: bytes | bytearray) -> str | None:
    """"UTF-16"/"UTF-32" (a byte-order mark), "UTF-16LE" etc. (no mark: NUL bytes in
    every other position of the first 4 KB), "binary" (other NUL bytes), or None.

    UTF-16 text of ASCII letters is valid UTF-8 (the NULs decode), so without this
    check it would be read as text with a NUL after every letter.
    """
    for bom, encoding in BOMS:
        if data.startswith(bom):
            return encoding
    if b"\x00" not in data:
        return None
    head = bytes(data[:4096])
    for encoding, step, zeros in NUL_PATTERNS:
        units = [head[k::step] for k in range(step)]
        if all(units) and all(
                (unit.count(0) >= 0.9 * len(unit)) if k in zeros
                else (unit.count(0) <= 0.1 * len(unit)) for k, unit in enumerate(units)):
            return encoding
    return "binary"


def _encoding_message(what: str, name: str, data: bytes | bytearray, encoding: str,
                      offset: int = 0, lines_before: int = 0) -> str:
    """``data`` begins at byte ``offset``, line ``lines_before + 1``, of the input."""
    if encoding == "binary":
        at = data.find(b"\x00")
        line_no = lines_before + data.count(b"\n", 0, at) + 1
        return (f"{what} holds a NUL byte (byte {offset + at}, line {line_no}): a binary "
                "file, or UTF-16/UTF-32 text? expected UTF-8 text, one sentence a line "
                "(convert text with `iconv -f ENCODING -t UTF-8`)")
    convert = f"iconv -f {encoding} -t UTF-8"
    if name != display_name(STDIN):
        convert += f" {name} > {name}.utf8"
    return f"{what} is {encoding} text, not UTF-8; convert it, e.g. with `{convert}`"


def _open(path: str, role: str) -> BinaryIO:
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"{role} file not found: {path} (check the path)") from None
    except IsADirectoryError:
        raise InputError(f"{role} path is a directory, not a file: {path}") from None
    except PermissionError:
        raise InputError(f"{role} file is not readable: {path} (check its permissions)") from None


def line_blocks(handle: BinaryIO, what: str) -> Iterator[bytes]:
    """:func:`read_blocks`' bytes regrouped into blocks that end at a line end (the
    last one may not), so each block decodes and splits on its own."""
    pending: list[bytes] = []  # the start of a line longer than a block
    for data in read_blocks(handle, what):
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            pending.append(data)
            continue
        yield b"".join([*pending, data[:cut]]) if pending else data[:cut]
        pending = [data[cut:]] if cut < len(data) else []
    if pending:
        yield b"".join(pending)


def checked_blocks(handle: BinaryIO, what: str, name: str) -> Iterator[str]:
    """The text of ``handle``, decoded a block of whole lines at a time
    (:func:`line_blocks`), each block checked before it is yielded: byte-order mark
    removed, and :class:`InputError` for UTF-16/UTF-32, NUL bytes, bytes that are not
    UTF-8 or a lone CR, with byte and line numbers counted from the start of the
    input. So bad data stops at its first block, however long the input."""
    count = offset = 0
    for block in line_blocks(handle, what):
        encoding = _wrong_encoding(block) if offset == 0 else (
            "binary" if b"\x00" in block else None)
        if encoding is not None:
            raise InputError(_encoding_message(what, name, block, encoding, offset, count))
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InputError(_utf8_message(what, block, err.start, offset, count)) from None
        if offset == 0:
            text = text.removeprefix("\ufeff")
        lone_cr = LONE_CR.search(text)
        if lone_cr:
            raise InputError(_lone_cr_message(what, name, text, lone_cr.start(), count))
        count += text.count("\n")
        offset += len(block)
        yield text


def count_lines(path: str, role: str) -> int:
    """The number of lines of the file ``path``, checked as :func:`read_lines` checks
    it (the same messages, with the same byte and line numbers), one block at a time:
    memory does not grow with the file."""
    what, name = describe(path, role), display_name(path)
    count = 0
    last = ""
    with _open(path, role) as handle:
        for text in checked_blocks(handle, what, name):
            count += text.count("\n")
            last = text[-1:] or last
    if last and last != "\n":
        count += 1
    if count == 0:
        raise InputError(f"{role} file is empty: {name} (expected one sentence a line)")
    return count


def read_bounded(inputs: Sequence[tuple[str, str]], bound: LineBound | None = None
                 ) -> list[list[str]]:
    """The lines of each ``(path, role)`` (:func:`~gecmetrics.readers.read_lines`),
    which must all have as many: regular files first, in order, then the streams
    (standard input, pipes), each read only up to the count of the first input
    read (or ``bound``, e.g. an M2 file's sentences), so an endless stream stops at
    its first line too many. When every input is a stream, the first is read whole
    (its lines within the line limit), as a file would be; a regular file is read
    whole, so its count is named exactly."""
    streams = [is_stream(path) for path, _ in inputs]
    out: list[list[str]] = [[] for _ in inputs]
    for i in sorted(range(len(inputs)), key=streams.__getitem__):
        path, role = inputs[i]
        out[i] = read_lines(path, role, bound=bound if streams[i] else None)
        if bound is None:
            bound = LineBound(len(out[i]), describe(path, role))
    return out


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
                f"{name} has {plural(len(lines), 'line')} but {first_name} has {len(first)}; "
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


def parse_json(text: str, what: str, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any]
               | None = None, error: type[GecMetricsError] = InputError) -> Any:
    """``json.loads(text)`` for every JSON a user gives (``--scores``, ``--run``,
    annotation and description files): invalid JSON is one line naming ``what`` (a
    file) with the line and column, and JSON nested deeper than Python's parser
    follows (its recursion limit, about 1,000 levels; gecmetrics' own files nest a
    few) is one line too, not a ``RecursionError``. ``error`` is the class raised."""
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as err:
        raise error(f"{what}:{err.lineno}: not valid JSON ({err.msg}, column {err.colno})"
                    ) from None
    except RecursionError:
        raise error(f"{what}: JSON nested more than {sys.getrecursionlimit():,} levels deep "
                    "(arrays or objects inside each other), deeper than can be read; this "
                    "is not a file gecmetrics reads (its JSON nests a few levels)") from None


def line_count_error(name: str, lines: int, source_name: str, source_lines: int) -> InputError:
    return InputError(f"{name} has {plural(lines, 'line')} but {source_name} has {source_lines}; "
                      "every file needs one line per source sentence")
