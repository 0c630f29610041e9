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

Layout: ``ROOT/<pipeline id>/<shard>.parses``. A run that parses new sentences
writes them as one new shard: a msgpack map that lists spaCy ``DocBin`` blobs, each
with the keys of its parses in order. Keys are read without decoding a parse, and a
``DocBin`` is decoded only when one of its sentences is asked for; the ``DocBin``
bytes that ``-j`` workers send back are written as they came, never decoded and
encoded again. A shard is written to a temporary file and renamed, so a reader
never sees a half-written one and concurrent runs at worst parse a sentence twice.
Shards of the earlier layout (one ``DocBin`` per ``<shard>.spacy`` file, keyed by its
tokens) are still read. ``ROOT`` is ``$GECMETRICS_CACHE`` if set, else ``parses/``
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


#: The file name ending and the ``format`` / ``version`` fields of a shard.
SHARD_SUFFIX = ".parses"
SHARD_FORMAT = "gecmetrics-parses"
SHARD_VERSION = 1
#: A shard of the earlier layout: one ``DocBin``, its keys read from its tokens.
OLD_SHARD_SUFFIX = ".spacy"
#: Parses per ``DocBin`` in a shard this process writes, so that a later run that
#: needs a few of them decodes a few hundred, not the whole run's.
DOCS_PER_BIN = 256

#: Sentences per ``nlp.pipe`` batch. spaCy's CPU pipelines annotate a sentence the
#: same in any batch (tests/test_errant.py checks one at a time, as errant's tools
#: parse, against this batch). Larger batches were no faster in a whole cold run (3
#: CoNLL-2014 outputs, one core: 15.2-16.8 s CPU at 64, 15.3-19.2 s at 256) and
#: held about 100 MiB more at their peak.
PARSE_BATCH = 64

#: One ``DocBin``'s sentence keys, in order, and its bytes.
Bin = tuple[list[str], bytes]


class ParseCache:
    """spaCy parses of whitespace-tokenised sentences, cached on disk.

    ``root`` defaults to :func:`cache_root`; ``root=False`` keeps parses in
    memory only. ``parsed`` counts the sentences this object has parsed (not
    read from disk), for tests and reports.
    """

    def __init__(self, nlp: Any, root: str | os.PathLike[str] | None | bool = None,
                 batch_size: int = PARSE_BATCH, progress: bool = True) -> None:
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
        # Parses known as DocBin bytes (read from a shard, or sent by a worker
        # process through :meth:`add_serialized`), decoded into ``_docs`` only
        # when :meth:`get` or :meth:`serialized` asks for one of them.
        self._bins: list[Bin] = []
        self._bin_at: dict[str, int] = {}  # key -> its entry of ``_bins``
        self._unwritten: list[int] = []  # workers' entries :meth:`flush` will write

    # -- disk ---------------------------------------------------------------

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if self.directory is None or not self.directory.is_dir():
            return
        for shard in sorted(self.directory.glob("*" + SHARD_SUFFIX)):
            try:
                bins = _read_shard(shard.read_bytes())
            except Exception:  # a damaged shard is only a lost cache: skip it
                continue
            for keys, data in bins:
                self._add_bin(keys, data)
        old = sorted(self.directory.glob("*" + OLD_SHARD_SUFFIX))
        if not old:
            return
        from spacy.tokens import DocBin

        for shard in old:
            try:
                docs = DocBin().from_bytes(shard.read_bytes()).get_docs(self.nlp.vocab)
                for doc in docs:
                    key = " ".join(t.text for t in doc)
                    if key not in self._bin_at:
                        self._docs.setdefault(key, doc)
            except Exception:
                continue

    def _add_bin(self, keys: Sequence[str], data: bytes) -> list[str]:
        """Take a DocBin of ``keys`` (undecoded); its keys not known yet."""
        fresh = list(dict.fromkeys(k for k in keys if k not in self._docs
                                   and k not in self._bin_at))
        if fresh:
            self._bin_at.update(dict.fromkeys(fresh, len(self._bins)))
            self._bins.append((list(keys), data))
        return fresh

    def _write(self, keys: Sequence[str]) -> None:
        """Write the parses of ``keys`` (all in ``_docs``) as one shard."""
        if self.directory is None or not keys:
            return
        from spacy.tokens import DocBin

        bins: list[Bin] = []
        for at in range(0, len(keys), DOCS_PER_BIN):
            some = list(keys[at:at + DOCS_PER_BIN])
            bin_ = DocBin(store_user_data=False)
            for key in some:
                bin_.add(self._docs[key])
            bins.append((some, bin_.to_bytes()))
        self._store(bins)

    def _store(self, bins: Sequence[Bin]) -> None:
        """Write ``bins`` as one shard, atomically."""
        if self.directory is None:
            return
        import srsly

        keys = [key for some, _ in bins for key in some]
        name = hashlib.sha256("\n".join(keys).encode("utf-8")).hexdigest()[:32] + SHARD_SUFFIX
        data = srsly.msgpack_dumps({"format": SHARD_FORMAT, "version": SHARD_VERSION,
                                    "bins": [[some, blob] for some, blob in bins]})
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
        return key in self._docs or key in self._bin_at

    def serialized(self, keys: Sequence[str]) -> bytes:
        """The parses of ``keys`` (sentence keys, all here) as DocBin bytes, in that
        order: what a worker process needs to rebuild them in its own vocabulary."""
        from spacy.tokens import DocBin

        self._decode(keys)
        lost = [key for key in keys if key not in self._docs]  # from a damaged DocBin
        if lost:
            self.parse_all(lost)
        bin_ = DocBin(store_user_data=False)
        for key in keys:
            bin_.add(self._docs[key])
        return bin_.to_bytes()

    def add_serialized(self, keys: Sequence[str], data: bytes) -> None:
        """Take the parses of ``keys`` made by a worker process (DocBin bytes of the
        same settings, in that order); written to disk by :meth:`flush`. A key
        already here (parsed by two workers) is counted and kept once."""
        self._load()
        fresh = self._add_bin(keys, data)
        if fresh:
            self._unwritten.append(len(self._bins) - 1)
            self.parsed += len(fresh)

    def flush(self) -> None:
        """Write the parses taken by :meth:`add_serialized` as one new shard: the
        workers' DocBin bytes as they came, none decoded."""
        if not self._unwritten or self.directory is None:
            return
        bins, self._unwritten = [self._bins[i] for i in self._unwritten], []
        self._store(bins)

    def _decode(self, keys: Iterable[str]) -> None:
        """Decode into ``_docs`` the DocBins that hold parses of ``keys`` (sentence
        keys) not decoded yet: only those, each once. A DocBin that does not decode
        to its keys' parses is dropped (its sentences are parsed again if asked for)."""
        entries = sorted({self._bin_at[k] for k in keys
                          if k not in self._docs and k in self._bin_at})
        if not entries:
            return
        from spacy.tokens import DocBin

        for entry in entries:
            some, data = self._bins[entry]
            try:
                docs = list(DocBin().from_bytes(data).get_docs(self.nlp.vocab))
                if len(docs) != len(some):
                    raise ValueError(f"{len(docs)} parses for {len(some)} sentences")
            except Exception:
                docs = []
            for key, doc in zip(some, docs, strict=False):  # none when dropped
                self._docs.setdefault(key, doc)
            for key in some:
                if self._bin_at.get(key) == entry:
                    del self._bin_at[key]

    # -- parsing ------------------------------------------------------------

    def parse_all(self, texts: Iterable[str]) -> None:
        """Make sure every text is parsed (reading the disk cache, parsing the rest)."""
        self._load()
        missing = list(dict.fromkeys(k for k in map(sentence_key, texts)
                                     if k not in self._docs and k not in self._bin_at))
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
        self._load()
        key = sentence_key(text)
        if key not in self._docs and key in self._bin_at:
            self._decode([key])
        if key not in self._docs:
            self.parse_all([text])
        return self._docs[key]


def _read_shard(data: bytes) -> list[Bin]:
    """The DocBins of a shard (:data:`SHARD_SUFFIX`), each with its keys; ValueError
    when ``data`` is not one."""
    import srsly

    msg = srsly.msgpack_loads(data)
    if not (isinstance(msg, dict) and msg.get("format") == SHARD_FORMAT
            and msg.get("version") == SHARD_VERSION and isinstance(msg.get("bins"), list)):
        raise ValueError("not a parse-cache shard of this version")
    bins: list[Bin] = []
    for entry in msg["bins"]:
        if not (isinstance(entry, list | tuple) and len(entry) == 2
                and isinstance(entry[0], list) and isinstance(entry[1], bytes)
                and all(isinstance(k, str) for k in entry[0])):
            raise ValueError("a damaged entry")
        bins.append((entry[0], entry[1]))
    return bins
