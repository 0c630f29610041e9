"""Sentence-level pairwise agreement: hand cases and SEEDA's corr_sentence.py on real data."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np
import pytest
from conftest import SHARED_DATA as SHARED

from gecmetrics.meta_eval.sentence_agreement import human_pairs, pairwise_agreement

needs_shared = pytest.mark.real_data  # skips without the data (conftest)

# Sentence 0: A (rank 1) > B = C (rank 2, one output) > D (rank 3).
# Sentence 1: B (1) > D (2) > E (3). Another annotator ties A and D on sentence 0.
ITEMS = [
    (0, [(1, "A"), (2, "B C"), (3, "D")]),
    (1, [("D", 2), ("B", 1), ("E", 3)]),  # (names, rank) order is accepted too
    (0, [(1, ["D"]), (1, ["A"])]),
]
SCORES = {
    "A": [0.9, 0.0],
    "B": [0.5, 0.1],
    "C": [0.5, 0.0],
    "D": [0.5, 0.3],
    "E": [0.0, 0.2],
}


def test_human_pairs_skip_equal_ranks_and_respect_the_system_set():
    assert human_pairs(ITEMS, systems={"A", "B", "C", "D"}) == [
        (0, "A", "B"), (0, "A", "C"), (0, "A", "D"), (0, "B", "D"), (0, "C", "D"),
        (1, "B", "D"),
    ]
    assert (1, "D", "E") in human_pairs(ITEMS) and len(human_pairs(ITEMS)) == 8


@pytest.mark.parametrize(
    "ties, concordant, discordant, total",
    [
        # sentence 0: A beats B, C, D on the metric too (3 concordant); B-D and C-D are
        # metric ties; sentence 1: B > D by humans, D > B by the metric (discordant).
        # seeda: a tie reads as a loss for the alphabetically earlier system (B, C),
        # which humans preferred, so both ties are discordant.
        ("seeda", 3, 3, 6),
        ("discordant", 3, 3, 6),
        ("neutral", 3, 1, 6),
        ("exclude", 3, 1, 4),
    ],
)
def test_hand_case_tie_policies(ties, concordant, discordant, total):
    res = pairwise_agreement(ITEMS, SCORES, systems=["A", "B", "C", "D"], ties=ties)
    assert (res.concordant, res.discordant, res.n_pairs) == (concordant, discordant, total)
    assert res.accuracy == pytest.approx(concordant / total)
    assert res.kendall_like == pytest.approx((concordant - discordant) / total)
    assert res.metric_ties == 2 and res.n_items == 2  # the all-tied item gives no pair


def test_all_systems_adds_e():
    # adds B > E (0.1 < 0.2: discordant) and D > E (0.3 > 0.2: concordant)
    res = pairwise_agreement(ITEMS, SCORES)
    assert (res.concordant, res.discordant, res.n_pairs) == (4, 4, 8)
    assert res.kendall_like == 0.0 and res.accuracy == 0.5


def test_seeda_tie_rule_depends_on_the_order_and_direction():
    b_first = [(0, [(1, "B"), (2, "D")])]  # humans: B > D
    d_first = [(0, [(1, "D"), (2, "B")])]  # humans: D > B
    tied = {"B": [0.5], "D": [0.5]}
    # higher is better: a tie is a loss for B (earlier); lower is better: a win for B
    assert pairwise_agreement(b_first, tied).kendall_like == -1
    assert pairwise_agreement(d_first, tied).kendall_like == 1
    assert pairwise_agreement(b_first, tied, higher_is_better=False).kendall_like == 1
    assert pairwise_agreement(d_first, tied, higher_is_better=False).kendall_like == -1
    # an explicit order that puts D first flips it
    assert pairwise_agreement(b_first, tied, order=["D", "B"]).kendall_like == 1
    # lower-is-better without ties just reverses the metric's preference
    assert pairwise_agreement(b_first, {"B": [0.2], "D": [0.7]},
                              higher_is_better=False).accuracy == 1


@dataclass(frozen=True)
class Item:  # the shape of meta_eval.human.RankingItem
    sentence: int
    user: str
    groups: tuple


def test_ranking_item_objects_are_accepted():
    items = [Item(s, "u", tuple((r, tuple(n.split()) if isinstance(n, str) else tuple(n))
                                for r, n in groups))
             for s, groups in [ITEMS[0], (1, [(2, "D"), (1, "B"), (3, "E")]), ITEMS[2]]]
    assert pairwise_agreement(items, SCORES) == pairwise_agreement(ITEMS, SCORES)


def test_errors():
    with pytest.raises(ValueError, match="unknown tie policy"):
        pairwise_agreement(ITEMS, SCORES, ties="random")
    with pytest.raises(ValueError, match="no metric score"):
        pairwise_agreement(ITEMS, {"A": [1, 1]})
    with pytest.raises(ValueError, match="not in the given order"):
        pairwise_agreement(ITEMS, SCORES, order=["A"])


# -- real data against a transliteration of SEEDA's corr_sentence.py -----------------

SEEDA_SYSTEMS = [
    "BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT", "LM-Critic", "PIE",
    "REF-F", "REF-M", "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS",
]


def corr_sentence_reference(path, targets, base, scores):
    """SEEDA's matrix computation (make_h_mtx, make_m_mtx, calc_corr), order 'higher'.

    h[i][j] (i < j) is 1 if system i was ranked better, -1 if j was; m[i][j] is 1 if
    score_i > score_j else -1 (so a tie counts against i, the earlier system).
    """
    n = len(targets)
    idx = {t: i for i, t in enumerate(targets)}
    counts = np.zeros((3, 3), dtype=int)
    root = ET.parse(path).getroot()
    for child in root.iter("ranking-item"):
        src = int(child.attrib["src-id"]) - base
        judg = {}
        for trans in child:
            rank = int(trans.attrib["rank"])
            for name in trans.attrib["system"].split():
                if name in idx:
                    judg.setdefault(rank, []).append(idx[name])
        h = [[None] * n for _ in range(n)]
        for r1, r2 in itertools.combinations(sorted(judg), 2):
            for t1 in judg[r1]:
                for t2 in judg[r2]:
                    if t1 < t2:
                        h[t1][t2] = 1 if r1 < r2 else -1
                    else:
                        h[t2][t1] = -1 if r1 < r2 else 1
        for i, j in itertools.combinations(range(n), 2):
            if h[i][j] is None:
                continue
            m = 1 if scores[targets[i]][src] > scores[targets[j]][src] else -1
            counts[h[i][j] + 1][m + 1] += 1
    total = counts[0, 0] + counts[0, 2] + counts[2, 0] + counts[2, 2]
    acc = (counts[0, 0] + counts[2, 2]) / total
    ken = (counts[0, 0] + counts[2, 2] - counts[0, 2] - counts[2, 0]) / total
    return acc, ken, total


def read_items(path, base):
    root = ET.parse(path).getroot()
    return [
        (int(node.attrib["src-id"]) - base,
         [(int(t.attrib["rank"]), t.attrib["system"]) for t in node.iter("translation")])
        for node in root.iter("ranking-item")
    ]


def random_scores(names, n_sentences, seed):
    rng = np.random.default_rng(seed)
    # few distinct values, so many metric ties exercise the tie rule
    return {name: rng.integers(0, 4, size=n_sentences).astype(float) for name in names}


@needs_shared
@pytest.mark.parametrize("granularity", ["sent", "edit"])
@pytest.mark.parametrize("system_set, dropped", [
    ("base", {"GPT-3.5", "INPUT", "REF-F"}), ("+INPUT", {"GPT-3.5", "REF-F"}), ("all", set()),
])
def test_seeda_matches_corr_sentence(granularity, system_set, dropped):
    path = SHARED / "SEEDA" / "data" / f"judgments_{granularity}.xml"
    targets = [s for s in SEEDA_SYSTEMS if s not in dropped]
    scores = random_scores(SEEDA_SYSTEMS, 1312, seed=len(targets))
    acc, ken, total = corr_sentence_reference(path, targets, 1, scores)
    res = pairwise_agreement(read_items(path, 1), scores, systems=targets)
    assert res.n_pairs == total
    assert res.accuracy == pytest.approx(acc, abs=1e-15)
    assert res.kendall_like == pytest.approx(ken, abs=1e-15)
    assert res.metric_ties > 0  # the tie rule was exercised


@needs_shared
def test_gjg15_matches_the_same_computation_with_zero_based_ids():
    path = SHARED / "GJG15" / "judgments.xml"
    names = ["AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC",
             "SJTU", "UFC", "UMC"]
    scores = random_scores(names, 1312, seed=13)
    acc, ken, total = corr_sentence_reference(path, names, 0, scores)
    res = pairwise_agreement(read_items(path, 0), scores)
    assert (res.n_pairs, res.accuracy, res.kendall_like) == (
        total, pytest.approx(acc, abs=1e-15), pytest.approx(ken, abs=1e-15))
