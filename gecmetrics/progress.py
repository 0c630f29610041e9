"""A one-line progress bar on stderr, for long loops (spaCy parsing, model batches)."""

from __future__ import annotations

import sys
import time
from typing import Any


class Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, total: int, label: str, stream: Any = None) -> None:
        self.total, self.label = total, label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = total > 0 and bool(getattr(self.stream, "isatty", lambda: False)())
        self.done = 0
        self._last = 0.0

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.1 or self.done >= self.total):
            self._last = now
            width = 30
            filled = width * self.done // self.total
            self.stream.write(f"\r{self.label} [{'#' * filled}{'-' * (width - filled)}] "
                              f"{self.done}/{self.total}")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
