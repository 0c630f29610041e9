"""The ``gecmetrics`` console script.

Importing the CLI (click, the commands) takes a few hundred milliseconds; a
Ctrl-C in that window would otherwise end in a KeyboardInterrupt traceback,
because :func:`gecmetrics.interface.cli.run`, which turns signals into one line, has not
started yet. So the script imports the CLI here, inside the same handling.
"""

from __future__ import annotations

import signal
import sys


def main() -> None:
    try:
        from .cli import run
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        from .commands.common import INTERRUPTED

        print(f"error: {INTERRUPTED.message}", file=sys.stderr)
        sys.exit(INTERRUPTED.code)
    run()
