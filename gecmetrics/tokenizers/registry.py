"""The tokenizer registry: one line per tokenizer, its name and the module that declares it.

Adding a tokenizer is one module in this package (its function and one
``TOKENIZER = TokenizerSpec(...)``, :mod:`gecmetrics.tokenizers.entry`) and one
``register_tokenizer`` line below. Nothing else lists tokenizers: the metrics'
option checks and descriptions, BLEU's choices, the ``Tokenize`` option type and
the docs' table all read this registry (:mod:`gecmetrics.tokenizers.lookup`).

A line names a module, not its contents, so importing the registry imports no
tokenizer: each module is imported when its tokenizer is first asked for (and
the optional packages a tokenizer needs only when it first tokenizes). A name
registered twice is a one-line ConfigError here, when the registry is imported,
rather than a silent replacement (as a repeated key of a dict literal would be).

The order of the lines is the order in which a metric lists its choices, after
its default (GREEN: ``word|char|13a|...``; BLEU: ``13a|none|intl|char|...``).
"""

from __future__ import annotations

from ..errors import ConfigError
from .entry import TokenizerSpec

#: Each tokenizer's name and where its :class:`TokenizerSpec` is: a module (its
#: ``TOKENIZER``; a leading dot: a module of this package), ``module:attribute``,
#: or the spec itself (a tokenizer registered at run time).
TABLE: dict[str, str | TokenizerSpec] = {}


def register_tokenizer(name: str, target: str | TokenizerSpec) -> None:
    """Register the tokenizer ``name``; a name already registered is a one-line ConfigError."""
    if name in TABLE:
        raise ConfigError(f"tokenizer {name!r} is registered twice ({TABLE[name]!r} and "
                          f"{target!r}); keep one of them (gecmetrics/tokenizers/registry.py)")
    TABLE[name] = target


register_tokenizer("word", ".word")
register_tokenizer("char", ".char")
register_tokenizer("13a", ".mteval13a")
register_tokenizer("intl", ".intl")
register_tokenizer("char-nospace", ".char_nospace")
register_tokenizer("chrf-word", ".chrf_word")
register_tokenizer("ja", ".ja")
register_tokenizer("ko", ".ko")
register_tokenizer("zh", ".zh")
register_tokenizer("zh-char", ".zh_char")
