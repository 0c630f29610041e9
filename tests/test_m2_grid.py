"""M2: the implicit full-grid path (pairs with no token in common) equals the listed edges.

A sentence rewritten throughout has the whole (n+1) x (m+1) grid as its lattice
and about (n(n+1)/2)^2 edges; ``build_lattice`` scores such pairs with the
kernel's ``Grid``, which never lists them. It must give the same vertices,
edges (target, length, multiplicity, weight), |E| and edit sequences as
``tests/m2_lattice_old.py`` (the code that stored every edge), the same counts as
the literal official re-implementation ``tests/m2_oracle.py``, and the same
edit sequences as the general compiled path on every input it is used for,
including ties between paths (repeated hypothesis tokens, several gold edits
with the same correction, insertions scanned by the two-pointer loop).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import m2_lattice_old as old
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from m2_oracle import sentence_counts as oracle_counts
from test_m2_fast import bench_gold, random_gold
from tiers import examples

from gecmetrics.m2_format import read_m2
from gecmetrics.metrics import m2_lattice
from gecmetrics.metrics.m2_lattice import (
    GRID_MIN_EDGES,
    HAVE_KERNEL,
    GoldEdit,
    LatticeTooLarge,
    best_edit_sequences,
    build_lattice,
    grid_edges,
    sentence_counts,
)
from gecmetrics.readers import read_lines

pytestmark = pytest.mark.skipif(not HAVE_KERNEL, reason="compiled M2 kernel not built")

ODD = ["", "zz", "h0 h0", "h0  h1", " h0", "h1 "]


@st.composite
def disjoint_cases(draw, max_len=6):
    """A source and hypothesis over disjoint small vocabularies (many equal-cost paths),
    1-3 annotators whose gold edits often match lattice edges, and max_unchanged_words."""
    src = draw(st.lists(st.sampled_from(["s0", "s1", "s2"]), max_size=max_len))
    hyp = draw(st.lists(st.sampled_from(["h0", "h1", "h2"]), max_size=max_len))
    n, m = len(src), len(hyp)
    golds = []
    for _ in range(draw(st.integers(1, 3))):
        gold = []
        for _ in range(draw(st.integers(0, 5))):
            s = draw(st.integers(0, n))
            e = min(n, s + draw(st.sampled_from([0, 0, 1, 1, 2, 3])))
            corrections = []
            for _ in range(draw(st.integers(1, 2))):
                if m and draw(st.booleans()):
                    j = draw(st.integers(0, m))
                    corrections.append(" ".join(hyp[j:j + draw(st.integers(0, 3))]))
                else:
                    corrections.append(draw(st.sampled_from(ODD)))
            gold.append(GoldEdit(s, e, " ".join(src[s:e]), tuple(corrections)))
        gold.sort(key=lambda g: (g.start, g.end))
        golds.append(gold)
    return src, hyp, golds, draw(st.integers(0, 3))


def old_golds(golds):
    return [[old.GoldEdit(g.start, g.end, g.original, g.corrections) for g in gold]
            for gold in golds]


@pytest.mark.full
@settings(max_examples=examples(400), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(disjoint_cases())
def test_grid_equals_the_stored_edges_of_the_old_code(case):
    src, hyp, golds, mu = case
    ref = old.build_lattice(src, hyp, mu, compiled=False)
    lat = build_lattice(src, hyp, mu, grid=True)
    assert lat.grid
    assert list(lat.vertices) == ref.vertices
    assert (lat.num_edges, lat.num_arcs) == (ref.num_edges, ref.num_arcs)
    assert (lat.num_arcs) == grid_edges(len(src), len(hyp))
    for a in range(len(ref.vertices)):
        assert lat.arcs_of(a) == ref.arcs[a], a
    for s in range(len(src) + 1):
        assert lat.row_arcs(s) == ref.row_arcs(s), s
    assert best_edit_sequences(lat, golds) == [old.best_edit_sequence(ref, g)
                                               for g in old_golds(golds)]


@settings(max_examples=examples(150), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(disjoint_cases(max_len=5))
def test_grid_counts_equal_the_literal_official_oracle(case):
    src, hyp, golds, mu = case
    lat = build_lattice(src, hyp, mu, grid=True)
    for gold in golds:
        as_oracle = {0: [(g.start, g.end, g.original, list(g.corrections)) for g in gold]}
        expected = oracle_counts(" ".join(src), " ".join(hyp), as_oracle, mu)[0]
        assert sentence_counts(lat, gold) == expected, (src, hyp, gold, mu)


def test_grid_equals_the_general_path_on_longer_random_sentences():
    rng = random.Random(31)
    for _ in range(120):
        n, m = rng.randint(0, 16), rng.randint(0, 16)
        k = rng.choice([1, 2, 3, 20])  # few word types: many ties; 20: mostly distinct
        src = [f"s{rng.randrange(k)}" for _ in range(n)]
        hyp = [f"h{rng.randrange(k)}" for _ in range(m)]
        golds = [random_gold(rng, src, hyp, rng.randint(0, 12)) for _ in range(3)]
        golds.append(bench_gold(src, hyp))
        mu = rng.choice([0, 2, 3])
        ref = build_lattice(src, hyp, mu, grid=False)
        lat = build_lattice(src, hyp, mu, grid=True)
        assert not ref.grid and lat.grid
        assert (lat.num_edges, lat.num_arcs) == (ref.num_edges, ref.num_arcs)
        assert best_edit_sequences(lat, golds) == best_edit_sequences(ref, golds), (src, hyp)


def test_grid_equals_the_general_path_on_a_45_token_rewritten_sentence():
    """The adversarial size of test_m2_fast (1 M edges): dispatched to the grid by default."""
    rng = random.Random(8)
    src = [f"s{i}" for i in range(45)]
    hyp = [f"h{rng.randrange(30)}" for _ in range(50)]
    golds = [bench_gold(src, hyp), random_gold(rng, src, hyp, 40), []]
    lat = build_lattice(src, hyp)
    assert lat.grid and lat.num_arcs > GRID_MIN_EDGES
    ref = build_lattice(src, hyp, grid=False)
    assert (lat.num_edges, lat.num_arcs) == (ref.num_edges, ref.num_arcs)
    assert best_edit_sequences(lat, golds) == best_edit_sequences(ref, golds)


def test_grid_with_many_deletions_and_insertions_equals_the_general_path():
    """Gold deletions override an edge into every vertex of their end row (the empty
    correction matches every j); those vertices are relaxed from the ring minima plus
    their overridden edges, which must give the same paths as listing every edge."""
    rng = random.Random(12)
    for n in (24, 37):
        src, hyp = [f"s{i}" for i in range(n)], [f"h{rng.randrange(n)}" for _ in range(n + 3)]
        gold = bench_gold(src, hyp)
        gold += [GoldEdit(i, i + 1, src[i], ("",)) for i in range(2, n, 5)]
        gold += [GoldEdit(i, i + 2, " ".join(src[i:i + 2]), ("", hyp[i]))
                 for i in range(4, n - 2, 9)]
        gold += [GoldEdit(i, i, "", (" ".join(hyp[i:i + 2]),)) for i in range(1, n, 6)]
        gold.sort(key=lambda g: (g.start, g.end))
        golds = [gold, random_gold(rng, src, hyp, 25)]
        lat, ref = build_lattice(src, hyp, grid=True), build_lattice(src, hyp, grid=False)
        assert best_edit_sequences(lat, golds) == best_edit_sequences(ref, golds), n


def test_dispatch():
    big_src, big_hyp = [f"s{i}" for i in range(30)], [f"h{i}" for i in range(30)]
    assert grid_edges(30, 30) > GRID_MIN_EDGES
    assert build_lattice(big_src, big_hyp).grid
    assert not build_lattice(big_src[:5], big_hyp[:5]).grid  # small: general path
    assert not build_lattice(big_src, big_hyp[:-1] + ["s3"]).grid  # one token in common
    assert not build_lattice(big_src, big_hyp, compiled=False).grid
    assert not build_lattice(big_src, big_hyp, grid=False).grid
    with pytest.raises(ValueError, match="no common token"):
        build_lattice(["a"], ["a"], grid=True)


def test_grid_vertex_budget_is_one_line_and_immediate(monkeypatch):
    n = 1001  # 1,002^2 vertices: over MAX_GRID_VERTICES
    src, hyp = [f"s{i}" for i in range(n)], [f"h{i}" for i in range(n)]
    t0 = time.perf_counter()
    with pytest.raises(LatticeTooLarge, match="1,004,004 vertices") as err:
        build_lattice(src, hyp)
    assert time.perf_counter() - t0 < 1.0
    assert "\n" not in str(err.value) and "no token in common" in str(err.value)
    assert "1,002,001 (1,000 x 1,000 tokens)" in str(err.value)
    # 1,000 x 1,000 tokens (the target) is inside the budget; with no gold edit
    # on the lattice the path is the one edge from start to end, at once
    lat = build_lattice(src[:-1], hyp[:-1])
    assert lat.grid and len(lat.vertices) == 1_002_001
    assert sentence_counts(lat, []) == (0, 1, 0)
    monkeypatch.setattr(m2_lattice, "MAX_GRID_VERTICES", 36)
    with pytest.raises(LatticeTooLarge):
        build_lattice(src[:6], hyp[:6], grid=True)
    assert build_lattice(src[:5], hyp[:5], grid=True).grid


def test_300_token_rewritten_sentence_is_scored(tmp_path):
    """The issue's case (2 x 10^9 edges; it used to stop at the edge budget) through the CLI."""
    n = 300
    src = " ".join(f"s{i}" for i in range(n))
    hyp = " ".join(f"h{i}" for i in range(n))
    edits = "".join(f"A {i} {i + 1}|||R|||h{i}|||REQUIRED|||-NONE-|||0\n"
                    for i in range(0, n, 50))
    (tmp_path / "gold.m2").write_text(f"S {src}\n{edits}\n")
    (tmp_path / "src").write_text(src + "\n")
    (tmp_path / "hyp").write_text(hyp + "\n")
    script = str(Path(sys.executable).with_name("gecmetrics"))
    proc = subprocess.run([script, "score", "-m", "m2", "-s", str(tmp_path / "src"), "--m2",
                           str(tmp_path / "gold.m2"), "-c", str(tmp_path / "hyp"),
                           "--format", "json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)[0]
    # the 6 gold substitutions (each weighs -|E|) are on the path; the rest of the
    # sentence is covered by the fewest edits between them: one merged edit after each
    # gold edit (0 is a gold start, so nothing comes before): 6 correct of 12, 6 gold
    assert (row["precision"], row["recall"]) == (0.5, 1.0)
    assert row["score"] == pytest.approx(1.25 * 0.5 / (0.25 * 0.5 + 1))


@pytest.mark.real_data
def test_conll2014_pairs_with_no_common_token_same_on_both_paths(shared_data):
    """Every distinct CoNLL-2014 (sentence, hypothesis) pair of the 13 outputs that shares
    no token: the grid path forced, against the general path."""
    data = shared_data
    m2 = read_m2(data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2")
    systems = "AMU CAMB CUUI IITB INPUT IPN NTHU PKU POST RAC SJTU UFC UMC".split()
    seen = set()
    for name in systems:
        for d, line in enumerate(read_lines(data / "official_submissions" / name)):
            src, hyp = m2.sentences[d].source.split(), line.split()
            if not set(src).isdisjoint(hyp) or (d, tuple(hyp)) in seen:
                continue
            seen.add((d, tuple(hyp)))
            golds = [[GoldEdit(e.start, e.end, " ".join(src[e.start:e.end]), e.corrections)
                      for e in edits] for edits in m2.sentences[d].official_gold().values()]
            lat = build_lattice(src, hyp, grid=True)
            ref = build_lattice(src, hyp, grid=False)
            assert best_edit_sequences(lat, golds) == best_edit_sequences(ref, golds), (name, d)
    assert seen  # there are such pairs (empty or one-token outputs)


@pytest.mark.parametrize("num_edges", [2**47, 3 * 2**45 + 12345, 10**15])
@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_grid_ties_when_float_sums_lose_the_increments_equal_the_general_path(num_edges):
    """Where path sums pass about 2^44 (a long sentence with many gold edits, |E| ~ 10^11
    at 1,000 tokens), 0.001 is below half a unit in the last place: fl(x + t + 0.001) ==
    x + t, so paths of equal length tie exactly and most rings of a vertex tie. The grid
    finds the first tied start vertex from sparse tables there; the general path relaxes
    every edge. Both are given the same huge |E| (gold edges weigh -|E|) on small pairs,
    which puts them in that regime, and must pick the same paths."""
    rng = random.Random(num_edges % 1000)
    for _ in range(150):
        n, m = rng.randint(1, 14), rng.randint(1, 14)
        k = rng.choice([2, 3, 40])
        src = [f"s{rng.randrange(k)}" for _ in range(n)]
        hyp = [f"h{rng.randrange(k)}" for _ in range(m)]
        golds = [random_gold(rng, src, hyp, rng.randint(1, 12)) for _ in range(2)]
        golds.append(bench_gold(src, hyp))
        ref = build_lattice(src, hyp, grid=False)
        lat = build_lattice(src, hyp, grid=True)
        ref.num_edges = lat.num_edges = num_edges
        assert best_edit_sequences(lat, golds) == best_edit_sequences(ref, golds), (src, hyp)
    # the regime is reached: the increment is lost at these sums
    assert float(-num_edges) + 5.001 == float(-num_edges) + 5


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_narrow_grid_work_budget_is_one_line_and_immediate():
    """A grid far longer on one side: few vertices, but every vertex's rings reach back
    along the long side. 10 x 40,000 tokens is inside the work budget (17 s of CPU time,
    not run here); 10 x 50,000 is over it (the code before this budget allocated a
    20 GB table for it)."""
    src = [f"s{i}" for i in range(10)]
    hyp = [f"h{j}" for j in range(50_000)]
    assert 11 * 40_001 * 40_000 <= m2_lattice.MAX_GRID_WORK < 11 * 50_001 * 50_000
    for a, b in ((src, hyp), (hyp, src)):
        with pytest.raises(LatticeTooLarge, match="550,011 vertices x 50,000 steps") as err:
            build_lattice(a, b)
        assert "\n" not in str(err.value) and "no token in common" in str(err.value)
    # narrow grids inside the budget use memory linear in their vertices (the diagonal
    # tables are cut to the cells they read): same paths as the general path
    rng = random.Random(9)
    for n, m in ((2, 150), (150, 2), (1, 400), (5, 60)):
        s, h = [f"s{i}" for i in range(n)], [f"h{rng.randrange(m)}" for _ in range(m)]
        golds = [random_gold(rng, s, h, 6), bench_gold(s, h)]
        lat, ref = build_lattice(s, h, grid=True), build_lattice(s, h, grid=False)
        assert best_edit_sequences(lat, golds) == best_edit_sequences(ref, golds), (n, m)
