"""M2: pairs that share a few tokens get the lattice budget error before the lattice is built.

``lattice_lower_bound`` bounds the lattice from below by the rectangles between
the matches of one longest common subsequence (each a full grid: every pair of
its vertices is an edge). It must never exceed the real lattice (checked against
the built lattice, on both paths, and against the stored-edge code of
``tests/m2_lattice_old.py``), its LCS must be longest (checked against the
textbook dynamic programme), and the error must come before any lattice work,
in one line, with exit code 2 on the command line.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import m2_lattice_old as old
import pytest

from gecmetrics.metrics import m2_lattice
from gecmetrics.metrics.m2_lattice import (
    HAVE_KERNEL,
    MAX_LATTICE_EDGES,
    MAX_LATTICE_VERTICES,
    LatticeTooLarge,
    build_lattice,
    grid_edges,
    lattice_lower_bound,
)

PATHS = [False, True] if HAVE_KERNEL else [False]


def lcs_length(a, b):
    """The textbook O(n m) longest common subsequence length (the oracle)."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def few_shared(rng, n, m, shared):
    src = [f"s{i}" for i in range(n)]
    hyp = [f"h{j}" for j in range(m)]
    for _ in range(shared):
        if n and m:
            hyp[rng.randrange(m)] = src[rng.randrange(n)]
    return src, hyp


def test_lower_bound_never_exceeds_the_lattice():
    rng = random.Random(3)
    for _ in range(300):
        n, m = rng.randint(0, 11), rng.randint(0, 11)
        if rng.random() < 0.5:
            src, hyp = few_shared(rng, n, m, rng.randint(0, 4))
        else:  # repeated tokens: several longest common subsequences
            vocab = ["a", "b", "c", "x", "y", "z"][: rng.randint(2, 6)]
            src = [rng.choice(vocab) for _ in range(n)]
            hyp = [rng.choice(vocab) for _ in range(m)]
        vertices, edges, common = lattice_lower_bound(src, hyp)
        assert common == lcs_length(src, hyp), (src, hyp)
        mu = rng.choice([0, 1, 2, 3])
        ref = old.build_lattice(src, hyp, mu, compiled=False)
        assert vertices <= len(ref.vertices) and edges <= ref.num_arcs, (src, hyp)
        for compiled in PATHS:
            lat = build_lattice(src, hyp, mu, compiled=compiled, grid=False)
            assert (lat.num_arcs, len(lat.vertices)) == (ref.num_arcs, len(ref.vertices))


def test_lower_bound_of_a_pair_with_no_common_token_is_the_whole_grid():
    for n, m in ((0, 0), (1, 0), (3, 5), (40, 17)):
        src, hyp = [f"s{i}" for i in range(n)], [f"h{j}" for j in range(m)]
        assert lattice_lower_bound(src, hyp) == ((n + 1) * (m + 1), grid_edges(n, m), 0)


def test_lower_bound_by_hand():
    # one common token in the middle: two 150 x 150 rectangles around the match,
    # each with (151 * 152 / 2)^2 - 151^2 pairs a <= b, a != b
    src, hyp = [f"s{i}" for i in range(301)], [f"h{j}" for j in range(301)]
    hyp[150] = "s150"
    per_block = (151 * 152 // 2) ** 2 - 151 ** 2
    assert lattice_lower_bound(src, hyp) == (2 * 151 * 151, 2 * per_block, 1)
    # too many matching pairs: no bound (the pair shares many tokens)
    same = ["the"] * 40
    assert lattice_lower_bound(same, same) is None


def test_precheck_keeps_the_budget_exact():
    """Between the lower bound and the real count the lattice is counted as before: the
    pre-check only stops pairs that counting would stop too."""
    rng = random.Random(5)
    src, hyp = few_shared(rng, 14, 13, 2)
    _, lower, _ = lattice_lower_bound(src, hyp)
    for compiled in PATHS:
        real = build_lattice(src, hyp, compiled=compiled, grid=False).num_arcs
        assert lower < real
        assert build_lattice(src, hyp, compiled=compiled, max_edges=real).num_arcs == real
        for budget in (lower, real - 1):  # over budget, found by counting
            with pytest.raises(LatticeTooLarge, match=f"over {budget:,} edges") as err:
                build_lattice(src, hyp, compiled=compiled, max_edges=budget)
            assert "vertices)" in str(err.value)  # the counting path's message
        with pytest.raises(LatticeTooLarge, match=f"at least {lower:,}"):  # the pre-check
            build_lattice(src, hyp, compiled=compiled, max_edges=lower - 1)


@pytest.mark.parametrize("compiled", PATHS)
@pytest.mark.parametrize("n,shared,what", [
    (300, 1, f"over {MAX_LATTICE_EDGES:,} edges"),
    (300, 3, f"over {MAX_LATTICE_EDGES:,} edges"),
    (1000, 1, f"over {MAX_LATTICE_VERTICES:,} vertices"),
    (1000, 5, f"over {MAX_LATTICE_VERTICES:,} vertices"),
])
def test_few_shared_tokens_stop_before_the_lattice_is_built(monkeypatch, compiled, n, shared,
                                                             what):
    def no_work(*args, **kwargs):
        raise AssertionError("the lattice was built")

    monkeypatch.setattr(m2_lattice, "_optimal_edges", no_work)
    monkeypatch.setattr(m2_lattice, "_optimal_edges_compiled", no_work)
    src, hyp = few_shared(random.Random(n + shared), n, n, shared)
    assert not set(src).isdisjoint(hyp)
    with pytest.raises(LatticeTooLarge, match=what) as err:
        build_lattice(src, hyp, compiled=compiled)
    assert "\n" not in str(err.value)


def test_cli_one_line_exit_2_for_a_long_sentence_sharing_one_token(tmp_path):
    n = 300
    src = ["a b c", " ".join(f"s{i}" for i in range(n))]
    hyp = ["a b c", " ".join(f"h{i}" if i != 150 else "s150" for i in range(n))]
    m2 = "".join(f"S {s}\nA 0 1|||R|||x|||REQUIRED|||-NONE-|||0\n\n" for s in src)
    for name, text in {"src": src, "hyp": hyp}.items():
        (tmp_path / name).write_text("\n".join(text) + "\n")
    (tmp_path / "gold.m2").write_text(m2)
    script = str(Path(sys.executable).with_name("gecmetrics"))
    proc = subprocess.run([script, "score", "-m", "m2", "-s", str(tmp_path / "src"), "--m2",
                           str(tmp_path / "gold.m2"), "-c", str(tmp_path / "hyp")],
                          capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: m2: hypothesis "), lines
    assert "line 2:" in lines[0] and f"over {MAX_LATTICE_EDGES:,} edges" in lines[0]
    assert "at least 259,908,900" in lines[0]  # two 150 x 150 rectangles (test above)
