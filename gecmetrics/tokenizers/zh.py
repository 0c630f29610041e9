"""``zh``: Chinese words, jieba (the ``zh`` extra, loaded on first use; not sacrebleu's zh)."""

from __future__ import annotations

import logging

from .. import extras
from .entry import Split, TokenizerSpec


def _load_zh() -> Split:
    """Chinese words: jieba's default (accurate) mode, whitespace tokens dropped;
    its dictionary-loading messages are silenced."""
    jieba = extras.require("tokenizer 'zh'", "zh", "jieba")
    jieba.setLogLevel(logging.WARNING)

    def split(line: str) -> list[str]:
        return [word for word in jieba.lcut(line) if not word.isspace()]
    return split


TOKENIZER = TokenizerSpec("Chinese words: jieba", load=_load_zh, extra="zh", external=True,
                          language="zh")
