"""M2: the compiled kernel gives exactly the results of the pure-Python lattice code.

The Python code (``build_lattice(..., compiled=False)``) is the reference the
literal oracle tests of test_m2.py were written against; here every edge (target,
base-edge count, multiplicity, unchanged flag, default weight), |E| and every
edit sequence of the compiled path is compared with it: on random sentences,
on heavily rewritten and repetitive sentences (the benchmark's adversarial
cases), and on every distinct (sentence, hypothesis) pair of the 13 CoNLL-2014
outputs.
"""

from __future__ import annotations

import random

import pytest
from conftest import CONLL_M2, SUBMISSIONS
from m2_oracle import sentence_counts as oracle_counts

from gecmetrics.m2_format import read_m2
from gecmetrics.metrics import m2_lattice
from gecmetrics.metrics.m2_lattice import (
    HAVE_KERNEL,
    GoldEdit,
    best_edit_sequence,
    build_lattice,
    sentence_counts,
)
from gecmetrics.readers import read_lines

needs_kernel = pytest.mark.skipif(not HAVE_KERNEL, reason="compiled M2 kernel not built")


GOLD = CONLL_M2
needs_data = pytest.mark.real_data  # skips without the data (conftest)
SYSTEMS = "AMU CAMB CUUI IITB INPUT IPN NTHU PKU POST RAC SJTU UFC UMC".split()


def assert_same_lattice(py, fast):
    assert fast.compiled and not py.compiled
    assert fast.vertices == py.vertices
    assert fast.num_edges == py.num_edges
    assert fast.num_arcs == py.num_arcs
    for a in range(len(py.vertices)):
        assert fast.arcs_of(a) == py.arcs_of(a), a
    for s in {i for i, _ in py.vertices}:
        assert fast.row_arcs(s) == py.row_arcs(s), s


def assert_same_results(py, fast, golds):
    # counts (sentence_counts) are a function of the edit sequence and the gold edits
    for gold in golds:
        assert best_edit_sequence(fast, gold) == best_edit_sequence(py, gold), gold


def random_gold(rng: random.Random, src, hyp, k):
    """Gold edits that often match lattice edges: spans of the source, corrections
    taken from the hypothesis, some odd ones (empty, unknown, badly spaced)."""
    gold = []
    for _ in range(k):
        s = rng.randint(0, len(src))
        e = min(len(src), s + rng.choice([0, 0, 1, 1, 2, 3]))
        corrections = []
        for _ in range(rng.choice([1, 1, 1, 2])):
            r = rng.random()
            if hyp and r < 0.7:
                j = rng.randint(0, len(hyp))
                corrections.append(" ".join(hyp[j:j + rng.randint(0, 3)]))
            else:
                corrections.append(rng.choice(["", "zz", "a  b", " a", "a ", "x y"]))
        gold.append(GoldEdit(s, e, " ".join(src[s:e]), tuple(corrections)))
    gold.sort(key=lambda g: (g.start, g.end))
    return gold


@pytest.mark.full
@needs_kernel
def test_random_small_sentences_compiled_equals_python():
    rng = random.Random(11)
    for _ in range(1500):
        vocab = ["a", "b", "c", "d"][: rng.randint(1, 4)]
        src = [rng.choice(vocab) for _ in range(rng.randint(0, 9))]
        hyp = [rng.choice(vocab + ["x", "y"]) for _ in range(rng.randint(0, 10))]
        mu = rng.choice([0, 1, 2, 2, 3])
        py = build_lattice(src, hyp, mu, compiled=False)
        fast = build_lattice(src, hyp, mu, compiled=True)
        assert_same_lattice(py, fast)
        golds = [random_gold(rng, src, hyp, rng.randint(0, 5)) for _ in range(2)]
        assert_same_results(py, fast, golds)


@needs_kernel
@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_random_longer_rewritten_sentences_compiled_equals_python():
    rng = random.Random(12)
    for _ in range(60):
        words = [f"w{i}" for i in range(rng.choice([3, 8, 40, 500]))]
        src = [rng.choice(words) for _ in range(rng.randint(10, 30))]
        keep = rng.random()
        hyp = [t if rng.random() < keep else rng.choice(words) for t in src]
        hyp = hyp[: rng.randint(0, len(hyp))] + [rng.choice(words)
                                                  for _ in range(rng.randint(0, 6))]
        mu = rng.choice([1, 2, 3])
        py = build_lattice(src, hyp, mu, compiled=False)
        fast = build_lattice(src, hyp, mu, compiled=True)
        assert_same_lattice(py, fast)
        golds = [random_gold(rng, src, hyp, rng.randint(0, 12)) for _ in range(3)]
        assert_same_results(py, fast, golds)


@needs_kernel
def test_compiled_path_agrees_with_the_literal_oracle():
    """Small random sentences straight against tests/m2_oracle.py (as test_m2 does)."""
    rng = random.Random(5)
    for _ in range(300):
        vocab = ["a", "b", "c", "d"][: rng.randint(2, 4)]
        src = [rng.choice(vocab) for _ in range(rng.randint(0, 7))]
        hyp = [rng.choice(vocab + ["x", "y"]) for _ in range(rng.randint(0, 8))]
        golds = {}
        for a in range(rng.randint(1, 2)):
            gold = random_gold(rng, src, hyp, rng.randint(0, 3))
            golds[a] = [(g.start, g.end, g.original, list(g.corrections)) for g in gold]
        mu = rng.choice([0, 1, 2, 3])
        lat = build_lattice(src, hyp, mu, compiled=True)
        got = {a: sentence_counts(lat, [GoldEdit(s, e, o, tuple(c)) for s, e, o, c in g])
               for a, g in golds.items()}
        assert got == oracle_counts(" ".join(src), " ".join(hyp), golds, mu), (src, hyp, golds)


def adversarial_cases():
    """The benchmark's adversarial sentences (bench/bench_m2.py), the largest one shrunk
    so that the Python path stays within a few seconds."""
    rng = random.Random(0)
    words = [f"w{i}" for i in range(500)]
    src = [rng.choice(words) for _ in range(80)]
    hyp = [t if rng.random() < 0.05 else rng.choice(words) for t in src]
    yield "80 tokens, ~95% rewritten", src, hyp
    yield "45 tokens, all rewritten, 50 new", src[:45], [rng.choice(words) for _ in range(50)]
    yield "repetitive", ["the"] * 40 + ["of", "the"] * 20, ["the", "of"] * 38 + ["the"] * 2
    yield "repetitive, shifted", ["a", "b"] * 40, ["b", "a"] * 41


def bench_gold(s, h):
    edits = [GoldEdit(i, i + 1, s[i], (h[i] if i < len(h) else "x",))
             for i in range(0, len(s), 7)]
    edits += [GoldEdit(i, i, "", (h[i] if i < len(h) else "y",)) for i in range(3, len(s), 11)]
    edits.sort(key=lambda e: (e.start, e.end))
    return edits


@pytest.mark.full
@needs_kernel
@pytest.mark.parametrize("case", list(adversarial_cases()), ids=lambda c: c[0])
def test_adversarial_sentences_compiled_equals_python(case):
    _, src, hyp = case
    py = build_lattice(src, hyp, compiled=False)
    fast = build_lattice(src, hyp, compiled=True)
    assert_same_lattice(py, fast)
    rng = random.Random(3)
    golds = [bench_gold(src, hyp), random_gold(rng, src, hyp, 40)]
    assert_same_results(py, fast, golds)


@pytest.mark.full
@needs_kernel
@needs_data
def test_conll2014_every_distinct_pair_compiled_equals_python():
    """All 13 outputs: every distinct changed (sentence, hypothesis) pair, both annotators."""
    m2 = read_m2(GOLD)
    golds = []
    for sent in m2.sentences:
        src = sent.source.split()
        golds.append([[GoldEdit(e.start, e.end, " ".join(src[e.start:e.end]), e.corrections)
                       for e in edits] for edits in sent.official_gold().values()])
    seen = set()
    for name in SYSTEMS:
        for d, line in enumerate(read_lines(SUBMISSIONS / name)):
            src, hyp = m2.sentences[d].source.split(), line.split()
            if src == hyp or (d, tuple(hyp)) in seen:
                continue
            seen.add((d, tuple(hyp)))
            py = build_lattice(src, hyp, compiled=False)
            fast = build_lattice(src, hyp, compiled=True)
            assert (fast.num_edges, fast.num_arcs) == (py.num_edges, py.num_arcs), (name, d)
            for gold in golds[d]:
                assert best_edit_sequence(fast, gold) == best_edit_sequence(py, gold), (name, d)
    assert len(seen) > 6000  # 6,123 distinct changed pairs


def test_python_fallback_when_the_kernel_is_missing(monkeypatch):
    monkeypatch.setattr(m2_lattice, "HAVE_KERNEL", False)
    lat = build_lattice(["a", "b"], ["a", "c"])
    assert not lat.compiled and lat.kernel is None
    assert sentence_counts(lat, [GoldEdit(1, 2, "b", ("c",))]) == (1, 1, 1)
    with pytest.raises(RuntimeError, match="not built"):
        build_lattice(["a"], ["b"], compiled=True)


@needs_kernel
def test_default_is_compiled_and_degenerate_lattices():
    assert build_lattice(["a"], ["b"]).compiled
    for src, hyp in [([], []), ([], ["a"]), (["a"], []), (["a"], ["a"])]:
        py = build_lattice(src, hyp, compiled=False)
        fast = build_lattice(src, hyp, compiled=True)
        assert_same_lattice(py, fast)
        assert_same_results(py, fast, [[], [GoldEdit(0, len(src), " ".join(src), ("a", ""))]])
