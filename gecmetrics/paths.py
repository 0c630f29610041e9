"""Where gecmetrics keeps files on the user's disk: the one place that decides.

Two folders, one rule, so ``gecmetrics download``, ``meta-eval`` and the ERRANT
parse cache can never disagree about where things are:

* the **cache root**: ``$XDG_CACHE_HOME/gecmetrics``, else ``~/.cache/gecmetrics``
  (the XDG base-directory convention; as that convention says, a relative
  ``XDG_CACHE_HOME`` is ignored, since it would name a different folder from
  every working directory);
* the **data folder** (benchmark files fetched by ``gecmetrics download`` and
  read by ``meta-eval``): an explicit ``--data-dir``, else ``$GECMETRICS_DATA``,
  else the cache root itself (the layout of the upstream data under it);
* the **parse cache** (spaCy parses for ERRANT): ``$GECMETRICS_CACHE``, else
  ``parses/`` under the cache root;
* the **edit cache** (ERRANT's extracted edits): ``edits/`` under
  ``$GECMETRICS_CACHE`` when it is set (so one variable moves, or isolates,
  everything ERRANT caches), else ``edits/`` under the cache root;
* the **model-output cache** (scores of the model-based metrics,
  :mod:`gecmetrics.neural.cache`): ``outputs/`` under ``$GECMETRICS_CACHE``
  when it is set, else ``outputs/`` under the cache root.

Everything is read from the environment at call time (never at import), so a
test or a long-lived process that changes the variables sees the change.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_DATA = "GECMETRICS_DATA"
ENV_PARSE_CACHE = "GECMETRICS_CACHE"
ENV_XDG_CACHE = "XDG_CACHE_HOME"
APP = "gecmetrics"


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/gecmetrics`` (if absolute), else ``~/.cache/gecmetrics``."""
    xdg = os.environ.get(ENV_XDG_CACHE, "")
    base = Path(xdg).expanduser() if xdg else None
    if base is None or not base.is_absolute():
        base = Path.home() / ".cache"
    return base / APP


def data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """``explicit`` (``--data-dir``), else ``$GECMETRICS_DATA``, else :func:`cache_root`."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get(ENV_DATA)
    if env:
        return Path(env).expanduser()
    return cache_root()


def parse_cache_dir() -> Path:
    """``$GECMETRICS_CACHE``, else ``parses/`` under :func:`cache_root`."""
    env = os.environ.get(ENV_PARSE_CACHE)
    if env:
        return Path(env).expanduser()
    return cache_root() / "parses"


def edit_cache_dir() -> Path:
    """``$GECMETRICS_CACHE/edits``, else ``edits/`` under :func:`cache_root`."""
    env = os.environ.get(ENV_PARSE_CACHE)
    if env:
        return Path(env).expanduser() / "edits"
    return cache_root() / "edits"


def output_cache_dir() -> Path:
    """``$GECMETRICS_CACHE/outputs``, else ``outputs/`` under :func:`cache_root`."""
    env = os.environ.get(ENV_PARSE_CACHE)
    if env:
        return Path(env).expanduser() / "outputs"
    return cache_root() / "outputs"
