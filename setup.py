"""Build gecmetrics from any source: a clone (with or without symbolic links), an
sdist, or a wheel.

The design card keeps ``metrics/``, ``meta_eval/`` and ``data/`` at the top of the
repository, while Python sees them as ``gecmetrics.metrics``, ``gecmetrics.meta_eval``
and ``gecmetrics.data``. In a checkout the links ``gecmetrics/metrics`` etc. make the
source tree the installed layout (for Python run from the checkout and for mypy), but
a clone made without symbolic links (Git for Windows by default) has text files there.
So the build never follows those links: the package list and the ``package_dir`` map
below are derived from the real folders, and every installed package is complete
whatever the links came out as.

The compiled kernels (n-gram counts; M2 lattice and shortest path; ERRANT's and the
language-neutral alignment; I-measure's counts) are speed paths: without a C compiler
the build goes on and gecmetrics uses its pure-Python code, which gives identical
numbers. A kernel's ``.pyx`` source missing from the tree is an error, though: it means
a broken source distribution, and a silent slow install would hide it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent

#: Subpackage -> its real folder at the top of the repository (the design card).
TOP_LEVEL = {"gecmetrics.metrics": "metrics", "gecmetrics.meta_eval": "meta_eval",
             "gecmetrics.data": "data"}

#: Compiled kernel module -> its Cython source, relative to the repository top.
KERNELS = {
    "gecmetrics._kernel": "gecmetrics/_kernel.pyx",
    "gecmetrics.edits._align_kernel": "gecmetrics/edits/_align_kernel.pyx",
    "gecmetrics.metrics._m2_kernel": "metrics/_m2_kernel.pyx",
    "gecmetrics.metrics._imeasure_kernel": "metrics/_imeasure_kernel.pyx",
}


def _subpackages(folder: Path, name: str) -> dict[str, str]:
    """``name`` and every package below ``folder`` -> its folder, not following
    symbolic links (a link is another package's real folder)."""
    found = {name: folder.relative_to(HERE).as_posix()}
    for child in sorted(folder.iterdir()):
        if child.is_dir() and not child.is_symlink() and (child / "__init__.py").is_file():
            found.update(_subpackages(child, f"{name}.{child.name}"))
    return found


def package_dirs() -> dict[str, str]:
    """Every package of the distribution -> the folder that holds it."""
    dirs = _subpackages(HERE / "gecmetrics", "gecmetrics")
    for name, folder in TOP_LEVEL.items():
        if not (HERE / folder / "__init__.py").is_file():
            sys.exit(f"setup.py: {folder}/__init__.py is missing: this source tree is "
                     "incomplete; build from a full clone or a complete sdist")
        dirs.update(_subpackages(HERE / folder, name))
    return dirs


def extensions() -> list[Extension]:
    """The kernels, cythonized; none when Cython is missing (pure-Python install)."""
    missing = [src for src in KERNELS.values() if not (HERE / src).is_file()]
    if missing:
        sys.exit(f"setup.py: the kernel source {missing[0]} is missing from this source "
                 "tree (a broken sdist?); build from a full clone or a complete sdist")
    try:
        from Cython.Build import cythonize
    except ImportError:  # no Cython: the pure-Python package only
        return []
    return cythonize(
        [Extension(module, [src], optional=True) for module, src in KERNELS.items()],
        compiler_directives={"language_level": "3"},
        quiet=True,
    )


DIRS = package_dirs()
setup(packages=sorted(DIRS), package_dir={k: v for k, v in DIRS.items() if k != "gecmetrics"},
      ext_modules=extensions())
