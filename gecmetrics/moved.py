"""Old import paths of modules that moved to show the layers (or were renamed so that
no two layers hold files of the same name), kept working.

The interface (the CLI and the renderers) lives in :mod:`gecmetrics.interface`, and the
workflows that compose metrics in :mod:`gecmetrics.workflows`. Their old paths were
documented (``from gecmetrics.attribution import attribute``, ``python -m
gecmetrics.cli``), so each still imports: a finder maps the old name to the module
at its new place, the same module object (not a copy), submodules included. The
table is the one list of moves; new code and the docs use the new paths.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType

#: Old module path -> new module path (a package's submodules follow it).
MOVED: dict[str, str] = {
    "gecmetrics.console": "gecmetrics.interface.console",
    "gecmetrics.cli": "gecmetrics.interface.cli",
    "gecmetrics.commands": "gecmetrics.interface.commands",
    "gecmetrics.score_report": "gecmetrics.interface.score_report",
    "gecmetrics.html_report": "gecmetrics.interface.html_report",
    "gecmetrics.attribution": "gecmetrics.workflows.attribution",
    "gecmetrics.multigec": "gecmetrics.workflows.multigec",
    "gecmetrics.distributed": "gecmetrics.workflows.distributed",
    "gecmetrics.report_data": "gecmetrics.workflows.report_data",
    # renamed so that no two layers hold files of the same name
    "gecmetrics.m2": "gecmetrics.m2_format",
    "gecmetrics.meta_eval.cv_beta": "gecmetrics.meta_eval.cv_folds",
    "gecmetrics.meta_eval.pair_stats": "gecmetrics.meta_eval.pair_scoring",
    "gecmetrics.meta_eval.report": "gecmetrics.meta_eval.render",
}


def new_name(name: str) -> str | None:
    """Where the module ``name`` lives now, or None when it did not move."""
    for old, new in MOVED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old):]
    return None


class _Alias:
    """Finds an old name and loads it as the module at its new place.

    A finder and loader by protocol rather than by subclassing ``importlib.abc``: that
    module imports ``importlib.resources`` (tempfile, shutil, ...), a tenth of the
    command line's start-up, and this module is imported with every ``gecmetrics``.
    """

    def __init__(self) -> None:
        self._own_specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        new = new_name(fullname)
        found = importlib.util.find_spec(new) if new else None
        if found is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, origin=found.origin)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = new_name(spec.name)
        assert new is not None
        module = importlib.import_module(new)
        self._own_specs[new] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """The module ran at its new place already; the import system has just set its
        ``__spec__`` to the old name's: give it back its own."""
        module.__spec__ = self._own_specs.get(module.__name__, module.__spec__)

    def load_module(self, fullname: str) -> ModuleType:
        """The legacy loader call (the import system uses create/exec_module)."""
        return importlib.import_module(fullname)

    def get_code(self, fullname: str) -> object:
        """The new module's code, for ``python -m OLD.NAME``."""
        new = new_name(fullname)
        spec = importlib.util.find_spec(new) if new else None
        loader = spec.loader if spec else None
        if loader is None or not hasattr(loader, "get_code"):
            raise ImportError(f"no code for {fullname}")
        return loader.get_code(new)


def install() -> None:
    """Put the finder first (once), ahead of the path finder that would load an old
    package's submodule a second time under its old name."""
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Alias())
