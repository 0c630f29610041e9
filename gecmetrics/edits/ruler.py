"""spaCy's attribute ruler, answered from memory for token contexts seen before.

In the English pipelines the attribute ruler sets each token's coarse part of
speech, morphology and some lemmas from its fine tag, lower-case form and
dependency label, and those of a neighbour (no pattern covers more than two
tokens). Its matcher tries every pattern at every token: about a quarter of
the pipeline's time, spent again on contexts seen thousands of times.

Which rules match at a token is decided by the token's *context*: which of the
patterns' conditions (an attribute equal to, in, not in, or matching a value)
the token meets, which conditions of a two-token pattern's first token its left
neighbour meets, and which of the second token's its right neighbour meets.
What the ruler leaves on the token is then fixed by those rules (the last
matching rule wins) and by what the token had before (part of the key).
:class:`MemoRuler` keeps, per context, what the ruler set, and sets it again
without matching; a document with a context not seen before goes through the
ruler itself, whose results are learnt. So the annotations are the ruler's
own, by construction (tests/test_errant_ruler.py also compares every CoNLL-2014
and SEEDA sentence with the plain pipeline).

A ruler with a pattern this does not cover (more than two tokens, an operator,
a condition on another attribute or of another kind) is never answered from memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from . import lemmas

#: The token attributes a covered pattern may test.
TESTED = ("TAG", "LOWER", "DEP", "IS_SPACE")

#: What the ruler may set (a rule's ``attrs``), read back after it ran.
SET_ATTRS = ("POS", "MORPH", "LEMMA", "TAG", "DEP")

#: What the memory sets again: a context in which the ruler changed the tag or
#: the dependency label (whitespace tokens only, which whitespace-split
#: sentences never have) is not kept, so its documents always go to the ruler.
REPLAYED = ("POS", "MORPH", "LEMMA")

#: What a token had before the ruler, part of its key.
BEFORE = ("POS", "MORPH", "LEMMA")

#: Distinct (tag, lower-case form, label, space) combinations whose signatures are
#: kept (:meth:`MemoRuler._context`); past this many the store starts again, so a
#: process that parses for hours (a training loop's rewards) keeps a bounded one.
CONTEXTS_KEPT = 200_000

Atom = tuple[str, str, Any]  # (attribute, kind "=", "IN", "NOT_IN", "REGEX", value)


def _atoms(spec: dict[str, Any]) -> list[Atom] | None:
    out: list[Atom] = []
    for attr, cond in spec.items():
        if attr not in TESTED:
            return None
        if isinstance(cond, dict):
            if len(cond) != 1:
                return None
            kind, value = next(iter(cond.items()))
            if kind not in ("IN", "NOT_IN", "REGEX"):
                return None
            out.append((attr, kind, tuple(value) if kind != "REGEX" else value))
        elif isinstance(cond, (str, bool)):
            out.append((attr, "=", cond))
        else:
            return None
    return out


def _meets(atom: Atom, value: Any) -> bool:
    _, kind, cond = atom
    if kind == "=":
        return value == cond
    if kind == "IN":
        return value in cond
    if kind == "NOT_IN":
        return value not in cond
    return re.search(cond, value) is not None


class MemoRuler:
    """The attribute ruler ``ruler`` of a pipeline, answered from memory (see module)."""

    def __init__(self, ruler: Any) -> None:
        from spacy import attrs

        self.ruler = ruler
        own: dict[Atom, None] = {}
        first: dict[Atom, None] = {}
        second: dict[Atom, None] = {}
        self.enabled = True
        for rule in ruler.patterns:
            for pattern in rule["patterns"]:
                parsed = [_atoms(spec) for spec in pattern]
                if not 1 <= len(pattern) <= 2 or any(p is None for p in parsed):
                    self.enabled = False
                for p in parsed:
                    own.update(dict.fromkeys(p or ()))
                if len(pattern) == 2:
                    first.update(dict.fromkeys(parsed[0] or ()))
                    second.update(dict.fromkeys(parsed[1] or ()))
        # per attribute, the atoms of each role, in a fixed order
        self._roles = [[[a for a in atoms if a[0] == attr] for attr in TESTED]
                       for atoms in (own, first, second)]
        self._ids = [getattr(attrs, a) for a in TESTED] + [getattr(attrs, a) for a in BEFORE]
        self._set = [getattr(attrs, a) for a in SET_ATTRS]
        self._replayed = [getattr(attrs, a) for a in REPLAYED]
        self._signatures: list[dict[int, tuple[int, int, int]]] = [{} for _ in TESTED]
        # a token's TESTED values -> its three signatures (:meth:`_context`): one
        # lookup per token where each attribute's would be four
        self._contexts: dict[tuple[int, ...], tuple[int, int, int]] = {}
        # each distinct signature (a tuple of bit sets, one per attribute) -> a number;
        # as many as the patterns' conditions allow combinations of, not more
        self._numbers: dict[tuple[int, ...], int] = {}
        self._memory: dict[tuple[Any, ...], tuple[int, ...]] = {}
        self.hits = self.misses = 0

    def _signature(self, column: int, raw: int, strings: Any) -> tuple[int, int, int]:
        """The conditions on attribute ``TESTED[column]`` a value meets, as three bit
        sets: of all patterns' tokens, of two-token patterns' first and second tokens."""
        cache = self._signatures[column]
        known = cache.get(raw)
        if known is not None:
            return known
        value: Any = bool(raw) if TESTED[column] == "IS_SPACE" else strings[raw]
        own, first, second = (
            sum(1 << k for k, atom in enumerate(role[column]) if _meets(atom, value))
            for role in self._roles)
        cache[raw] = (own, first, second)
        return own, first, second

    def _context(self, tested: tuple[int, ...], strings: Any) -> tuple[int, int, int]:
        """The signatures of a token whose ``TESTED`` values are ``tested``: per
        attribute, the bits of all patterns' tokens (own), of two-token patterns' first
        tokens (what its right neighbour sees) and second tokens (its left neighbour's),
        each signature numbered (:attr:`_numbers`) so that a key is a flat tuple of
        integers, quick to hash."""
        sigs = [self._signature(c, raw, strings) for c, raw in enumerate(tested)]
        numbers = self._numbers
        own, first, second = (numbers.setdefault(tuple(s[r] for s in sigs), len(numbers))
                              for r in range(3))
        if len(self._contexts) >= CONTEXTS_KEPT:  # bounded in a long-running process
            self._contexts.clear()
        found = self._contexts[tested] = (own, first, second)
        return found

    def _keys(self, doc: Any) -> list[tuple[Any, ...]]:
        strings = doc.vocab.strings
        rows = doc.to_array(self._ids).tolist()
        n = len(TESTED)
        contexts = self._contexts
        ctx = [contexts.get(t) or self._context(t, strings) for t in (tuple(r[:n]) for r in rows)]
        own = [c[0] for c in ctx]
        left = [None, *(c[1] for c in ctx[:-1])]
        right = [*(c[2] for c in ctx[1:]), None]
        return [(o, lf, rt, *row[n:]) for o, lf, rt, row in zip(own, left, right, rows,
                                                                 strict=True)]

    def __call__(self, doc: Any) -> Any:
        if not self.enabled or not len(doc):
            return self.ruler(doc)
        import numpy as np

        keys = self._keys(doc)
        memory = self._memory
        found = [memory.get(k) for k in keys]
        if None not in found:
            self.hits += 1
            doc.from_array(self._replayed, np.array(found, dtype=np.uint64))
            return doc
        self.misses += 1
        before = doc.to_array([self._ids[TESTED.index("TAG")], self._ids[TESTED.index("DEP")]])
        doc = self.ruler(doc)
        after = doc.to_array(self._set).reshape(len(doc), len(self._set))
        kept = (after[:, [SET_ATTRS.index("TAG"), SET_ATTRS.index("DEP")]]
                == before.reshape(len(doc), 2)).all(axis=1)
        cols = [SET_ATTRS.index(a) for a in REPLAYED]
        for key, keep, values in zip(keys, kept.tolist(), after[:, cols].tolist(), strict=True):
            if keep:
                memory.setdefault(key, tuple(values))
        return doc


def pipe(nlp: Any, docs: Iterable[Any], batch_size: int) -> Iterator[Any]:
    """``nlp.pipe(docs)`` with the pipeline's ``attribute_ruler`` (if any) answered by
    the :class:`MemoRuler` kept for ``nlp``, and a rule lemmatizer after it by its
    :class:`~gecmetrics.edits.lemmas.MemoLemmatizer`: the same annotations, for less
    work."""
    if "attribute_ruler" not in nlp.pipe_names:
        yield from nlp.pipe(docs, batch_size=batch_size)
        return
    memo = memo_of(nlp)
    names = nlp.pipe_names
    at = names.index("attribute_ruler")
    later = [lemmas.memo_of(proc) if lemmas.covered(proc) else proc
             for proc in (nlp.get_pipe(n) for n in names[at + 1:])]
    with nlp.select_pipes(disable=names[at:]):
        for doc in nlp.pipe(docs, batch_size=batch_size):
            doc = memo(doc)
            for proc in later:
                doc = proc(doc)
            yield doc


_MEMOS: dict[int, tuple[Any, MemoRuler]] = {}


def memo_of(nlp: Any) -> MemoRuler:
    """The :class:`MemoRuler` of the loaded pipeline ``nlp`` (one per pipeline)."""
    entry = _MEMOS.get(id(nlp))
    if entry is None or entry[0] is not nlp:
        entry = (nlp, MemoRuler(nlp.get_pipe("attribute_ruler")))
        _MEMOS[id(nlp)] = entry
    return entry[1]
