"""The house rules that import-linter cannot see, checked on the source itself.

import-linter (``.importlinter``, run by ``.ci/run``) checks which *modules* import
which; these tests check what it cannot: that no module reaches for another
module's private name, and that no function takes so many parameters that its
callers cannot tell them apart (an options dataclass is the cure). Both read the
code as text (``ast``), so they are fast and need nothing installed.
"""

from __future__ import annotations

import ast
import functools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "gecmetrics"
#: the most parameters a function may take (self and cls not counted)
MAX_PARAMETERS = 8
#: pure-Python twins of the compiled kernels: they take the C kernel's flat
#: argument list, output arrays included, so that either can be called alike
KERNEL_TWINS = {"gecmetrics.ngrams._intersect_python"}


def modules() -> Iterator[tuple[str, ast.Module]]:
    """Every first-party module (the linked metrics/ and meta_eval/ included) as
    (dotted name, syntax tree)."""
    paths = [Path(folder, name) for folder, _, names in os.walk(PACKAGE, followlinks=True)
             for name in names if name.endswith(".py")]
    for path in sorted(paths):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield name, ast.parse(path.read_text(encoding="utf-8"), str(path))


@functools.cache
def parsed() -> tuple[tuple[str, ast.Module], ...]:
    """:func:`modules`, read once for all the tests of this file."""
    return tuple(modules())


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def imported_module(importer: str, node: ast.ImportFrom, is_package: bool) -> str:
    """The absolute module name an ``ImportFrom`` reads from."""
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def private_imports() -> list[str]:
    found = []
    packages = {name for name, _ in parsed() if (PACKAGE.parent / name.replace(".", "/")
                                                  / "__init__.py").is_file()}
    for name, tree in parsed():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = imported_module(name, node, name in packages)
            if not source.startswith("gecmetrics") or source == name:
                continue
            for alias in node.names:
                if is_private(alias.name) and f"{source}.{alias.name}" not in packages:
                    found.append(f"{name}:{node.lineno} imports {source}.{alias.name}")
    return found


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_no_module_imports_another_modules_private_name():
    assert private_imports() == []


def test_no_function_takes_more_than_eight_parameters():
    crowded = []
    for name, tree in parsed():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                args = node.args
                params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
                params = [p for p in params if p not in ("self", "cls")]
                if len(params) > MAX_PARAMETERS and f"{name}.{node.name}" not in KERNEL_TWINS:
                    crowded.append(f"{name}.{node.name}:{node.lineno} ({len(params)})")
    assert crowded == []


def import_edges() -> dict[str, set[str]]:
    """Which first-party modules each module imports: every import statement, those
    under ``if TYPE_CHECKING:`` and those inside functions included (import-linter
    leaves the first out; a circle through them still ties the modules together)."""
    trees = dict(parsed())
    packages = {name for name in trees
                if (PACKAGE.parent / name.replace(".", "/") / "__init__.py").is_file()}
    edges: dict[str, set[str]] = {name: set() for name in trees}
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = imported_module(name, node, name in packages)
                targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in trees
                           else source for alias in node.names]
            else:
                continue
            edges[name] |= {t for t in targets if t in trees and t != name}
    return edges


def import_circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(edges[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return circles


def test_import_circles_are_found():
    assert import_circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_even_through_type_only_imports():
    assert import_circles(import_edges()) == []
