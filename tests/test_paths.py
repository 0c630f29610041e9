"""One rule for the data folder and the parse cache (gecmetrics.paths), used by every caller."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gecmetrics import download, paths
from gecmetrics.meta_eval.benchmarks import data_root

VARS = ("GECMETRICS_DATA", "GECMETRICS_CACHE", "XDG_CACHE_HOME")
# code that reads one of the variables, or builds a path under ~/.cache
READS = re.compile(r"""(environ\.get\(|environ\[|getenv\()\s*["']"""
                   r"""(GECMETRICS_DATA|GECMETRICS_CACHE|XDG_CACHE_HOME)|["']\.cache["']""")


@pytest.fixture
def env(monkeypatch, tmp_path):
    """A clean environment with HOME in tmp_path; returns monkeypatch."""
    for name in VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return monkeypatch


def every_data_dir() -> set[Path]:
    """What each caller that needs the data folder resolves it to."""
    return {paths.data_dir(), download.resolve_data_dir(None), data_root(None)}


def test_defaults_under_home(env, tmp_path):
    home = tmp_path / "home"
    assert every_data_dir() == {home / ".cache" / "gecmetrics"}
    assert paths.parse_cache_dir() == home / ".cache" / "gecmetrics" / "parses"


def test_xdg_cache_home_moves_both(env, tmp_path):
    env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert every_data_dir() == {tmp_path / "xdg" / "gecmetrics"}
    assert paths.parse_cache_dir() == tmp_path / "xdg" / "gecmetrics" / "parses"


def test_relative_xdg_cache_home_is_ignored(env, tmp_path):
    # the XDG base-directory spec: relative paths are invalid and must be ignored
    env.setenv("XDG_CACHE_HOME", "relative/cache")
    assert every_data_dir() == {tmp_path / "home" / ".cache" / "gecmetrics"}


def test_specific_variables_win_and_are_independent(env, tmp_path):
    env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    env.setenv("GECMETRICS_DATA", str(tmp_path / "data"))
    assert every_data_dir() == {tmp_path / "data"}
    # the parse cache stays under the cache root: GECMETRICS_DATA is the data folder only
    assert paths.parse_cache_dir() == tmp_path / "xdg" / "gecmetrics" / "parses"
    env.setenv("GECMETRICS_CACHE", "~/parses")
    assert paths.parse_cache_dir() == tmp_path / "home" / "parses"
    assert every_data_dir() == {tmp_path / "data"}


def test_explicit_folder_wins(env, tmp_path):
    env.setenv("GECMETRICS_DATA", str(tmp_path / "data"))
    given = tmp_path / "given"
    assert paths.data_dir(given) == download.resolve_data_dir(given) == data_root(given) == given
    assert paths.data_dir("~/d") == tmp_path / "home" / "d"


def test_no_other_module_reads_the_variables():
    """The rule lives in one module: no other source file names the variables."""
    root = Path(__file__).resolve().parents[1]
    offenders = []
    for folder in ("gecmetrics", "metrics", "meta_eval"):
        for path in (root / folder).rglob("*.py"):
            if path.name == "paths.py":
                continue
            text = path.read_text(encoding="utf-8")
            offenders += [f"{path.relative_to(root)}: {m.group(0)}" for m in READS.finditer(text)]
    assert offenders == []


def test_edit_cache_follows_gecmetrics_cache_else_the_cache_root(env, tmp_path):
    assert paths.edit_cache_dir() == tmp_path / "home" / ".cache" / "gecmetrics" / "edits"
    env.setenv("GECMETRICS_CACHE", str(tmp_path / "c"))
    assert paths.edit_cache_dir() == tmp_path / "c" / "edits"
