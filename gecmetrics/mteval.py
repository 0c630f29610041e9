"""The ``13a`` tokenizer of BLEU: mteval-v13a.pl's, as sacrebleu applies it.

sacrebleu's default BLEU tokenizer reproduces the NIST script mteval-v13a.pl
(the WMT standard). Its steps, from the script's ``tokenization`` sub:

1. drop ``<skipped>``, join a hyphen at a line end (``-\\n``) with the next
   line and turn other line ends into spaces;
2. unescape ``&quot; &amp; &lt; &gt;`` (only when the line contains ``&``);
3. pad the line with a space at both ends and put spaces around every
   punctuation mark and symbol in the ASCII ranges ``{-~``, ``[-```, `` -&``,
   ``(-+``, ``:-@`` and ``/``; around ``.`` and ``,`` unless a digit precedes
   (first rule) or follows (second rule); after ``-`` preceded by a digit;
4. split on whitespace.

sacrebleu strips trailing whitespace (``rstrip``) before step 1, so this does
too. The result equals ``sacrebleu.tokenizers.tokenizer_13a.Tokenizer13a``'s
output split on whitespace (tests/test_bleu.py checks every CoNLL-2014 and
SEEDA line).

Steps 3 and 4 never look across whitespace: every rule replaces one character,
or a pair of adjacent characters of which at most one is whitespace, and the
whitespace there only ever stands as "a character that is not a digit" (step 2
never yields whitespace). So a line's tokens are the tokens of each of its
whitespace-separated words, padded and tokenized alone: :func:`prepare_13a`
(steps 1 and 2 on the line) then :func:`word_tokens_13a` per word. A corpus has
far fewer distinct words than words, and most words are plain (letters and
digits only, one token), so :mod:`gecmetrics.ngrams` tokenizes each distinct
word once, several times faster than the whole-line regular expressions
(tests/test_bleu.py checks both ways equal on real and fuzzed lines).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))
_RULES = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


def prepare_13a(line: str) -> str:
    """Steps 1 and 2 (and sacrebleu's ``rstrip``): the line-level replacements."""
    text = line.rstrip().replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in text:
        for entity, char in _ENTITIES:
            text = text.replace(entity, char)
    return text


def _rules(text: str) -> list[str]:
    """Steps 3 and 4 on ``text`` (already prepared)."""
    text = f" {text} "
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text.split()


def word_tokens_13a(word: str) -> list[str]:
    """The tokens of one whitespace-free ``word`` of a prepared line (steps 3 and 4).

    A word of letters and digits only (``str.isalnum``) is one token: the rules
    touch ASCII punctuation, symbols and spaces only.
    """
    return [word] if word.isalnum() else _rules(word)


def prepared_lines_13a(lines: Sequence[str]) -> list[str]:
    """``[prepare_13a(line) for line in lines]`` as far as their whitespace words go:
    the replacements run once on all lines joined.

    When no line holds a line end, the line-end steps are no-ops, ``rstrip``
    changes no word, and no replaced string (``<skipped>``, the entities) can span
    two lines joined by ``\n``: so the replacements run once on the joined lines
    (their trailing whitespace stays, which no word includes).
    """
    if not lines:
        return []
    joined = "\n".join(lines)
    if joined.count("\n") != len(lines) - 1:  # a line with a line end: line by line
        return [prepare_13a(line) for line in lines]
    joined = joined.replace("<skipped>", "")
    if "&" in joined:
        for entity, char in _ENTITIES:
            joined = joined.replace(entity, char)
    return joined.split("\n")


def prepared_words_13a(lines: Sequence[str]) -> list[list[str]]:
    """``[prepare_13a(line).split() for line in lines]``, prepared all at once
    (:func:`prepared_lines_13a`)."""
    return [line.split() for line in prepared_lines_13a(lines)]


def tokens_13a(line: str) -> list[str]:
    """``line`` tokenized as mteval-v13a.pl (and sacrebleu's ``13a``) does."""
    return _rules(prepare_13a(line))
