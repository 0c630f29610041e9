"""The CoNLL-2014 test data for the GLEU and chrF tests, read from shared/data.

Where the data lives, and the skip without it, are conftest's (one gate); it
is never copied into the repository. Sources and the references REF0/REF1 come
from the M2 file (its S lines are the INPUT system); the 12 submissions come
from ``official_submissions`` (whose INPUT has trailing spaces, so unused).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from conftest import require_shared_data

from gecmetrics.m2_format import read_m2
from gecmetrics.readers import read_lines

SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC",
           "SJTU", "UFC", "UMC")


def shared_data() -> Path:
    """The data folder; skips the calling test when the data is not there."""
    return require_shared_data()


def m2_path() -> Path:
    return shared_data() / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"


@cache
def conll14() -> tuple[list[str], list[list[str]], dict[str, list[str]]]:
    """(sources, [REF0, REF1], {system: output}) with INPUT = the M2 sources."""
    m2 = read_m2(m2_path())
    sources = m2.sources
    refs = m2.references()
    outputs = {}
    for name in SYSTEMS:
        if name == "INPUT":
            outputs[name] = list(sources)
        else:
            outputs[name] = read_lines(shared_data() / "official_submissions" / name)
    return sources, refs, outputs
