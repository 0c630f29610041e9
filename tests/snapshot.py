"""Comparing results with a snapshot recorded by an earlier run or another program.

A snapshot outlives the numpy, scipy and BLAS that made it, whose floating-point
sums may differ in the last bits; so floats compare to an absolute tolerance
(1e-12 unless stated), and everything else exactly: the keys of a mapping and
their order, the length of a list, strings, integers, booleans, None.
"""

from __future__ import annotations

from typing import Any

#: the tolerance of a float in a snapshot
TOLERANCE = 1e-12


def assert_matches(got: Any, want: Any, tol: float = TOLERANCE, where: str = "") -> None:
    """``got`` equals the snapshot ``want``, floats within ``tol``; an AssertionError
    names the first place that differs (``where``: the path to it)."""
    if isinstance(want, dict):
        assert isinstance(got, dict), f"{where}: {got!r} is not a mapping"
        assert list(got) == list(want), f"{where}: keys {list(got)} != {list(want)}"
        for key, value in want.items():
            assert_matches(got[key], value, tol, f"{where}[{key!r}]")
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), \
            f"{where}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_matches(g, w, tol, f"{where}[{i}]")
    elif isinstance(want, float):
        assert isinstance(got, float) and abs(got - want) <= tol, \
            f"{where}: {got!r} != {want!r} (tolerance {tol})"
    else:
        assert type(got) is type(want) and got == want, f"{where}: {got!r} != {want!r}"
