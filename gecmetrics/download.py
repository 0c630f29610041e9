"""Fetch the public meta-evaluation data into a local cache, checked and atomic.

Every file a benchmark needs is recorded in ``gecmetrics/data/downloads.json``
with its relative path (the layout of the upstream archives and repositories),
its size, its SHA-256 and its upstream address. :func:`download` fetches the
missing files of one or more benchmarks into a data directory:

* each file is streamed into a hidden temporary file next to its destination,
  hashed on the fly, and renamed into place only when its size and SHA-256 are
  right; a failed, corrupted or interrupted transfer leaves nothing at the
  destination path (and the temporary file is removed);
* files already present with the right checksum are skipped, so a second run
  continues where the first stopped; a present file with a wrong checksum is
  fetched again;
* a lock file per data directory (``fcntl.flock``) makes a second concurrent
  run wait for the first, after which it finds the files present and verified.

Only the standard library is used (``urllib``). :func:`missing_files` and
:func:`ensure_benchmark_files` let other commands (``meta-eval``) name the
missing file and the command that fetches it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from . import paths
from .errors import ConfigError, GecMetricsError, InputError

MANIFEST = "downloads.json"
ENV_MIRROR = "GECMETRICS_MIRROR"
LOCK_NAME = ".gecmetrics-download.lock"
PART_SUFFIX = ".gecmetrics-part"
CHUNK = 64 * 1024
USER_AGENT = "gecmetrics-download/1 (python urllib)"


class DownloadError(GecMetricsError):
    """A transfer failed (network, HTTP status, truncated body, wrong checksum)."""


@dataclass(frozen=True)
class FileEntry:
    """One file of a benchmark: where it goes, what it must hash to, where it comes from."""

    path: str  # relative, POSIX separators
    sha256: str
    size: int
    url: str


@dataclass
class DownloadReport:
    """What one call of :func:`download` did, per benchmark."""

    data_dir: Path
    fetched: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)  # present with a wrong checksum
    bytes_fetched: int = 0


# -- manifest ----------------------------------------------------------------


@lru_cache(maxsize=1)
def load_manifest() -> dict:
    """The parsed ``downloads.json`` shipped in :mod:`gecmetrics.data`."""
    text = resources.files("gecmetrics.data").joinpath(MANIFEST).read_text(encoding="utf-8")
    return json.loads(text)


def benchmark_names() -> list[str]:
    """The downloadable benchmarks (``conll14``, ``seeda``, ``gmeg``)."""
    return list(load_manifest()["benchmarks"])


def resolve_benchmark(name: str) -> str:
    """Map a benchmark or meta-eval name (``seeda-s``, ``gmeg-wiki`` …) to its download."""
    aliases = load_manifest()["aliases"]
    key = name.strip().lower()
    if key in aliases:
        return aliases[key]
    known = ", ".join(sorted(aliases))
    raise ConfigError(f"unknown benchmark {name!r} for download; choose from: {known}")


def benchmark_files(benchmark: str) -> list[FileEntry]:
    """The files of ``benchmark`` (any alias accepted), in manifest order."""
    manifest = load_manifest()
    name = resolve_benchmark(benchmark)
    files = manifest["files"]
    return [FileEntry(path=p, **files[p]) for p in manifest["benchmarks"][name]["files"]]


def default_data_dir() -> Path:
    """``$GECMETRICS_DATA`` if set, else the cache root (:mod:`gecmetrics.paths`)."""
    return paths.data_dir()


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """``data_dir`` if given, else the default (see :func:`gecmetrics.paths.data_dir`)."""
    return paths.data_dir(data_dir)


# -- checking what is there ---------------------------------------------------


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _is_valid(path: Path, entry: FileEntry) -> bool:
    try:
        if path.stat().st_size != entry.size:
            return False
    except OSError:
        return False
    return sha256_file(path) == entry.sha256


def missing_files(
    benchmark: str, data_dir: str | os.PathLike[str] | None = None, verify: bool = False
) -> list[str]:
    """Relative paths of the files of ``benchmark`` absent from ``data_dir``.

    With ``verify=True`` present files whose SHA-256 is wrong count as missing too.
    """
    root = resolve_data_dir(data_dir)
    out = []
    for entry in benchmark_files(benchmark):
        path = root / entry.path
        if not path.is_file() or (verify and not _is_valid(path, entry)):
            out.append(entry.path)
    return out


def ensure_benchmark_files(
    benchmark: str, data_dir: str | os.PathLike[str] | None = None, verify: bool = False
) -> Path:
    """Return the data directory if every file of ``benchmark`` is there.

    Otherwise raise :class:`InputError` naming the first missing file and the
    command that fetches it.
    """
    root = resolve_data_dir(data_dir)
    missing = missing_files(benchmark, root, verify=verify)
    if missing:
        name = resolve_benchmark(benchmark)
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        what = "missing or corrupt" if verify else "missing"
        raise InputError(
            f"benchmark {benchmark!r}: {what} {root / missing[0]}{more}; "
            f"run `gecmetrics download {name}` or pass --data-dir"
        )
    return root


# -- locking -------------------------------------------------------------------


@contextlib.contextmanager
def data_dir_lock(root: Path, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold an exclusive lock on ``root`` (blocks while another process holds it)."""
    root.mkdir(parents=True, exist_ok=True)
    lock_path = root / LOCK_NAME
    try:
        import fcntl
    except ImportError:  # pragma: no cover - non-POSIX
        fcntl = None
    if fcntl is not None:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if on_wait:
                    on_wait()
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
        return
    # Fallback without flock: an exclusive-create lock file, polled.  # pragma: no cover
    waited = False
    while True:
        try:
            fd = os.open(lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            break
        except FileExistsError:
            if not waited and on_wait:
                on_wait()
            waited = True
            time.sleep(0.2)
    try:
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock_path)


# -- progress -------------------------------------------------------------------


class Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, total: int, label: str, enabled: bool, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.total = max(total, 1)
        self.done = 0
        self.label = label
        self.current = ""
        self._last = 0.0

    def start_file(self, name: str) -> None:
        self.current = name
        self._draw(force=True)

    def advance(self, n: int) -> None:
        self.done += n
        self._draw()

    def rewind(self, n: int) -> None:
        """Forget ``n`` bytes of a transfer that failed."""
        self.done = max(0, self.done - n)

    def _draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        frac = min(1.0, self.done / self.total)
        width = 24
        bar = "#" * int(frac * width) + "." * (width - int(frac * width))
        name = self.current if len(self.current) <= 40 else "…" + self.current[-39:]
        line = (
            f"\r{self.label} [{bar}] {frac * 100:3.0f}% "
            f"{self.done / 1e6:.1f}/{self.total / 1e6:.1f} MB {name}"
        )
        self.stream.write(line.ljust(100)[:100])
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()


# -- fetching -------------------------------------------------------------------


def mirror_url(mirror: str, relpath: str) -> str:
    """``mirror/<relpath>`` with the path percent-encoded."""
    return mirror.rstrip("/") + "/" + urllib.parse.quote(relpath, safe="/")


def source_url(entry: FileEntry, mirror: str | None) -> str:
    return mirror_url(mirror, entry.path) if mirror else entry.url


def _part_path(dest: Path) -> Path:
    return dest.with_name("." + dest.name + PART_SUFFIX)


def _retry_hint(mirror: str | None) -> str:
    return "try again" + ("" if mirror else " or use --mirror URL")


def fetch_file(
    entry: FileEntry,
    dest: Path,
    url: str,
    *,
    timeout: float = 60.0,
    progress: Progress | None = None,
    mirror: str | None = None,
) -> int:
    """Download ``url`` to ``dest`` atomically and check it against ``entry``.

    Returns the number of bytes written. On any failure the temporary file is
    removed, ``dest`` is untouched and :class:`DownloadError` says what to do.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = _part_path(dest)
    hint = _retry_hint(mirror)
    digest = hashlib.sha256()
    received = 0
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            declared = response.headers.get("Content-Length")
            expected = int(declared) if declared and declared.isdigit() else None
            with open(part, "wb") as out:
                while True:
                    chunk = response.read(CHUNK)
                    if not chunk:
                        break
                    out.write(chunk)
                    digest.update(chunk)
                    received += len(chunk)
                    if progress:
                        progress.advance(len(chunk))
                out.flush()
                os.fsync(out.fileno())
        if expected is not None and received != expected:
            raise DownloadError(
                f"transfer of {entry.path} from {url} stopped after {received} of {expected} "
                f"bytes; nothing was kept; {hint} (finished files are kept)"
            )
        got = digest.hexdigest()
        if received != entry.size or got != entry.sha256:
            raise DownloadError(
                f"checksum mismatch for {entry.path} from {url}: expected sha256 "
                f"{entry.sha256} ({entry.size} bytes), got {got} ({received} bytes); "
                f"nothing was kept; {hint}"
            )
        os.replace(part, dest)
    except BaseException as err:
        with contextlib.suppress(OSError):
            part.unlink()
        if progress:
            progress.rewind(received)
        message = _describe_failure(err, entry, url, hint)
        if message is None:
            raise  # KeyboardInterrupt and programming errors: temporary file already gone
        raise DownloadError(message) from None
    return received


def _describe_failure(err: BaseException, entry: FileEntry, url: str, hint: str) -> str | None:
    """One actionable line for a failed transfer, or None to re-raise ``err``."""
    import http.client

    if isinstance(err, DownloadError):
        return str(err)
    if isinstance(err, urllib.error.HTTPError):
        return (
            f"download of {entry.path} failed: HTTP {err.code} {err.reason} from {url}; "
            f"nothing was kept; check the address or use --mirror URL"
        )
    if isinstance(err, urllib.error.URLError):
        return (
            f"cannot reach {url} for {entry.path} ({err.reason}); nothing was kept; "
            f"check the network or use --mirror URL"
        )
    if isinstance(err, (OSError, http.client.HTTPException)):
        # timeouts, connection resets, malformed responses, local write errors
        detail = str(err) or type(err).__name__
        return (
            f"transfer of {entry.path} from {url} failed ({detail}); nothing was kept; {hint}"
        )
    return None


def download(
    benchmarks: Iterable[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    *,
    mirror: str | None = None,
    quiet: bool = False,
    timeout: float = 60.0,
    progress_stream=None,
    on_wait: Callable[[], None] | None = None,
) -> DownloadReport:
    """Fetch the missing or corrupt files of ``benchmarks`` (default: all) into ``data_dir``.

    ``mirror`` (else ``$GECMETRICS_MIRROR``) replaces each file's upstream
    address by ``mirror/<relative path>``. Raises :class:`DownloadError` on the
    first failed file; files finished before it are kept.
    """
    names = list(benchmarks) if benchmarks else benchmark_names()
    resolved: list[str] = []
    for name in names:
        canonical = resolve_benchmark(name)
        if canonical not in resolved:
            resolved.append(canonical)
    if mirror is None:
        mirror = os.environ.get(ENV_MIRROR) or None
    if mirror is not None and not urllib.parse.urlsplit(mirror).scheme:
        raise ConfigError(
            f"--mirror {mirror!r} is not a URL; give e.g. https://host/path or file:///path"
        )
    root = resolve_data_dir(data_dir)
    entries: dict[str, FileEntry] = {}
    for name in resolved:
        for entry in benchmark_files(name):
            entries.setdefault(entry.path, entry)
    report = DownloadReport(data_dir=root)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(
            f"cannot create data directory {root} ({err.strerror}); pass --data-dir"
        ) from None
    with data_dir_lock(root, on_wait=on_wait):
        todo: list[FileEntry] = []
        for entry in entries.values():
            dest = root / entry.path
            with contextlib.suppress(OSError):
                _part_path(dest).unlink()  # left by a killed run
            if dest.is_file():
                if _is_valid(dest, entry):
                    report.present.append(entry.path)
                    continue
                report.replaced.append(entry.path)
            todo.append(entry)
        label = "+".join(resolved)
        progress = Progress(
            sum(e.size for e in todo), f"download {label}", not quiet, progress_stream
        )
        try:
            for entry in todo:
                progress.start_file(entry.path)
                url = source_url(entry, mirror)
                report.bytes_fetched += fetch_file(
                    entry, root / entry.path, url, timeout=timeout, progress=progress,
                    mirror=mirror,
                )
                report.fetched.append(entry.path)
        finally:
            progress.close()
    return report
