"""The old import paths of the modules that moved into gecmetrics.interface and
gecmetrics.workflows still give the very same modules (gecmetrics/moved.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from gecmetrics.moved import MOVED, new_name


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_module_at_its_new_place(old):
    module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])
    assert module.__spec__.name == MOVED[old]  # its own spec, not the alias's


def test_submodules_of_a_moved_package_are_one_module_each():
    from gecmetrics.interface.commands import common as new

    assert importlib.import_module("gecmetrics.commands.common") is new
    assert sys.modules["gecmetrics.commands.common"] is new


def test_names_that_did_not_move_are_left_alone():
    assert new_name("gecmetrics.corpus") is None
    assert new_name("gecmetrics.cliche") is None
    assert new_name("gecmetrics.commands.score") == "gecmetrics.interface.commands.score"


def test_python_dash_m_an_old_path_runs_the_new_module():
    done = subprocess.run([sys.executable, "-m", "gecmetrics.cli", "--version"],
                          capture_output=True, text=True, timeout=60, cwd="/")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("python -m gecmetrics.cli, version ")
