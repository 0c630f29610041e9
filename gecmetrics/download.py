"""Fetch the public meta-evaluation data into a local cache, checked and atomic.

Every file a benchmark needs is recorded in ``gecmetrics/data/downloads.json``
with its relative path (the layout of the upstream archives and repositories),
its size, its SHA-256 and its upstream address, pinned to a commit.
:func:`download` fetches the missing files of one or more benchmarks into a
data directory. The libraries do the usual work:

* :mod:`pooch` (:meth:`pooch.Pooch.fetch`) skips a file already present with
  the right SHA-256 and fetches it again if the checksum is wrong; it streams
  each transfer into a temporary file next to the destination, checks its
  SHA-256 and moves it into place only then, and removes the temporary file
  on any failure, Ctrl-C included, so the destination never holds half a file;
* :mod:`requests` speaks HTTP, with ``--timeout`` for connecting and
  ``--stall-timeout`` as the read timeout, so a server that stops sending is
  given up on (headers or body);
* :mod:`tqdm` draws the progress bar (:mod:`gecmetrics.progress`).

What is kept by hand, because pooch does not do it:

* the **lock** (:func:`data_dir_lock`): pooch has none, and two runs on one
  folder would fetch every file twice and race on the renames;
* **taking back what a run made**: pooch creates folders and leaves them; a
  failed or interrupted run (Ctrl-C, or SIGTERM, which the CLI turns into an
  exception) removes the lock file and the folders it created that are still
  empty, and a temporary file left by a killed run (``kill -9``, which no
  ``finally`` survives) is removed by the next one;
* the **transfer** itself (:class:`_Transfer`, a pooch downloader): pooch's
  HTTP downloader reads fixed-size chunks, each of which blocks until it is
  full, so a server that trickles a byte at a time would never trip the read
  timeout nor let a stall be noticed; ours reads what has arrived and gives up
  when less than :data:`STALL_BYTES` arrive in ``stall_timeout`` seconds. It
  also serves ``file://`` mirrors, for which pooch has no downloader;
* **one-line errors** naming the file, its address and what to do.

:func:`missing_files` and :func:`ensure_benchmark_files` let other commands
(``meta-eval``) name the missing file and the command that fetches it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from . import paths, progress
from .errors import ConfigError, GecMetricsError, InputError
from .validate import check_seconds

MANIFEST = "downloads.json"
ENV_MIRROR = "GECMETRICS_MIRROR"
LOCK_NAME = ".gecmetrics-download.lock"
#: the name pooch gives a transfer's temporary file (:func:`tempfile.NamedTemporaryFile`)
TEMPORARY = re.compile(r"tmp[a-z0-9_]{8}")
CHUNK = 64 * 1024
DEFAULT_STALL_TIMEOUT = 60.0  # seconds without progress before a transfer is given up
STALL_BYTES = 1024  # what counts as progress for the stall timeout (see _Transfer)
#: identity encoding: the bytes on the wire are the file, as its SHA-256 expects
HEADERS = {"User-Agent": "gecmetrics-download/2 (python requests)",
           "Accept-Encoding": "identity"}


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


@dataclass(frozen=True)
class TransferOptions:
    """How each file is fetched: the mirror (or None for upstream) and the time limits
    (finite seconds, at least :data:`gecmetrics.validate.MIN_TIMEOUT`; checked here,
    before any folder is made)."""

    mirror: str | None = None
    timeout: float = 60.0
    stall_timeout: float = DEFAULT_STALL_TIMEOUT

    def __post_init__(self) -> None:
        object.__setattr__(self, "timeout", check_seconds(self.timeout, "--timeout"))
        object.__setattr__(self, "stall_timeout",
                           check_seconds(self.stall_timeout, "--stall-timeout"))


# -- manifest ----------------------------------------------------------------


@lru_cache(maxsize=1)
def load_manifest() -> dict:
    """The parsed ``downloads.json`` shipped in :mod:`gecmetrics.data`."""
    text = resources.files("gecmetrics.data").joinpath(MANIFEST).read_text(encoding="utf-8")
    return json.loads(text)


def download_names() -> list[str]:
    """The downloadable benchmarks (``conll14``, ``seeda``, ``gmeg``, ``tmu-gfm``)."""
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


def download_totals(benchmarks: Iterable[str] | None = None) -> tuple[int, int]:
    """``(files, bytes)`` of ``benchmarks`` (default: every one), a file shared by two
    of them counted once (``seeda`` reads ``conll14``'s M2 file): what one download of
    them fetches. The figures the README and docs/downloads.md quote come from here
    (tests/test_docs_commands.py checks them), so they cannot drift from the manifest."""
    manifest = load_manifest()
    names = download_names() if benchmarks is None else [resolve_benchmark(b) for b in benchmarks]
    paths = {p for name in names for p in manifest["benchmarks"][name]["files"]}
    return len(paths), sum(manifest["files"][p]["size"] for p in paths)


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """``data_dir`` if given, else the default (see :func:`gecmetrics.paths.data_dir`)."""
    return paths.data_dir(data_dir)


# -- checking what is there ---------------------------------------------------


def _is_valid(path: Path, entry: FileEntry) -> bool:
    import pooch

    try:
        if path.stat().st_size != entry.size:
            return False
    except OSError:
        return False
    return pooch.file_hash(str(path), alg="sha256") == entry.sha256


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


def _remove_stale_temporaries(root: Path, entries: Iterable[FileEntry]) -> None:
    """Remove pooch's temporary files from the folders of ``entries`` (and ``root``):
    those a killed run left, or one a signal kept pooch from removing.

    Only names pooch gives its temporaries, only in folders the manifest fills,
    never a manifest file; called under the lock, so no live transfer owns them.
    """
    known = set(load_manifest()["files"])
    folders = {(root / e.path).parent for e in entries} | {root}
    for folder in folders:
        with contextlib.suppress(OSError):
            for path in folder.iterdir():
                rel = path.relative_to(root).as_posix()
                if TEMPORARY.fullmatch(path.name) and rel not in known and path.is_file():
                    path.unlink()


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


# -- fetching -------------------------------------------------------------------


def mirror_url(mirror: str, relpath: str) -> str:
    """``mirror/<relpath>`` with the path percent-encoded."""
    return mirror.rstrip("/") + "/" + urllib.parse.quote(relpath, safe="/")


def source_url(entry: FileEntry, mirror: str | None) -> str:
    return mirror_url(mirror, entry.path) if mirror else entry.url


def _retry_hint(mirror: str | None) -> str:
    return "try again" + ("" if mirror else " or use --mirror URL")


class _Stalled(Exception):
    """Less than :data:`STALL_BYTES` arrived in ``stall_timeout`` seconds."""


class _Truncated(Exception):
    """The body ended before its declared ``Content-Length``."""

    def __init__(self, declared: int) -> None:
        super().__init__(declared)
        self.declared = declared


class _Transfer:
    """A pooch downloader for one file: ``__call__(url, output_file, pooch)``.

    Written by hand (see the module docstring) because pooch's HTTP downloader
    cannot notice a trickling server: it iterates fixed-size chunks, and each
    read blocks until its chunk is full. This one reads whatever has arrived
    (``read1``), so every return gives the stall check a chance, and a server
    that stops sending trips requests' read timeout. It records the bytes and
    the SHA-256 it received, for the error message when pooch finds the
    checksum wrong, and serves ``file://`` addresses (mirrors on disk).
    """

    def __init__(self, options: TransferOptions, bar: progress.Bar) -> None:
        self.options = options
        self.bar = bar
        self.received = 0
        self.digest = hashlib.sha256()
        self.complete = False  # every byte received: a failure after it is pooch's hash check

    def __call__(self, url: str, output_file: str, _pooch: Any) -> None:
        with open(output_file, "wb") as out:
            if urllib.parse.urlsplit(url).scheme == "file":
                from urllib.request import url2pathname

                with open(url2pathname(urllib.parse.urlsplit(url).path), "rb") as source:
                    while chunk := source.read(CHUNK):
                        self._write(out, chunk)
            else:
                self._http(url, out)
        self.complete = True

    def _http(self, url: str, out: Any) -> None:
        import requests
        import urllib3.exceptions

        limits = (self.options.timeout, min(self.options.timeout, self.options.stall_timeout))
        with requests.get(url, headers=HEADERS, stream=True, timeout=limits) as response:
            response.raise_for_status()
            declared = response.headers.get("Content-Length", "")
            expected = int(declared) if declared.isdigit() else None
            last, pending = time.monotonic(), 0
            try:
                while chunk := response.raw.read1(CHUNK):
                    self._write(out, chunk)
                    pending += len(chunk)
                    now = time.monotonic()
                    if pending >= STALL_BYTES:
                        last, pending = now, 0
                    elif now - last > self.options.stall_timeout:
                        raise _Stalled
            except urllib3.exceptions.ProtocolError:  # the connection broke off
                if expected is None or self.received >= expected:
                    raise
            if expected is not None and self.received != expected:
                raise _Truncated(expected)

    def _write(self, out: Any, chunk: bytes) -> None:
        try:
            out.write(chunk)
        except OSError as err:  # a full disk, a quota: the network is not at fault
            raise DownloadError(_cannot_write(Path(out.name).parent, err)) from None
        self.digest.update(chunk)
        self.received += len(chunk)
        self.bar.update(len(chunk))


def fetch_file(entry: FileEntry, root: Path, options: TransferOptions,
               bar: progress.Bar | None = None, created: list[Path] | None = None) -> int:
    """Download ``entry`` into ``root`` atomically, checked against its SHA-256.

    Returns the number of bytes written. On any failure (an exception of any
    kind, Ctrl-C and SIGTERM included) the temporary file is removed and the
    destination is untouched; user-fixable failures raise
    :class:`DownloadError` saying what to do. Folders made for the file are
    appended to ``created``. Called under the lock (:func:`data_dir_lock`):
    any temporary file in the destination folder is this call's.
    """
    import pooch

    url = source_url(entry, options.mirror)
    transfer = _Transfer(options, bar or progress.bar(0, "", enabled=False))
    store = pooch.Pooch(path=root, base_url="", registry={entry.path: f"sha256:{entry.sha256}"},
                        urls={entry.path: url})
    try:
        _make_dirs((root / entry.path).parent, [] if created is None else created)
        store.fetch(entry.path, downloader=transfer)
    except BaseException as err:
        # pooch removes its temporary file in a `finally`, but a signal between the file's
        # creation and that `try` (the CLI turns SIGTERM into an exception) would leave it
        _remove_stale_temporaries(root, [entry])
        transfer.bar.update(-transfer.received)
        message = _describe_failure(err, entry, url, options, transfer)
        if message is None:
            raise  # Ctrl-C, SIGTERM, programming errors: temporary file already gone
        raise DownloadError(message) from None
    return transfer.received


def _cannot_write(folder: Path, err: OSError) -> str:
    """One line for a folder the download cannot write in (read-only, full, no
    permission): the folder, the reason, and the two ways to choose another."""
    return (f"cannot write in {folder} ({err.strerror or err}); nothing was kept; free space "
            f"or fix its permissions, or download elsewhere with --data-dir DIR (or "
            f"${paths.ENV_DATA}=DIR)")


def _stalled(entry: FileEntry, url: str, options: TransferOptions, received: int) -> str:
    return (
        f"download of {entry.path} from {url} stalled: no progress for "
        f"{options.stall_timeout:g} s ({received} of {entry.size} bytes received); "
        f"nothing was kept; {_retry_hint(options.mirror)} (or raise --stall-timeout)"
    )


def _reason(err: BaseException) -> str:
    """The innermost operating-system reason in ``err``'s chain ("Connection refused"),
    else ``err`` itself: requests wraps it in three layers of pool messages."""
    reason, seen = "", set()
    probe: BaseException | None = err
    while probe is not None and id(probe) not in seen:
        seen.add(id(probe))
        if isinstance(probe, OSError) and probe.strerror:
            reason = probe.strerror
        probe = probe.__cause__ or probe.__context__
    return reason or str(err) or type(err).__name__


def _describe_failure(err: BaseException, entry: FileEntry, url: str,
                      options: TransferOptions, transfer: _Transfer) -> str | None:
    """One actionable line for a failed transfer, or None to re-raise ``err``."""
    import requests
    import urllib3.exceptions

    hint = _retry_hint(options.mirror)
    kept = "nothing was kept"
    if isinstance(err, DownloadError):
        return str(err)
    if isinstance(err, _Stalled):
        return _stalled(entry, url, options, transfer.received)
    if isinstance(err, _Truncated):
        return (f"transfer of {entry.path} from {url} stopped after {transfer.received} of "
                f"{err.declared} bytes; {kept}; {hint} (finished files are kept)")
    if isinstance(err, ValueError) and transfer.complete:  # pooch: the checksum is wrong
        return (f"checksum mismatch for {entry.path} from {url}: expected sha256 "
                f"{entry.sha256} ({entry.size} bytes), got {transfer.digest.hexdigest()} "
                f"({transfer.received} bytes); {kept}; {hint}")
    if isinstance(err, requests.HTTPError) and err.response is not None:
        return (f"download of {entry.path} failed: HTTP {err.response.status_code} "
                f"{err.response.reason} from {url}; {kept}; check the address or use "
                f"--mirror URL")
    if isinstance(err, (requests.ReadTimeout, urllib3.exceptions.ReadTimeoutError)):
        if options.stall_timeout <= options.timeout:
            return _stalled(entry, url, options, transfer.received)
        return f"transfer of {entry.path} from {url} failed (timed out); {kept}; {hint}"
    if isinstance(err, (requests.ConnectionError, requests.Timeout)) or (
            isinstance(err, OSError) and urllib.parse.urlsplit(url).scheme == "file"
            and transfer.received == 0):
        return (f"cannot reach {url} for {entry.path} ({_reason(err)}); {kept}; "
                f"check the network or use --mirror URL")
    if isinstance(err, OSError) and not transfer.received and err.filename is not None:
        # pooch's temporary file could not be made: a folder that is read-only or full
        return _cannot_write(Path(err.filename).parent, err)
    if isinstance(err, (OSError, requests.RequestException, urllib3.exceptions.HTTPError)):
        # connection resets, malformed responses, local write errors
        return f"transfer of {entry.path} from {url} failed ({_reason(err)}); {kept}; {hint}"
    return None


def download(
    benchmarks: Iterable[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    *,
    mirror: str | None = None,
    quiet: bool = False,
    timeout: float = 60.0,
    stall_timeout: float = DEFAULT_STALL_TIMEOUT,
    progress_stream: TextIO | None = None,
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
    names = list(benchmarks) if benchmarks else download_names()
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
    options = TransferOptions(mirror=mirror, timeout=timeout, stall_timeout=stall_timeout)
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
        with _writable(root), data_dir_lock(root, on_wait=on_wait, created=created):
            try:
                todo = _classify(entries.values(), root, report)
                with contextlib.closing(progress.bar(
                        sum(e.size for e in todo), f"download {'+'.join(resolved)}",
                        enabled=not quiet, stream=progress_stream, unit="B",
                        leave=False)) as bar:
                    _fetch_all(todo, root, report, options, bar, created)
            finally:  # while locked: a waiting run may need these folders next
                _remove_empty([p for p in created if p != root])
    finally:
        _remove_empty(created)
    return report


@contextlib.contextmanager
def _writable(root: Path) -> Iterator[None]:
    """Around taking the lock: a data folder in which no file can be made (read-only,
    no permission, or not a folder where one is needed) is one line naming it."""
    try:
        yield
    except OSError as err:
        if err.filename is None or not str(err.filename).endswith(LOCK_NAME):
            raise
        raise DownloadError(_cannot_write(root, err)) from None


def _classify(entries: Iterable[FileEntry], root: Path, report: DownloadReport) -> list[FileEntry]:
    """The entries to fetch; present and correct ones go to ``report.present``, present
    and wrong ones to ``report.replaced`` (and are fetched). Run under the lock."""
    entries = list(entries)
    _remove_stale_temporaries(root, entries)
    todo: list[FileEntry] = []
    for entry in entries:
        dest = root / entry.path
        if dest.is_file():
            if _is_valid(dest, entry):
                report.present.append(entry.path)
                continue
            report.replaced.append(entry.path)
        todo.append(entry)
    return todo


def _fetch_all(todo: list[FileEntry], root: Path, report: DownloadReport,
               options: TransferOptions, bar: progress.Bar, created: list[Path]) -> None:
    """Fetch ``todo`` in order, under the lock; pooch's log lines are silenced meanwhile
    (its logger writes "Downloading file ..." to stderr at INFO level)."""
    import pooch

    log = pooch.get_logger()
    level = log.level
    log.setLevel(logging.WARNING)
    try:
        for entry in todo:
            bar.set_postfix_str(entry.path)
            report.bytes_fetched += fetch_file(entry, root, options, bar, created)
            report.fetched.append(entry.path)
    finally:
        log.setLevel(level)
