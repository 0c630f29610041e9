"""``zh-char``: Chinese characters as ChERRANT splits them (no extra needed)."""

from __future__ import annotations

from .entry import TokenizerSpec

#: ChERRANT's placeholder for a missing constituent, kept as one token by its
#: character-level tokenizer (scorers/ChERRANT/modules/tokenizer.py, ``split_char``).
CHERRANT_MISSING = "[缺失成分]"


def zh_char_tokens(line: str) -> list[str]:
    """Chinese at character level as ChERRANT does it: ASCII spaces (U+0020) are
    removed, then every character is a token, except that the placeholder
    ``[缺失成分]`` stays one token. Other whitespace (tab, U+3000, NBSP) is kept as
    a character, as ChERRANT keeps it."""
    text = line.replace(" ", "")
    if CHERRANT_MISSING not in text:
        return list(text)
    out: list[str] = []
    for i, part in enumerate(text.split(CHERRANT_MISSING)):
        if i:
            out.append(CHERRANT_MISSING)
        out += part
    return out


TOKENIZER = TokenizerSpec("Chinese characters as ChERRANT splits them (ASCII spaces dropped)",
                          zh_char_tokens, language="zh")
