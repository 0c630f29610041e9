"""ERRANT's matching modes (errant:mode=cs|cse|ds|dt) and the breakdowns of
``score --breakdown annotator|cat1|cat2|cat3`` for ERRANT, against errant
3.0.2's own ``errant_compare``.

Two routes: errant's ``process_edits``/``compareEdits``/``processCategories``
called on random edits (fast, every mode), and the command-line tools
(``errant_m2 -gold``, ``errant_parallel``, ``errant_compare -ds|-dt|-cse|-cat
N``) run on the first 150 CoNLL-2014 sentences of three outputs. Per
annotator, the oracle is ``errant_compare`` on the gold M2 file cut down to
that annotator's ``A`` lines.
"""

from __future__ import annotations

import argparse
import json
import random

import errant_oracle
import pytest
from conftest import CONLL_M2, SUBMISSIONS

from gecmetrics.breakdown import category
from gecmetrics.edits.extraction import MODEL_CANDIDATES
from gecmetrics.interface.score_report import render_scores
from gecmetrics.metrics.errant import compare, match_keys
from gecmetrics.scoring import ScoreOptions, score

pytestmark = pytest.mark.errant  # skips without the errant extra (conftest)

MODES = {"cs": "-cs", "cse": "-cse", "ds": "-ds", "dt": "-dt"}
SYSTEMS = ("AMU", "CAMB", "UFC")
SUBSET = 150


def _random_edits(rng, n):
    types = ["R:NOUN", "M:DET", "U:PUNCT", "UNK", "R:VERB:SVA", "R:ORTH"]
    cors = ["a", "the", "", "is are", "-NONE-"]
    out = []
    for _ in range(n):
        s = rng.randint(0, 6)
        out.append((s, s + rng.randint(0, 3), rng.choice(cors), rng.choice(types)))
    return out


def test_every_mode_counts_as_errant_compare_on_random_edits():
    from errant.commands import compare_m2 as cm

    rng = random.Random(11)
    for mode, flag in MODES.items():
        args = argparse.Namespace(dt=flag == "-dt", ds=flag == "-ds", cse=flag == "-cse",
                                  single=False, multi=False, filt=[])
        for _ in range(1500):
            hyp = _random_edits(rng, rng.randint(0, 5))
            ref = _random_edits(rng, rng.randint(0, 6))
            theirs_h = cm.process_edits([[s, e, t, c, 0] for s, e, c, t in hyp], args)
            theirs_r = cm.process_edits([[s, e, t, c, 0] for s, e, c, t in ref], args)
            tp, fp, fn, cats = cm.compareEdits(theirs_h[0], theirs_r[0])
            mine = compare(match_keys(hyp, mode), match_keys(ref, mode))
            assert mine[:3] == (tp, fp, fn), (mode, hyp, ref)
            assert mine[3] == {k: tuple(v) for k, v in cats.items()}, (mode, hyp, ref)


def test_category_tiers_are_errant_compare_process_categories():
    from errant.commands import compare_m2 as cm

    cats = {"R:NOUN": [1, 2, 3], "R:VERB:SVA": [4, 0, 1], "M:DET": [0, 1, 0],
            "U:NOUN": [2, 2, 2], "UNK": [0, 0, 5], "M:VERB:SVA": [1, 1, 1]}
    for level, kind in ((1, "cat1"), (2, "cat2"), (3, "cat3")):
        theirs = cm.processCategories({k: list(v) for k, v in cats.items()}, level)
        mine: dict[str, list[int]] = {}
        for typ, counts in cats.items():
            acc = mine.setdefault(category(typ, kind), [0, 0, 0])
            for i in range(3):
                acc[i] += counts[i]
        assert mine == theirs, kind
    # by hand: cat 1 "R" sums R:NOUN + R:VERB:SVA; cat 2 "NOUN" sums R:NOUN + U:NOUN
    assert cm.processCategories(dict(cats), 1)["R"] == [5, 2, 4]
    assert cm.processCategories(dict(cats), 2)["NOUN"] == [3, 4, 5]


@pytest.fixture(scope="module")
def tools(tmp_path_factory, shared_data):
    """The subset's files, errant's M2 outputs, and gecmetrics' JSON rows with
    every breakdown (computed while errant's tools run)."""
    tmp = tmp_path_factory.mktemp("errant-breakdown")
    mp = pytest.MonkeyPatch()
    mp.setenv("GECMETRICS_CACHE", str(tmp / "cache"))
    blocks = CONLL_M2.read_text(encoding="utf-8").strip().split("\n\n")[:SUBSET]
    m2 = tmp / "sub.m2"
    m2.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    src = tmp / "sub.src"
    src.write_text("".join(b.split("\n")[0][2:] + "\n" for b in blocks), encoding="utf-8")
    hyps = {}
    for s in SYSTEMS:
        hyps[s] = tmp / s
        lines = (SUBMISSIONS / s).read_text(encoding="utf-8").split("\n")[:SUBSET]
        hyps[s].write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    jobs = [["errant_m2", "-gold", str(m2), "-out", str(tmp / "gold.m2")]]
    jobs += [["errant_parallel", "-orig", str(src), "-cor", str(hyps[s]),
              "-out", str(tmp / f"{s}.m2")] for s in SYSTEMS]
    proc = errant_oracle.start(jobs, MODEL_CANDIDATES)
    mine: dict[tuple[str, str], dict] = {}
    try:
        for mode in MODES:
            for kind in ("annotator", "cat1", "cat2", "cat3"):
                options = ScoreOptions(str(src), hypotheses=[str(hyps[s]) for s in SYSTEMS],
                                       metrics=[f"errant:mode={mode}"], m2=str(m2),
                                       breakdown=kind)
                out, _ = render_scores(score(options), "json")
                for row in json.loads(out):
                    name = row["hypothesis"].rsplit("/", 1)[1]
                    mine[(mode, kind, name)] = row
    finally:
        errant_oracle.finish(proc)
    gold = (tmp / "gold.m2").read_text(encoding="utf-8").strip().split("\n\n")
    coders = sorted({int(line.rsplit("|||", 1)[1]) for b in gold for line in b.split("\n")[1:]})
    for a in coders:  # the gold file cut down to one annotator's A lines
        cut = ["\n".join([b.split("\n")[0]] + [line for line in b.split("\n")[1:]
                                               if int(line.rsplit("|||", 1)[1]) == a])
               for b in gold]
        (tmp / f"gold.{a}.m2").write_text("\n\n".join(cut) + "\n\n", encoding="utf-8")
    yield {"tmp": tmp, "mine": mine, "coders": coders}
    mp.undo()


def _same_counts(row, theirs):
    assert (row["TP"], row["FP"], row["FN"]) == (theirs["TP"], theirs["FP"], theirs["FN"])
    assert (round(row["precision"], 4), round(row["recall"], 4), round(row["f"], 4)) == (
        theirs["P"], theirs["R"], theirs["F"])


@pytest.mark.full
@pytest.mark.real_data
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("system", SYSTEMS)
def test_modes_and_categories_agree_with_errant_compare(tools, mode, system):
    tmp, mine = tools["tmp"], tools["mine"]
    for cat, kind in ((1, "cat1"), (2, "cat2"), (3, "cat3")):
        theirs = errant_oracle.compare(str(tmp / f"{system}.m2"), str(tmp / "gold.m2"),
                                       cat=cat, flags=(MODES[mode],), in_process=True)
        row = mine[(mode, kind, system)]
        assert (row["score"], row["precision"], row["recall"]) == (
            row["breakdown"]["total"]["f"], row["breakdown"]["total"]["precision"],
            row["breakdown"]["total"]["recall"])
        _same_counts(row["breakdown"]["total"], theirs)
        groups = {r["group"]: (r["TP"], r["FP"], r["FN"]) for r in row["breakdown"]["rows"]}
        assert groups == theirs["per_type"], (mode, kind)
        # the groups split the corpus counts exactly
        for i, key in enumerate(("TP", "FP", "FN")):
            assert sum(v[i] for v in groups.values()) == row["breakdown"]["total"][key]
    if mode in ("ds", "dt"):  # detection counts UNK edits; correction does not
        assert mine[(mode, "cat3", system)]["breakdown"]["total"]["TP"] >= \
            mine[("cs", "cat3", system)]["breakdown"]["total"]["TP"]


@pytest.mark.full
@pytest.mark.real_data
@pytest.mark.parametrize("system", SYSTEMS)
def test_per_annotator_agrees_with_errant_compare_on_one_annotators_file(tools, system):
    tmp, mine = tools["tmp"], tools["mine"]
    assert tools["coders"] == [0, 1]
    for mode, flag in MODES.items():
        rows = {r["group"]: r for r in mine[(mode, "annotator", system)]["breakdown"]["rows"]}
        assert sorted(rows) == ["0", "1"]
        for a in tools["coders"]:
            theirs = errant_oracle.compare(str(tmp / f"{system}.m2"), str(tmp / f"gold.{a}.m2"),
                                           flags=(flag,), in_process=True)
            _same_counts(rows[str(a)], theirs)
