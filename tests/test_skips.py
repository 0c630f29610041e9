"""The gate of real-data and errant tests (conftest): skip with one reason on a
fresh clone, fail under GECMETRICS_REQUIRE_DATA=1 (CI), pass with the data.

Each case runs pytest in a subprocess on a small test file next to a copy of
the project's own conftest.py, with the environment of that case.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).with_name("conftest.py")

PROBE = '''
import pytest
from conftest import require_shared_data


@pytest.mark.real_data
def test_marked():
    pass


def test_fixture(shared_data):
    pass


def test_helper():
    require_shared_data()


@pytest.mark.errant
def test_extra():
    pass


def test_plain():
    pass
'''


@pytest.fixture
def probe(pytester: pytest.Pytester, monkeypatch, tmp_path):
    shutil.copyfile(CONFTEST, pytester.path / "conftest.py")
    shutil.copyfile(CONFTEST.with_name("tiers.py"), pytester.path / "tiers.py")  # conftest's
    pytester.makepyfile(test_probe=PROBE)
    monkeypatch.setenv("GECMETRICS_SHARED_DATA", str(tmp_path / "no-data-here"))
    monkeypatch.delenv("GECMETRICS_REQUIRE_DATA", raising=False)
    return pytester


@pytest.mark.full
def test_without_data_real_data_tests_skip_with_one_reason(have_errant, probe):
    result = probe.runpytest_subprocess("-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2 if have_errant else 1, skipped=3 if have_errant else 4)
    text = result.stdout.str()
    assert "real evaluation data not found at" in text
    assert "gecmetrics download --data-dir DIR" in text and "GECMETRICS_SHARED_DATA=DIR" in text
    # one reason, the same for the three ways in (marker, fixture, helper)
    reasons = {line.split(": ", 1)[1] for line in text.splitlines()
               if line.startswith("SKIPPED") and "real evaluation data" in line}
    assert len(reasons) == 1


@pytest.mark.full
def test_ci_turns_the_skips_into_failures(have_errant, probe, monkeypatch):
    monkeypatch.setenv("GECMETRICS_REQUIRE_DATA", "1")
    result = probe.runpytest_subprocess("-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert outcomes.get("skipped", 0) == 0
    failed = outcomes.get("failed", 0) + outcomes.get("errors", outcomes.get("error", 0))
    assert failed == (3 if have_errant else 4)
    assert result.ret != 0
    assert "GECMETRICS_REQUIRE_DATA=1: not skipped" in result.stdout.str()


@pytest.mark.full
def test_with_a_complete_data_folder_nothing_skips(probe, monkeypatch, tmp_path):
    from gecmetrics.download import load_manifest

    root = tmp_path / "data"
    for rel in load_manifest()["files"]:  # the layout `gecmetrics download` makes
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    monkeypatch.setenv("GECMETRICS_SHARED_DATA", str(root))
    monkeypatch.setenv("GECMETRICS_REQUIRE_DATA", "1")
    result = probe.runpytest_subprocess("-p", "no:cacheprovider", "-k", "not extra")
    result.assert_outcomes(passed=4)


@pytest.mark.full
def test_without_errant_the_errant_tests_skip(probe, tmp_path, monkeypatch):
    # hide errant from the subprocess: a package of that name whose import fails
    blocker = tmp_path / "blocker"
    (blocker / "errant").mkdir(parents=True)
    (blocker / "errant" / "__init__.py").write_text("raise ImportError('hidden by the test')\n")
    old = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(blocker), *([old] if old else [])]))
    result = probe.runpytest_subprocess("-rs", "-p", "no:cacheprovider", "-k", "extra")
    result.assert_outcomes(skipped=1)
    assert 'the errant extra is not installed (cannot import errant)' in result.stdout.str()
    monkeypatch.setenv("GECMETRICS_REQUIRE_DATA", "1")
    result = probe.runpytest_subprocess("-p", "no:cacheprovider", "-k", "extra")
    assert result.parseoutcomes().get("skipped", 0) == 0 and result.ret != 0


@pytest.fixture(scope="module")
def have_errant() -> bool:
    """Module-scoped, so that errant and spaCy are imported before a test's pytester
    snapshots ``sys.modules``: pytester drops at teardown what a test imported, and
    importing numpy's extension a second time in one process fails."""
    return _have_errant()


def _have_errant() -> bool:
    """Whether the errant extra imports here (as the gate tries it; the probe runs
    inherit this environment)."""
    import importlib

    try:
        for module in ("errant", "spacy"):
            importlib.import_module(module)
    except ImportError:
        return False
    return True
