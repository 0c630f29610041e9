"""The tokenizers that run in a third-party library (``ja``, ``ko``, ``zh``): a
bound on the line each is given, and a call that Ctrl-C can interrupt.

Such a library's time per line grows faster than its length (Kiwi, ``ko``: about
1 s for 100 KB of ordinary text, 8 s for 300 KB, minutes for 0.75 MB), and while
it runs in C or C++ Python's signal handlers wait. So:

* every line given to one is at most :data:`MAX_LINE_BYTES` long in UTF-8 (32 KiB:
  nine times the longest line of the public benchmarks), checked for every line
  of every input before any line is tokenized (:func:`check_lines`), and again
  by the tokenizer function itself (:func:`bounded`) for callers of the Python
  API. At the bound the slowest input measured (docs/tokenizers.md, "Line
  length and time") takes about 4 s with ``ko`` on a busy machine and well
  under a second with ``ja`` and ``zh``. A longer line is one ``error:`` line
  naming the limit and the environment variable :data:`ENV_MAX_LINE_BYTES`
  that raises it.
* a line of :data:`THREAD_CHARS` characters or more is tokenized in a helper thread
  while the calling thread waits on a lock, which a signal interrupts: Kiwi
  releases the GIL while it works, so Ctrl-C and SIGTERM (which the CLI turns
  into exceptions) act at once instead of when the line is done. MeCab (``ja``)
  keeps the GIL but takes milliseconds for a line at the bound, and jieba
  (``zh``) is Python, which runs signal handlers as it goes. (Kiwi's model
  load, before its first line, holds the GIL: a signal then waits for it.)
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

from ..errors import InputError
from ..readers import env_bytes
from .entry import Split

#: The longest line, in UTF-8 bytes, given to a tokenizer that runs in a
#: third-party library (a :class:`~gecmetrics.tokenizers.entry.TokenizerSpec`
#: with ``external=True``); raise it for one run with :data:`ENV_MAX_LINE_BYTES`.
MAX_LINE_BYTES = 32 << 10

#: The environment variable that sets :data:`MAX_LINE_BYTES` (a whole number of
#: bytes), for the command line and the Python API alike.
ENV_MAX_LINE_BYTES = "GECMETRICS_MAX_TOKENIZE_BYTES"

#: Lines at least this long (in characters) are tokenized in a helper thread
#: (:func:`bounded`): Kiwi takes about 10 ms for them, ten times what starting
#: a thread costs, so shorter lines, nearly all real ones, are called directly.
THREAD_CHARS = 2048

#: How often the waiting thread wakes: a signal that the kernel delivers to
#: another thread (the helper, or one of the library's own) does not end the
#: wait, but its handler runs at the next wake-up.
WAIT_S = 0.05


def max_line_bytes() -> int:
    """The bound of this run: :data:`ENV_MAX_LINE_BYTES` if set, else :data:`MAX_LINE_BYTES`."""
    return env_bytes(ENV_MAX_LINE_BYTES, MAX_LINE_BYTES)


def too_long(name: str, line: str, limit: int | None = None) -> str | None:
    """Why ``line`` is too long for tokenizer ``name`` (the message's tail), or None."""
    limit = max_line_bytes() if limit is None else limit
    if len(line) * 4 <= limit:  # at most 4 bytes a character: no need to encode
        return None
    size = len(line.encode("utf-8", "surrogatepass"))
    if size <= limit:
        return None
    return (f"a line of {size:,} bytes is longer than tokenizer {name!r} takes: at most "
            f"{limit:,} bytes a line, so that a line takes seconds, not minutes "
            f"(docs/tokenizers.md); split the line into sentences, or set the environment "
            f"variable {ENV_MAX_LINE_BYTES}={_raised(size)} to allow it")


def _raised(size: int) -> int:
    """A round value of the limit that allows ``size`` bytes."""
    step = 1 << 10
    return -(-size // step) * step


def check_lines(name: str, named: Iterable[tuple[str, Sequence[str]]]) -> None:
    """InputError naming the first line of ``named`` ((what, lines), e.g. ("source",
    lines)) too long for tokenizer ``name``; run before any line is tokenized."""
    limit = max_line_bytes()
    for what, lines in named:
        for number, line in enumerate(lines, start=1):
            problem = too_long(name, line, limit)
            if problem is not None:
                raise InputError(f"{what} line {number}: {problem}")


def bounded(name: str, split: Split) -> Split:
    """``split`` checked against :data:`MAX_LINE_BYTES` and called so that a signal
    interrupts it on a long line (see the module's docstring)."""

    def call(line: str) -> list[str]:
        problem = too_long(name, line)
        if problem is not None:
            raise InputError(problem)
        return split(line) if len(line) < THREAD_CHARS else _in_thread(split, line)

    return call


#: The helper threads of :func:`_in_thread` still inside the library.
_RUNNING: set[threading.Thread] = set()


def busy() -> bool:
    """Whether a helper thread is still inside the library (its caller's wait was ended by
    a signal). The process must then end without finalizing Python: finalization stops
    such a thread in the middle of the library's C++ code, which aborts the process
    (exit code -6) instead of exiting with the signal's code."""
    return any(thread.is_alive() for thread in _RUNNING)


def _in_thread(split: Split, line: str) -> list[str]:
    """``split(line)`` in a daemon thread while the caller waits, waking every
    :data:`WAIT_S` so that a signal handler's exception ends the wait (the
    thread then dies with the process; it holds the tokenizer, so the library's
    object is never freed under it)."""
    result: list[object] = []
    done = threading.Event()

    def work() -> None:
        try:
            result.append(split(line))
        except BaseException as err:  # handed to the caller
            result.append(err)
        finally:
            _RUNNING.discard(threading.current_thread())
            done.set()

    thread = threading.Thread(target=work, name="gecmetrics-tokenize", daemon=True)
    _RUNNING.add(thread)
    thread.start()
    while not done.wait(WAIT_S):  # the signal may land in another thread: look again
        pass
    if isinstance(result[0], BaseException):
        raise result[0]
    return result[0]  # type: ignore[return-value]
