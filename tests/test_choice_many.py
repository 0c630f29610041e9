"""The annotator choice for many betas at once (``choose_m2_many``,
``choose_errant_many``: what a beta sweep uses) equals the per-beta rule
(``choose_m2``, ``choose_errant``: the oracles) for every system, sentence and
beta: on fuzzed counts with ties and zero denominators (fast tier), and over
the ``--sweep-beta 0:5:0.01`` grid (every 5th beta for M2's rule, every 10th
for ERRANT's, whose oracle is slower: the oracle costs minutes per full grid)
on CoNLL-2014 and SEEDA (full tier)."""

from __future__ import annotations

import numpy as np
import pytest

from gecmetrics.edits import statistics as edit_statistics
from gecmetrics.edits.choice import (
    CHOICE_RULES,
    MANY_RULES,
    choose_errant,
    choose_errant_many,
    choose_m2,
    choose_m2_many,
)
from gecmetrics.edits.statistics import EditCounts, EditStatistics

GRID = np.round(np.arange(501) * 0.01, 2).tolist()  # --sweep-beta 0:5:0.01
# beta 0 (0/0 choices), 1, betas with beta ** 2 != beta * beta, and a large one
BETAS = [0.0, 0.5, 1.0, 0.0397, 2.759, 0.2, 5.0, 31.7]


def oracle(tp, fp, fn, present, betas, running, choose=choose_m2):
    """The per-beta rule per beta and system, as EditStatistics.choice made it before."""
    pres = np.asarray(present).tolist()
    return np.array([[choose(tp[h].tolist(), fp[h].tolist(), fn[h].tolist(), pres,
                                float(b), running)
                      for h in range(tp.shape[0])] for b in betas], dtype=np.int64)


def fuzzed(rng, H, D, A, high):
    """Counts with many ties: small values, annotators copied from one another,
    all-zero sentences (every denominator 0) and absent annotators."""
    tp, fp, fn = (rng.integers(0, high, (H, D, A)) for _ in range(3))
    copy = rng.random(D) < 0.3
    for x in (tp, fp, fn):
        x[:, copy, :] = x[:, copy, :1]
    zero = rng.random(D) < 0.15
    for x in (tp, fp, fn):
        x[:, zero, :] = 0
    fp[:, rng.random(D) < 0.1, :] = 0  # no proposed edit, some gold
    present = rng.random((D, A)) < 0.75
    present[np.arange(D), rng.integers(0, A, D)] = True
    return tp, fp, fn, present


def test_every_rule_has_its_many_beta_form():
    assert MANY_RULES == {"m2": choose_m2_many, "errant": choose_errant_many}
    assert CHOICE_RULES == {"m2": choose_m2, "errant": choose_errant}


@pytest.mark.parametrize("rule", ("m2", "errant"))
@pytest.mark.parametrize("running", (True, False))
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_many_betas_equal_the_per_beta_rule_on_fuzzed_counts(seed, running, rule):
    rng = np.random.default_rng(seed)
    for _ in range(12):
        H, D, A = (int(rng.integers(1, 4)), int(rng.integers(1, 40)), int(rng.integers(1, 5)))
        tp, fp, fn, present = fuzzed(rng, H, D, A, int(rng.integers(1, 5)))
        betas = BETAS + np.round(rng.random(6) * 5, 2).tolist()
        got = MANY_RULES[rule](tp, fp, fn, present, betas, running)
        assert got.shape == (len(betas), H, D)
        assert np.array_equal(got, oracle(tp, fp, fn, present, betas, running,
                                          CHOICE_RULES[rule]))


@pytest.mark.parametrize("rule", ("m2", "errant"))
def test_many_betas_on_large_counts_and_one_annotator(rule):
    rng = np.random.default_rng(11)
    many, choose = MANY_RULES[rule], CHOICE_RULES[rule]
    tp, fp, fn, present = fuzzed(rng, 3, 60, 3, 10**6)
    assert np.array_equal(many(tp, fp, fn, present, BETAS, True),
                          oracle(tp, fp, fn, present, BETAS, True, choose))
    one = fuzzed(rng, 2, 30, 1, 3)
    assert np.array_equal(many(*one, BETAS, True), oracle(*one, BETAS, True, choose))


def test_errant_rounding_to_4_decimals_is_pythons():
    """F values at and next to a half of the 4th decimal round as ``round`` does,
    so F values equal after rounding tie as in errant's computeFScore."""
    from gecmetrics.edits.choice import round4

    halves = (np.arange(0, 20001, 7) + 0.5) / 20000
    xs = np.concatenate([halves, np.nextafter(halves, 0), np.nextafter(halves, 1),
                         np.random.default_rng(2).random(5000), [0.0, 1.0, 0.03125]])
    assert round4(xs).tolist() == [round(x, 4) for x in xs.tolist()]


def test_statistics_of_a_sweep_equal_one_beta_at_a_time(monkeypatch):
    """EditStatistics.precompute (the sweep) gives the choices and scores that
    choice() makes one beta at a time with the per-beta rule."""
    rng = np.random.default_rng(5)
    tp, fp, fn, present = fuzzed(rng, 4, 80, 3, 4)
    counts = EditCounts(("a", "b", "c", "d"), tp, fp, fn, present)
    betas = BETAS + [1.5, 3.25]
    one = EditStatistics(counts, "m2")
    swept = EditStatistics(counts, "m2")
    swept.precompute(betas)
    assert len(swept._choice) == len(betas)  # made by the many-beta walk
    for b in betas:
        assert np.array_equal(swept.choice(b), one.choice(b))
        assert swept.choice(b).dtype == np.int64
        assert swept.corpus_scores(b).tolist() == one.corpus_scores(b).tolist()
    # a few betas stay on the per-beta rule, which is faster for them
    few = EditStatistics(counts, "m2")
    few.precompute(betas[:edit_statistics.MANY_MIN_BETAS - 1])
    assert not few._choice


def _real_counts(name: str):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from meta_data import benchmark

    from gecmetrics.metrics.m2 import m2_counts

    return m2_counts(benchmark(name).corpus)


@pytest.mark.full
@pytest.mark.parametrize("rule", ("m2", "errant"))
@pytest.mark.parametrize("name", ("conll14", "seeda-s"))
def test_many_betas_equal_the_per_beta_rule_on_real_data(name, rule):
    """The 501-beta grid thinned (M2's rule: every 5th beta; ERRANT's: every 10th),
    every system and sentence, CoNLL-2014 and SEEDA (M2's counts, under either rule)."""
    c = _real_counts(name)
    many, choose = MANY_RULES[rule], CHOICE_RULES[rule]
    grid = GRID[::5] if rule == "m2" else GRID[::10]
    got = many(c.tp, c.fp, c.fn, c.present, grid, True)
    assert np.array_equal(got, oracle(c.tp, c.fp, c.fn, c.present, grid, True, choose))
    few = GRID[::25]
    assert np.array_equal(many(c.tp, c.fp, c.fn, c.present, few, False),
                          oracle(c.tp, c.fp, c.fn, c.present, few, False, choose))
