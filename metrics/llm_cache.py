"""The LLM judge's disk cache of raw answers, so reruns never ask the model again.

A key is the SHA-256 of everything the answer depends on: the backend, the
model's identity (for an endpoint: base URL and model name; for a local model:
its name, revision and a digest of its files, see
:func:`metrics.llm_backends.local_identity`), the generation settings
(temperature, seed, max_tokens), :data:`metrics.llm_prompts.TEMPLATE_VERSION`
and the full prompt text. The value is the model's raw answer text; it is
parsed on every read, so a parsing fix applies to cached answers too, and an
unparsable answer is cached like any other (rerunning would only pay for the
same answer again: deterministic decoding) and fails again in one line.

One SQLite file, ``llm-judge.sqlite`` under ``$GECMETRICS_CACHE`` when set, else
under the cache root (:mod:`gecmetrics.paths`). Each batch of new answers is
written in one transaction as soon as it arrives, so an interrupted run keeps
what it paid for. A file SQLite cannot read is skipped for the run with a
warning (never a wrong score: a miss only asks the model again).

This is the LLM judge's own small store: the shared neural output cache
(``gecmetrics/neural/cache.py``) was not available when it was written; it has
the same ``get_many``/``put_many`` shape so that it can be swapped for it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from gecmetrics.paths import ENV_PARSE_CACHE, cache_root

FILE = "llm-judge.sqlite"
_CHUNK = 500


def default_path() -> Path:
    env = os.environ.get(ENV_PARSE_CACHE)
    return (Path(env).expanduser() if env else cache_root()) / FILE


def cache_key(*parts: str) -> str:
    """SHA-256 (hex) of ``parts``, each length-prefixed so no two splits collide."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8")
        h.update(str(len(data)).encode() + b":" + data)
    return h.hexdigest()


def _warn(message: str) -> None:
    print(f"gecmetrics: warning: {message}", file=sys.stderr)


class AnswerCache:
    """Raw answers by key in one SQLite file; ``enabled=False`` keeps nothing."""

    def __init__(self, enabled: bool = True, path: str | os.PathLike[str] | None = None) -> None:
        self.enabled = enabled
        self.path = Path(path) if path is not None else default_path()
        self._conn: sqlite3.Connection | None = None
        self._broken = False

    def _connect(self) -> sqlite3.Connection | None:
        if not self.enabled or self._broken:
            return None
        if self._conn is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=30)
                conn.execute("CREATE TABLE IF NOT EXISTS answers (k TEXT PRIMARY KEY, v TEXT)")
                conn.commit()
                self._conn = conn
            except (OSError, sqlite3.Error) as err:
                self._broken = True
                _warn(f"LLM answer cache {self.path} unusable ({err}); running without it "
                      "(delete the file to rebuild it)")
                return None
        return self._conn

    def get_many(self, keys: Sequence[str]) -> list[str | None]:
        """The cached answer of each key, None where there is none."""
        conn = self._connect()
        if conn is None:
            return [None] * len(keys)
        found: dict[str, str] = {}
        unique = list(dict.fromkeys(keys))
        try:
            for i in range(0, len(unique), _CHUNK):
                part = unique[i:i + _CHUNK]
                marks = ",".join("?" * len(part))
                rows = conn.execute(f"SELECT k, v FROM answers WHERE k IN ({marks})", part)
                found.update((k, v) for k, v in rows if isinstance(v, str))
        except sqlite3.Error as err:
            self._broken = True
            _warn(f"LLM answer cache {self.path} unreadable ({err}); running without it "
                  "(delete the file to rebuild it)")
            return [None] * len(keys)
        return [found.get(k) for k in keys]

    def put_many(self, keys: Sequence[str], values: Sequence[str]) -> None:
        """Store answers in one transaction (a failed write is a warning, not an error)."""
        conn = self._connect()
        if conn is None or not keys:
            return
        try:
            with conn:
                conn.executemany("INSERT OR REPLACE INTO answers (k, v) VALUES (?, ?)",
                                 list(zip(keys, values, strict=True)))
        except sqlite3.Error as err:
            _warn(f"could not write the LLM answer cache {self.path} ({err}); "
                  "these answers will be asked for again next time")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
