"""A metric class's ``description``, read from its module's source without importing it.

``gecmetrics list`` prints every metric's description, and importing the metric
modules to read one class attribute imports numpy and the wrappers of spaCy and
torch (it took 3.2x ``gecmetrics --help``: issue 23). So the class attribute is
the one place where a description is written, and :func:`read_description`
reads it from the source: it finds the ``description = ...`` statement of the
class and evaluates its expression, which may use constants, the public names of
the tokenizer registry (:mod:`gecmetrics.tokenizers`, cheap to import: the
``tokenize=`` choices) and constant attributes of the module's classes (such as
``BleuConfig.tokenize``, a default). Anything else gives None, and the caller
imports the class (:func:`gecmetrics.registry.list_metrics`).
tests/test_registry_descriptions.py checks that every built-in metric is read
this way and equal to its class's attribute.

Reading 16 sources and importing the tokenizer registry still took most of
``gecmetrics list``'s own time, so the built-ins' descriptions, as read here, are
also written out in :mod:`gecmetrics.builtin_descriptions` (:func:`table_source`
makes that module's text; ``python docs/generate/make_descriptions.py`` writes
it), which ``list`` reads while the tokenizer registry is the one the table was
derived with. A test keeps the file equal to :func:`table_source`, so a changed
description or tokenizer fails the tests until the table is regenerated: the
table is derived, never edited by hand.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import textwrap
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from . import tokenizers
from .tokenizers.registry import TABLE

#: The most lines one assignment of a class may span.
_MAX_LINES = 60


def read_description(target: str) -> str | None:
    """The ``description`` of class ``module:Class`` read from the module's source,
    or None when it cannot be (no source, or an expression this reader does not
    evaluate)."""
    module, _, cls = target.partition(":")
    lines = _source(module)
    expr = None if lines is None else _class_attribute(lines, cls, "description")
    if lines is None or expr is None:
        return None
    try:
        names = _names(expr, lines)
        value = eval(compile(ast.Expression(expr), module, "eval"),  # noqa: S307
                     {"__builtins__": {}}, names)
    except Exception:  # noqa: BLE001 (a name or operation this reader does not provide)
        return None
    return value if isinstance(value, str) else None


def _class_attribute(lines: list[str], cls: str, attr: str) -> ast.expr | None:
    """The expression assigned to ``attr`` in the body of top-level class ``cls``."""
    header = re.compile(rf"class {re.escape(cls)}\b")
    start = next((i for i, line in enumerate(lines) if header.match(line)), None)
    if start is None:
        return None
    assign = re.compile(rf"{re.escape(attr)}\s*(:[^=]*)?=[^=]")
    indent = None
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[:1].isspace():  # the class has ended
            return None
        stripped = line.lstrip()
        here = len(line) - len(stripped)
        indent = here if indent is None else indent
        if here == indent and assign.match(stripped):
            statement = _statement(lines, i)
            if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                return statement.value
            return None
    return None


def _statement(lines: list[str], start: int) -> ast.stmt | None:
    """The statement that begins on line ``start`` (its lines, dedented, parsed)."""
    for end in range(start + 1, min(len(lines), start + _MAX_LINES) + 1):
        try:
            tree = ast.parse(textwrap.dedent("".join(lines[start:end])))
        except SyntaxError:
            continue
        return tree.body[0] if tree.body else None
    return None


def _names(expr: ast.expr, lines: list[str]) -> dict[str, Any]:
    """The values of the names ``expr`` uses: public names of the tokenizer registry,
    the module's classes with the constant attributes ``expr`` reads, and constants
    of the module or imported by it (:func:`_constant`)."""
    names: dict[str, Any] = {}
    for node in ast.walk(expr):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            value = _class_attribute(lines, node.value.id, node.attr)
            if value is not None:
                holder = names.setdefault(node.value.id, SimpleNamespace())
                setattr(holder, node.attr, ast.literal_eval(value))
        elif isinstance(node, ast.Name) and node.id not in names:
            if not node.id.startswith("_") and hasattr(tokenizers, node.id):
                names[node.id] = getattr(tokenizers, node.id)
            else:
                found = _constant(lines, node.id)
                if found is not _MISSING:
                    names[node.id] = found
    return names


_MISSING = object()


def _constant(lines: list[str], name: str, depth: int = 2) -> Any:
    """The literal value of module-level ``name``: assigned in ``lines``, or imported
    by ``from MODULE import name`` and assigned in MODULE's source; else _MISSING."""
    assign = re.compile(rf"{re.escape(name)}\s*(:[^=]*)?=[^=]")
    for i, line in enumerate(lines):
        if assign.match(line):
            statement = _statement(lines, i)
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value:
                return ast.literal_eval(statement.value)
        elif depth and line.startswith("from ") and name in line + "".join(lines[i + 1:i + 40]):
            statement = _statement(lines, i)
            if isinstance(statement, ast.ImportFrom) and statement.level == 0 and any(
                    alias.name == name and alias.asname is None for alias in statement.names):
                source = _source(statement.module or "")
                return _MISSING if source is None else _constant(source, name, depth - 1)
    return _MISSING


def _source(module: str) -> list[str] | None:
    """The lines of ``module``'s source (its parent packages are imported, not it)."""
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if found is None or not (found.origin or "").endswith(".py"):
        return None
    with open(found.origin, encoding="utf-8") as handle:  # type: ignore[arg-type]
        return handle.read().splitlines(keepends=True)


def table_source(builtin: Mapping[str, str]) -> str:
    """The text of :mod:`gecmetrics.builtin_descriptions`: the description of every
    metric of ``builtin`` (name -> ``module:Class``, the registry's ``BUILTIN``) read by
    :func:`read_description`, and the tokenizer names it was read with (a description
    names the ``tokenize=`` choices)."""
    lines = ['"""The built-in metrics\' descriptions, derived from their sources by',
             "``python docs/generate/make_descriptions.py``",
             "(:func:`gecmetrics.descriptions.table_source`); do not edit:",
             'tests/test_registry_descriptions.py keeps this file equal to the sources."""',
             "# ruff: noqa: E501", "", "#: The tokenizer registry's names when the table was "
             "derived.", f"TOKENIZERS = {tuple(TABLE)!r}", "",
             "#: ``BUILTIN`` name -> description.", "DESCRIPTIONS = {"]
    for name, target in sorted(builtin.items()):
        text = read_description(target)
        if text is not None:
            lines.append(f"    {name!r}: {text!r},")
    lines.append("}")
    return "\n".join(lines) + "\n"
