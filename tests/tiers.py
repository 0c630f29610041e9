"""How many random examples a property test draws in each test tier.

The fast tier (plain ``pytest``) is the one run all the time, so its property
tests draw a quarter of the examples; ``pytest -m full`` (CI, before each stop)
draws them all. ``conftest.pytest_configure`` sets :data:`FULL` before any test
module is imported, and each ``@settings(max_examples=examples(N))`` reads it
then.
"""

from __future__ import annotations

#: True when the run is ``pytest -m full``; set by conftest before collection.
FULL = False
#: The share of examples the fast tier draws, and the least it draws.
FAST_SHARE = 4
FAST_MINIMUM = 10


def examples(full: int) -> int:
    """``full`` examples in the full tier, a quarter (at least 10) in the fast one."""
    return full if FULL else max(FAST_MINIMUM, full // FAST_SHARE)
