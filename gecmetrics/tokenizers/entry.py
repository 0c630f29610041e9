"""What one tokenizer declares about itself: :class:`TokenizerSpec`.

Each tokenizer module of this package ends with one ``TOKENIZER = TokenizerSpec(...)``,
so everything that is said about a tokenizer (what it does, the extra it needs,
its fast form, which metrics name it and under what name) lives beside its code,
and the metrics' option checks, descriptions and the docs read it from there
(:mod:`gecmetrics.tokenizers.lookup`) instead of keeping lists of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: A tokenizer: one line in, its list of tokens out.
Split = Callable[[str], list[str]]


@dataclass(frozen=True)
class TokenizerSpec:
    """One tokenizer: ``split`` (or ``load``, which returns it, for one that needs
    an ``extra``), its ``description``, and its fast form for the n-gram counting,
    ``word_local``: whitespace words are tokenized one by one, so each distinct
    word of a corpus is tokenized once (the words of each line, one word's tokens).
    (``char`` has its own fast form in :func:`gecmetrics.ngrams.encode`: code points.)

    Which metrics offer it: GREEN and GLEU accept every registered tokenizer and
    name the ``listed`` ones in their descriptions (an internal one, such as
    ``char-nospace``, is accepted but not advertised); BLEU offers it under its
    own name (``bleu=True``), under sacrebleu's name for it (a string: ``word`` is
    BLEU's ``none``), or not at all (``False``).

    ``whitespace_words``: the lines made ready for a whitespace split (a list of
    the same length) whose words (``str.split``) are the words ``word_local`` tokenizes
    one by one, or, with no ``word_local``, the tokens themselves; the counting splits
    them and numbers the words in compiled code, making a string of each distinct
    word only (:func:`gecmetrics.ngrams.encode`).

    ``external``: it runs in a third-party library whose time grows faster than
    the line, so its lines are bounded and it is called so that Ctrl-C acts at
    once (:mod:`gecmetrics.tokenizers.external`).
    """

    description: str
    split: Split | None = None
    load: Callable[[], Split] | None = None
    extra: str | None = None
    word_local: tuple[Callable[[Sequence[str]], list[list[str]]], Split] | None = None
    whitespace_words: Callable[[Sequence[str]], list[str]] | None = None
    listed: bool = True
    bleu: str | bool = True
    external: bool = False
    #: The one language it is made for (ISO 639-1; None: any): meta-evaluation notes a
    #: metric that tokenizes a benchmark of another language with it.
    language: str | None = None
