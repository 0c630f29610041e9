"""``13a``: mteval-v13a, sacrebleu's BLEU default (the code is :mod:`gecmetrics.mteval`).

It has a word-by-word fast form (each distinct word of a corpus tokenized once).
"""

from __future__ import annotations

from ..mteval import prepared_lines_13a, prepared_words_13a, tokens_13a, word_tokens_13a
from .entry import TokenizerSpec

TOKENIZER = TokenizerSpec("mteval-v13a, sacrebleu's BLEU default", tokens_13a,
                          word_local=(prepared_words_13a, word_tokens_13a),
                          whitespace_words=prepared_lines_13a)
