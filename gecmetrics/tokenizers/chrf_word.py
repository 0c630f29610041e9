"""``chrf-word``: chrF++'s words (internal: used by chrF, not offered by BLEU)."""

from __future__ import annotations

from .entry import TokenizerSpec

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


TOKENIZER = TokenizerSpec("chrF++'s words: whitespace words, one ASCII punctuation mark "
                          "split off", chrf_word_tokens, listed=False, bleu=False)
