"""M2 reading and reference derivation (hand-made cases and the CoNLL-2014 file)."""

from __future__ import annotations

import pytest

from gecmetrics.errors import InputError
from gecmetrics.m2_format import read_m2

SAMPLE = """S A b c d .
A 1 2|||R|||B|||REQUIRED|||-NONE-|||0
A 3 4|||U|||-NONE-|||REQUIRED|||-NONE-|||0
A 4 4|||M|||!|||REQUIRED|||-NONE-|||0
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1

S x y
A 0 1|||R|||X Z|||REQUIRED|||-NONE-|||0

S p q
A 1 2|||R||||||REQUIRED|||-NONE-|||1

S nothing here
"""


@pytest.fixture
def m2(tmp_path):
    path = tmp_path / "g.m2"
    path.write_text(SAMPLE)
    return read_m2(path)


def test_edits_applied_right_to_left(m2):
    # replace b->B, delete d, insert ! before '.'
    assert m2.sentences[0].correct(0) == "A B c ! ."
    assert m2.sentences[0].correct(1) == "A b c d ."  # noop: unchanged
    assert m2.sentences[1].correct(0) == "X Z y"
    assert m2.sentences[2].correct(1) == "p"  # empty correction deletes


def test_lenient_reading_uses_present_annotator(m2):
    refs = m2.references()
    assert m2.num_annotators == 2
    assert refs[0] == ["A B c ! .", "X Z y", "p", "nothing here"]
    # sentence 2 has no line for annotator 1: lenient gives annotator 0's correction
    assert refs[1] == ["A b c d .", "X Z y", "p", "nothing here"]


def test_strict_reading_uses_source_for_absent_annotator(m2):
    refs = m2.references(strict=True)
    assert refs[1][1] == "x y"
    assert refs[0][2] == "p q"


def test_malformed_lines(tmp_path):
    bad = tmp_path / "bad.m2"
    bad.write_text("S a b\nA one two|||R|||x\n")
    with pytest.raises(InputError, match="bad.m2:2: malformed edit line"):
        read_m2(bad)
    bad.write_text("hello\n")
    with pytest.raises(InputError, match="is this an M2 file"):
        read_m2(bad)


def test_conll14_annotator_coverage(shared_data):
    from conftest import CONLL_M2

    m2 = read_m2(CONLL_M2)
    assert len(m2.sentences) == 1312
    only_zero = [s for s in m2.sentences if s.annotators == [0]]
    assert len(only_zero) == 88  # the sentences the lenient reading exists for
    lenient, strict = m2.references(), m2.references(strict=True)
    for s, i in ((s, m2.sentences.index(s)) for s in only_zero[:5]):
        assert lenient[1][i] == s.correct(0)
        assert strict[1][i] == s.source
