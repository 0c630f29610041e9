"""The bad-input sweep (tests/trust_cases.py) ends as docs/trust.md says, within bounds.

Every case must end in its exit code within :data:`trust_cases.LIMIT_S` seconds
and :data:`trust_cases.LIMIT_MB` of resident memory; a refusal is exactly one
``error:`` line naming the case's words, never a traceback; and docs/trust.md
shows exactly what the command printed (regenerate the page with
``python docs/generate/make_trust.py`` after changing a message on purpose).
"""

from __future__ import annotations

import importlib.util
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import SHARED_DATA, missing_shared_files, require_shared_data
from trust_cases import (
    CASES,
    LIMIT_MB,
    LIMIT_S,
    Case,
    Outcome,
    make_files,
    markdown_row,
    run_case,
)

PAGE = Path(__file__).resolve().parents[1] / "docs" / "trust.md"
#: a command given a signal ends within this many seconds of it (docs/trust.md)
SIGNAL_S = 1.5


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("trust")
    make_files(path, SHARED_DATA if SHARED_DATA.is_dir() else None)
    return path


def test_case_names_are_unique():
    names = [case.name for case in CASES]
    assert len(names) == len(set(names))


def test_every_case_is_on_the_page():
    page = PAGE.read_text(encoding="utf-8")
    for case in CASES:
        assert f"| {case.name} |" in page, f"{case.name} missing from docs/trust.md"


def _skip_reason(case: Case) -> str | None:
    if case.needs and importlib.util.find_spec(case.needs) is None:
        return f"needs the {case.needs} extra"
    if case.data and missing_shared_files():
        return "needs the evaluation data"
    return None


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest, folder: Path) -> dict[str, Outcome]:
    """Every selected case that can run, run once, a few at a time (as make_trust.py
    runs them): each case is its own process, so the sweep's hundreds of commands
    take a fraction of the time one after another would."""
    selected = [item.callspec.params["case"] for item in request.session.items
                if getattr(item, "originalname", None) == "test_case"]
    runnable = [case for case in selected if _skip_reason(case) is None]
    with ThreadPoolExecutor(max(2, len(os.sched_getaffinity(0)))) as pool:
        done = list(pool.map(
            lambda case: run_case(case, folder, SHARED_DATA if case.data else None), runnable))
    return {case.name: outcome for case, outcome in zip(runnable, done, strict=True)}


@pytest.mark.full
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_case(case: Case, outcomes: dict[str, Outcome]):
    reason = _skip_reason(case)
    if reason is not None:
        if case.data:
            require_shared_data()  # skips, or fails where the data is required
        pytest.skip(reason)
    outcome = outcomes[case.name]
    assert outcome.code == case.code, (outcome.code, outcome.stderr)
    assert outcome.seconds < LIMIT_S
    assert outcome.peak_mb < LIMIT_MB, outcome.peak_mb
    assert not any("Traceback" in line for line in outcome.stderr), outcome.stderr
    if case.interrupt is not None:  # it was still running, and stopped at once
        assert outcome.after_signal is not None, "ended before its signal"
        assert outcome.after_signal < SIGNAL_S, outcome.after_signal
    if case.code != 0:
        assert len(outcome.stderr) == 1 and outcome.stderr[0].startswith("error: "), \
            outcome.stderr
        for word in case.words:
            assert word in outcome.stderr[0], (word, outcome.stderr[0])
    else:
        for word in case.words:
            assert word in outcome.stdout, (word, outcome.stdout[:500])
    if case.same_as_clean:
        assert outcome.same, "the output differs from that of the same files without the fault"
    assert markdown_row(case, outcome) in PAGE.read_text(encoding="utf-8"), (
        "docs/trust.md does not show what this case prints now; regenerate it with "
        "`python docs/generate/make_trust.py`")
