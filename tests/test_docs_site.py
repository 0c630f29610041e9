"""The documentation site builds with every warning an error: broken links, missing
anchors, pages left out of the navigation, API pages whose docstrings do not parse."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_extra

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.full  # about 10 s
def test_mkdocs_build_strict(tmp_path):
    require_extra("docs")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "api" / "scoring" / "index.html").read_text().count(
        "ScoreOptions") > 0


def test_every_page_is_in_the_navigation_or_a_results_table():
    """The check `mkdocs build --strict` makes, without mkdocs: a new page is placed."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    docs = ROOT / "docs"
    for page in docs.rglob("*.md"):
        rel = page.relative_to(docs).as_posix()
        if rel.startswith(("results/", "generate/", "examples/")):
            continue
        assert f": {rel}\n" in nav, f"{rel} is not in mkdocs.yml's nav"


def test_citation_names_this_version():
    from gecmetrics.version import __version__

    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert f"\nversion: {__version__}\n" in citation
    assert citation.startswith("cff-version: 1.2.0\n")
