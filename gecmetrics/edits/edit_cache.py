"""A disk cache of ERRANT's extracted edits, so a rerun does no linguistic work.

The parse cache (:mod:`gecmetrics.edits.parse_cache`) saves spaCy's parsing, but
ERRANT's alignment, merging and classification of every (source, hypothesis)
pair still cost about 1 ms each, and loading spaCy to read the parses back
costs seconds more. This cache keeps the *result*: the edits ERRANT extracted
from a pair (``errant_parallel``), or an annotator's M2 edits as
``errant_m2 -gold`` re-annotates them, so a rerun, a beta sweep in another
process or a meta-evaluation over the same outputs neither imports spaCy nor
runs ERRANT.

**What the edits depend on** is all in the key:

* the pair: the source's and the other sentence's whitespace tokens (and for
  gold edits, the annotator's spans, types and corrections);
* the identity of the tools, in the file name (:func:`tool_identity`): the
  spaCy pipeline's language, name, version and a digest of its ``meta.json``,
  the spaCy and errant versions, and :data:`FORMAT`, the version of what
  gecmetrics stores and of how it runs the pipeline (without NER; bumped when
  either changes). The identity is read from package metadata, without
  importing spaCy.

**Format**: one SQLite file per tool identity,
``ROOT/edits/<identity>.sqlite`` (``ROOT``: :func:`gecmetrics.paths.edit_cache_dir`),
one table ``edits(k BLOB PRIMARY KEY, v TEXT, c BLOB)``: ``k`` the first 16
bytes of the SHA-256 of the key, ``v`` the edits as JSON
(``[[start, end, correction, type], ...]``), ``c`` the first 8 bytes of the
SHA-256 of ``k + v``. About 100 bytes per pair: the 14 CoNLL-2014 outputs
(1,312 sentences, 9,416 distinct pairs with gold) take 0.9 MB.

**Safety**: every run's new rows are written in one SQLite transaction (atomic;
concurrent runs wait for each other's write lock, up to 30 s, or skip
writing with a warning). A row whose check ``c`` does not match, or whose
value does not decode to edits, is recomputed (a warning); a file that SQLite
cannot read is ignored for the run (a warning saying to delete it). A damaged
cache is therefore never a wrong number, only a slower run. Deleting the
folder is always safe; ``errant:cache=false`` neither reads nor writes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..sqlite_store import CheckedStore
from .span import ErrantEdit

#: Version of the stored format and of how gecmetrics runs ERRANT (e.g. the
#: spaCy components excluded); part of every file name.
FORMAT = 1


def model_folder(name: str) -> Path | None:
    """The folder holding the ``meta.json`` of the spaCy pipeline ``name`` as
    ``spacy.load`` would find it (an installed package first, then a folder),
    without importing spaCy; None when there is none."""
    import importlib.util

    folder: Path | None = None
    try:
        spec = importlib.util.find_spec(name) if name.isidentifier() else None
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        folder = Path(next(iter(spec.submodule_search_locations)))
    elif Path(name).is_dir():
        folder = Path(name)
    if folder is None or not (folder / "meta.json").is_file():
        return None
    return folder


def _model_meta(name: str) -> dict[str, Any] | None:
    """The ``meta.json`` of the spaCy pipeline ``name`` (:func:`model_folder`)."""
    folder = model_folder(name)
    if folder is None:
        return None
    try:
        raw = (folder / "meta.json").read_bytes()
        meta = json.loads(raw)
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict):
        return None
    meta["_digest"] = hashlib.sha256(raw).hexdigest()[:12]
    return meta


def tool_identity(model: str, candidates: Sequence[str]) -> tuple[str, tuple[str, str, str]] | None:
    """(file-safe identity, (lang, name, version) of the pipeline) of the tools
    that would extract the edits: the pipeline ``model`` (or the first of
    ``candidates`` with a ``meta.json``), spaCy, errant and :data:`FORMAT`.

    None when it cannot be told without loading spaCy (then no disk cache).
    """
    from importlib import metadata

    for name in (model,) if model else candidates:
        meta = _model_meta(name)
        if meta is not None:
            break
    else:
        return None
    try:
        versions = f"spacy-{metadata.version('spacy')}_errant-{metadata.version('errant')}"
    except metadata.PackageNotFoundError:
        return None
    pipeline = (str(meta.get("lang", "xx")), str(meta.get("name", "pipeline")),
                str(meta.get("version", "0")))
    raw = f"{pipeline[0]}_{pipeline[1]}-{pipeline[2]}-{meta['_digest']}_{versions}_f{FORMAT}"
    return re.sub(r"[^A-Za-z0-9._+-]", "_", raw), pipeline


def digest(key: Sequence[str]) -> bytes:
    """The 16-byte row key of a cache key (a tuple of strings)."""
    return hashlib.sha256("\x1f".join(key).encode("utf-8")).digest()[:16]


def _decode(v: str) -> list[ErrantEdit] | None:
    try:
        raw = json.loads(v)
    except ValueError:
        return None
    if not isinstance(raw, list):
        return None
    out: list[ErrantEdit] = []
    for e in raw:
        if not (isinstance(e, list) and len(e) == 4 and type(e[0]) is int
                and type(e[1]) is int and isinstance(e[2], str) and isinstance(e[3], str)):
            return None
        out.append((e[0], e[1], e[2], e[3]))
    return out


class EditCache:
    """ERRANT edits keyed by tuples of strings, in a SQLite file (or nowhere).

    ``path=None`` keeps nothing on disk (``get_many`` finds nothing). ``hits``
    and ``stored`` count rows read and written by this object, for tests and
    reports. The file handling (checked rows, one transaction per write,
    damaged files ignored) is :class:`gecmetrics.sqlite_store.CheckedStore`'s.
    """

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        self._store = CheckedStore(path, "edits", "the ERRANT edit cache")

    @property
    def path(self) -> Path | None:
        return self._store.path

    @path.setter
    def path(self, value: Path | None) -> None:
        self._store.path = value

    @property
    def hits(self) -> int:
        return self._store.hits

    @property
    def stored(self) -> int:
        return self._store.stored

    def get_many(self, keys: Iterable[Sequence[str]]) -> dict[bytes, list[ErrantEdit]]:
        """{digest(key): edits} of the keys found intact on disk."""
        return self._store.get_many((digest(k) for k in keys), _decode)

    def put_many(self, items: dict[bytes, list[ErrantEdit]]) -> None:
        """Store ``{digest(key): edits}`` in one transaction (a failure only warns)."""
        self._store.put_many({
            k: json.dumps([list(e) for e in edits], ensure_ascii=False, separators=(",", ":"))
            for k, edits in items.items()})

    def close(self) -> None:
        self._store.close()
