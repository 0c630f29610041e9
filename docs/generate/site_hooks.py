"""MkDocs hooks of the documentation site (mkdocs.yml, ``hooks:``).

The docstrings name other objects with Sphinx roles (``:class:`Corpus```,
``:func:`~gecmetrics.scoring.score```) and end a paragraph before a literal block
with ``::``. mkdocstrings renders them as Markdown, where the role stays as text
before a code span. This hook, run on every page's HTML, drops the role (and for
``~a.b.c`` keeps ``c``, as Sphinx shows it) and turns a closing ``::`` into ``:``.
"""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(
    r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const|term):<code>([^<]*)</code>")
LITERAL_COLONS = re.compile(r"::</p>")


def _name(match: re.Match[str]) -> str:
    text = match.group(1)
    if text.startswith("~"):
        text = text[1:].rpartition(".")[2]
    return f"<code>{text}</code>"


def on_page_content(html: str, **kwargs: Any) -> str:
    return LITERAL_COLONS.sub(":</p>", ROLE.sub(_name, html))
