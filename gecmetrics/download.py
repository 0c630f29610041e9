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
  run wait for the first, after which it finds the files present and verified;
* a transfer that makes no progress for ``stall_timeout`` seconds (a server
  that stops sending, or trickles) is given up with an error naming the file
  and its address, so a download never hangs;
* a run that fails or is interrupted (Ctrl-C, or SIGTERM, which the CLI turns
  into an exception) removes what it made: the temporary file, the lock file
  and the folders it created that are still empty; finished files stay.

Only the standard library is used (``urllib``). :func:`missing_files` and
:func:`ensure_benchmark_files` let other commands (``meta-eval``) name the
missing file and the command that fetches it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sys
import threading
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
DEFAULT_STALL_TIMEOUT = 60.0  # seconds without progress before a transfer is given up
STALL_BYTES = 1024  # what counts as progress for the stall timeout (see _Watchdog)
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


# -- folders and the lock: a run takes back what it made -------------------------


def _make_dirs(path: Path, created: list[Path]) -> None:
    """``mkdir -p path``, appending each folder this call made to ``created``.

    Recording exactly which folders this run made lets a failed or killed run
    remove them again (only those, and only when empty) without touching a
    folder the user or a concurrent run made.
    """
    missing = []
    probe = path
    while not probe.is_dir():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:  # a concurrent run made it: not ours to remove
            continue
        created.append(folder)


def _remove_empty(created: list[Path]) -> None:
    """Remove the folders in ``created`` that are empty, deepest first."""
    for folder in sorted(created, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):  # not empty (or gone): keep it
            folder.rmdir()


@contextlib.contextmanager
def data_dir_lock(
    root: Path,
    on_wait: Callable[[], None] | None = None,
    created: list[Path] | None = None,
) -> Iterator[None]:
    """Hold an exclusive lock on ``root`` (blocks while another process holds it).

    The lock file ``root/.gecmetrics-download.lock`` is removed on release if
    this call created it, so a finished or failed run leaves no trace. Removing
    a lock file is safe only because a process that obtains the lock checks
    that the file it locked is still the one at the path (a waiter may have
    locked a file the previous holder has just removed), and starts over if
    not. Folders made for the lock are appended to ``created``.
    """
    created = [] if created is None else created
    lock_path = root / LOCK_NAME
    try:
        import fcntl
    except ImportError:  # pragma: no cover - non-POSIX
        fcntl = None  # type: ignore[assignment]
    if fcntl is not None:
        waited = False
        while True:
            _make_dirs(root, created)
            try:
                fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
                mine = True
            except FileExistsError:
                try:
                    fd = os.open(lock_path, os.O_RDWR)
                except FileNotFoundError:  # removed by the run that held it: start over
                    continue
                mine = False
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    if on_wait and not waited:
                        on_wait()
                    waited = True
                    fcntl.flock(fd, fcntl.LOCK_EX)
                try:
                    held, now = os.fstat(fd), os.stat(lock_path)
                    current = (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino)
                except FileNotFoundError:
                    current = False
            except BaseException:
                os.close(fd)
                raise
            if current:
                break
            os.close(fd)  # we locked a removed file: the lock protects nothing
        try:
            yield
        finally:
            if mine:
                with contextlib.suppress(OSError):
                    os.unlink(lock_path)  # while still locked, so waiters notice
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        return
    # Fallback without flock: an exclusive-create lock file, polled.  # pragma: no cover
    _make_dirs(root, created)
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


class _Watchdog:
    """Ends a transfer that makes no progress for ``stall`` seconds.

    Why a separate thread: a server that trickles a byte now and then never
    trips the socket timeout (every ``recv`` returns before it expires), so the
    transfer loop itself may stay blocked for hours inside one read, or inside
    the reading of the response headers. A blocked ``recv`` can only be ended
    from outside, by shutting its socket down; the thread does that. (Not a
    signal alarm: :func:`download` must also work off the main thread.)

    Progress means at least :data:`STALL_BYTES` new bytes (or the end of the
    file), so a 1 byte/s trickle counts as stalled, while any connection that
    is merely slow (over ``STALL_BYTES / stall`` bytes a second) goes on.
    """

    def __init__(self, stall: float) -> None:
        self.stall = stall
        self.fired = False
        self._last = time.monotonic()
        self._pending = 0
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="gecmetrics-stall",
                                        daemon=True)

    def __enter__(self) -> _Watchdog:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def attach(self, sock: socket.socket) -> None:
        with self._lock:
            self._sock = sock
        if self.fired:  # fired before the connection existed
            self._abort()

    def received(self, n: int) -> None:
        self._pending += n
        if self._pending >= STALL_BYTES:
            self._pending = 0
            self._last = time.monotonic()

    def _watch(self) -> None:
        tick = min(1.0, self.stall / 10)
        while not self._stop.wait(tick):
            if time.monotonic() - self._last > self.stall:
                self.fired = True
                self._abort()
                return

    def _abort(self) -> None:
        with self._lock:
            sock = self._sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # the blocked read returns or raises


def _watched_opener(watchdog: _Watchdog) -> urllib.request.OpenerDirector:
    """A urllib opener whose HTTP(S) connections report their socket to ``watchdog``
    (redirects, proxies and ``file://`` work as with :func:`urllib.request.urlopen`)."""

    def watched(http_class: type) -> type:
        class Watched(http_class):  # type: ignore[misc, valid-type]
            def connect(self) -> None:
                super().connect()
                watchdog.attach(self.sock)

        return Watched

    class HTTP(urllib.request.HTTPHandler):
        def do_open(self, http_class, req, **kwargs):  # type: ignore[override]
            return super().do_open(watched(http_class), req, **kwargs)

    class HTTPS(urllib.request.HTTPSHandler):
        def do_open(self, http_class, req, **kwargs):  # type: ignore[override]
            return super().do_open(watched(http_class), req, **kwargs)

    return urllib.request.build_opener(HTTP, HTTPS)


def fetch_file(
    entry: FileEntry,
    dest: Path,
    url: str,
    *,
    timeout: float = 60.0,
    stall_timeout: float = DEFAULT_STALL_TIMEOUT,
    progress: Progress | None = None,
    mirror: str | None = None,
    created: list[Path] | None = None,
) -> int:
    """Download ``url`` to ``dest`` atomically and check it against ``entry``.

    Returns the number of bytes written. On any failure (an exception of any
    kind, Ctrl-C and SIGTERM included) the temporary file is removed and
    ``dest`` is untouched; user-fixable failures raise :class:`DownloadError`
    saying what to do. ``timeout`` bounds each wait on the socket;
    ``stall_timeout`` ends a transfer that makes no progress for that long
    (see :class:`_Watchdog`). Folders made for ``dest`` are appended to ``created``.
    """
    part = _part_path(dest)
    hint = _retry_hint(mirror)
    digest = hashlib.sha256()
    received = 0
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    watchdog = _Watchdog(stall_timeout)
    try:
        _make_dirs(dest.parent, [] if created is None else created)
        with watchdog, _watched_opener(watchdog).open(request, timeout=timeout) as response:
            declared = response.headers.get("Content-Length")
            expected = int(declared) if declared and declared.isdigit() else None
            read = getattr(response, "read1", response.read)  # whatever has arrived
            with open(part, "wb") as out:
                while True:
                    chunk = read(CHUNK)
                    if not chunk:
                        break
                    out.write(chunk)
                    digest.update(chunk)
                    received += len(chunk)
                    watchdog.received(len(chunk))
                    if progress:
                        progress.advance(len(chunk))
                out.flush()
                os.fsync(out.fileno())
        if watchdog.fired and received < entry.size:
            raise DownloadError(_stalled(entry, url, stall_timeout, received, hint))
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
        if watchdog.fired and not isinstance(err, (DownloadError, KeyboardInterrupt, SystemExit)):
            message: str | None = _stalled(entry, url, stall_timeout, received, hint)
        else:
            message = _describe_failure(err, entry, url, hint)
        if message is None:
            raise  # Ctrl-C, SIGTERM, programming errors: temporary file already gone
        raise DownloadError(message) from None
    return received


def _stalled(entry: FileEntry, url: str, stall: float, received: int, hint: str) -> str:
    return (
        f"download of {entry.path} from {url} stalled: no progress for {stall:g} s "
        f"({received} of {entry.size} bytes received); nothing was kept; {hint} "
        f"(or raise --stall-timeout)"
    )


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
    stall_timeout: float = DEFAULT_STALL_TIMEOUT,
    progress_stream=None,
    on_wait: Callable[[], None] | None = None,
) -> DownloadReport:
    """Fetch the missing or corrupt files of ``benchmarks`` (default: all) into ``data_dir``.

    ``mirror`` (else ``$GECMETRICS_MIRROR``) replaces each file's upstream
    address by ``mirror/<relative path>``. Raises :class:`DownloadError` on the
    first failed file; files finished before it are kept. Whatever way the run
    ends (an error, Ctrl-C, SIGTERM turned into an exception by the CLI), it
    removes what it made and did not finish: the temporary file, the lock file
    and the folders it created that are still empty.
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
    created: list[Path] = []  # folders this run made, removed again if left empty
    try:
        _make_dirs(root, created)
    except OSError as err:
        _remove_empty(created)
        raise InputError(
            f"cannot create data directory {root} ({err.strerror}); pass --data-dir"
        ) from None
    try:
        with data_dir_lock(root, on_wait=on_wait, created=created):
            try:
                _fetch_missing(entries, root, resolved, report, mirror=mirror, quiet=quiet,
                               timeout=timeout, stall_timeout=stall_timeout,
                               progress_stream=progress_stream, created=created)
            finally:  # while locked: a waiting run may need these folders next
                _remove_empty([p for p in created if p != root])
    finally:
        _remove_empty(created)
    return report


def _fetch_missing(entries: dict[str, FileEntry], root: Path, resolved: list[str],
                   report: DownloadReport, *, mirror: str | None, quiet: bool,
                   timeout: float, stall_timeout: float, progress_stream,
                   created: list[Path]) -> None:
    """The body of :func:`download`, run under the lock."""
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
    progress = Progress(sum(e.size for e in todo), f"download {label}", not quiet, progress_stream)
    try:
        for entry in todo:
            progress.start_file(entry.path)
            url = source_url(entry, mirror)
            report.bytes_fetched += fetch_file(
                entry, root / entry.path, url, timeout=timeout, stall_timeout=stall_timeout,
                progress=progress, mirror=mirror, created=created,
            )
            report.fetched.append(entry.path)
    finally:
        progress.close()
