"""The optional extras (``pip install ".[errant]"`` ...): which modules each
brings, the install command, and the one check every user of an extra calls.

A metric that needs an extra declares it once
(:attr:`gecmetrics.metric.Metric.extras`, or :meth:`Metric.required_extras`
when it depends on the options); the metric checks it when it is made, so
``gecmetrics score`` fails before any file is read and the Python API
(``get_metric``, ``ScoreOptions``) raises the same :class:`ConfigError`. The
check only looks the modules up (:func:`importlib.util.find_spec`), it does
not import them: making a metric stays fast, and ``list`` / ``--help`` never
touch an extra. The message is the same for every extra and every metric
(one line; wrapped here)::

    metric 'cleme' needs the errant extra: pip install ".[errant]" in the
    gecmetrics checkout (cannot import errant)
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from .errors import ConfigError

#: Extra name -> the top-level modules it installs that gecmetrics imports
#: (pyproject.toml's ``[project.optional-dependencies]``). The spaCy English
#: pipeline of the ``errant`` extra is checked when it is loaded, since a
#: metric may name another one (``errant:model=NAME``).
EXTRAS: dict[str, tuple[str, ...]] = {
    "errant": ("errant", "spacy"),
    "neural": ("torch", "transformers"),
    "dask": ("dask", "dask.dataframe"),
    "plot": ("matplotlib",),
    # the optional tokenizers (gecmetrics/tokenizers/, docs/tokenizers.md)
    "intl": ("regex",),
    "ja": ("fugashi", "unidic_lite"),
    "ko": ("kiwipiepy",),
    "zh": ("jieba",),
    "multigec": ("syntok",),
}


def install_command(extra: str) -> str:
    """The command that installs ``extra``, as README.md gives it (gecmetrics is
    installed from its checkout, not from a package index)."""
    return f'pip install ".[{extra}]"'


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent missing, or a module set to None
        return False


def missing_message(user: str, extra: str, module: str, why: str = "") -> str:
    """The one line for a missing extra: ``user`` (e.g. ``metric 'cleme'``)
    needs ``extra``, how to install it, and the module that failed."""
    detail = f"cannot import {module}" + (f": {why}" if why else "")
    return (f"{user} needs the {extra} extra: {install_command(extra)} in the gecmetrics "
            f"checkout ({detail})")


def check(user: str, extra: str) -> None:
    """Raise :class:`ConfigError` (:func:`missing_message`) when a module of
    ``extra`` is not installed; cheap: nothing is imported."""
    for module in EXTRAS[extra]:
        if not _found(module):
            raise ConfigError(missing_message(user, extra, module))


def require(user: str, extra: str, module: str) -> ModuleType:
    """Import ``module`` of ``extra``, or raise the same one-line error (with
    the import error: an extra can be installed but broken)."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ConfigError(missing_message(user, extra, module, str(err))) from None
