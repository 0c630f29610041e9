"""Model outputs on disk, so a rerun or a meta-evaluation sweep runs no model.

A model-based metric's expensive part is a pure function of (the model, the
metric's options that reach the model, the input text). :class:`OutputCache`
stores its JSON-serialisable result under exactly that:

* ``identity``: :meth:`gecmetrics.neural.models.ModelRef.identity` of every
  model involved (a content hash for local folders), plus anything else that
  changes outputs (e.g. ``dtype``; metrics put the format version of what they
  store here too);
* each key: :func:`cache_key` of the options and the input text(s) of one item.

The row key is the first 16 bytes of SHA-256 over ``identity`` and the key,
so two metrics, or two models, can share one file without ever reading each
other's rows. One SQLite file per ``namespace`` (the metric name, e.g.
``some``): ``ROOT/<namespace>.sqlite`` with ``ROOT`` from
:func:`gecmetrics.paths.output_cache_dir` (``$GECMETRICS_CACHE/outputs`` or
``~/.cache/gecmetrics/outputs``), unless ``path`` names the file. The file
handling is :class:`gecmetrics.sqlite_store.CheckedStore`'s: atomic
transactions, damaged rows recomputed, an unreadable file ignored with one
warning (delete it to rebuild). ``enabled=False`` reads and writes nothing.

Floats survive the JSON round trip exactly (Python writes the shortest repr
that reads back to the same double), so a cached score equals the computed one.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import paths
from ..sqlite_store import CheckedStore

#: Version of how outputs are stored; part of every row key.
FORMAT = 1

_MISSING = object()


def cache_key(*parts: str) -> str:
    """A hex SHA-256 of ``parts``, unambiguous (each part is length-prefixed).

    Build one key per item from the options that reach the model and the
    item's text(s), e.g. ``cache_key("max_length=128", source, hypothesis)``.
    """
    h = hashlib.sha256()
    for part in parts:
        raw = part.encode("utf-8")
        h.update(len(raw).to_bytes(8, "little"))
        h.update(raw)
    return h.hexdigest()


def _decode(v: str) -> Any:
    try:
        return (json.loads(v),)
    except ValueError:
        return None


class OutputCache:
    """JSON values keyed by strings, for one (namespace, identity), in SQLite.

    ``hits``/``misses`` count keys found/not found by :meth:`get_many` and
    ``stored`` the values written, by this object, for tests, benches and the
    proof that a rerun runs no model.
    """

    def __init__(self, namespace: str, identity: str, enabled: bool = True,
                 path: Path | None = None) -> None:
        if not re.fullmatch(r"[A-Za-z0-9._+-]+", namespace):
            raise ValueError(f"bad cache namespace {namespace!r}")
        self.namespace, self.identity, self.enabled = namespace, identity, enabled
        file = path if path is not None else paths.output_cache_dir() / f"{namespace}.sqlite"
        self._store = CheckedStore(file if enabled else None, "outputs",
                                   f"the {namespace} model-output cache")
        self.hits = 0
        self.misses = 0

    @property
    def path(self) -> Path | None:
        """The SQLite file (None when disabled)."""
        return self._store.path

    @property
    def stored(self) -> int:
        return self._store.stored

    def _digest(self, key: str) -> bytes:
        return bytes.fromhex(cache_key(f"f{FORMAT}", self.identity, key))[:16]

    def get_many(self, keys: Sequence[str]) -> list[Any | None]:
        """The cached value of each key, None where absent (or the cache is disabled).

        A stored JSON ``null`` also reads as None (a miss): store no None values.
        """
        digests = [self._digest(k) for k in keys]
        found = self._store.get_many(digests, _decode) if self.enabled else {}
        out: list[Any | None] = []
        for d in digests:
            box = found.get(d)
            out.append(None if box is None else box[0])
        n_found = sum(v is not None for v in out)
        self.hits += n_found
        self.misses += len(out) - n_found
        return out

    def put_many(self, keys: Sequence[str], values: Sequence[Any]) -> None:
        """Store ``values[i]`` under ``keys[i]``, in one transaction (failures only warn).

        Values must be JSON-serialisable and finite (a NaN raises ValueError).
        """
        if len(keys) != len(values):
            raise ValueError(f"{len(keys)} keys but {len(values)} values")
        if not self.enabled or not keys:
            return
        rows = {self._digest(k): json.dumps(v, ensure_ascii=False, allow_nan=False,
                                            separators=(",", ":"))
                for k, v in zip(keys, values, strict=True)}
        self._store.put_many(rows)

    def close(self) -> None:
        self._store.close()
