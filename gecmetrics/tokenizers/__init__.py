"""The tokenizers of the word-level metrics, in one registry (docs/tokenizers.md).

Every metric that counts words (GREEN, GLEU, BLEU) takes a ``tokenize=NAME``
option; NAME is a name of the registry (:mod:`gecmetrics.tokenizers.registry`),
and the option is written in the metric's signature. A tokenizer is a function
from one line to its list of tokens, in a module of its own that also declares
its :class:`TokenizerSpec`: what it does in one line, which optional extra it
needs (imported only when the tokenizer is first used, through
:mod:`gecmetrics.extras`), whether it has a fast form for the n-gram counting
(:mod:`gecmetrics.ngrams`), and which metrics name it.

Adding a tokenizer is one module in this package and one line in
``registry.py`` (docs/architecture.md); the metrics' checks, descriptions and
BLEU's choices read the registry (:mod:`gecmetrics.tokenizers.lookup`).

Unicode normalisation (:data:`NORMALIZATIONS`, the metrics' ``normalize=``
option) is applied to every text before tokenization; :func:`normalization_note`
says when mixing normalisation forms changes what matches
(:mod:`gecmetrics.tokenizers.normalize`).

This package was one module: every name it offered is still importable from it.
The functions of the tokenizers that need no third-party package at import are
re-exported here; the optional ones (``ja``, ``ko``, ``zh``) are imported only
when asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .char import char_tokens
from .char_nospace import char_nospace_tokens
from .chrf_word import chrf_word_tokens
from .entry import Split, TokenizerSpec
from .intl import intl_tokens, intl_word_tokens, intl_words
from .lookup import (
    REGISTRY,
    Tokenize,
    bleu_tokenizers,
    check,
    check_line_lengths,
    required_extras,
    spec,
    tokenize_choices,
    tokenize_option,
    tokenizer,
)
from .normalize import (
    NORMALIZATIONS,
    Normalize,
    check_normalize,
    normalization_note,
    normalizer,
)
from .registry import register_tokenizer
from .word import word_tokens
from .zh_char import CHERRANT_MISSING, zh_char_tokens

__all__ = [
    "CHERRANT_MISSING", "NORMALIZATIONS", "REGISTRY", "TOKENIZERS", "WORD_LOCAL", "Normalize",
    "Split", "Tokenize", "TokenizerSpec", "bleu_tokenizers", "char_nospace_tokens", "char_tokens",
    "check", "check_line_lengths", "check_normalize", "chrf_word_tokens", "intl_tokens",
    "intl_word_tokens", "intl_words", "normalization_note", "normalizer", "register_tokenizer",
    "required_extras", "spec", "tokenize_choices", "tokenize_option", "tokenizer", "word_tokens",
    "zh_char_tokens",
]

TOKENIZERS: dict[str, Split]
WORD_LOCAL: dict[str, tuple[Callable[[Sequence[str]], list[list[str]]], Split]]


def __getattr__(name: str) -> Any:
    """``TOKENIZERS`` (the tokenizers that need no extra, by name: their plain
    functions) and ``WORD_LOCAL`` (those with a word-by-word form), made from the
    registry when first asked for, so that importing this package imports no
    tokenizer module it does not need."""
    if name == "TOKENIZERS":
        value: Any = {key: entry.split for key, entry in REGISTRY.items()
                      if entry.split is not None and entry.extra is None}
    elif name == "WORD_LOCAL":
        value = {key: entry.word_local for key, entry in REGISTRY.items()
                 if entry.word_local is not None}
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value
