"""Whether a spaCy pipeline gives every token annotation ERRANT reads.

errant 3.0.2 reads, of each token: the text and lower-case form (alignment,
merging, classification), the coarse part of speech and the lemma (alignment
costs, merging), the fine tag (merging, classification), the dependency label
and head (classification). A pipeline without one of them (a blank pipeline, one
saved with its parser disabled) loads and runs, and ERRANT then gives wrong
edits and types without a word. So a pipeline is checked twice:

* :func:`check_pipeline_files`, when a metric's options are checked (before any
  work): from the pipeline's ``meta.json`` and ``config.cfg``, without importing
  spaCy; a pipeline it cannot judge (a component of an unknown factory) passes;
* :func:`check_pipeline`, on the pipeline as loaded, from the annotations its
  components declare (what spaCy itself knows).

The same files say whether spaCy can be imported without torch
(:func:`torch_left_out`).
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..errors import ConfigError
from ..extras import install_command
from .edit_cache import model_folder

#: The token annotations ERRANT reads, with the components that give them: for
#: English (ERRANT's classifier), and for any other language (``""``: alignment
#: and merging only; the operation classifier reads the tokens' text).
NEEDED_ANNOTATIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (("token.tag", "tagger"), ("token.pos", "attribute_ruler or morphologizer"),
           ("token.lemma", "lemmatizer"), ("token.dep", "parser")),
    "": (("token.pos", "attribute_ruler or morphologizer"), ("token.lemma", "lemmatizer")),
}

#: What spaCy's own component factories set (their ``assigns``; the attribute
#: ruler declares nothing, but sets the coarse part of speech from the fine tag).
FACTORY_ASSIGNS: dict[str, tuple[str, ...]] = {
    "tok2vec": (), "transformer": (), "curated_transformer": (), "senter": (),
    "sentencizer": (), "ner": (), "entity_ruler": (), "span_ruler": (),
    "entity_linker": (), "textcat": (), "textcat_multilabel": (), "spancat": (),
    "tagger": ("token.tag",), "morphologizer": ("token.pos", "token.morph"),
    "attribute_ruler": ("token.pos",), "lemmatizer": ("token.lemma",),
    "trainable_lemmatizer": ("token.lemma",), "edit_tree_lemmatizer": ("token.lemma",),
    "parser": ("token.dep", "token.head"), "beam_parser": ("token.dep", "token.head"),
}

#: Components ERRANT never runs (as ``errant.load("en")``, it leaves out NER).
EXCLUDED = ("ner",)

_FACTORY = re.compile(r'^\[components\.([^\]\s.]+)\]\s*$\s*^factory\s*=\s*"([^"]+)"', re.M)


def pipeline_assigns(nlp: Any) -> set[str]:
    """The token annotations the enabled components of a loaded pipeline set."""
    out: set[str] = set()
    for name in nlp.pipe_names:
        meta = nlp.get_pipe_meta(name)
        out.update(meta.assigns)
        out.update(FACTORY_ASSIGNS.get(meta.factory, ()))
    return out


def check_pipeline(nlp: Any, name: str, lang: str = "en", option: str = "errant:model"
                   ) -> None:
    """ConfigError naming the pipeline and what it lacks unless the loaded
    pipeline ``nlp`` sets every annotation of :data:`NEEDED_ANNOTATIONS`."""
    _refuse_missing(pipeline_assigns(nlp), "+".join(nlp.pipe_names), name, lang, option)


def check_pipeline_files(model: str, lang: str = "en", option: str = "errant:model") -> None:
    """:func:`check_pipeline` before spaCy is loaded, for the pipeline named in a
    metric's option (``option``): ``blank:LANG``, or a package or folder whose
    ``meta.json`` and ``config.cfg`` say which components run. No name (the
    default pipelines), or one it cannot judge, passes."""
    if not model:
        return
    if model.startswith("blank:"):
        _refuse_missing(set(), "", model, lang, option)
        return
    files = _pipeline_files(model)
    if files is None:
        return
    meta, config = files
    factories = dict(_FACTORY.findall(config))
    disabled = set(meta.get("disabled") or ())
    running = [c for c in meta["pipeline"] if c not in disabled and c not in EXCLUDED]
    if any(factories.get(c) not in FACTORY_ASSIGNS for c in running):
        return  # a component this table does not know: the loaded check decides
    assigns = {a for c in running for a in FACTORY_ASSIGNS[factories[c]]}
    _refuse_missing(assigns, "+".join(running), model, lang, option)


def _refuse_missing(assigns: set[str], running: str, name: str, lang: str, option: str
                    ) -> None:
    needed = NEEDED_ANNOTATIONS.get(lang, NEEDED_ANNOTATIONS[""])
    missing = [(attr, component) for attr, component in needed if attr not in assigns]
    if not missing:
        return
    attrs = ", ".join(attr for attr, _ in missing)
    components = ", ".join(dict.fromkeys(component for _, component in missing))
    example = "en_core_web_sm" if lang == "en" else f"{lang}_core_news_sm"
    raise ConfigError(
        f"{option}={name}: the spaCy pipeline {name!r} ({running or 'no components'}) sets "
        f"no {attrs}, which ERRANT reads: it lacks (or has disabled) the {components}; "
        f"name a full pipeline ({option}={example}; {install_command('errant')} installs "
        "the English one), or enable those components in the pipeline's config")


def _pipeline_files(model: str) -> tuple[dict[str, Any], str] | None:
    """The ``meta.json`` (with its ``pipeline`` list) and ``config.cfg`` text of the
    spaCy pipeline ``model`` as ``spacy.load`` would find it, read without importing
    spaCy; None when there is no such pipeline or its files cannot be read."""
    folder = model_folder(model)
    if folder is None:
        return None
    # A folder saved by spaCy holds its config; a package, in its versioned subfolder.
    configs = [folder / "config.cfg", *sorted(folder.glob("*/config.cfg"))]
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        config = next(c for c in configs if c.is_file()).read_text(encoding="utf-8")
    except (OSError, ValueError, StopIteration):
        return None
    if not isinstance(meta, dict) or not isinstance(meta.get("pipeline"), list):
        return None
    return meta, config


#: The factories of spaCy's CPU components: their models are thinc's own, never PyTorch.
TORCH_FREE_FACTORIES = frozenset(FACTORY_ASSIGNS) - {"transformer", "curated_transformer"}

_TORCH_WORDS = re.compile(r"torch|transformer", re.I)


def runs_without_torch(model: str) -> bool:
    """Whether the pipeline ``model`` runs only components of
    :data:`TORCH_FREE_FACTORIES` and its config names no PyTorch or transformer
    model (e.g. a tagger listening to a transformer). A pipeline that cannot be
    read is assumed to need torch."""
    files = _pipeline_files(model)
    if files is None:
        return False
    meta, config = files
    factories = dict(_FACTORY.findall(config))
    return (not _TORCH_WORDS.search(config)
            and all(factories.get(c) in TORCH_FREE_FACTORIES for c in meta["pipeline"]))


@contextmanager
def torch_left_out(candidates: Sequence[str]) -> Iterator[None]:
    """Within the block, ``import torch`` fails, when the pipeline that will load
    (the first installed of ``candidates``) :func:`runs_without_torch` and neither
    torch nor thinc is imported yet.

    Why: thinc, spaCy's numeric library, imports torch at its own import when torch
    is installed, for the pipelines that run a PyTorch model: 1.6 of the 2.5 s
    CPU that ``import spacy`` takes on this project's machine, paid again by every
    ``-j`` worker, while the CPU pipelines ERRANT uses never call it. The parses are
    the same either way (tests/test_errant_torch.py). Only the import inside the
    block is affected: torch imported later works as usual, and only thinc's
    bridge to PyTorch models stays off in this process.
    """
    hide = ("torch" not in sys.modules and "thinc" not in sys.modules
            and importlib.util.find_spec("torch") is not None
            and _first_installed_runs_without_torch(candidates))
    if not hide:
        yield
        return
    sys.modules["torch"] = None  # type: ignore[assignment]  # import torch: ImportError
    try:
        yield
    finally:
        if "torch" in sys.modules and sys.modules["torch"] is None:
            del sys.modules["torch"]


def _first_installed_runs_without_torch(candidates: Sequence[str]) -> bool:
    for name in candidates:
        if model_folder(name) is not None:
            return runs_without_torch(name)
    return False
