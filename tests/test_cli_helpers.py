"""The shared CLI helpers live in gecmetrics/interface/commands/common.py, so commands do not
import gecmetrics.interface.cli (which imports them: an import cycle)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import gecmetrics.interface.commands as commands_pkg
from gecmetrics.interface.commands import common


def test_no_command_imports_the_cli_module():
    folder = Path(commands_pkg.__file__).parent
    modules = sorted(folder.glob("*.py"))
    assert len(modules) > 3
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                target = "." * node.level + (node.module or "")
                assert target not in ("..cli", "gecmetrics.interface.cli"), \
                    f"{path.name} imports {target}"


def test_a_command_imports_on_its_own():
    # A fresh interpreter: importing a command must not go through gecmetrics.interface.cli.
    code = ("import gecmetrics.interface.commands.score as s,"
            " gecmetrics.interface.commands.common as c, sys;"
            "sys.exit(0 if 'gecmetrics.interface.cli' not in sys.modules and s.friendly_errors is "
            "c.friendly_errors else 1)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
    from gecmetrics.interface import cli

    assert cli.Stopped is common.Stopped


def test_score_level_choices_are_the_metric_levels():
    from gecmetrics.interface.commands.score import score
    from gecmetrics.metric import LEVELS, Metric

    level = next(p for p in score.params if p.name == "level")
    assert tuple(level.type.choices) == LEVELS == ("corpus", "sentence", "mean")
    assert Metric.evaluate.__defaults__[0] in LEVELS
