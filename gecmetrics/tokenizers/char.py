"""``char``: every character of the raw line, spaces included (charGREEN, charGLEU).

Not BLEU's ``char``: sacrebleu splits its characters again on whitespace, which
is :mod:`gecmetrics.tokenizers.char_nospace`.
"""

from __future__ import annotations

from .entry import TokenizerSpec


def char_tokens(line: str) -> list[str]:
    """Every character of the raw line, spaces included."""
    return list(line)


TOKENIZER = TokenizerSpec("every character, spaces included", char_tokens, bleu=False)
