"""The GREEN paper's correlations, reproduced on the real data.

Published values: Koyama et al., "n-gram F-score for Evaluating Grammatical Error
Correction" (GREEN, INLG 2024), Table 2 (Pearson r, Spearman rho with Expected
Wins; GREEN beta = 2; word n = 4, char n = 6; SEEDA on ``outputs/all`` with the
``base`` systems), and the Japanese version's Table 2 (tuned betas on CoNLL).

After the GLEU and M2 branches are merged, add their rows to TABLE2 (wordGLEU
0.696/0.445, charGLEU 0.606/0.593, M2 0.623/0.687 on CoNLL at corpus level, ...).
"""

from __future__ import annotations

import numpy as np
import pytest
from meta_data import benchmark

from gecmetrics.formatting import fixed
from gecmetrics.meta_eval.evaluate import Selection, meta_evaluate
from gecmetrics.meta_eval.sweep import parse_grid, sweep
from gecmetrics.registry import metric_from_spec

WORD = "green"
CHAR = "green:tokenize=char,n=6"

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
]

def _selection(name: str) -> Selection:
    return Selection.make(benchmark(name, "all"), None, "ew")


@pytest.mark.parametrize(("bench", "spec", "level", "r", "rho"), TABLE2)
def test_green_paper_table2(bench, spec, level, r, rho):
    sel = _selection(bench)
    assert sel.system_set == ("all" if bench == "conll14" else "base")
    assert len(sel.systems) == (13 if bench == "conll14" else 12)
    (result,) = meta_evaluate(sel, [metric_from_spec(spec)], None, [level])
    assert result.beta == 2.0
    for which, published, ours in (("r", r, result.pearson), ("rho", rho, result.spearman)):
        assert fixed(ours, 3) == fixed(published, 3), (which, ours, published)


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
