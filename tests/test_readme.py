"""The README's quickstart output is what the command prints (docs stay true)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from gecmetrics.interface.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_quickstart_output_matches(monkeypatch):
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quickstart", 1)[1]
    command, output = re.findall(r"```(?:sh)?\n(.*?)```", section, re.S)[:2]
    args = shlex.split(command.replace("\\\n", " "))
    assert args[0] == "gecmetrics"
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, args[1:])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == output.strip()  # notes go to stderr


def test_readme_test_commands_and_ci_runs_the_full_one():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Tests", 1)[1].split("\n## ", 1)[0]
    commands = [c.strip() for c in re.findall(r"```sh\n(.*?)```", section, re.S)]
    assert commands == ["pytest", "pytest -m full"]  # the fast tier, then everything
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == commands[1]


@pytest.mark.full
def test_meta_eval_quickstart_output_matches(monkeypatch, shared_data):
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quickstart", 1)[1].split("## Tests", 1)[0]
    blocks = re.findall(r"```(?:sh)?\n(.*?)```", section, re.S)
    command = next(b for b in blocks if b.startswith("gecmetrics meta-eval"))
    output = blocks[blocks.index(command) + 1]
    args = shlex.split(command.replace("\\\n", " ").replace("DIR", str(shared_data)))
    result = CliRunner().invoke(main, args[1:])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == output.strip()  # notes go to stderr


@pytest.mark.full
def test_meta_eval_page_quickstart_output_matches(shared_data):
    """docs/meta-eval.md's quickstart prints what the page shows."""
    page = (ROOT / "docs" / "meta-eval.md").read_text()
    section = page.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(?:sh)?\n(.*?)```", section, re.S)
    command = next(b for b in blocks if b.startswith("gecmetrics meta-eval"))
    output = blocks[blocks.index(command) + 1]
    args = shlex.split(command.replace("\\\n", " ").replace("~/gec-data", str(shared_data)))
    result = CliRunner().invoke(main, args[1:])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == output.strip()
