"""Judgment XML parsing and Expected Wins: a hand-made example, then the real data."""

from __future__ import annotations

import pytest
from meta_data import shared_data

from gecmetrics.errors import InputError
from gecmetrics.meta_eval.human import (
    expected_wins,
    pairwise_wins,
    read_judgments,
    read_score_lines,
)
from gecmetrics.published import load

TINY = """<?xml version="1.0" encoding="UTF-8"?>
<appraise-results>
<error-correction-ranking-result id="x">
  <ranking-item src-id="{a}" user="u1" id="1">
    <translation rank="1" system="A"/>
    <translation rank="2" system="B C"/>
    <translation rank="2" system="D"/>
  </ranking-item>
  <ranking-item src-id="{b}" user="u2" id="2">
    <translation rank="3" system="A"/>
    <translation rank="1" system="B"/>
  </ranking-item>
</error-correction-ranking-result>
</appraise-results>
"""


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "j.xml"
    path.write_text(TINY.format(a=5, b=7), encoding="utf-8")
    return path


def test_src_id_base(tiny):
    assert [i.sentence for i in read_judgments(tiny, 0)] == [5, 7]
    assert [i.sentence for i in read_judgments(tiny, 1)] == [4, 6]


def test_pairs_from_rank_groups(tiny):
    # Item 1: A beats B, C, D; B, C (one output) and D share rank 2: ties, dropped.
    # Item 2: B beats A.
    wins = pairwise_wins(read_judgments(tiny))
    assert wins == {("A", "B"): 1, ("A", "C"): 1, ("A", "D"): 1, ("B", "A"): 1}


def test_expected_wins_by_hand(tiny):
    ew = expected_wins(read_judgments(tiny))
    # |S| = 4. A: vs B 1/2, vs C 1, vs D 1 -> 2.5/3. B: vs A 1/2 (B-C, B-D never
    # decided, left out) -> 0.5/3. C, D: lost their only comparison -> 0.
    assert ew == pytest.approx({"A": 2.5 / 3, "B": 0.5 / 3, "C": 0.0, "D": 0.0})


def test_expected_wins_fixed_system_set(tiny):
    ew = expected_wins(read_judgments(tiny), systems=["A", "B", "E"])
    assert ew == pytest.approx({"A": 0.5 / 2, "B": 0.5 / 2, "E": 0.0})


def test_bad_xml(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<appraise-results><ranking-item user='x'><translation rank='1' "
                   "system='A'/></ranking-item></appraise-results>")
    with pytest.raises(InputError, match="src-id"):
        read_judgments(bad)
    with pytest.raises(InputError, match="not found"):
        read_judgments(tmp_path / "missing.xml")


# Grundkiewicz, Junczys-Dowmunt and Gillian (EMNLP 2015), "Human Evaluation of
# Grammatical Error Correction Systems", Table 3b: Expected Wins of the CoNLL-2014
# submissions and INPUT.
# (data/published/gjg15-table3b.json)
GJG15_EW = load("gjg15-table3b").values


def test_gjg15_expected_wins_table():
    items = read_judgments(shared_data() / "GJG15" / "judgments.xml", src_id_base=0)
    ew = expected_wins(items)
    assert set(ew) == set(GJG15_EW)
    assert {name: round(value, 3) for name, value in ew.items()} == GJG15_EW
    assert sorted(ew, key=ew.get, reverse=True) == list(GJG15_EW)


SEEDA_ORDER = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT",
               "LM-Critic", "PIE", "REF-F", "REF-M", "Riken-Tohoku", "T5", "TemplateGEC",
               "TransGEC", "UEDIN-MS"]


@pytest.mark.parametrize("kind", ["sent", "edit"])
def test_seeda_expected_wins_match_published_files(kind):
    root = shared_data() / "SEEDA"
    items = read_judgments(root / "data" / f"judgments_{kind}.xml", src_id_base=1)
    assert min(i.sentence for i in items) >= 0
    ew = expected_wins(items)
    assert sorted(ew) == sorted(SEEDA_ORDER)
    published = read_score_lines(root / "scores" / "human" / f"EW_{kind}.txt", SEEDA_ORDER)
    for name in SEEDA_ORDER:
        assert ew[name] == pytest.approx(published[name], abs=0.001), name


def test_read_scores_count_mismatch(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("0.1\n0.2")  # no final newline, as in SEEDA's files
    assert read_score_lines(path, ["a", "b"]) == {"a": 0.1, "b": 0.2}
    with pytest.raises(InputError, match="2 scores but 3 systems"):
        read_score_lines(path, ["a", "b", "c"])
