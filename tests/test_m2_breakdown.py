"""M2 breakdowns (``score --breakdown annotator|cat3``): per annotator, as the
official scorer scores a file with one annotator's edits; per M2 type, TP and
FN by gold type with the FP untyped; and the one-line errors of the option.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CONLL_M2, SUBMISSIONS

from gecmetrics.breakdown import Breakdown, breakdowns, to_frame
from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.interface.score_report import render_scores
from gecmetrics.m2_format import read_m2
from gecmetrics.metrics.m2 import M2
from gecmetrics.scoring import ScoreOptions, score

SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))

#: The official M2 scorer 3.2 (github.com/nusnlp/m2scorer at cb874a7, Python
#: 2.7.18) on the CoNLL-2014 test M2 file cut down to one annotator's A lines
#: (a sentence without them keeps only its S line):
#:   python2 scripts/m2scorer.py official_submissions/SYSTEM annA.m2
#: its printed P, R and F0.5 (4 decimals).
OFFICIAL_ONE_ANNOTATOR = {
    ("AMU", 0): (0.2730, 0.1355, 0.2269),
    ("AMU", 1): (0.3400, 0.1269, 0.2545),
    ("CAMB", 0): (0.2496, 0.1962, 0.2367),
    ("UFC", 0): (0.2800, 0.0059, 0.0270),
    ("UFC", 1): (0.6600, 0.0103, 0.0484),
    # CAMB annotator 1: the official scorer did not finish within 1,500 s.
}

# A small M2 file with typed edits, scored by hand.
TINY_M2 = """S He go to school every days .
A 1 2|||SVA|||goes|||REQUIRED|||-NONE-|||0
A 5 6|||Nn|||day|||REQUIRED|||-NONE-|||0
A 1 2|||SVA|||goes|||REQUIRED|||-NONE-|||1

S She have a apple .
A 1 2|||SVA|||has|||REQUIRED|||-NONE-|||0
A 2 3|||ArtOrDet|||an|||REQUIRED|||-NONE-|||0

"""


def _tiny(tmp_path):
    path = tmp_path / "tiny.m2"
    path.write_text(TINY_M2, encoding="utf-8")
    m2 = read_m2(path)
    hyps = {"sys": ["He goes to school every days .", "She have an apple !"]}
    return Corpus(m2.sources, m2.references(), hyps, m2=m2)


def test_per_type_by_hand(tmp_path):
    corpus = _tiny(tmp_path)
    [b] = breakdowns(M2(), corpus, "cat3")
    # Sentence 1: annotator 0 gives TP 1 (SVA), FN 1 (Nn): F0.5 = 0.833..;
    # annotator 1 gives TP 1, FN 0: F0.5 = 1, chosen. Sentence 2 (annotator 0
    # only): "an" matches ArtOrDet; "!" is an FP; SVA "has" is missed.
    rows = {r.group: (r.tp, r.fp, r.fn) for r in b.rows}
    assert rows == {"SVA": (1, None, 1), "ArtOrDet": (1, None, 0)}
    assert (b.total.tp, b.total.fp, b.total.fn) == (2, 1, 1) and b.untyped_fp == 1
    assert b.rows[0].precision is None and b.rows[0].f is None
    assert [r.recall for r in b.rows] == [1.0, 0.5]  # ArtOrDet, SVA (sorted)


def test_per_annotator_by_hand(tmp_path):
    corpus = _tiny(tmp_path)
    [b] = breakdowns(M2(), corpus, "annotator")
    rows = {r.group: (r.tp, r.fp, r.fn) for r in b.rows}
    # annotator 0: TP 1 + 1, FP 0 + 1, FN 1 + 1. Annotator 1 has no A line in
    # sentence 2, so there the hypothesis edits are FP against no gold: the
    # official lattice then takes the path of fewest edits, one merged edit
    # "a apple ." -> "an apple !" (the slow oracle tests/m2_oracle.py:
    # sentence_counts(..., {1: []}) gives (0 correct, 1 proposed, 0 gold)).
    assert rows == {"0": (2, 1, 2), "1": (1, 1, 0)}
    assert (b.total.tp, b.total.fp, b.total.fn) == (2, 1, 1)


def test_breakdown_json_table_and_frame(tmp_path):
    corpus = _tiny(tmp_path)
    src = tmp_path / "src.txt"
    src.write_text("".join(s + "\n" for s in corpus.sources), encoding="utf-8")
    hyp = tmp_path / "sys"
    hyp.write_text("".join(s + "\n" for s in corpus.hypotheses["sys"]), encoding="utf-8")
    args = dict(source=str(src), hypotheses=[str(hyp)], m2=str(tmp_path / "tiny.m2"))
    rows = json.loads(render_scores(score(ScoreOptions(metrics=["m2", "gleu"], breakdown="cat3",
                                                       **args)), "json")[0])
    m2_row, gleu_row = rows
    assert "breakdown" not in gleu_row
    b = m2_row["breakdown"]
    assert b["kind"] == "cat3" and b["untyped_FP"] == 1 and b["signature"] == m2_row["signature"]
    assert b["rows"][0] == {"group": "ArtOrDet", "TP": 1, "FP": None, "FN": 0,
                            "precision": None, "recall": 1.0, "f": None}
    assert b["total"]["f"] == m2_row["score"]
    table = render_scores(score(ScoreOptions(metrics=["m2"], breakdown="annotator", **args)),
                          "table", 1)[0]
    assert "annotator" in table and "\n1 " in table.replace("  ", " ")
    frame = to_frame(breakdowns(M2(), corpus, "annotator"))
    assert list(frame.columns) == ["metric", "spec", "hypothesis", "beta", "kind", "group",
                                   "TP", "FP", "FN", "precision", "recall", "f", "signature"]
    assert list(frame["group"]) == ["0", "1", "all"]


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_errors_are_one_line_and_early(tmp_path):
    corpus = _tiny(tmp_path)
    with pytest.raises(ConfigError, match="ERRANT types"):
        from gecmetrics.breakdown import check

        check([M2()], "cat1", corpus)
    src = tmp_path / "src.txt"
    src.write_text("".join(s + "\n" for s in corpus.sources), encoding="utf-8")
    base = [SCRIPT, "score", "-s", str(src), "--m2", str(tmp_path / "tiny.m2"), "-c", str(src)]
    for extra, needle in ((["-m", "m2", "--breakdown", "cat2"], "tiny.m2 sentence 1 has type"),
                          (["-m", "gleu", "--breakdown", "cat3"], "edit metrics"),
                          (["-m", "m2", "--breakdown", "annotator", "--level", "sentence"],
                           "--breakdown splits corpus scores")):
        run = subprocess.run(base + extra, capture_output=True, text=True)
        assert run.returncode == 2, run.stderr
        assert run.stderr.startswith("error: ") and needle in run.stderr
        assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert isinstance(breakdowns(M2(), corpus, "cat3")[0], Breakdown)


@pytest.fixture(scope="module")
def conll_m2(shared_data):
    m2 = read_m2(CONLL_M2)
    hyps = {s: (SUBMISSIONS / s).read_text(encoding="utf-8").split("\n")[:len(m2.sentences)]
            for s in ("AMU", "CAMB", "UFC")}
    return m2, hyps


@pytest.mark.full
@pytest.mark.real_data
def test_conll14_per_type_splits_the_corpus_counts(conll_m2):
    m2, hyps = conll_m2
    corpus = Corpus(m2.sources, m2.references(), hyps, m2=m2)
    metric = M2()
    scores = {r.hypothesis: r for r in metric.evaluate(corpus)}
    for b in breakdowns(metric, corpus, "cat3"):
        d = scores[b.hypothesis].details
        assert sum(r.tp for r in b.rows) == d["TP"] == b.total.tp
        assert sum(r.fn for r in b.rows) == d["FN"] == b.total.fn
        assert b.untyped_fp == d["FP"]
        assert {"ArtOrDet", "Nn", "Prep", "Vt", "Wci"} <= {r.group for r in b.rows}
        for r in b.rows:  # per-type recall = TP / (TP + FN), checked by hand
            assert r.recall == (r.tp / (r.tp + r.fn) if r.fn else 1.0)


def _one_annotator(m2_path: Path, a: int, out: Path) -> Path:
    blocks = m2_path.read_text(encoding="utf-8").strip().split("\n\n")
    cut = []
    for b in blocks:
        lines = b.split("\n")
        cut.append("\n".join([lines[0]] + [x for x in lines[1:]
                                           if x.rsplit("|||", 1)[1].strip() == str(a)]))
    out.write_text("\n\n".join(cut) + "\n\n", encoding="utf-8")
    return out


@pytest.mark.full
@pytest.mark.real_data
def test_conll14_per_annotator_is_the_score_on_that_annotators_file(conll_m2, tmp_path):
    """Route 2: the (official-exact) M2 metric run on the M2 file cut down to
    one annotator, where the choice has nothing to choose."""
    m2, hyps = conll_m2
    corpus = Corpus(m2.sources, m2.references(), hyps, m2=m2)
    mine = {b.hypothesis: {r.group: r for r in b.rows}
            for b in breakdowns(M2(), corpus, "annotator")}
    for a in (0, 1):
        alone = read_m2(_one_annotator(CONLL_M2, a, tmp_path / f"ann{a}.m2"))
        one = Corpus(alone.sources, alone.references(), hyps, m2=alone)
        for r in M2().evaluate(one):
            row = mine[r.hypothesis][str(a)]
            assert (row.tp, row.fp, row.fn) == (r.details["TP"], r.details["FP"],
                                                r.details["FN"])
            assert (row.precision, row.recall, row.f) == (r.precision, r.recall, r.score)
            official = OFFICIAL_ONE_ANNOTATOR.get((r.hypothesis, a))
            if official is not None:
                assert (round(row.precision, 4), round(row.recall, 4), round(row.f, 4)) == \
                    official
