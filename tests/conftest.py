"""Shared fixtures: where the real data lives, and the CoNLL-2014 corpus read once."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # test-only helpers (oracles)

SHARED_DATA = Path(
    os.environ.get("GECMETRICS_SHARED_DATA")
    or Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
).resolve()
CONLL_M2 = SHARED_DATA / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"
SUBMISSIONS = SHARED_DATA / "official_submissions"
TEAMS = ["AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC"]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not CONLL_M2.exists():
        pytest.fail(f"real data not found at {SHARED_DATA}; set GECMETRICS_SHARED_DATA")
    return SHARED_DATA


@pytest.fixture(scope="session")
def conll(shared_data):
    """Sources, both references (lenient reading) and the 12 teams + INPUT + NULL."""
    from gecmetrics.m2 import read_m2
    from gecmetrics.readers import read_lines

    m2 = read_m2(CONLL_M2)
    sources = m2.sources
    hyps = {team: read_lines(SUBMISSIONS / team, "hypothesis") for team in TEAMS}
    hyps["INPUT"] = list(sources)
    hyps["NULL"] = [""] * len(sources)
    return sources, m2.references(), hyps
