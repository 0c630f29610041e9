"""A disk cache of spaCy parses, so every distinct sentence is parsed once.

ERRANT parses every source, hypothesis and reference sentence with spaCy,
which dominates its running time. :class:`ParseCache` keeps the parse of each
distinct sentence on disk, keyed by the sentence's tokens and the identity of
the pipeline (language, name and version of the model, spaCy version, the
components that run), so scoring 13 systems parses their shared source once
and a second run parses nothing.

Sentences are whitespace-tokenised, as ERRANT's command-line tools read them
(``Doc(vocab, text.split())``, then the pipeline), so the key of a sentence is
its tokens joined by single spaces; text that differs only in spacing shares
one parse.

Layout: ``ROOT/<pipeline id>/<shard>.spacy``. A run that parses new sentences
writes them as one new shard (a spaCy ``DocBin``; the key of a parse is its
text, so shards need no index), written to a temporary file and renamed, so a
reader never sees a half-written shard and concurrent runs at worst parse a
sentence twice. ``ROOT`` is ``$GECMETRICS_CACHE`` if set, else ``parses/``
under the user cache folder (:mod:`gecmetrics.paths`). Deleting the directory is
always safe.

spaCy is imported only by the functions that need it.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .. import paths, progress
from ..formatting import plural
from ..sqlite_store import warn_unwritable
from . import ruler


def sentence_key(text: str) -> str:
    """The cache key of a sentence: its whitespace tokens joined by single spaces."""
    return " ".join(text.split())


def pipeline_id(nlp: Any) -> str:
    """A directory-safe id of a loaded spaCy pipeline (model name and version, spaCy
    version, the components that run)."""
    import spacy

    meta = nlp.meta
    name = f"{meta.get('lang', 'xx')}_{meta.get('name', 'pipeline')}-{meta.get('version', '0')}"
    pipes = "+".join(nlp.pipe_names)
    raw = f"{name}_spacy-{spacy.__version__}_{pipes}"
    return re.sub(r"[^A-Za-z0-9._+-]", "_", raw)


class ParseCache:
    """spaCy parses of whitespace-tokenised sentences, cached on disk.

    ``root`` defaults to :func:`cache_root`; ``root=False`` keeps parses in
    memory only. ``parsed`` counts the sentences this object has parsed (not
    read from disk), for tests and reports.
    """

    def __init__(self, nlp: Any, root: str | os.PathLike[str] | None | bool = None,
                 batch_size: int = 64, progress: bool = True) -> None:
        self.nlp = nlp
        self.id = pipeline_id(nlp)
        if root is False:
            self.directory: Path | None = None
        else:
            base = paths.parse_cache_dir() if root is None or root is True else Path(root)
            self.directory = base / self.id
        self.batch_size = batch_size
        self.progress = progress
        self.parsed = 0
        self._docs: dict[str, Any] = {}
        self._loaded = False
        # Parses made in worker processes (:meth:`add_serialized`), as the
        # DocBin bytes they sent: written as one shard by :meth:`flush`, and
        # read into ``_docs`` only if :meth:`get` asks for one of them.
        self._pending: list[tuple[list[str], bytes]] = []
        self._pending_at: dict[str, int] = {}  # key -> its entry of ``_pending``
        self._flushed = 0

    # -- disk ---------------------------------------------------------------

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if self.directory is None or not self.directory.is_dir():
            return
        from spacy.tokens import DocBin

        for shard in sorted(self.directory.glob("*.spacy")):
            try:
                docs = DocBin().from_bytes(shard.read_bytes()).get_docs(self.nlp.vocab)
                for doc in docs:
                    self._docs.setdefault(" ".join(t.text for t in doc), doc)
            except Exception:  # a damaged shard is only a lost cache: skip it
                continue

    def _write(self, keys: Sequence[str]) -> None:
        if self.directory is None or not keys:
            return
        from spacy.tokens import DocBin

        bin_ = DocBin(store_user_data=False)
        for key in keys:
            bin_.add(self._docs[key])
        self._store(keys, bin_.to_bytes())

    def _store(self, keys: Sequence[str], data: bytes) -> None:
        """Write ``data`` (a DocBin of ``keys``) as one shard, atomically."""
        if self.directory is None:
            return
        name = hashlib.sha256("\n".join(keys).encode("utf-8")).hexdigest()[:32] + ".spacy"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".part")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(tmp, self.directory / name)
            except BaseException:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                raise
        except OSError as err:  # an unwritable cache slows later runs, nothing else
            warn_unwritable(self.directory, err)

    # -- parses made elsewhere (worker processes) --------------------------

    def has(self, text: str) -> bool:
        """Whether the parse of ``text`` is here (disk cache read first), without parsing."""
        self._load()
        key = sentence_key(text)
        return key in self._docs or key in self._pending_at

    def serialized(self, keys: Sequence[str]) -> bytes:
        """The parses of ``keys`` (sentence keys, all here) as DocBin bytes, in that
        order: what a worker process needs to rebuild them in its own vocabulary."""
        from spacy.tokens import DocBin

        self._read_pending(keys)
        bin_ = DocBin(store_user_data=False)
        for key in keys:
            bin_.add(self._docs[key])
        return bin_.to_bytes()

    def add_serialized(self, keys: Sequence[str], data: bytes) -> None:
        """Take the parses of ``keys`` made by a worker process (DocBin bytes of the
        same settings, in that order); written to disk by :meth:`flush`. A key
        already here (parsed by two workers) is counted and kept once."""
        self._load()
        fresh = [k for k in keys if k not in self._docs and k not in self._pending_at]
        if not fresh:
            return
        self._pending_at.update(dict.fromkeys(fresh, len(self._pending)))
        self._pending.append((list(keys), data))
        self.parsed += len(fresh)

    def flush(self) -> None:
        """Write the parses taken by :meth:`add_serialized` as one new shard: the
        workers' DocBins merged as bytes, without rebuilding their Docs."""
        if len(self._pending) == self._flushed or self.directory is None:
            return
        from spacy.tokens import DocBin

        keys: list[str] = []
        merged = DocBin(store_user_data=False)
        todo, self._flushed = self._pending[self._flushed:], len(self._pending)
        for chunk_keys, data in todo:
            merged.merge(DocBin(store_user_data=False).from_bytes(data))
            keys += chunk_keys
        self._store(list(dict.fromkeys(keys)), merged.to_bytes())

    def _read_pending(self, keys: Iterable[str]) -> None:
        """Rebuild here the workers' parses of ``keys`` (sentence keys) not yet
        rebuilt: only the workers' DocBins that hold one of them are read."""
        entries = sorted({self._pending_at[k] for k in keys
                          if k not in self._docs and k in self._pending_at})
        if not entries:
            return
        from spacy.tokens import DocBin

        for entry in entries:
            chunk_keys, data = self._pending[entry]
            docs = DocBin().from_bytes(data).get_docs(self.nlp.vocab)
            for key, doc in zip(chunk_keys, docs, strict=True):
                self._docs.setdefault(key, doc)

    # -- parsing ------------------------------------------------------------

    def parse_all(self, texts: Iterable[str]) -> None:
        """Make sure every text is parsed (reading the disk cache, parsing the rest)."""
        self._load()
        missing = list(dict.fromkeys(k for k in map(sentence_key, texts)
                                     if k not in self._docs and k not in self._pending_at))
        if not missing:
            return
        from spacy.tokens import Doc

        bar = progress.bar(len(missing), f"parsing {plural(len(missing), 'sentence')} with spaCy",
                           enabled=self.progress)
        new: list[str] = []
        try:
            docs = (Doc(self.nlp.vocab, words=k.split()) for k in missing)
            for key, doc in zip(missing, ruler.pipe(self.nlp, docs, self.batch_size),
                                strict=True):
                self._docs[key] = doc
                new.append(key)
                self.parsed += 1
                bar.update()
        finally:
            bar.close()
            self._write(new)  # keep what was parsed even if interrupted

    def get(self, text: str) -> Any:
        """The parse of one text (parsed now if not cached)."""
        key = sentence_key(text)
        if key not in self._docs and key in self._pending_at:
            self._read_pending([key])
        if key not in self._docs:
            self.parse_all([text])
        return self._docs[key]
