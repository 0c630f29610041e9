"""``ko``: Korean morphemes, Kiwi (the ``ko`` extra, loaded on first use)."""

from __future__ import annotations

from .. import extras
from .entry import Split, TokenizerSpec


def _load_ko() -> Split:
    """Korean: Kiwi's morphemes (kiwipiepy), each token a morpheme's form."""
    kiwipiepy = extras.require("tokenizer 'ko'", "ko", "kiwipiepy")
    kiwi = kiwipiepy.Kiwi()

    def split(line: str) -> list[str]:
        return [token.form for token in kiwi.tokenize(line)]
    return split


TOKENIZER = TokenizerSpec("Korean morphemes: Kiwi (kiwipiepy)", load=_load_ko, extra="ko",
                          external=True, language="ko")
