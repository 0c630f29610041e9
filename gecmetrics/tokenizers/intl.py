"""``intl``: sacrebleu's ``intl`` (mteval-v14.pl's international tokenization).

Needs the ``intl`` extra (the ``regex`` module, for Unicode properties), imported
on first use only; it has a word-by-word fast form, like ``13a``.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Sequence

from .. import extras
from .entry import TokenizerSpec


@functools.cache
def _intl_rules() -> list[tuple[typing.Any, str]]:
    """sacrebleu's ``TokenizerV14International`` rules, on the ``regex`` module
    (Unicode properties: punctuation ``\\p{P}``, symbols ``\\p{S}``, numbers ``\\p{N}``)."""
    regex = extras.require("tokenizer 'intl'", "intl", "regex")
    return [(regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
            (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
            (regex.compile(r"(\p{S})"), r" \1 ")]


def intl_word_tokens(word: str) -> list[str]:
    """The ``intl`` tokens of one word of a line, in its context (:func:`intl_words`):
    with a space on the sides where whitespace touches it in the line.

    The rules look at one character, or two adjacent ones, and whitespace only
    ever plays "a character that is no number, punctuation or symbol", so a word
    with a space where the line has whitespace gets the tokens it gets inside
    its line; the line's ends (no character at all) differ from whitespace (a
    punctuation mark that begins a line is not split off a following letter),
    hence the context (tests/test_tokenizers.py checks it on real and fuzzed
    Unicode lines against sacrebleu).
    """
    core = word.strip(" ")
    if core.isalnum():
        return [core]
    for pattern, replacement in _intl_rules():
        word = pattern.sub(replacement, word)
    return word.split()


def intl_words(lines: Sequence[str]) -> list[list[str]]:
    """The words of each line (right-stripped, as sacrebleu's BLEU strips it), each
    with a space on a side where the line has whitespace next to it; a corpus has
    few distinct such words, and each is tokenized once (:func:`intl_word_tokens`)."""
    out = []
    for line in lines:
        text = line.rstrip()
        words = text.split()
        if words:
            words = [f" {w} " for w in words]
            words[-1] = words[-1][:-1]
            if not text[:1].isspace():
                words[0] = words[0][1:]
        out.append(words)
    return out


def intl_tokens(line: str) -> list[str]:
    """``line`` tokenized as sacrebleu's ``intl`` (mteval-v14 international) tokenizes
    it for BLEU (after ``rstrip``), split on whitespace."""
    return [token for word in intl_words([line])[0] for token in intl_word_tokens(word)]


TOKENIZER = TokenizerSpec("mteval-v14 international, sacrebleu's intl (Unicode punctuation "
                          "and symbols split off)", intl_tokens, extra="intl",
                          word_local=(intl_words, intl_word_tokens))
