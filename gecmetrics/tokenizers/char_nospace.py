"""``char-nospace``: every character but whitespace, chrF's characters.

Internal (not named in GREEN's and GLEU's option lists); BLEU offers it as
``char``, which is what sacrebleu's ``char`` tokens amount to once BLEU splits
them on whitespace.
"""

from __future__ import annotations

from .entry import TokenizerSpec


def char_nospace_tokens(line: str) -> list[str]:
    """Every character except whitespace (chrF's default, as sacrebleu strips it)."""
    return list("".join(line.split()))


TOKENIZER = TokenizerSpec("every character but whitespace (chrF's characters)",
                          char_nospace_tokens, listed=False, bleu="char")
