"""Every command shown in the docs runs, so the docs cannot drift from the behaviour.

The pages are README.md, docs/*.md and docs/metrics/*.md. The convention for
their fenced code blocks (docs/architecture.md, "Commands in the docs"):

* a block fenced ```` ```sh ```` holds commands a reader can paste; every
  ``gecmetrics`` command in it is run here, in a scratch folder that has the
  files the docs name (below), and must exit 0 without a traceback. A command
  that is meant to fail says so on its line: ``# exit code N``.
* a command that cannot run here is marked, with the reason: the line
  ``<!-- not run: REASON -->`` (an HTML comment, invisible on the rendered page)
  right before the opening fence marks the whole block; a comment line
  ``# not run: REASON`` inside the block marks the command after it. A
  ``gecmetrics`` command that is not run is still parsed (click checks its
  subcommand, options, choices and benchmark names), so a renamed flag or a
  wrong benchmark name is caught anyway.
* a command of another program (``pip``, ``pytest``, ``python``, ``cd`` ...) in
  an ``sh`` block must be marked: this test runs only ``gecmetrics``.
* synopses (``[--flag]``, ``a|b``, ``...``) and outputs go in blocks fenced
  ```` ```text ```` or without a language; a ``gecmetrics`` command line in such
  a block must be a synopsis, i.e. hold ``[``, ``|`` or ``...`` (otherwise: fence
  it ``sh``, where it is checked).

Besides: the examples of every ``--help`` text parse; the download figures of
docs/downloads.md and the README are the manifest's; the benchmark lists of
``download --help`` and ``meta-eval --help`` come from their registries; every
install hint reads ``pip install ".[EXTRA]"``.

The files the docs name, in the scratch folder (:data:`LINKED`): ``data/example``
(the repository's example), ``DIR``, ``~/gec-data`` and ``../shared/data`` (a
copy of the evaluation data made of links to ``$GECMETRICS_SHARED_DATA``, also
``$GECMETRICS_DATA``, with ``$GECMETRICS_MIRROR`` pointing at the shared copy so
that ``gecmetrics download`` never reaches the network), the CoNLL-2014 M2 file
(``official-2014.combined.m2``, ``gold.m2``), its submissions (``AMU`` ...
``INPUT``) and stand-ins (``SRC``, ``source.txt``, ``SYS``, ``sys.txt`` ...),
references written from the M2 file (``REF0``, ``ref0.txt`` ...) and scores
files for ``--scores`` (``mymetric.json`` for SEEDA, ``rows.json`` for TMU-GFM).
Commands that need none of the evaluation data (``--help``, ``list``, scoring
``data/example``) run in the fast tier; the others, in page order in one folder
per page, in the full tier (``pytest -m full``), and skip without the data (fail
under ``GECMETRICS_REQUIRE_DATA=1``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from conftest import CONLL_M2, SHARED_DATA, SUBMISSIONS, TEAMS, require_shared_data

import gecmetrics

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted((ROOT / "docs" / "metrics").glob("*.md"))]

FENCE = re.compile(r"^```([\w-]*)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
BLOCK_MARKER = re.compile(r"<!--\s*not run:\s*(.+?)\s*-->\s*$")
LINE_MARKER = re.compile(r"^#\s*not run:\s*(.+)$")
EXIT_CODE = re.compile(r"#.*\bexit code (\d+)\b")
#: a command line in a synopsis: optional parts, alternatives, elisions
SYNOPSIS = re.compile(r"\[|\||\.\.\.")
SHELL = {"|", "||", "&&", ";", "&", "2>", "2>&1"}
TRACEBACK = "Traceback (most recent call last)"
#: seconds one documented command may take (the slowest run ERRANT on CoNLL-2014)
TIMEOUT = 1800


@dataclass(frozen=True)
class DocCommand:
    """One command of a page: where it is, its text, and why it is not run (if so)."""

    page: str  # relative to the repository root
    line: int  # of the command's first line
    text: str  # continuation lines joined
    not_run: str | None
    exit_code: int = 0

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def args(self) -> list[str]:
        """The words of the command, up to a redirection or the next command."""
        words = shlex.split(self.text, comments=True)
        end = next((i for i, w in enumerate(words) if w in SHELL or w[:1] in "<>"), len(words))
        return words[:end]

    @property
    def fast(self) -> bool:
        """Needs none of the evaluation data: help, the metric list, the example files."""
        args = self.args
        if "--help" in args or "-h" in args or args[1:2] == ["list"]:
            return True
        files = [a for a in args[2:] if not a.startswith("-") and "/" in a]
        return args[1:2] == ["score"] and bool(files) and all(
            f.startswith("data/example/") for f in files)


def blocks(page: Path) -> Iterator[tuple[str, int, list[str], str | None]]:
    """(language, line of the first body line, body lines, block marker) of each fence."""
    text = page.read_text(encoding="utf-8")
    for m in FENCE.finditer(text):
        start = text.count("\n", 0, m.start()) + 1  # line of the opening fence
        before = text[:m.start()].rstrip("\n").rpartition("\n")[2]
        marker = BLOCK_MARKER.search(before)
        yield m.group(1), start + 1, m.group(2).splitlines(), marker and marker.group(1)


def commands(page: Path, languages: tuple[str, ...] = ("sh",)) -> list[DocCommand]:
    """The commands of the blocks of ``page`` fenced with one of ``languages``."""
    rel = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
    out = []
    for language, first, body, marker in blocks(page):
        if language not in languages:
            continue
        reason: str | None = None
        pending: list[str] = []
        start = 0
        for number, raw in enumerate(body, first):
            line = raw.strip()
            if not pending:
                if not line:
                    continue
                if line.startswith("#"):
                    m = LINE_MARKER.match(line)
                    reason = m.group(1) if m else reason
                    continue
                start = number
            pending.append(line.removesuffix("\\").strip())
            if line.endswith("\\"):
                continue
            text = " ".join(pending)
            code = EXIT_CODE.search(text)
            out.append(DocCommand(rel, start, text, marker or reason,
                                  int(code.group(1)) if code else 0))
            pending, reason = [], None
    return out


ALL = [c for page in PAGES for c in commands(page)]


def test_the_convention_is_read(tmp_path):
    """Markers, continuation lines, comments and exit codes as the docstring says."""
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- not run: needs a GPU -->\n```sh\ngecmetrics list\n```\n\n"
        "```sh\n# a comment\ngecmetrics score -m green \\\n    -s SRC -c SYS\n"
        "# not run: a server\ngecmetrics download --mirror http://HOST seeda\n"
        "gecmetrics download --check   # exit code 1\n```\n\n"
        "```text\ngecmetrics score [-m SPEC]\n```\n")
    got = [(c.line, c.text, c.not_run, c.exit_code) for c in commands(page)]
    assert got == [
        (3, "gecmetrics list", "needs a GPU", 0),
        (8, "gecmetrics score -m green -s SRC -c SYS", None, 0),
        (11, "gecmetrics download --mirror http://HOST seeda", "a server", 0),
        (12, "gecmetrics download --check   # exit code 1", None, 1)]
    assert [c.text for c in commands(page, ("text",))] == ["gecmetrics score [-m SPEC]"]
RUN = [c for c in ALL if c.not_run is None]


def test_the_docs_show_commands():
    """The collection works: the README's quickstart and the meta-eval page are found."""
    assert any(c.page == "README.md" and c.text.startswith("gecmetrics score") for c in RUN)
    assert any(c.page == "docs/meta-eval.md" for c in RUN)


@pytest.mark.parametrize("command", [c for c in ALL if c.args[0] != "gecmetrics"],
                         ids=lambda c: c.where)
def test_other_programs_are_marked(command):
    """Only gecmetrics is run here: any other command says why it is not."""
    assert command.not_run, (
        f"{command.where}: `{command.text}` is not a gecmetrics command; mark why it is "
        "not run (`<!-- not run: REASON -->` before the block, or `# not run: REASON` "
        "before the line)")


def test_unlabelled_blocks_hold_no_command():
    """A block that shows a command to paste is fenced ``sh`` (and so checked here);
    ``text`` and unlabelled blocks hold synopses and outputs only."""
    bad = []
    for page in PAGES:
        for command in commands(page, languages=("", "text")):
            if command.args[:1] == ["gecmetrics"] and not SYNOPSIS.search(command.text):
                bad.append(f"{command.where}: {command.text}")
    assert not bad, "fence these commands ```sh (they are checked then):\n" + "\n".join(bad)


def parse(command: DocCommand) -> None:
    """Parse ``command`` as the CLI would, without running it."""
    from gecmetrics.interface.cli import main

    name, *rest = command.args[1:]
    ctx = click.Context(main, info_name="gecmetrics")
    sub = main.get_command(ctx, name)
    if sub is None:
        raise click.UsageError(f"no such command {name!r}")
    sub.make_context(name, rest, parent=ctx)


@pytest.mark.parametrize("command", [c for c in ALL if c.not_run and c.args[0] == "gecmetrics"],
                         ids=lambda c: c.where)
def test_commands_not_run_parse(command, workspace_files, monkeypatch):
    """A command that is not run still names real subcommands, options and choices."""
    monkeypatch.chdir(workspace_files)
    try:
        parse(command)
    except click.exceptions.Exit:
        pass
    except click.ClickException as err:
        pytest.fail(f"{command.where}: `{command.text}`: {err.format_message()}")


# -- the scratch folder --------------------------------------------------------------

#: stand-ins for the files the docs name: name in the docs -> path under the data
LINKED = {
    "official-2014.combined.m2": CONLL_M2, "gold.m2": CONLL_M2,
    **{team: SUBMISSIONS / team for team in [*TEAMS, "INPUT"]},
    "SRC": SUBMISSIONS / "INPUT", "source.txt": SUBMISSIONS / "INPUT",
    "src.txt": SUBMISSIONS / "INPUT",
    "SYS": SUBMISSIONS / "AMU", "SYS1": SUBMISSIONS / "AMU", "SYS2": SUBMISSIONS / "CAMB",
    "HYP": SUBMISSIONS / "AMU", "sys.txt": SUBMISSIONS / "AMU",
    "sys1.txt": SUBMISSIONS / "AMU", "sys2.txt": SUBMISSIONS / "CAMB",
    "sysA.txt": SUBMISSIONS / "AMU", "sysB.txt": SUBMISSIONS / "CAMB",
    "mine.txt": SUBMISSIONS / "AMU",
}
#: references written from the M2 file: name -> annotator
REFERENCES = {"REF0": 0, "REF": 0, "ref0.txt": 0, "ref.txt": 0, "REF1": 1, "ref1.txt": 1}


def _link_data(target: Path) -> None:
    """A copy of the evaluation data made of links (writable: download's lock file)."""
    from gecmetrics.download import load_manifest

    for rel in load_manifest()["files"]:
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(SHARED_DATA / rel)


def _scores_file(path: Path, data: Path) -> None:
    """``mymetric.json`` (docs/own-metric.md): sentence scores of every SEEDA system on
    the evaluated subset (any deterministic numbers serve)."""
    scores = {}
    for output in sorted((data / "SEEDA" / "outputs" / "subset").glob("*.txt")):
        lines = output.read_text(encoding="utf-8").splitlines()
        scores[output.stem] = [len(set(line.split())) / (1 + len(line.split())) for line in lines]
    path.write_text(json.dumps(scores), encoding="utf-8")


def _rows_file(path: Path, data: Path) -> None:
    """``rows.json`` (docs/benchmarks.md, tmu-gfm): one score per rated output of the
    TMU-GFM CSV, in data-row order (any deterministic numbers serve)."""
    import csv

    with open(data / "TMU-GFM-Dataset" / "tmu-gfm-dataset.csv", encoding="utf-8",
              newline="") as f:
        rows = list(csv.reader(f))[1:]
    path.write_text(json.dumps({"rows": [len(" ".join(row)) % 7 for row in rows]}),
                    encoding="utf-8")


@pytest.fixture(scope="session")
def workspace_files(tmp_path_factory) -> Path:
    """The scratch folder of the fast tier: the example files only."""
    work = tmp_path_factory.mktemp("docs") / "work"
    work.mkdir()
    (work / "data").symlink_to(ROOT / "data")
    for name in [*LINKED, *REFERENCES, "mymetric.json", "rows.json"]:
        (work / name).write_text("placeholder\n")
    (work / "DIR").mkdir()
    return work


def _environment(tmp: Path, data: Path | None) -> dict[str, str]:
    """The tested ``gecmetrics`` first on PATH; the data copy as the default."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "gecmetrics"
    shim.write_text(
        f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m gecmetrics.interface.cli "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    # The package the tests import (the installed copy, with its compiled kernels, or
    # this checkout when it is on the path), not necessarily the checkout's sources.
    package_root = str(Path(gecmetrics.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["MPLBACKEND"] = "Agg"
    env.pop("GECMETRICS_MIRROR", None)
    if data is not None:
        env["GECMETRICS_DATA"] = str(data)
        env["GECMETRICS_MIRROR"] = SHARED_DATA.as_uri()
    return env


def _workspace(tmp: Path, with_data: bool) -> tuple[Path, dict[str, str]]:
    work = tmp / "work"
    work.mkdir()
    (work / "data").symlink_to(ROOT / "data")
    (work / "docs" / "img").mkdir(parents=True)
    data = None
    if with_data:
        data = tmp / "gec-data"
        _link_data(data)
        (tmp / "shared").mkdir()
        (tmp / "shared" / "data").symlink_to(data)  # ../shared/data from work/
        (work / "DIR").symlink_to(data)
        for name, target in LINKED.items():
            (work / name).symlink_to(target)
        from gecmetrics.m2_format import read_m2

        refs = read_m2(CONLL_M2).references()
        for name, k in REFERENCES.items():
            (work / name).write_text("".join(line + "\n" for line in refs[k]), encoding="utf-8")
        _scores_file(work / "mymetric.json", data)
        _rows_file(work / "rows.json", data)
    return work, _environment(tmp, data)


def run(command: DocCommand, work: Path, env: dict[str, str]) -> str | None:
    """Run ``command`` in ``work``; a one-line failure, or None."""
    text = command.text.replace("~/gec-data", env.get("GECMETRICS_DATA", "~/gec-data"))
    try:
        done = subprocess.run(["bash", "-c", text], cwd=work, env=env, capture_output=True,
                              text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"{command.where}: `{command.text}` ran past {TIMEOUT} s"
    output = done.stdout + done.stderr
    if done.returncode != command.exit_code or TRACEBACK in output:
        tail = "\n    ".join(output.strip().splitlines()[-8:])
        return (f"{command.where}: `{command.text}` exited {done.returncode} "
                f"(expected {command.exit_code}):\n    {tail}")
    return None


def _pages(fast: bool) -> list[str]:
    return sorted({c.page for c in RUN if c.fast == fast})


@pytest.mark.parametrize("page", _pages(fast=True))
def test_fast_commands_run(page, tmp_path):
    """The commands that need no evaluation data (help, list, the example files)."""
    work, env = _workspace(tmp_path, with_data=False)
    failures = [f for c in RUN if c.page == page and c.fast if (f := run(c, work, env))]
    assert not failures, "\n".join(failures)


@pytest.mark.full
@pytest.mark.parametrize("page", _pages(fast=False))
def test_data_commands_run(page, tmp_path):
    """Every other command of the page, in page order, on the real data."""
    require_shared_data()
    work, env = _workspace(tmp_path, with_data=True)
    failures = [f for c in RUN if c.page == page and not c.fast if (f := run(c, work, env))]
    assert not failures, "\n".join(failures)


# -- figures and lists that come from a registry ----------------------------------------

NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def test_download_figures_match_the_registry():
    """docs/downloads.md's table and totals and the README's are the manifest's."""
    from gecmetrics.download import benchmark_files, download_names, download_totals, load_manifest
    from gecmetrics.interface.commands.download import megabytes

    page = (ROOT / "docs" / "downloads.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([\w-]+)` \| (.*?) \| (\d+) \| ([\d.]+) MB \|", page, re.M)
    assert [row[0] for row in rows] == download_names()
    aliases = load_manifest()["aliases"]
    for name, also, files, size in rows:
        entries = benchmark_files(name)
        assert (int(files), size) == (len(entries), megabytes(sum(e.size for e in entries))), name
        assert sorted(re.findall(r"`([\w-]+)`", also)) == sorted(
            a for a, b in aliases.items() if b == name and a != name), name
    count, size = download_totals()
    word = NUMBER_WORDS[len(rows)]
    assert f"all {word} are fetched ({count} files, {megabytes(size)} MB" in page
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f": {count} files, {megabytes(size)} MB;" in readme
    assert f"# no name: all {word};" in readme


def _help(*args: str) -> str:
    from click.testing import CliRunner

    from gecmetrics.interface.cli import main

    result = CliRunner().invoke(main, [*args, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def test_download_help_lists_the_registry(monkeypatch):
    """The help's list is generated: a benchmark added to the manifest is listed."""
    from gecmetrics import download
    from gecmetrics.interface.commands.download import megabytes

    manifest = download.load_manifest()
    out = _help("download")
    for name in download.download_names():
        assert re.search(rf"^  {re.escape(name)} +\d+ files?, ", out, re.M), name
    count, size = download.download_totals()
    assert f"all {len(download.download_names())} ({count} files, {megabytes(size)} MB)" in out
    extra = {**manifest, "benchmarks": {**manifest["benchmarks"], "extra-bench": {
        "description": "a test", "files": ["GJG15/judgments.xml"]}},
        "aliases": {**manifest["aliases"], "extra-bench": "extra-bench"}}
    monkeypatch.setattr(download, "load_manifest", lambda: extra)
    assert re.search(r"^  extra-bench +1 file, [\d.]+ MB: a test\.", _help("download"), re.M)


def test_meta_eval_help_lists_the_benchmarks(monkeypatch):
    """``meta-eval --help`` lists every registered benchmark (generated, not written)."""
    import dataclasses

    from gecmetrics.meta_eval.benchmarks import registry

    out = _help("meta-eval")
    for spec in registry.specs().values():
        assert re.search(rf"^  {re.escape(spec.name)} +--human ", out, re.M), spec.name
        assert f"{spec.default_human} (default)" in out
    specs = registry.specs()
    new = dataclasses.replace(next(iter(specs.values())), name="extra-bench")
    monkeypatch.setattr(registry, "specs", lambda: {**specs, "extra-bench": new})
    assert re.search(r"^  extra-bench +--human ", _help("meta-eval"), re.M)


#: the one form of an install command (README, "Install"): from the checkout, since
#: gecmetrics is not on a package index (`pip install "gecmetrics[x]"` fails)
INSTALL_FORM = 'pip install ".[EXTRA]"'
#: files whose install hint is being changed elsewhere (none left: the metrics'
#: extras message comes from gecmetrics/extras.py, in the checkout's form)
PENDING_HINTS: set[str] = set()


def test_install_hints_name_the_checkout():
    """Every install hint, in the docs and in the messages, installs from the checkout."""
    sources = [*PAGES, *ROOT.glob("gecmetrics/**/*.py"), *ROOT.glob("metrics/*.py"),
               *ROOT.glob("meta_eval/**/*.py")]
    bad = []
    for path in sources:
        rel = path.relative_to(ROOT).as_posix()
        if rel in PENDING_HINTS or "/gecmetrics/metrics/" in f"/{rel}" or (
                "/gecmetrics/meta_eval/" in f"/{rel}"):
            continue  # the last two are links to metrics/ and meta_eval/
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"gecmetrics\[[\w,]+\]", line):
                bad.append(f"{rel}:{number}: {line.strip()}")
    assert not bad, f"install hints must read {INSTALL_FORM}:\n" + "\n".join(bad)


def test_without_matplotlib_the_plot_hint_installs_from_the_checkout(monkeypatch, tmp_path):
    """The two plot messages (option check, drawing) give the one install command."""
    import importlib.util

    from gecmetrics.errors import ConfigError
    from gecmetrics.meta_eval.plot import new_figure
    from gecmetrics.validate import check_plot_file

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    with pytest.raises(ConfigError, match=r'^--plot needs matplotlib; install the plot extra: '
                                          r'pip install "\.\[plot\]"$'):
        check_plot_file(str(tmp_path / "sweep.png"))
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ConfigError, match=r'install the plot extra: pip install "\.\[plot\]"$'):
        new_figure(4, 3)


def _help_examples() -> list[DocCommand]:
    """The ``gecmetrics`` examples of every command's ``--help``."""
    from gecmetrics.interface.cli import main

    out = []
    for name in ["", *sorted(main.commands)]:
        text = _help(*([name] if name else []))
        lines = text.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i].strip()
            if line.startswith("gecmetrics "):
                parts = [line]
                while parts[-1].endswith("\\") and i + 1 < len(lines):
                    i += 1
                    parts[-1] = parts[-1].removesuffix("\\").strip()
                    parts.append(lines[i].strip())
                out.append(DocCommand(f"gecmetrics {name} --help".replace("  ", " "), i + 1,
                                      " ".join(parts), "an example of the help"))
            i += 1
    return out


def test_help_examples_parse(workspace_files, monkeypatch):
    """The examples in ``--help`` texts name real subcommands, options and benchmarks."""
    monkeypatch.chdir(workspace_files)
    examples = _help_examples()
    assert len(examples) > 10
    bad = []
    for command in examples:
        try:
            parse(command)
        except click.exceptions.Exit:
            pass
        except click.ClickException as err:
            bad.append(f"{command.where}: `{command.text}`: {err.format_message()}")
    assert not bad, "\n".join(bad)
