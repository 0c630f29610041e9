"""Where gecmetrics keeps files on the user's disk: the one place that decides.

One rule, so ``gecmetrics download``, ``meta-eval`` and the caches can never
disagree about where things are:

* the **cache root**: the platform's user cache folder for ``gecmetrics``, from
  :mod:`platformdirs` (on Linux ``$XDG_CACHE_HOME/gecmetrics``, else
  ``~/.cache/gecmetrics``, a relative ``XDG_CACHE_HOME`` being ignored as the
  XDG base-directory convention says; on macOS ``~/Library/Caches/gecmetrics``;
  on Windows the local application data folder);
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

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

ENV_DATA = "GECMETRICS_DATA"
ENV_PARSE_CACHE = "GECMETRICS_CACHE"
APP = "gecmetrics"


def cache_root() -> Path:
    """The user cache folder of ``gecmetrics`` (:func:`platformdirs.user_cache_path`)."""
    import platformdirs  # at call time: the environment may have changed since import

    return platformdirs.user_cache_path(APP, appauthor=False)


def data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """``explicit`` (``--data-dir``), else ``$GECMETRICS_DATA``, else :func:`cache_root`."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get(ENV_DATA)
    if env:
        return Path(env).expanduser()
    return cache_root()


def _explicit_cache() -> Path | None:
    """``$GECMETRICS_CACHE`` (user-expanded) if set, else None."""
    env = os.environ.get(ENV_PARSE_CACHE)
    return Path(env).expanduser() if env else None


def parse_cache_dir() -> Path:
    """``$GECMETRICS_CACHE``, else ``parses/`` under :func:`cache_root`."""
    return _explicit_cache() or cache_root() / "parses"


def edit_cache_dir() -> Path:
    """``$GECMETRICS_CACHE/edits``, else ``edits/`` under :func:`cache_root`."""
    return (_explicit_cache() or cache_root()) / "edits"


def output_cache_dir() -> Path:
    """``$GECMETRICS_CACHE/outputs``, else ``outputs/`` under :func:`cache_root`."""
    return (_explicit_cache() or cache_root()) / "outputs"


#: What a file being written is called until it is complete (:func:`atomic_output`).
PARTIAL_SUFFIX = ".partial"


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str]) -> Iterator[str]:
    """Write ``path`` whole or not at all: yields a temporary name in the same folder
    (``.NAME.XXXXXXXX.partial``), moved onto ``path`` with :func:`os.replace` when
    the block ends normally and removed when it does not (an error, a full disk,
    Ctrl-C, SIGTERM). So an interrupted run never leaves half a figure or half a
    text file under the name the user asked for, nor overwrites a good one.

    The temporary file is created here (mode 0o666 less the umask, as ``open``
    would), empty; writers open it by name (matplotlib's ``savefig`` does). A
    symbolic link is followed (the file it names is replaced, the link kept); a
    path that is not a regular file (``/dev/stdout``, a FIFO) is written directly.
    """
    import secrets  # here: the CLI imports this module at start-up, and writes rarely

    target = os.fspath(path)
    if os.path.islink(target):
        target = os.path.realpath(target)
    if os.path.exists(target) and not os.path.isfile(target):
        yield target
        return
    folder, name = os.path.split(target)
    while True:
        part = os.path.join(folder, f".{name}.{secrets.token_hex(4)}{PARTIAL_SUFFIX}")
        try:
            os.close(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            break
        except FileExistsError:  # pragma: no cover - 2**32 names
            continue
    try:
        yield part
        os.replace(part, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(part)
        raise
