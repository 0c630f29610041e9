"""The GREEN paper's correlations, reproduced on the real data.

Published values: Koyama et al., "n-gram F-score for Evaluating Grammatical Error
Correction" (GREEN, INLG 2024), Table 2 (Pearson r, Spearman rho with Expected
Wins; GREEN beta = 2; word n = 4, char n = 6; SEEDA on ``outputs/all`` with the
``base`` systems), and the Japanese version's Table 2 (tuned betas on CoNLL).

GLEU is the paper variant (the GREEN paper's equation 9/10) with the official
sampling seed; M2 is the official scorer's algorithm at beta 0.5.
"""

from __future__ import annotations

import numpy as np
import pytest
from meta_data import benchmark

from gecmetrics.formatting import fixed
from gecmetrics.meta_eval.selection import Selection, correlate_selection
from gecmetrics.meta_eval.sweep import parse_grid, sweep
from gecmetrics.published import load
from gecmetrics.registry import metric_from_spec

WORD = "green"
CHAR = "green:tokenize=char,n=6"
WGLEU = "gleu:variant=paper"
CGLEU = "gleu:variant=paper,tokenize=char,n=6"
M2 = "m2"

# (benchmark, metric spec, level, published r, published rho) -- GREEN paper, Table 2
# (data/published/green-paper-table2.json).
_TABLE2 = load("green-paper-table2")
TABLE2 = [(v["benchmark"], v["spec"], v["level"], v["pearson"], v["spearman"])
          for v in _TABLE2.values]

# The three cells (of 36) we do not reproduce to the third decimal, with what we
# get (the file's "not_reproduced"); docs/results.md ("Differences") gives the evidence.
DIFFERENCES = {(c["benchmark"], c["spec"], c["level"], c["which"]): c["ours"]
               for c in _TABLE2.extra["not_reproduced"]["cells"]}
# Japanese GREEN paper, Table 2 (CoNLL): tuned betas.
TUNED = load("green-paper-ja-table2").values


def test_published_table2_is_complete():
    assert len(TABLE2) == 30 and len({row[:3] for row in TABLE2}) == 30
    assert {row[1] for row in TABLE2} == {WORD, CHAR, WGLEU, CGLEU, M2}
    assert set(DIFFERENCES) < {(*row[:3], w) for row in TABLE2 for w in ("r", "rho")}


def _selection(name: str) -> Selection:
    return Selection.make(benchmark(name, "all"), None, "ew")


@pytest.mark.full
@pytest.mark.parametrize(("bench", "spec", "level", "r", "rho"), TABLE2)
def test_green_paper_table2(bench, spec, level, r, rho):
    sel = _selection(bench)
    assert sel.system_set == ("all" if bench == "conll14" else "base")
    assert len(sel.systems) == (13 if bench == "conll14" else 12)
    (result,) = correlate_selection(sel, [metric_from_spec(spec)], None, [level])
    assert result.beta == metric_from_spec(spec).default_beta
    for which, published, ours in (("r", r, result.pearson), ("rho", rho, result.spearman)):
        expected = DIFFERENCES.get((bench, spec, level, which), published)
        assert fixed(ours, 3) == fixed(expected, 3), (which, ours, published)
        assert abs(ours - published) <= 0.0025


@pytest.mark.full
def test_tuned_betas_from_the_sweep():
    """Japanese GREEN paper, Table 2 (CoNLL): wordGREEN r = 0.790 at beta 1.67 and
    rho = 0.709 at 2.51; charGREEN r = 0.803 at 1.85 and rho = 0.824 at 1.96."""
    sel = _selection("conll14")
    grid = parse_grid("0:5:0.01")
    word = sweep(sel, metric_from_spec(WORD), grid)
    char = sweep(sel, metric_from_spec(CHAR), grid)
    w, c = TUNED[WORD], TUNED[CHAR]
    assert word.best("pearson")[0] == w["beta_r"]
    assert fixed(word.at(w["beta_r"]), 3) == fixed(w["r"], 3)
    assert fixed(word.at(w["beta_rho"], "spearman"), 3) == fixed(w["rho"], 3)
    assert char.best("pearson")[0] == c["beta_r"]
    assert fixed(char.at(c["beta_rho"], "spearman"), 3) == fixed(c["rho"], 3)
    assert fixed(char.at(c["beta_r"]), 3) == fixed(c["r"], 3)
    # The sweep agrees with scoring at single betas; beta = 2 gives Table 2.
    assert fixed(word.at(2.0), 3) == "0.741" and fixed(char.at(2.0, "spearman"), 3) == "0.813"
    assert np.all(np.isfinite(word.pearson[1:]))
