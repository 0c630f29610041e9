"""The tokenizers of the word-level metrics, in one registry (docs/tokenizers.md).

Every metric that counts words (GREEN, GLEU, BLEU) takes a ``tokenize=NAME``
option; NAME is a key of :data:`REGISTRY`, and the option is written in the
metric's signature. A tokenizer is a function from one line to its list of
tokens; its :class:`TokenizerSpec` says what it does in one line, which
optional extra it needs (imported only when the tokenizer is first used,
through :mod:`gecmetrics.extras`), and whether it has a fast form for the
n-gram counting (:mod:`gecmetrics.ngrams`).

Adding a tokenizer is one function (a line in, a list of tokens out) and one
entry in :data:`REGISTRY`; a tokenizer of an optional package gives a loader
(called once, returns the function) and names its extra.

Unicode normalisation (:data:`NORMALIZATIONS`, the metrics' ``normalize=``
option) is applied to every text before tokenization; :func:`normalization_note`
says when mixing normalisation forms changes what matches.
"""

from __future__ import annotations

import itertools
import logging
import typing
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from . import extras
from .errors import ConfigError
from .mteval import prepared_words_13a, tokens_13a, word_tokens_13a

Split = Callable[[str], list[str]]


def word_tokens(line: str) -> list[str]:
    """Whitespace tokenisation (Python's ``str.split()``), as the GREEN tool does."""
    return line.split()


def char_tokens(line: str) -> list[str]:
    """Every character of the raw line, spaces included."""
    return list(line)


def char_nospace_tokens(line: str) -> list[str]:
    """Every character except whitespace (chrF's default, as sacrebleu strips it)."""
    return list("".join(line.split()))


_CHRF_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def chrf_word_tokens(line: str) -> list[str]:
    """chrF++ words: whitespace split, then one punctuation mark split off each word.

    A word of two or more characters loses a final punctuation mark, or else
    an initial one, as a separate token (sacrebleu's CHRF word tokenisation).
    """
    out: list[str] = []
    for word in line.split():
        if len(word) > 1 and word[-1] in _CHRF_PUNCTUATION:
            out += [word[:-1], word[-1]]
        elif len(word) > 1 and word[0] in _CHRF_PUNCTUATION:
            out += [word[0], word[1:]]
        else:
            out.append(word)
    return out


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


# -- sacrebleu's ``intl`` (mteval-v14.pl's international tokenization) ---------------

def _intl_rules() -> list[tuple[typing.Any, str]]:
    """sacrebleu's ``TokenizerV14International`` rules, on the ``regex`` module
    (Unicode properties: punctuation ``\\p{P}``, symbols ``\\p{S}``, numbers ``\\p{N}``)."""
    regex = extras.require("tokenizer 'intl'", "intl", "regex")
    return [(regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
            (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
            (regex.compile(r"(\p{S})"), r" \1 ")]


_LOADED: dict[str, typing.Any] = {}


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
    rules = _LOADED.get("intl")
    if rules is None:
        rules = _LOADED["intl"] = _intl_rules()
    for pattern, replacement in rules:
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


# -- the optional tokenizers: each a loader, called once, that returns the function -------

def _load_ja() -> Split:
    """Japanese: MeCab through fugashi, with the UniDic-lite dictionary named
    explicitly (so an installed full UniDic never changes the tokens). MeCab
    skips ASCII spaces but returns a no-break or ideographic space as a token:
    whitespace tokens are dropped, as for ``zh``."""
    fugashi = extras.require("tokenizer 'ja'", "ja", "fugashi")
    unidic_lite = extras.require("tokenizer 'ja'", "ja", "unidic_lite")
    tagger = fugashi.Tagger(f'-d "{unidic_lite.DICDIR}"')

    def split(line: str) -> list[str]:
        return [w.surface for w in tagger(line) if not w.surface.isspace()]
    return split


def _load_ko() -> Split:
    """Korean: Kiwi's morphemes (kiwipiepy), each token a morpheme's form."""
    kiwipiepy = extras.require("tokenizer 'ko'", "ko", "kiwipiepy")
    kiwi = kiwipiepy.Kiwi()

    def split(line: str) -> list[str]:
        return [token.form for token in kiwi.tokenize(line)]
    return split


def _load_zh() -> Split:
    """Chinese words: jieba's default (accurate) mode, whitespace tokens dropped;
    its dictionary-loading messages are silenced."""
    jieba = extras.require("tokenizer 'zh'", "zh", "jieba")
    jieba.setLogLevel(logging.WARNING)

    def split(line: str) -> list[str]:
        return [word for word in jieba.lcut(line) if not word.isspace()]
    return split


@dataclass(frozen=True)
class TokenizerSpec:
    """One tokenizer: ``split`` (or ``load``, which returns it, for one that needs
    an ``extra``), its ``description``, and its fast form for the n-gram counting,
    ``word_local``: whitespace words are tokenized one by one, so each distinct
    word of a corpus is tokenized once (the words of each line, one word's tokens).
    (``char`` has its own fast form in :func:`gecmetrics.ngrams.encode`: code points.)"""

    description: str
    split: Split | None = None
    load: Callable[[], Split] | None = None
    extra: str | None = None
    word_local: tuple[Callable[[Sequence[str]], list[list[str]]], Split] | None = None


#: The tokenizer names that options such as ``tokenize=`` accept.
Tokenize = Literal["word", "char", "char-nospace", "chrf-word", "13a", "intl", "ja", "ko", "zh",
                   "zh-char"]

REGISTRY: dict[str, TokenizerSpec] = {
    "word": TokenizerSpec("whitespace words (str.split; the default)", word_tokens),
    "char": TokenizerSpec("every character, spaces included", char_tokens),
    "char-nospace": TokenizerSpec("every character but whitespace (chrF's characters)",
                                  char_nospace_tokens),
    "chrf-word": TokenizerSpec("chrF++'s words: whitespace words, one ASCII punctuation mark "
                               "split off", chrf_word_tokens),
    "13a": TokenizerSpec("mteval-v13a, sacrebleu's BLEU default", tokens_13a,
                         word_local=(prepared_words_13a, word_tokens_13a)),
    "intl": TokenizerSpec("mteval-v14 international, sacrebleu's intl (Unicode punctuation "
                          "and symbols split off)", intl_tokens, extra="intl",
                          word_local=(intl_words, intl_word_tokens)),
    "ja": TokenizerSpec("Japanese words: MeCab (fugashi) with UniDic-lite", load=_load_ja,
                        extra="ja"),
    "ko": TokenizerSpec("Korean morphemes: Kiwi (kiwipiepy)", load=_load_ko, extra="ko"),
    "zh": TokenizerSpec("Chinese words: jieba", load=_load_zh, extra="zh"),
    "zh-char": TokenizerSpec("Chinese characters as ChERRANT splits them (ASCII spaces dropped)",
                             zh_char_tokens),
}
assert tuple(REGISTRY) == typing.get_args(Tokenize)

#: The built-in tokenizers by name (those that need no extra), for callers that
#: want the plain function; :func:`tokenizer` reaches every one.
TOKENIZERS: dict[str, Split] = {name: spec.split for name, spec in REGISTRY.items()
                                if spec.split is not None and spec.extra is None}

#: Tokenizers with a word-by-word form (:attr:`TokenizerSpec.word_local`), used by
#: :func:`gecmetrics.ngrams.encode`; a test removes an entry to compare with the
#: whole-line path.
WORD_LOCAL: dict[str, tuple[Callable[[Sequence[str]], list[list[str]]], Split]] = {
    name: spec.word_local for name, spec in REGISTRY.items() if spec.word_local is not None}


def spec(name: str) -> TokenizerSpec:
    """The registry entry of ``name``; an unknown name is a one-line ConfigError
    that lists the known ones."""
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(REGISTRY))
        raise ConfigError(f"unknown tokenize={name!r}; choose one of: {known} "
                          "(docs/tokenizers.md)") from None


def check(name: str, user: str) -> None:
    """``name`` is a known tokenizer whose extra (if any) is installed; else the one
    ConfigError (for ``user``, e.g. ``metric 'green'``), before any file is read."""
    extra = spec(name).extra
    if extra is not None:
        extras.check(f"{user} (tokenize={name})", extra)


def required_extras(name: str) -> tuple[str, ...]:
    """The extras tokenizer ``name`` needs (empty for the built-in ones)."""
    extra = spec(name).extra
    return () if extra is None else (extra,)


def tokenizer(name: str) -> Split:
    """The function of tokenizer ``name`` (an optional one is loaded on first use)."""
    entry = spec(name)
    if entry.split is not None:
        return entry.split
    split = _LOADED.get(name)
    if split is None:
        assert entry.load is not None
        split = _LOADED[name] = entry.load()
    return typing.cast(Split, split)


# -- Unicode normalisation -----------------------------------------------------------

#: The ``normalize=`` option: ``none`` (default: texts as read, so English scores
#: never move), or a Unicode normal form applied to every text before tokenization.
Normalize = Literal["none", "nfc", "nfkc", "nfd", "nfkd"]
NORMALIZATIONS: tuple[Normalize, ...] = typing.get_args(Normalize)


def check_normalize(value: object, option: str) -> None:
    """A ``normalize=`` option: one of :data:`NORMALIZATIONS`, else a one-line ConfigError."""
    if value not in NORMALIZATIONS:
        raise ConfigError(f"{option}={value!r} is unknown; choose one of: "
                          f"{', '.join(NORMALIZATIONS)} (docs/tokenizers.md)")


def normalizer(form: str) -> Callable[[str], str]:
    """The function that puts a text in normal form ``form`` (identity for ``none``)."""
    check_normalize(form, "normalize")
    if form == "none":
        return str
    upper = typing.cast(Literal["NFC", "NFD", "NFKC", "NFKD"], form.upper())
    return lambda text: unicodedata.normalize(upper, text)


def normalization_note(sources: Sequence[str], references: Sequence[Sequence[str]],
                       hypotheses: Iterable[Sequence[str]]) -> str | None:
    """A one-line note when NFC would change what matches, else None.

    That is: in some sentence, a hypothesis word and a source or reference word
    differ as strings but not in NFC (``é`` as one code point against ``e``
    followed by a combining accent, say). Cheap when every text is ASCII or
    already NFC (C calls, a Python step only per non-ASCII line), the usual
    case; otherwise it stops at the first such sentence. The note names no line
    or count, since a corpus scored in chunks sees it chunk by chunk.
    """
    lists = [sources, *references, *hypotheses]
    if all(unicodedata.is_normalized("NFC", line)  # isascii: one flag test in CPython
           for lines in lists for line in itertools.filterfalse(str.isascii, lines)):
        return None
    nfc = normalizer("nfc")
    given, hyp_lists = lists[:1 + len(references)], lists[1 + len(references):]
    for i in range(len(sources)):
        texts = [lines[i] for lines in lists]
        if all(unicodedata.is_normalized("NFC", t) for t in texts):
            continue
        for hyp in (lines[i] for lines in hyp_lists):
            raw_h, nfc_h = set(hyp.split()), set(nfc(hyp).split())
            for other in (lines[i] for lines in given):
                raw_o, nfc_o = set(other.split()), set(nfc(other).split())
                if len(raw_h & raw_o) != len(nfc_h & nfc_o):
                    word = next((w for w in sorted(raw_h - raw_o) if nfc(w) in nfc_o),
                                min(raw_h ^ raw_o, default=""))
                    return (f"note: a hypothesis and its source or reference spell a word in "
                            f"different Unicode normal forms (e.g. {word!r}, "
                            f"{ascii(word)}); they match only after NFC: add normalize=nfc to "
                            "the word-level metrics (docs/tokenizers.md)")
    return None
