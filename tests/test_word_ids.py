"""The compiled numbering of whitespace words (``gecmetrics._kernel.word_ids``) against
its definition, ``str.split`` and ``dict.fromkeys``; and :func:`gecmetrics.ngrams.encode`
the same with and without it."""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

from gecmetrics.ngrams import _word_ids_compiled, encode

pytestmark = pytest.mark.skipif(_word_ids_compiled is None,
                                reason="the compiled kernel is not built here (pip install -e .)")

#: Every character str.split() splits on, and characters of each storage width
#: (Latin-1, the rest of the BMP, beyond it), so words of different widths compare.
SPACES = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
LETTERS = ["a", "b", "ab", "é", "ß", "ÿ", "ĳ", "日", "本", "\u200b", "😀", "𝔸", "\x00", "-", "."]
TEXTS = st.lists(st.sampled_from(SPACES + LETTERS + LETTERS), max_size=16).map("".join)


def oracle(texts: list[str]) -> tuple[list[int], list[int], list[str]]:
    words = [text.split() for text in texts]
    flat = list(itertools.chain.from_iterable(words))
    distinct = list(dict.fromkeys(flat))
    position = {word: i for i, word in enumerate(distinct)}
    return [position[w] for w in flat], [len(w) for w in words], distinct


def check(texts: list[str]) -> None:
    ids, counts, distinct = _word_ids_compiled(texts)
    want_ids, want_counts, want_distinct = oracle(texts)
    assert ids.dtype == np.int64 and counts.dtype == np.int64
    assert ids.tolist() == want_ids
    assert counts.tolist() == want_counts
    assert distinct == want_distinct
    assert all(type(word) is str for word in distinct)


def test_every_split_character_is_known():
    assert len(SPACES) == 29 and "\x1c" in SPACES and "\u3000" in SPACES


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(TEXTS, max_size=8))
def test_words_ids_and_counts_are_split_and_fromkeys(texts):
    check(texts)


def test_edge_cases():
    check([])
    check(["", " ", "\n\t"])
    check(["a", "a ", " a", "\u3000a\u3000", "a\x85a"])
    # the same word stored in strings of each width
    check(["x y", "x y é", "x y 日", "x y 😀", "日 😀 é x"])


def test_many_distinct_words_grow_the_table():
    words = [f"w{i}" for i in range(5000)] + [f"日{i}" for i in range(3000)]
    texts = [" ".join(words[i:i + 37]) for i in range(0, len(words), 7)]
    check(texts)


def test_a_text_that_is_not_a_string_is_refused():
    with pytest.raises(TypeError, match="text 1 is a bytes"):
        _word_ids_compiled(["a", b"b"])


class Text(str):
    pass


def test_a_string_subclass_is_read_as_its_text():
    check([Text("a b"), "b a", Text("日 a")])


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(TEXTS, max_size=8), st.sampled_from(["word", "13a"]))
def test_encode_is_the_same_with_the_compiled_numbering(texts, tokenize):
    fast = encode(texts, tokenize, compiled=True)
    slow = encode(texts, tokenize, compiled=False)
    assert fast[0].tolist() == slow[0].tolist()
    assert fast[1].tolist() == slow[1].tolist()


def test_line_overlaps_refuses_inconsistent_arrays():
    from gecmetrics import _kernel

    with pytest.raises(ValueError, match="outside the vocabulary"):
        _kernel.line_overlaps(np.array([0, 5]), np.array([1, 1]), 1, 2)
    with pytest.raises(ValueError, match="not a multiple"):
        _kernel.line_overlaps(np.array([0, 1, 0]), np.array([1, 1, 1]), 2, 2)
    with pytest.raises(ValueError, match="do not add up"):
        _kernel.line_overlaps(np.array([0]), np.array([1, 1]), 1, 2)


def test_line_overlaps_by_hand():
    # sources "a b", "b c"; output "b b x", "a"
    lines = ["a b", "b c", "b b x", "a"]
    ids, counts, distinct = _word_ids_compiled(lines)
    from gecmetrics import _kernel

    sizes, common = _kernel.line_overlaps(ids, counts, 2, len(distinct))
    assert sizes.tolist() == [2, 2, 2, 1]
    # line 0 "b b x": own "a b" shares b; next "b c" shares b; no previous
    # line 1 "a": own "b c" shares nothing; no next; previous "a b" shares a
    assert common.tolist() == [[[1, 1, 0], [0, 0, 1]]]
