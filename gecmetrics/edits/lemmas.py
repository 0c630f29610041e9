"""spaCy's rule lemmatizer, answered from memory for the words it has seen.

The lemmatizer of spaCy's English pipelines (``mode="rule"``) gives a token's
lemma from its text, its coarse part of speech and its morphology alone: its
rules, exceptions and index are fixed tables, and it keys its own cache on those
three. What costs is the way there: for every token of every document, a Token
object, its morphology as a dictionary and a string written back, about a tenth
of a parse once the attribute ruler is answered from memory (:mod:`.ruler`).

:class:`MemoLemmatizer` reads the three values of all the tokens of a document
at once, sets the lemmas it has already seen in one call, and lets the
lemmatizer itself lemmatize the other tokens, one by one as it would, learning
their lemmas. The lemmas are the lemmatizer's own, by construction;
tests/test_errant_ruler.py compares every CoNLL-2014 and SEEDA sentence with the
plain pipeline. Another kind of lemmatizer (the lookup mode, a language's own
class that may read other attributes) always runs itself.
"""

from __future__ import annotations

from typing import Any

#: Distinct (text, part of speech, morphology) whose lemma is kept; past this many
#: the memory starts again, so a process that parses for hours keeps a bounded one.
LEMMAS_KEPT = 200_000


def covered(lemmatizer: Any) -> bool:
    """Whether ``lemmatizer`` gives a lemma from text, part of speech and morphology
    only: spaCy's rule lemmatizer, or the English one (which changes only its test
    of a base form, on the same two attributes)."""
    from spacy.lang.en.lemmatizer import EnglishLemmatizer
    from spacy.pipeline import Lemmatizer

    return (type(lemmatizer) in (Lemmatizer, EnglishLemmatizer)
            and getattr(lemmatizer, "mode", None) == "rule")


class MemoLemmatizer:
    """The rule lemmatizer ``lemmatizer`` of a pipeline, answered from memory."""

    def __init__(self, lemmatizer: Any) -> None:
        from spacy.attrs import LEMMA, MORPH, ORTH, POS

        self.lemmatizer = lemmatizer
        self._read = [ORTH, POS, MORPH, LEMMA]
        self._lemma = [LEMMA]
        self._memory: dict[tuple[int, int, int], int] = {}

    def __call__(self, doc: Any) -> Any:
        lemmatizer = self.lemmatizer
        if not len(doc) or not getattr(lemmatizer, "_validated", False):
            return lemmatizer(doc)  # it checks its tables on its first document
        import numpy as np

        rows = doc.to_array(self._read).tolist()
        memory = self._memory
        overwrite = lemmatizer.overwrite
        lemmas = []
        missing = []
        for i, (orth, pos, morph, lemma) in enumerate(rows):
            if lemma and not overwrite:  # set earlier (the attribute ruler): kept
                lemmas.append(lemma)
                continue
            found = memory.get((orth, pos, morph))
            if found is None:
                missing.append(i)
            lemmas.append(found)
        if missing:
            if len(memory) + len(missing) > LEMMAS_KEPT:
                memory.clear()
            lemmatize = lemmatizer.lemmatize
            for i in missing:
                token = doc[i]
                token.lemma_ = lemmatize(token)[0]
                lemmas[i] = memory[tuple(rows[i][:3])] = token.lemma
        doc.from_array(self._lemma, np.array(lemmas, dtype=np.uint64).reshape(-1, 1))
        return doc


_MEMOS: dict[int, tuple[Any, MemoLemmatizer]] = {}


def memo_of(lemmatizer: Any) -> MemoLemmatizer:
    """The :class:`MemoLemmatizer` of ``lemmatizer`` (one per loaded component)."""
    entry = _MEMOS.get(id(lemmatizer))
    if entry is None or entry[0] is not lemmatizer:
        entry = (lemmatizer, MemoLemmatizer(lemmatizer))
        _MEMOS[id(lemmatizer)] = entry
    return entry[1]
