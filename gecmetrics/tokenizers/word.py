"""``word``: whitespace words, as the GREEN tool splits them (the word-level default).

BLEU offers it as ``none`` (sacrebleu's name for no tokenization).
"""

from __future__ import annotations

from .entry import TokenizerSpec


def word_tokens(line: str) -> list[str]:
    """Whitespace tokenisation (Python's ``str.split()``), as the GREEN tool does."""
    return line.split()


TOKENIZER = TokenizerSpec("whitespace words (str.split; the default)", word_tokens, bleu="none",
                          whitespace_words=list)
