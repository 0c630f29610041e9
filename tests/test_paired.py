"""Paired significance (gecmetrics.paired, ``score --paired-bootstrap/--paired-ar``).

Expected values come from a hand calculation (a 3-sentence AR enumerated over
all 2**3 swaps), from slow scalar oracles (prf per pseudo-system, corpus_scores
gathers per resample) and from sacrebleu's own PairedTest on chrF.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gecmetrics.corpus import Corpus
from gecmetrics.edits.statistics import EditCounts, EditStatistics
from gecmetrics.errors import ConfigError
from gecmetrics.fscore import prf
from gecmetrics.paired import PairedOptions, bootstrap_scores, compare_with_baseline
from gecmetrics.registry import get_metric, metric_from_spec
from gecmetrics.scoring import score_corpus
from gecmetrics.stats.significance import ar_diffs, ar_p_value, bootstrap_p_value

SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))

# (tp, fp, fn) per sentence, one annotator.
BASE = [(0, 1, 1), (1, 0, 0), (0, 0, 1)]  # F1 = 0.4 (P 1/2, R 1/3)
SYS = [(1, 0, 0), (1, 0, 0), (1, 0, 0)]  # F1 = 1


def tiny_stats() -> EditStatistics:
    counts = np.array([BASE, SYS])[..., None]  # (H=2, D=3, 3 counts, A=1)
    return EditStatistics(EditCounts(("base", "sys"), counts[:, :, 0], counts[:, :, 1],
                                     counts[:, :, 2], np.ones((3, 1), dtype=bool)))


def test_tiny_ar_enumerated_by_hand():
    """All 8 swap masks of 3 sentences, F1 of each pseudo-system by hand:

    sentence 2 is the same in both systems, so only sentences 1 and 3 matter:
    no swap / both swapped: |0.4 - 1| = 0.6 (the observed difference, not > it);
    swap only 1 or only 3: F1 2/3 against 0.8 (TP 2, FP 1, FN 1 / TP 2, FP 0,
    FN 1): 0.1333. Four masks reach 0.6, at least as extreme as the observed
    difference, so p = (4 + 1) / (8 + 1) = 5/9 (sacrebleu's strict > would give
    1/9)."""
    stats = tiny_stats()
    per, formula = stats.sentence_statistics(1.0)
    masks = np.array(list(itertools.product([True, False], repeat=3)))
    diffs = ar_diffs(per, formula, 0, masks)[:, 1]
    assert diffs.tolist() == pytest.approx([0.6, 2 / 15, 0.6, 2 / 15, 2 / 15, 0.6, 2 / 15, 0.6])
    assert ar_p_value(diffs, 1.0 - 0.4) == pytest.approx(5 / 9)
    # The same through a slow oracle: prf of the summed counts of each pseudo-system.
    for mask, diff in zip(masks, diffs, strict=True):
        a = np.sum([BASE[i] if m else SYS[i] for i, m in enumerate(mask)], axis=0)
        b = np.sum([SYS[i] if m else BASE[i] for i, m in enumerate(mask)], axis=0)
        assert diff == abs(prf(*a.tolist(), 1.0)[2] - prf(*b.tolist(), 1.0)[2])


def test_bootstrap_p_value_by_hand():
    # |d_b| = 1, 3, 5 (mean 3) -> shifted -2, 0, 2; observed 1: one above -> (1+1)/4.
    assert bootstrap_p_value(np.array([1.0, 3.0, 5.0]), np.zeros(3), 1.0) == 0.5
    # observed -2: |d| = 2, and the shifted 2 is at least as extreme -> (1+1)/4.
    assert bootstrap_p_value(np.array([1.0, 3.0, 5.0]), np.zeros(3), -2.0) == 0.5
    # observed 3: none -> 1/4.
    assert bootstrap_p_value(np.array([1.0, 3.0, 5.0]), np.zeros(3), 3.0) == 0.25


def test_no_difference_is_never_significant():
    """Identical outputs: every resampled difference and the observed one are 0. The
    strict count gave them p = 1/(N + 1), the smallest there is; at least as extreme
    (every sample is) gives 1, for both tests and whatever the samples."""
    zeros = np.zeros(1000)
    assert bootstrap_p_value(zeros, zeros, 0.0) == 1.0
    assert ar_p_value(zeros, 0.0) == 1.0
    assert bootstrap_p_value(np.array([1.0, 3.0, 5.0]), np.zeros(3), 0.0) == 1.0
    # a trial equal to d but for float rounding counts as a tie
    assert ar_p_value(np.array([0.6 - 1e-15, 0.1]), 0.6) == pytest.approx(2 / 3)


@pytest.fixture(scope="module")
def small_conll(conll):
    sources, refs, hyps = conll
    names = ["INPUT", "AMU", "CAMB", "CUUI", "UMC"]
    return Corpus(sources, refs, {n: hyps[n] for n in names})


SPECS = ["green", "chrf", "gleu:mode=max", "chrf:word_order=2"]


@pytest.mark.real_data
@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_sentence_statistics_sum_to_corpus_scores(small_conll, spec):
    """The summable view gives corpus_scores exactly, and its bootstrap equals
    bootstrap by corpus_scores gathers on the same resamples."""
    from gecmetrics.stats.resampling import bootstrap_system_scores

    metric = metric_from_spec(spec)
    stats = metric.statistics(small_conll)
    per, formula = stats.sentence_statistics(None)
    assert np.array_equal(formula(per.sum(axis=1)), stats.corpus_scores(None))
    fast = bootstrap_scores(stats, "corpus", None, 200, 7)
    slow = bootstrap_system_scores(lambda idx: stats.corpus_scores(None, idx),
                                   small_conll.num_sentences, 200, 7)
    assert np.array_equal(fast, slow)


@pytest.mark.full
@pytest.mark.real_data
def test_m2_sentence_statistics(conll, shared_data):
    from conftest import CONLL_M2

    from gecmetrics.m2_format import read_m2

    sources, refs, hyps = conll
    gold = read_m2(CONLL_M2)
    corpus = Corpus(sources, refs, {n: hyps[n] for n in ["AMU", "CAMB", "INPUT"]}, m2=gold)
    stats = get_metric("m2").statistics(corpus)
    per, formula = stats.sentence_statistics(None)
    assert np.array_equal(formula(per.sum(axis=1)), stats.corpus_scores(None))
    from gecmetrics.stats.resampling import bootstrap_system_scores

    slow = bootstrap_system_scores(lambda idx: stats.corpus_scores(None, idx),
                                   corpus.num_sentences, 100, 3)
    assert np.array_equal(bootstrap_scores(stats, "corpus", None, 100, 3), slow)


@pytest.mark.full
@pytest.mark.real_data
@pytest.mark.parametrize("name", ["chrf", "bleu"])
@pytest.mark.parametrize("test,n", [("bs", 1000), ("ar", 2000)])
def test_agrees_with_sacrebleu(small_conll, test, n, name):
    """sacrebleu's PairedTest (same seed 12345, same resample/mask stream):

    AR sums integer statistics in both, so the p-values are equal. sacrebleu's
    bootstrap sums float32 statistics and computes the score with float32
    rounding, so its resampled scores differ from ours by about 1e-7; the
    p-values are equal unless a resampled difference lies that close to the
    observed one (it does not here).
    """
    from sacrebleu.metrics import BLEU, CHRF
    from sacrebleu.significance import PairedTest

    corpus = small_conll
    names = list(corpus.hypotheses)
    refs = [list(r) for r in corpus.references]
    os.environ.pop("SACREBLEU_SEED", None)
    named = [(name, list(corpus.hypotheses[name])) for name in names]
    key, metric = ("chrF2", CHRF()) if name == "chrf" else ("BLEU", BLEU(force=True))
    _, table = PairedTest(named, {key: metric}, refs, test_type=test, n_samples=n)()
    theirs = table[key]
    ours = score_corpus(corpus, [get_metric(name)], paired=PairedOptions(test, n))
    for result, their in zip(ours[1:], theirs[1:], strict=True):
        assert result.score * 100 == pytest.approx(their.score, abs=1e-12)
        assert result.paired.p_value == pytest.approx(their.p_value, abs=1e-12), result.hypothesis


def test_options_checked():
    with pytest.raises(ConfigError, match="--paired-ar takes"):
        PairedOptions("ar", 50)
    with pytest.raises(ConfigError, match="--seed takes"):
        PairedOptions("bs", 1000, -1)
    with pytest.raises(ConfigError, match="at least 2 hypothesis"):
        compare_with_baseline(EditStatistics(EditCounts(
            ("a",), np.zeros((1, 1, 1)), np.zeros((1, 1, 1)), np.zeros((1, 1, 1)),
            np.ones((1, 1), dtype=bool))), [0.0], "corpus", None, PairedOptions("bs", 100))


def test_mean_level_and_signature(tmp_path):
    src = ["a b c d", "e f g h", "i j k l"]
    (tmp_path / "s").write_text("\n".join(src) + "\n")
    (tmp_path / "r").write_text("a b c d\ne f x h\ni j k y\n")
    (tmp_path / "b").write_text("a b c d\ne f g h\ni j k l\n")
    (tmp_path / "c").write_text("a b c d\ne f x h\ni j k l\n")
    proc = run("-m", "green", "-m", "gleu:mode=max", "--level", "mean", "--paired-ar", "100",
               "--seed", "7", "-s", tmp_path / "s", "-r", tmp_path / "r", "-c", tmp_path / "b",
               tmp_path / "c", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    compared = [r for r in rows if r["hypothesis"].endswith("c")]
    for row in compared:
        assert row["delta"] > 0 and row["delta_ci"][0] <= row["delta_ci"][1]
        assert 0 < row["p_value"] <= 1
        assert "ar:100" in row["signature"] and "paired_seed:7" in row["signature"]
    assert all(r["p_value"] is None for r in rows if r["hypothesis"].endswith("b"))


def run(*args):
    return subprocess.run([SCRIPT, "score", *map(str, args)],
                          capture_output=True, text=True)


@pytest.mark.parametrize("extra,message", [
    (["--paired-bootstrap", "1000", "--paired-ar", "1000"], "give one of them"),
    (["--paired-bootstrap", "10"], "--paired-bootstrap takes a number of resamples"),
    (["--paired-ar", "2000000"], "from 100 to 1000000"),
    (["--paired-bootstrap", "1000", "--level", "sentence"], "use --level corpus or mean"),
    (["--seed", "3"], "--seed needs --paired-bootstrap or --paired-ar"),
    (["--paired-ar", "1000", "-m", "gleu"], "gleu:mode=sampling averages"),
])
@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_cli_errors(tmp_path, extra, message):
    for name in "src", "ref", "a", "b":
        (tmp_path / name).write_text("a b\n")
    proc = run("-s", tmp_path / "src", "-r", tmp_path / "ref", "-c", tmp_path / "a",
               tmp_path / "b", *extra)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines


def test_cli_needs_two_hypotheses(tmp_path):
    for name in "src", "ref", "a":
        (tmp_path / name).write_text("a b\n")
    proc = run("-s", tmp_path / "src", "-r", tmp_path / "ref", "-c", tmp_path / "a",
               "--paired-bootstrap", "1000")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: --paired-bootstrap compares hypothesis files with the first one (the baseline) "
        "and needs at least 2 after -c/--hypothesis (got 1)"]


def test_json_has_null_not_nan():
    from gecmetrics.paired import PairedResult

    row = PairedResult("bs", "a", "b", float("nan"), (float("nan"), 0.1), float("nan"), 1000,
                       1).to_json()
    assert row["delta"] is None and row["delta_ci"] is None and row["p_value"] is None
    assert json.loads(json.dumps(row, allow_nan=False))["baseline"] == "a"
