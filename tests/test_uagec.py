"""UA-GEC's gold M2 (tests/uagec.py) and the figures of docs/languages.md.

The fast test checks the annotation-to-M2 rules on a hand-made document (the
expected edits worked out by hand below). The full-tier tests read the real
test set through the ``ua-gec`` test extra (skipped without it, failing under
GECMETRICS_REQUIRE_DATA=1): the gold edits rebuild the package's own
tokenised corrections, the M2 text reads back through gecmetrics' M2 reader,
and the page's summary lines are those docs/generate/make_languages.py computes.
"""

from __future__ import annotations

import sys
from collections import namedtuple
from pathlib import Path

import pytest
import uagec
from conftest import require_extra

from gecmetrics.m2_format import read_m2

ROOT = Path(__file__).resolve().parent.parent
Ann = namedtuple("Ann", "start end source_text suggestions meta")


def test_annotations_to_token_edits_by_hand():
    # offsets: Я 0, пішов 2-7, в 8, магазин 10-17, . 18, Він 20-23, купив 24-29, хліб 30-34
    source_text = "Я пішов в магазин . Він купив хліб"
    source = [["Я", "пішов", "в", "магазин", "."], ["Він", "купив", "хліб"]]
    annotations = [
        Ann(4, 7, "шов", ["шла"], {"error_type": "G/Gender"}),  # inside a token: widened
        Ann(8, 9, "в", ["у"], {"error_type": "Spelling"}),
        Ann(17, 18, " ", [" "], {"error_type": "Punctuation"}),  # white space only: no edit
        Ann(20, 20, "", ["— "], {"error_type": "Punctuation"}),  # glued to the next sentence
        Ann(30, 31, "х", ["Х"], {"error_type": "Spelling"}),  # two in one token: one edit
        Ann(33, 34, "б", ["ба"], {"error_type": "G/Case"}),
    ]
    target_text = "Я пішла у магазин . — Він купив Хліба"
    target = [["Я", "пішла", "у", "магазин", "."], ["—", "Він", "купив", "Хліба"]]
    edits, merged, crossing = uagec.gold_edits(source_text, source, target_text, target,
                                               annotations)
    assert edits == [[(1, 2, "пішла", "G/Gender"), (2, 3, "у", "Spelling")],
                     [(0, 0, "—", "Punctuation"), (2, 3, "Хліба", uagec.MIXED)]]
    assert (merged, crossing) == (1, 0)
    assert [uagec.apply_m2(s, e) for s, e in zip(source, edits, strict=True)] == target


def test_an_edit_over_a_sentence_boundary_is_split():
    source_text = "Так . Ні"
    source = [["Так", "."], ["Ні"]]
    annotations = [Ann(4, 8, ". Ні", [", ні"], {"error_type": "Punctuation"})]
    target_text = "Так , ні"
    target = [["Так", ",", "ні"], []]
    edits, merged, crossing = uagec.gold_edits(source_text, source, target_text, target,
                                               annotations)
    assert edits == [[(1, 2, ", ні", "Punctuation")], [(0, 1, "", "Punctuation")]]
    assert (merged, crossing) == (0, 1)


@pytest.fixture(scope="module", params=uagec.LAYERS)
def test_set(request):
    require_extra("ua-gec")
    return uagec.load(request.param)


@pytest.mark.full
def test_gold_edits_rebuild_the_corrections(test_set, tmp_path):
    assert len(test_set.documents) == 166 and test_set.annotators == [1, 2]
    pairs = same = 0
    for a in test_set.annotators:
        for src, tgt, edits in uagec.sentence_pairs(test_set, a):
            pairs += 1
            same += uagec.apply_m2(src, edits) == tgt
    # The rest are sentences whose tokens the package's own sentence split moves
    # across a boundary (docs/languages.md).
    assert same / pairs >= 0.98
    path = tmp_path / "gold.m2"
    path.write_text(uagec.m2_text(test_set), encoding="utf-8")
    gold = read_m2(path)
    assert gold.sources == test_set.sources()


@pytest.mark.full
def test_page_summary_is_the_computed_one(test_set):
    sys.path.insert(0, str(ROOT / "docs" / "generate"))
    try:
        import make_languages
    finally:
        sys.path.remove(str(ROOT / "docs" / "generate"))
    page = (ROOT / "docs" / "languages.md").read_text(encoding="utf-8")
    assert make_languages.checks(test_set) + "." in page
