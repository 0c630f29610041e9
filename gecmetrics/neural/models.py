"""Which model a metric runs, and loading it the same way for every metric.

A model is named by a :class:`ModelRef`: a Hugging Face hub id (with an
optional revision) or a local folder written by ``save_pretrained``. Its
:meth:`ModelRef.identity` is what the output cache (:mod:`.cache`) is keyed
on, so it must change whenever the model's outputs can change:

* a hub id: ``hub:<id>@<revision>`` (``@main`` when no revision is given;
  pin a commit hash with ``revision`` for a cache that can never go stale
  when the hub model is updated);
* a local folder: ``local:<sha256>`` of the names and bytes of every file in
  it (config, tokenizer, weights), so a retrained or edited local model never
  reads a stale cache. Hashing reads the files once per process (memoised on
  names, sizes and modification times): about 1 s per GB.

Loading (:func:`load_tokenizer`, :func:`load_model`): a local folder is read
as is; a hub id is first looked up in the local Hugging Face cache
(``local_files_only=True``, no network), and only then fetched. When neither
works (no hub is reachable from many evaluation machines) the error is one
line naming the id and saying to pass a local folder. Models are put in
``eval()`` mode, in float32 by default (exactness: scores must not depend on
the GPU's half-precision kernels), on the device from :mod:`.device`.
Inference goes inside :func:`no_grad`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .extra import require_torch, require_transformers

DTYPES = ("float32", "float16", "bfloat16")


@dataclass(frozen=True)
class ModelRef:
    """A model by hub id (``revision``: a branch, tag or commit) or local folder."""

    name_or_path: str
    revision: str | None = None

    def local_path(self) -> Path | None:
        """The folder when ``name_or_path`` is an existing local directory, else None."""
        path = Path(self.name_or_path).expanduser()
        return path if path.is_dir() else None

    def looks_local(self) -> bool:
        """True for a name written as a path (``/x``, ``./x``, ``../x``, ``~/x``)."""
        n = self.name_or_path
        return n.startswith(("/", "./", "../", "~", ".\\")) or os.sep + os.sep in n

    def check(self, option: str = "model") -> None:
        """One-line :class:`ConfigError` for a path-like name with no folder there."""
        if not self.name_or_path:
            raise ConfigError(f"{option} is empty; give a hub model id or a local folder")
        if self.looks_local() and self.local_path() is None:
            raise ConfigError(f"{option}={self.name_or_path}: no such folder; give the folder "
                              "a model was saved to (save_pretrained) or a hub model id")

    def identity(self) -> str:
        """The cache identity: ``hub:<id>@<revision>`` or ``local:<content sha256>``."""
        path = self.local_path()
        if path is None:
            return f"hub:{self.name_or_path}@{self.revision or 'main'}"
        return "local:" + _folder_digest(*_folder_listing(path.resolve()))


def _folder_listing(root: Path) -> tuple[str, tuple[tuple[str, int, int], ...]]:
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            full = Path(dirpath) / name
            st = full.stat()
            files.append((full.relative_to(root).as_posix(), st.st_size, st.st_mtime_ns))
    return str(root), tuple(sorted(files))


@lru_cache(maxsize=64)
def _folder_digest(root: str, files: tuple[tuple[str, int, int], ...]) -> str:
    h = hashlib.sha256()
    for rel, size, _mtime in files:
        h.update(f"{rel}\x00{size}\x00".encode())
        with open(Path(root) / rel, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def _from_pretrained(loader: Any, ref: ModelRef, metric: str, what: str,
                     **kwargs: Any) -> Any:
    """``loader.from_pretrained`` on a folder, else the HF cache, else the hub."""
    ref.check()
    path = ref.local_path()
    if path is not None:
        try:
            return loader.from_pretrained(str(path), **kwargs)
        except (OSError, ValueError) as err:
            missing = _missing_files(path, what)
            if missing:
                raise ConfigError(
                    f"metric {metric}: cannot load the {what} from {path}: the folder has no "
                    f"{', no '.join(missing)}; pass the folder save_pretrained wrote the model "
                    "and its tokenizer to, or a hub model id") from None
            raise ConfigError(f"metric {metric}: cannot load the {what} from {path}: "
                              f"{_one_line(err)}") from None
    if ref.revision is not None:
        kwargs["revision"] = ref.revision
    try:
        return loader.from_pretrained(ref.name_or_path, local_files_only=True, **kwargs)
    except (OSError, ValueError):
        pass
    hub = hub_endpoint()
    if hub is not None:
        try:
            return loader.from_pretrained(ref.name_or_path, **kwargs)
        except (OSError, ValueError) as err:
            raise ConfigError(f"metric {metric}: cannot load the {what} of "
                              f"{ref.name_or_path!r} from {hub}: {_one_line(err)}; check the id "
                              "or pass a local folder path instead") from None
    where = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    raise ConfigError(
        f"metric {metric}: the {what} of {ref.name_or_path!r} is not in the local Hugging "
        f"Face cache and no model hub is reachable ({where}); download it where a hub is "
        "reachable and pass its local folder path instead")


#: The files ``save_pretrained`` writes, by role: any one name of each group (a
#: tokenizer saved by a slow class has vocab.txt or a sentencepiece model instead of
#: tokenizer.json), and which roles loading a tokenizer or a model needs.
MODEL_FOLDER_FILES: dict[str, tuple[str, ...]] = {
    "config.json": ("config.json",),
    "tokenizer files (tokenizer.json or vocab.txt)": (
        "tokenizer.json", "vocab.txt", "vocab.json", "spiece.model", "sentencepiece.bpe.model"),
    "weights (model.safetensors or pytorch_model.bin)": (
        "model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
        "pytorch_model.bin.index.json"),
}
NEEDED_FILES = {"tokenizer": ("tokenizer files (tokenizer.json or vocab.txt)",),
                "model": ("config.json", "weights (model.safetensors or pytorch_model.bin)")}
#: Loader messages are cut to this many characters (some run to a paragraph).
MESSAGE_CHARS = 300


def _one_line(err: BaseException) -> str:
    """The loader's whole message on one line (transformers' messages span several
    lines, and their first line alone can stop mid-sentence: "...from one of:")."""
    text = " ".join(str(err).split()) or type(err).__name__
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS - 3] + "..."


def _missing_files(path: Path, what: str) -> list[str]:
    """The files loading ``what`` needs that folder ``path`` lacks: the plain reason
    when a folder is not a model at all, where the loader's own message talks of
    serialization files and slow tokenizer classes."""
    return [role for role in NEEDED_FILES.get(what, ())
            if not any((path / name).exists() for name in MODEL_FOLDER_FILES[role])]


def hub_endpoint(timeout: float = 3.0) -> str | None:
    """The model hub's address when it answers a TCP connection, else None.

    Checked once per process (``$HF_ENDPOINT``, default huggingface.co;
    ``HF_HUB_OFFLINE=1`` means unreachable), so that a machine without network
    gets the one-line error at once instead of minutes of download retries.
    """
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        return None
    return _probe(os.environ.get("HF_ENDPOINT", "https://huggingface.co"), timeout)


@lru_cache(maxsize=4)
def _probe(endpoint: str, timeout: float) -> str | None:
    import socket
    from urllib.parse import urlparse

    url = urlparse(endpoint)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname or "", port), timeout=timeout):
            return endpoint
    except OSError:
        return None


def load_tokenizer(ref: ModelRef, metric: str, cls: Any = None, **kwargs: Any) -> Any:
    """The tokenizer of ``ref`` (``cls`` defaults to ``transformers.AutoTokenizer``)."""
    transformers = require_transformers(metric)
    return _from_pretrained(cls or transformers.AutoTokenizer, ref, metric, "tokenizer",
                            **kwargs)


def load_model(ref: ModelRef, metric: str, cls: Any = None, device: str = "cpu",
               dtype: str = "float32", **kwargs: Any) -> Any:
    """The model of ``ref`` in ``eval()`` mode, as ``dtype`` on ``device``.

    ``cls`` defaults to ``transformers.AutoModel`` (pass e.g.
    ``AutoModelForSequenceClassification``); ``device`` is a resolved device
    string (:func:`gecmetrics.neural.device.resolve_device`).
    """
    if dtype not in DTYPES:
        raise ConfigError(f"dtype={dtype!r} is not one of: {', '.join(DTYPES)}")
    torch = require_torch(metric)
    transformers = require_transformers(metric)
    bars = transformers.utils.logging  # transformers' own "Loading weights" bar: not ours
    shown = bars.is_progress_bar_enabled()
    bars.disable_progress_bar()
    try:
        model = _from_pretrained(cls or transformers.AutoModel, ref, metric, "model", **kwargs)
    finally:
        if shown:
            bars.enable_progress_bar()
    model = model.to(device=device, dtype=getattr(torch, dtype))
    model.eval()
    return model


@contextlib.contextmanager
def no_grad(metric: str = "this metric") -> Iterator[None]:
    """``torch.no_grad()`` (inference only: no autograd graph, less memory)."""
    torch = require_torch(metric)
    with torch.no_grad():
        yield
