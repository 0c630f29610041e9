"""M2 lattice with bounded memory: same results as the code that stored every edge.

``tests/m2_lattice_old.py`` is that code (commit d1984ac), kept as an oracle:
its pure-Python path materialises the transitive closure. The streaming
implementation must give the same edges (target, length, multiplicity, weight),
the same |E| and the same edit sequences, on both of its paths. The edge budget
(max_lattice_edges) is checked against the old code's edge count, and its
error must be one line naming the hypothesis and line.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import m2_lattice_old as old
import pytest
from test_m2_fast import adversarial_cases, bench_gold, random_gold

from gecmetrics.metrics import m2_lattice as new
from gecmetrics.metrics.m2_lattice import HAVE_KERNEL, LatticeTooLarge, build_lattice

PATHS = [False, True] if HAVE_KERNEL else [False]


def old_golds(golds):
    return [[old.GoldEdit(g.start, g.end, g.original, g.corrections) for g in gold]
            for gold in golds]


def assert_same_as_old(src, hyp, mu, golds, paths=PATHS):
    ref = old.build_lattice(src, hyp, mu, compiled=False)
    ref_seqs = [old.best_edit_sequence(ref, g) for g in old_golds(golds)]
    for compiled in paths:
        lat = build_lattice(src, hyp, mu, compiled=compiled)
        assert lat.vertices == ref.vertices
        assert (lat.num_edges, lat.num_arcs) == (ref.num_edges, ref.num_arcs)
        for a in range(len(ref.vertices)):
            assert lat.arcs_of(a) == ref.arcs[a], (compiled, a)
        for s in {i for i, _ in ref.vertices}:
            assert lat.row_arcs(s) == ref.row_arcs(s), (compiled, s)
        assert new.best_edit_sequences(lat, golds) == ref_seqs, (compiled, src, hyp, golds)


@pytest.mark.full
def test_random_small_sentences_same_as_old():
    rng = random.Random(21)
    for _ in range(400):
        vocab = ["a", "b", "c", "d"][: rng.randint(1, 4)]
        src = [rng.choice(vocab) for _ in range(rng.randint(0, 9))]
        hyp = [rng.choice(vocab + ["x", "y"]) for _ in range(rng.randint(0, 10))]
        golds = [random_gold(rng, src, hyp, rng.randint(0, 5)) for _ in range(rng.randint(1, 3))]
        assert_same_as_old(src, hyp, rng.choice([0, 1, 2, 2, 3]), golds)


def test_rewritten_and_long_near_identical_sentences_same_as_old():
    rng = random.Random(22)
    for _ in range(25):
        words = [f"w{i}" for i in range(rng.choice([3, 8, 40, 500]))]
        src = [rng.choice(words) for _ in range(rng.randint(10, 25))]
        keep = rng.random()
        hyp = [t if rng.random() < keep else rng.choice(words) for t in src]
        hyp = hyp[: rng.randint(0, len(hyp))] + [rng.choice(words)
                                                  for _ in range(rng.randint(0, 6))]
        golds = [random_gold(rng, src, hyp, rng.randint(0, 10)) for _ in range(2)]
        assert_same_as_old(src, hyp, rng.choice([1, 2, 3]), golds)
    # long and nearly identical: the banded alignment must find the same lattice
    src = [f"t{i % 37}" for i in range(400)]
    hyp = src[:100] + ["new"] + src[100:250] + src[252:]
    assert_same_as_old(src, hyp, 2, [bench_gold(src, hyp), []], paths=[True] if HAVE_KERNEL
                       else [False])


@pytest.mark.full
@pytest.mark.parametrize("case", list(adversarial_cases())[1:], ids=lambda c: c[0])
def test_adversarial_sentences_same_as_old(case):
    _, src, hyp = case
    golds = [bench_gold(src, hyp), random_gold(random.Random(4), src, hyp, 30), []]
    assert_same_as_old(src, hyp, 2, golds, paths=[True] if HAVE_KERNEL else [False])


def test_banded_alignment_memory_is_linear_for_near_identical_sentences():
    # 5,000 tokens, one substitution: distance 1 (sub cost 1) or 2 (sub cost 2), so the
    # band spans a few diagonals instead of 5,001 columns
    src = [f"t{i}" for i in range(5000)]
    hyp = list(src)
    hyp[2500] = "changed"
    for sub_cost, D in ((1, 1), (2, 2)):
        rows, _, dist = new._distances(src, hyp, sub_cost)
        assert dist == D
        assert len(rows) == 5001 and len(rows[0]) <= 5
    lat = build_lattice(src, hyp)
    # the diagonal (5,001) plus both corners of the substitution under cost 2
    # (deletion then insertion, insertion then deletion)
    assert len(lat.vertices) == 5003


@pytest.mark.parametrize("compiled", PATHS)
def test_edge_budget_is_exact_and_raises_one_line(compiled):
    src, hyp = [f"s{i}" for i in range(12)], [f"h{i}" for i in range(12)]
    edges = old.build_lattice(src, hyp, compiled=False).num_arcs
    assert build_lattice(src, hyp, compiled=compiled, max_edges=edges).num_arcs == edges
    with pytest.raises(LatticeTooLarge, match=f"over {edges - 1:,} edges") as err:
        build_lattice(src, hyp, compiled=compiled, max_edges=edges - 1)
    assert "\n" not in str(err.value) and "max_lattice_edges" in str(err.value)


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_m2_over_budget_names_hypothesis_and_line_and_cli_exits_2(tmp_path):
    n = 30
    src = ["a b c", " ".join(f"s{i}" for i in range(n))]
    # one token in common (the last), so that the pair takes the general path, whose
    # edges are counted against the budget (a pair with none is scored on the implicit
    # grid, test_m2_grid.py)
    hyp = ["a b c", " ".join([f"h{i}" for i in range(n - 1)] + [f"s{n - 1}"])]
    m2 = "".join(f"S {s}\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||0\n\n" for s in src)
    for name, text in {"src": src, "hyp": hyp}.items():
        (tmp_path / name).write_text("\n".join(text) + "\n")
    (tmp_path / "gold.m2").write_text(m2)
    script = str(Path(sys.executable).with_name("gecmetrics"))
    args = [script, "score", "-s", str(tmp_path / "src"), "--m2", str(tmp_path / "gold.m2"),
            "-c", str(tmp_path / "hyp")]
    proc = subprocess.run([*args, "-m", "m2:max_lattice_edges=100000"], capture_output=True,
                          text=True)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: m2: hypothesis "), lines
    assert "line 2:" in lines[0] and "over 100,000 edges" in lines[0]
    ok = subprocess.run([*args, "-m", "m2"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
