"""Published figures as data: the numbers that the tests and docs reproduce.

Each file ``data/published/NAME.json`` (installed in ``gecmetrics.data``) holds
one published table: a ``citation`` (authors, year, title, venue, table, url), a
``description`` of what the values mean, and the ``values`` as printed. Keeping
them in one place, apart from the tests, lets the acceptance tests and
``docs/generate/make_results.py`` read the same numbers, and lets a reader check each one
against its source.

    >>> from gecmetrics.published import load
    >>> load("gjg15-table3b").values["AMU"]
    0.628
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

from .errors import ConfigError
from .readers import parse_json

CITATION_KEYS = ("authors", "year", "title", "venue", "table", "url")


@dataclass(frozen=True)
class Published:
    """One published table: where it comes from and its values."""

    name: str
    citation: Mapping[str, Any]
    description: str
    values: Any
    extra: Mapping[str, Any] = field(default_factory=dict)  # any other top-level keys

    def cite(self) -> str:
        """A one-line reference: 'Koyama et al. (2024). Title. Venue, Table 2. URL'."""
        authors = list(self.citation["authors"])
        who = authors[0].split()[-1] + (" et al." if len(authors) > 2 else
                                        f" and {authors[1].split()[-1]}" if len(authors) == 2
                                        else "")
        year = f" ({self.citation['year']})" if self.citation.get("year") else ""
        url = f" {self.citation['url']}" if self.citation.get("url") else ""
        return (f"{who}{year}. {self.citation['title']}. {self.citation['venue']}, "
                f"{self.citation['table']}.{url}")


def _folder():
    return files("gecmetrics.data") / "published"


def names() -> list[str]:
    """The names of every published table shipped with gecmetrics."""
    return sorted(p.name[:-5] for p in _folder().iterdir() if p.name.endswith(".json"))


def load(name: str) -> Published:
    """The published table ``name`` (a file name in ``data/published`` without ``.json``)."""
    path = _folder() / f"{name}.json"
    if not path.is_file():
        raise ConfigError(f"no published table {name!r}; known: {', '.join(names())}")
    data = parse_json(path.read_text(encoding="utf-8"), f"data/published/{name}.json",
                      error=ConfigError)
    missing = [key for key in ("citation", "description", "values") if key not in data]
    missing += [f"citation.{key}" for key in CITATION_KEYS if key not in data.get("citation", {})]
    if missing:
        raise ConfigError(f"data/published/{name}.json lacks {', '.join(missing)}; add them")
    extra = {k: v for k, v in data.items() if k not in ("citation", "description", "values")}
    return Published(name, data["citation"], data["description"], data["values"], extra)
