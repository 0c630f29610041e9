"""Unicode normalisation of the texts before tokenization (the metrics' ``normalize=`` option).

:data:`NORMALIZATIONS` are the forms the option accepts; :func:`normalization_note`
says when mixing normalisation forms changes what matches (docs/tokenizers.md).
"""

from __future__ import annotations

import itertools
import typing
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from ..errors import ConfigError

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
