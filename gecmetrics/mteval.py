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
"""

from __future__ import annotations

import re

_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))
_RULES = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


def tokens_13a(line: str) -> list[str]:
    """``line`` tokenized as mteval-v13a.pl (and sacrebleu's ``13a``) does."""
    text = line.rstrip().replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in text:
        for entity, char in _ENTITIES:
            text = text.replace(entity, char)
    text = f" {text} "
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text.split()
