"""The documentation site (mkdocs.yml): it builds strictly, and every page is reachable.

The full tier builds the whole site with ``mkdocs build --strict`` (broken links,
missing anchors, pages left out of the navigation and docstring warnings fail it);
without the ``docs`` extra that test skips, naming the extra and its install line
(it fails instead under GECMETRICS_REQUIRE_DATA=1). The fast tier checks, from the
files alone, that the navigation and the index page (docs/index.md) cover every page.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_extra

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: a page of the navigation: ``- Title: page.md`` or ``- page.md``
NAV_ENTRY = re.compile(r"^\s*-\s+(?:[^:\n]+:\s+)?([\w./-]+\.md)\s*$")
#: folders of docs/ that hold no navigation pages (mkdocs.yml: exclude_docs, not_in_nav)
NOT_PAGES = ("generate", "examples", "results")


def nav_pages() -> list[str]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text[text.index("\nnav:"):]
    return [m.group(1) for line in nav.splitlines() if (m := NAV_ENTRY.match(line))]


def pages() -> list[str]:
    return sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")
                  if p.relative_to(DOCS).parts[0] not in NOT_PAGES)


def test_every_page_is_in_the_navigation():
    listed = set(nav_pages())
    assert sorted(set(pages()) - listed) == [], "add these pages to mkdocs.yml's nav"
    assert sorted(listed - set(pages())) == [], "the nav names pages that do not exist"


def test_the_index_links_every_page():
    """docs/index.md is the map: each page (an API page through api/index.md)."""
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w./-]+\.md)(?:#[^)]*)?\)", index))
    wanted = {p for p in pages() if p != "index.md" and not p.startswith("api/")}
    assert sorted(wanted - linked) == []
    assert "api/index.md" in linked


def test_the_generators_are_not_pages():
    """Scripts and templates live in docs/generate/ (excluded from the site)."""
    loose = [p.name for p in DOCS.iterdir() if p.is_file() and p.suffix != ".md"]
    assert loose == []
    assert (DOCS / "generate" / "results.template.md").is_file()


@pytest.mark.full
def test_the_site_builds_strictly(tmp_path):
    require_extra("docs")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert (site / "index.html").is_file()
    assert (site / "api" / "scoring" / "index.html").is_file()
    assert not (site / "generate").exists()


def test_the_citation_names_the_package_version():
    """CITATION.cff's version is the package's (gecmetrics/version.py)."""
    from gecmetrics.version import __version__

    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r"^cff-version: 1\.2\.0$", text, re.M)
    assert re.search(rf"^version: {re.escape(__version__)}$", text, re.M)


def test_the_changelog_is_the_sites_page():
    """docs/changelog.md shows the top-level CHANGELOG.md (a symbolic link)."""
    page = DOCS / "changelog.md"
    assert page.resolve() == (ROOT / "CHANGELOG.md").resolve()
    assert "## [Unreleased]" in page.read_text(encoding="utf-8")
