"""Entry points of one group, read from the installed distributions' metadata folders.

The same answer as :func:`importlib.metadata.entry_points` (``group=``) for the
ordinary layout (metadata folders ``NAME-VERSION.dist-info`` / ``.egg-info`` in the
folders of ``sys.path``), found the same way: ``sys.path`` in order, a distribution
counted once (its first folder on the path), and a later entry point of the same name
replacing an earlier one in the caller's dict. Importing :mod:`importlib.metadata`
costs about 0.1 s (it imports email, zipfile and socket), which would triple the
start-up of ``gecmetrics list`` and of any run that names a plug-in metric; a path
entry that is not a plain folder (a zip archive) hands the search to
:mod:`importlib.metadata` itself.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

#: ``module[:attr.attr] [extras]``, as the entry point specification writes a value
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


@dataclass(frozen=True)
class EntryPoint:
    """One ``name = value`` line of a distribution's ``entry_points.txt``."""

    name: str
    value: str
    group: str

    def load(self) -> Any:
        """The object the value names (importing its module), as importlib.metadata does."""
        match = _VALUE.match(self.value)
        if match is None:
            raise ValueError(f"entry point {self.name!r} has a malformed value {self.value!r}")
        found: Any = importlib.import_module(match.group("module"))
        for attribute in filter(None, (match.group("attr") or "").split(".")):
            found = getattr(found, attribute)
        return found


def _normalized(folder_name: str) -> str:
    """The distribution's name from its metadata folder's name (PEP 503, underscores)."""
    stem = os.path.splitext(folder_name)[0].partition("-")[0]
    return re.sub(r"[-_.]+", "_", stem).lower()


def _metadata_folders(path_entry: str) -> list[str]:
    """The ``.dist-info`` folders of one ``sys.path`` entry, then its ``.egg-info`` ones."""
    try:
        names = os.listdir(path_entry or ".")
    except OSError:
        return []
    infos = [name for name in names if name.lower().endswith(".dist-info")]
    eggs = [name for name in names if name.lower().endswith(".egg-info")]
    return [os.path.join(path_entry or ".", name) for name in infos + eggs]


def _section(text: str, group: str) -> Iterator[tuple[str, str]]:
    """The ``name = value`` pairs of section ``[group]`` of an entry_points.txt."""
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
            continue
        if current == group:
            name, _, value = line.partition("=")
            yield name.strip(), value.strip()


def entry_points(group: str) -> list[Any]:
    """Every entry point of ``group`` of the distributions on ``sys.path``, in path order."""
    if any(entry and not os.path.isdir(entry) and os.path.isfile(entry) for entry in sys.path):
        from importlib.metadata import entry_points as from_metadata

        return list(from_metadata(group=group))
    seen: set[str] = set()
    found: list[Any] = []
    for path_entry in sys.path:
        for folder in _metadata_folders(path_entry):
            name = _normalized(os.path.basename(folder))
            if name in seen:
                continue
            seen.add(name)
            try:
                with open(os.path.join(folder, "entry_points.txt"), encoding="utf-8") as handle:
                    text = handle.read()
            except (OSError, UnicodeDecodeError):
                continue
            found.extend(EntryPoint(key, value, group) for key, value in _section(text, group))
    return found
