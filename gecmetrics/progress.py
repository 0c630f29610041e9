"""Progress bars on stderr, drawn (by tqdm) only when stderr is a terminal.

The one helper every long loop uses (downloads, spaCy parsing, model
inference). When the stream is not a terminal (a pipe, a log file, a test) or
the caller asks for no bar, :func:`bar` returns an object that does nothing,
so output that is captured stays clean; tqdm is imported only when a bar is
really drawn, so importing this module (and starting the CLI) costs nothing.
"""

from __future__ import annotations

import sys
from typing import Any, Protocol, TextIO


class Bar(Protocol):
    """What callers use of a bar: the calls tqdm's bars and :class:`_Off` both answer."""

    def update(self, n: float = 1) -> Any: ...

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None: ...

    def close(self) -> None: ...


class _Off:
    """The bar that is not drawn."""

    def update(self, n: float = 1) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass


def bar(total: int, label: str, *, enabled: bool = True, stream: TextIO | None = None,
        unit: str = "it", leave: bool = True) -> Bar:
    """A progress bar of ``total`` steps titled ``label`` on ``stream`` (default stderr).

    Drawn only if ``enabled``, ``total`` is positive and the stream is a terminal.
    ``unit="B"`` counts bytes (shown as kB, MB). ``leave=False`` erases the bar when
    it is closed; otherwise its last state stays on the terminal.
    """
    out = sys.stderr if stream is None else stream
    if not (enabled and total > 0 and getattr(out, "isatty", lambda: False)()):
        return _Off()
    from tqdm import tqdm

    return tqdm(total=total, desc=label, file=out, unit=unit, unit_scale=unit == "B",
                leave=leave, dynamic_ncols=True)


def note(text: str, stream: TextIO | None = None) -> None:
    """``text`` as one line on ``stream`` (default stderr), e.g. a retry of a request.

    On a terminal where a bar may be drawn, through ``tqdm.write``, which moves
    the bar below the line instead of cutting it; elsewhere (a pipe, a log) a
    plain line.
    """
    out = sys.stderr if stream is None else stream
    loaded = sys.modules.get("tqdm")  # a bar can be on screen only if tqdm was imported
    if loaded is not None and getattr(out, "isatty", lambda: False)():
        loaded.tqdm.write(text, file=out)
        return
    try:
        print(text, file=out, flush=True)
    except OSError:  # stderr closed: a note is not worth failing for
        pass
