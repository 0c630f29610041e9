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
from gecmetrics.meta_eval.correlate import Selection, meta_evaluate
from gecmetrics.meta_eval.sweep import parse_grid, sweep
from gecmetrics.registry import metric_from_spec

WORD = "green"
CHAR = "green:tokenize=char,n=6"
WGLEU = "gleu:variant=paper"
CGLEU = "gleu:variant=paper,tokenize=char,n=6"
M2 = "m2"

# (benchmark, metric spec, level, published r, published rho) -- GREEN paper, Table 2.
TABLE2 = [
    ("conll14", WORD, "corpus", 0.741, 0.698),
    ("conll14", CHAR, "corpus", 0.786, 0.813),
    ("conll14", WORD, "mean", 0.835, 0.731),
    ("conll14", CHAR, "mean", 0.834, 0.852),
    ("seeda-s", WORD, "corpus", 0.920, 0.909),
    ("seeda-s", CHAR, "corpus", 0.913, 0.881),
    ("seeda-s", WORD, "mean", 0.922, 0.902),
    ("seeda-s", CHAR, "mean", 0.928, 0.881),
    ("seeda-e", WORD, "corpus", 0.911, 0.930),
    ("seeda-e", CHAR, "corpus", 0.911, 0.909),
    ("seeda-e", WORD, "mean", 0.920, 0.937),
    ("seeda-e", CHAR, "mean", 0.930, 0.916),
    ("conll14", WGLEU, "corpus", 0.696, 0.445),
    ("conll14", CGLEU, "corpus", 0.606, 0.593),
    ("conll14", WGLEU, "mean", 0.779, 0.720),
    ("conll14", CGLEU, "mean", 0.655, 0.665),
    ("seeda-s", WGLEU, "corpus", 0.870, 0.811),
    ("seeda-s", CGLEU, "corpus", 0.807, 0.706),
    ("seeda-s", WGLEU, "mean", 0.926, 0.923),
    ("seeda-s", CGLEU, "mean", 0.880, 0.853),
    ("seeda-e", WGLEU, "corpus", 0.891, 0.895),
    ("seeda-e", CGLEU, "corpus", 0.843, 0.867),
    ("seeda-e", WGLEU, "mean", 0.915, 0.916),
    ("seeda-e", CGLEU, "mean", 0.905, 0.937),
    ("conll14", M2, "corpus", 0.623, 0.687),
    ("conll14", M2, "mean", 0.872, 0.731),
    ("seeda-s", M2, "corpus", 0.616, 0.517),
    ("seeda-s", M2, "mean", 0.797, 0.762),
    ("seeda-e", M2, "corpus", 0.736, 0.776),
    ("seeda-e", M2, "mean", 0.869, 0.951),
]

# The three cells (of 36) we do not reproduce to the third decimal, with what we
# get; docs/results.md ("Differences") gives the evidence. Mean-of-sentence GLEU
# on CoNLL-2014 (13 systems incl. INPUT) is 0.002 higher than published, while the
# corpus level and all SEEDA cells (no INPUT) match; M2 on SEEDA-E is 0.73547,
# 0.00003 below the rounding boundary of the published 0.736.
DIFFERENCES = {
    ("conll14", WGLEU, "mean", "r"): 0.781,
    ("conll14", CGLEU, "mean", "r"): 0.657,
    ("seeda-e", M2, "corpus", "r"): 0.735,
}

def _selection(name: str) -> Selection:
    return Selection.make(benchmark(name, "all"), None, "ew")


@pytest.mark.parametrize(("bench", "spec", "level", "r", "rho"), TABLE2)
def test_green_paper_table2(bench, spec, level, r, rho):
    sel = _selection(bench)
    assert sel.system_set == ("all" if bench == "conll14" else "base")
    assert len(sel.systems) == (13 if bench == "conll14" else 12)
    (result,) = meta_evaluate(sel, [metric_from_spec(spec)], None, [level])
    assert result.beta == metric_from_spec(spec).default_beta
    for which, published, ours in (("r", r, result.pearson), ("rho", rho, result.spearman)):
        expected = DIFFERENCES.get((bench, spec, level, which), published)
        assert fixed(ours, 3) == fixed(expected, 3), (which, ours, published)
        assert abs(ours - published) <= 0.0025


def test_tuned_betas_from_the_sweep():
    """Japanese GREEN paper, Table 2 (CoNLL): wordGREEN r = 0.790 at beta 1.67 and
    rho = 0.709 at 2.51; charGREEN r = 0.803 at 1.85 and rho = 0.824 at 1.96."""
    sel = _selection("conll14")
    grid = parse_grid("0:5:0.01")
    word = sweep(sel, metric_from_spec(WORD), grid)
    char = sweep(sel, metric_from_spec(CHAR), grid)
    assert word.best("pearson")[0] == 1.67
    assert fixed(word.at(1.67), 3) == "0.790"
    assert fixed(word.at(2.51, "spearman"), 3) == "0.709"
    assert char.best("pearson")[0] == 1.85
    assert fixed(char.at(1.96, "spearman"), 3) == "0.824"
    assert fixed(char.at(1.85), 3) == "0.803"
    # The sweep agrees with scoring at single betas; beta = 2 gives Table 2.
    assert fixed(word.at(2.0), 3) == "0.741" and fixed(char.at(2.0, "spearman"), 3) == "0.813"
    assert np.all(np.isfinite(word.pearson[1:]))
