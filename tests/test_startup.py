"""Start-up: a command imports only its own module, the top-level help reads each
command's one line from the source, and plug-ins are found without importlib.metadata
(which alone would cost more than the rest of ``gecmetrics list``)."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import CONLL_M2, SUBMISSIONS, require_shared_data

from gecmetrics import registry
from gecmetrics.entry_points import entry_points
from gecmetrics.interface.cli import COMMANDS, LazyGroup, command_docstring, main
from gecmetrics.m2_format import read_m2


@pytest.mark.parametrize("name", sorted(COMMANDS))
@pytest.mark.parametrize("limit", [30, 45, 80, 200])
def test_help_line_read_from_the_source_is_the_commands_own(name: str, limit: int):
    loaded = LazyGroup.load(name)
    from_source = click.Command(name, help=command_docstring(name))
    assert from_source.get_short_help_str(limit) == loaded.get_short_help_str(limit)


def test_every_command_is_listed_and_runs_its_help():
    listed = CliRunner().invoke(main, ["--help"]).output
    for name in COMMANDS:
        assert f"  {name} " in listed
        assert CliRunner().invoke(main, [name, "--help"]).exit_code == 0


def _modules_after(argv: list[str]) -> set[str]:
    code = ("import sys; from gecmetrics.interface.cli import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            "print(' '.join(sorted(sys.modules)), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True)
    return set(proc.stderr.split())


def test_top_level_help_imports_no_command():
    loaded = _modules_after(["--help"])
    commands = {m for m in loaded if m.startswith("gecmetrics.interface.commands.")}
    assert commands == {"gecmetrics.interface.commands.common"}, commands
    assert "importlib.metadata" not in loaded


def test_a_command_imports_only_its_own_module():
    loaded = _modules_after(["list"])
    assert "gecmetrics.interface.commands.list_metrics" in loaded
    assert "gecmetrics.interface.commands.meta_eval" not in loaded
    assert "importlib.metadata" not in loaded


def test_a_plain_ngram_score_imports_only_what_it_uses(tmp_path):
    """A BLEU run, and a GREEN sweep over betas (on CoNLL-2014, whose references tie at
    some betas: the sweep's exact-choice path runs), load neither the edit metrics, the
    paired tests, the M2 reader, scipy, pandas, nor numpy.ma (np.unique without an index
    asked loads it: 10-20 ms)."""
    require_shared_data()
    m2 = read_m2(CONLL_M2)
    (tmp_path / "s").write_text("\n".join(m2.sources) + "\n", encoding="utf-8")
    refs = []
    for k, ref in enumerate(m2.references()):
        refs.append(str(tmp_path / f"r{k}"))
        (tmp_path / f"r{k}").write_text("\n".join(ref) + "\n", encoding="utf-8")
    files = ["-s", str(tmp_path / "s"), "-r", *refs, "-c", str(SUBMISSIONS / "AMU"),
             str(SUBMISSIONS / "CAMB")]
    for argv in (["score", "-m", "bleu", *files],
                 ["score", "-m", "green", *files,
                  *(a for i in range(50) for a in ("-b", f"{i / 10:.1f}"))]):
        loaded = _modules_after(argv)
        assert "gecmetrics.scoring" in loaded  # it ran
        unused = {"gecmetrics.breakdown", "gecmetrics.edits.metric", "gecmetrics.paired",
                  "gecmetrics.m2_format", "scipy", "pandas", "numpy.ma"}
        assert not unused & loaded, (argv[2], sorted(unused & loaded))


def test_builtin_metric_reads_no_plugin(monkeypatch):
    """A built-in name wins over a plug-in of the same name, so it needs no plug-in scan."""
    def fail(group: str) -> list:
        raise AssertionError("plug-ins read for a built-in metric")

    monkeypatch.setattr(registry, "entry_points", fail)
    assert registry.metric_class("green").__name__ == "Green"


def _dist(folder: Path, name: str, entry_points_txt: str | None, kind: str = "dist-info"):
    info = folder / f"{name}.{kind}"
    info.mkdir(parents=True)
    (info / ("METADATA" if kind == "dist-info" else "PKG-INFO")).write_text(
        f"Metadata-Version: 2.1\nName: {name.split('-')[0]}\nVersion: 1\n")
    if entry_points_txt is not None:
        (info / "entry_points.txt").write_text(entry_points_txt)


def test_entry_points_as_importlib_metadata_finds_them(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    _dist(first, "Plug_One-1.0", "# a comment\n[gecmetrics.metrics]\n one = p1.mod:Cls \n"
          "two=p1.mod:Other [extra]\n# another comment\n[console_scripts]\nx = p1:main\n")
    _dist(first, "no_entry_points-2.0", None)
    _dist(first, "legacy-0.1", "[gecmetrics.metrics]\nthree = legacy:Metric\n", "egg-info")
    # the same distribution again further down the path: importlib.metadata counts it once
    _dist(second, "plug.one-0.9", "[gecmetrics.metrics]\none = old:Cls\n")
    _dist(second, "plug_two-3", "[gecmetrics.metrics]\none = p2:Replaces\n")
    monkeypatch.setattr(sys, "path", [str(first), str(second)])
    for group in ("gecmetrics.metrics", "console_scripts", "nothing"):
        expected = [(ep.name, ep.value) for ep in importlib.metadata.entry_points(group=group)]
        assert [(ep.name, ep.value) for ep in entry_points(group)] == expected
    assert {ep.name: ep.value for ep in entry_points("gecmetrics.metrics")}["one"] == "p2:Replaces"


def test_entry_points_of_this_environment():
    for group in ("console_scripts", "pytest11"):
        expected = [(ep.name, ep.value) for ep in importlib.metadata.entry_points(group=group)]
        assert [(ep.name, ep.value) for ep in entry_points(group)] == expected


def test_entry_point_load():
    from gecmetrics.entry_points import EntryPoint

    assert EntryPoint("x", "gecmetrics.registry:metric_class", "g").load() is registry.metric_class
    assert EntryPoint("x", "gecmetrics.errors:InputError.__name__", "g").load() == "InputError"
    assert EntryPoint("x", "gecmetrics.registry", "g").load() is registry
