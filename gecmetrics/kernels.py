"""Which compute kernel runs: the compiled one, or the pure-Python code that gives the
same numbers more slowly, and a word on the terminal when that choice is a surprise.

An installed gecmetrics without its kernels is a documented choice (no C compiler at
install time). A source checkout without them is usually an accident: Python started in
the repository root imports the checkout's ``gecmetrics/`` ahead of the installed copy,
and the checkout has no kernels until they are built in place. So the first time a
kernel is wanted and missing in a checkout, one line on stderr says which code runs and
how to build the kernels. Only on a terminal, like the progress bars: logs, pipes and
captured output stay exactly as they were. ``GECMETRICS_KERNEL=python`` asks for the
pure-Python code on purpose, and silences the word.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: The package folder; a source checkout has setup.py and pyproject.toml beside it.
PACKAGE = Path(__file__).resolve().parent

_said: set[str] = set()


def forced_python() -> bool:
    """True where ``GECMETRICS_KERNEL=python`` asks for the pure-Python kernels."""
    return os.environ.get("GECMETRICS_KERNEL") == "python"


def in_checkout() -> bool:
    """True when this package is imported from a source checkout, not an install."""
    top = PACKAGE.parent
    return (top / "setup.py").is_file() and (top / "pyproject.toml").is_file()


def notice(kernel: str) -> str:
    """The one line said when ``kernel`` is missing from a checkout."""
    return (f"gecmetrics: the compiled kernel {kernel} is not built in the checkout "
            f"{PACKAGE.parent}, so the pure-Python code runs (same numbers, slower); build "
            "the kernels with `pip install -e .`, or run outside the checkout to use the "
            "installed package")


def missing(kernel: str) -> None:
    """Call where ``kernel`` is wanted but not built: says :func:`notice` once per
    process and kernel, on a terminal, in a checkout, unless asked for python."""
    if kernel in _said or forced_python() or not in_checkout():
        return
    _said.add(kernel)
    if sys.stderr is not None and sys.stderr.isatty():
        print(notice(kernel), file=sys.stderr)
