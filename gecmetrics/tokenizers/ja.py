"""``ja``: Japanese words, MeCab through fugashi (the ``ja`` extra, loaded on first use)."""

from __future__ import annotations

from .. import extras
from .entry import Split, TokenizerSpec


def _load_ja() -> Split:
    """Japanese: MeCab through fugashi, with the UniDic-lite dictionary named
    explicitly (so an installed full UniDic never changes the tokens). MeCab
    skips ASCII spaces but returns a no-break or ideographic space as a token:
    whitespace tokens are dropped, as for ``zh``."""
    fugashi = extras.require("tokenizer 'ja'", "ja", "fugashi")
    unidic_lite = extras.require("tokenizer 'ja'", "ja", "unidic_lite")
    tagger = fugashi.Tagger(f'-d "{unidic_lite.DICDIR}"')

    def split(line: str) -> list[str]:
        return [w.surface for w in tagger(line) if not w.surface.isspace()]
    return split


TOKENIZER = TokenizerSpec("Japanese words: MeCab (fugashi) with UniDic-lite", load=_load_ja,
                          extra="ja", external=True, language="ja")
