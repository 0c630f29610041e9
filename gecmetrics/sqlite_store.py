"""One SQLite key-value file with checked rows: the part every disk cache shares.

Both the ERRANT edit cache (:mod:`gecmetrics.edits.edit_cache`) and the cache of
model outputs (:mod:`gecmetrics.neural.cache`) keep *derived* data that can
always be recomputed, so both want the same guarantees, written once here:

* **rows**: one table ``NAME(k BLOB PRIMARY KEY, v TEXT, c BLOB)``: ``k`` a
  binary digest of the caller's key, ``v`` the value as text (JSON),
  ``c`` the first 8 bytes of SHA-256 of ``k + v``. A row whose check does not
  match, or whose value the caller cannot decode, is reported as missing (one
  warning per store), so the caller recomputes and rewrites it;
* **atomic writes**: every :meth:`CheckedStore.put_many` is one transaction;
  concurrent processes wait up to 30 s for each other's write lock, else the
  write is skipped with a warning (later runs recompute);
* **damaged file**: a file SQLite cannot open or read is ignored for the rest
  of the run with one warning that says to delete it.

A damaged cache is therefore never a wrong number, only a slower run.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

_CHUNK = 500  # keys per SELECT (SQLite's limit on parameters is 999 in old builds)


def warn(message: str) -> None:
    """One line on stderr, the way every gecmetrics cache warns."""
    print(f"gecmetrics: warning: {message}", file=sys.stderr)


_unwritable_warned = False


def warn_unwritable(where: str | os.PathLike[str], err: BaseException) -> None:
    """The one warning of a run whose caches cannot be written (a read-only
    folder, a full disk, a file-size limit): the run goes on without storing
    anything, its results unchanged; later failures of the same run are silent.
    Nothing partial is left: every cache writes by rename or in a transaction."""
    global _unwritable_warned
    if _unwritable_warned:
        return
    _unwritable_warned = True
    reason = getattr(err, "strerror", None) or str(err)
    warn(f"cannot write the cache in {where} ({reason}); this run stores nothing there "
         "and its results are unaffected (free some space, make the folder writable, "
         "or set GECMETRICS_CACHE to a writable folder)")


def row_check(k: bytes, v: str) -> bytes:
    """The 8-byte check stored beside each value."""
    return hashlib.sha256(k + v.encode("utf-8")).digest()[:8]


class CheckedStore:
    """A table of checked (digest -> text) rows in the SQLite file ``path``.

    ``path=None`` (or set to None later) keeps nothing: reads find nothing and
    writes do nothing. ``what`` names the cache in warnings ("the ERRANT edit
    cache"). ``hits`` and ``stored`` count rows read and written.
    """

    def __init__(self, path: str | os.PathLike[str] | None, table: str, what: str) -> None:
        if not table.isidentifier():
            raise ValueError(f"bad table name {table!r}")
        self.path = Path(path) if path is not None else None
        self.table, self.what = table, what
        self.hits = 0
        self.stored = 0
        self._conn: sqlite3.Connection | None = None
        self._opened = False
        self._warned_rows = False

    def _connect(self) -> sqlite3.Connection | None:
        if self.path is None:
            return None
        if self._opened:
            return self._conn
        self._opened = True
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            warn_unwritable(self.path.parent, err)
            return None
        try:
            conn = sqlite3.connect(self.path, timeout=30)
            conn.execute(f"CREATE TABLE IF NOT EXISTS {self.table} "
                         "(k BLOB PRIMARY KEY, v TEXT NOT NULL, c BLOB NOT NULL) WITHOUT ROWID")
            conn.commit()
        except sqlite3.OperationalError as err:
            if not _unwritable(err):
                raise
            warn_unwritable(self.path.parent, err)
            return None
        except (sqlite3.Error, OSError) as err:
            warn(f"{self.what} {self.path} cannot be used ({err}); it is ignored "
                 "in this run (delete the file to rebuild it)")
            return None
        self._conn = conn
        return conn

    def get_many(self, digests: Iterable[bytes],
                 decode: Callable[[str], T | None]) -> dict[bytes, T]:
        """{digest: decode(v)} of the rows found intact (check matches, decodes)."""
        conn = self._connect()
        if conn is None:
            return {}
        wanted = list(dict.fromkeys(digests))
        found: dict[bytes, T] = {}
        try:
            for i in range(0, len(wanted), _CHUNK):
                chunk = wanted[i:i + _CHUNK]
                rows = conn.execute(f"SELECT k, v, c FROM {self.table} WHERE k IN "
                                    f"({','.join('?' * len(chunk))})", chunk).fetchall()
                for k, v, c in rows:
                    value = decode(v) if isinstance(v, str) and c == row_check(k, v) else None
                    if value is None:
                        if not self._warned_rows:
                            self._warned_rows = True
                            warn(f"damaged rows in {self.what} {self.path} are recomputed")
                        continue
                    found[k] = value
        except sqlite3.Error as err:
            warn(f"{self.what} {self.path} cannot be read ({err}); it is ignored "
                 "in this run (delete the file to rebuild it)")
            self._conn = None
            return {}
        self.hits += len(found)
        return found

    def put_many(self, items: dict[bytes, str]) -> None:
        """Store ``{digest: text}`` in one transaction (a failure only warns)."""
        conn = self._connect()
        if conn is None or not items:
            return
        rows = [(k, v, row_check(k, v)) for k, v in items.items()]
        try:
            with conn:
                conn.executemany(f"INSERT OR REPLACE INTO {self.table} (k, v, c) "
                                 "VALUES (?, ?, ?)", rows)
        except sqlite3.Error as err:
            if _unwritable(err):
                warn_unwritable(self.path.parent if self.path else self.what, err)
            else:
                warn(f"could not write {self.what} {self.path} ({err}); later runs "
                     "will compute these values again")
            return
        self.stored += len(rows)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _unwritable(err: sqlite3.Error) -> bool:
    """Whether SQLite failed for want of space or permission (not a damaged file)."""
    text = str(err).lower()
    return any(word in text for word in ("disk is full", "readonly", "read-only",
                                         "unable to open", "disk i/o error"))
