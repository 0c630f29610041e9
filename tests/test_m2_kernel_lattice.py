"""M2: the base lattice in the compiled kernel equals the pure-Python code it replaces.

The kernel's ``band_rows``, ``optimal_edges`` and ``base_lattice`` (tokens interned to
integers) against the Python ``_band_rows``, ``_optimal_edges`` and
``_python_base_lattice``, which stay as the fallback and oracle: on random sentences
of 0..N tokens over small vocabularies (many ties between alignments), with deleted
and inserted tokens and non-ASCII tokens; on every distinct changed pair of three
CoNLL-2014 outputs (all 13 in test_m2_fast.py, full tier); the budgets' messages;
the gold edges found only at the lattice's row vertices against a scan of the whole
hypothesis; and Python's signal handlers running while the kernel works.
"""

from __future__ import annotations

import random
import signal
import time

import pytest
from conftest import CONLL_M2, SUBMISSIONS

from gecmetrics.m2_format import read_m2
from gecmetrics.metrics import m2_lattice
from gecmetrics.metrics.m2_lattice import (
    HAVE_KERNEL,
    LatticeTooLarge,
    best_edit_sequences,
    build_lattice,
)
from gecmetrics.readers import read_lines

pytestmark = pytest.mark.skipif(not HAVE_KERNEL, reason="compiled M2 kernel not built")

VOCABS = [["a", "b"], ["a", "b", "c"], ["é", "日本", "a", "ß"], [f"w{i}" for i in range(30)]]
PY_FAR, KERNEL_FAR = 1 << 40, 1 << 30


def random_pair(rng: random.Random, longest: int) -> tuple[list[str], list[str]]:
    vocab = rng.choice(VOCABS)
    src = [rng.choice(vocab) for _ in range(rng.randint(0, longest))]
    kind = rng.random()
    if kind < 0.4:  # an edited copy: deletions, insertions, substitutions
        hyp = [t for t in src if rng.random() > 0.15]
        for _ in range(rng.randint(0, 3)):
            hyp.insert(rng.randint(0, len(hyp)), rng.choice(vocab))
        hyp = [rng.choice(vocab) if rng.random() < 0.1 else t for t in hyp]
    elif kind < 0.5:
        hyp = list(src)
    else:
        hyp = [rng.choice(vocab) for _ in range(rng.randint(0, longest))]
    return src, hyp


def unreachable_as_none(value: int, far: int) -> int | None:
    return None if value >= far else value


def python_edges(src, hyp, sub_cost, max_vertices=m2_lattice.MAX_LATTICE_VERTICES):
    edges: dict = {}
    m2_lattice._optimal_edges(src, hyp, sub_cost, edges, max_vertices)
    return edges


def kernel_edges(src, hyp, sub_cost, max_vertices=m2_lattice.MAX_LATTICE_VERTICES):
    s_ids, h_ids = m2_lattice._interned(src, hyp)
    flat = m2_lattice._optimal_edges_compiled(s_ids, h_ids, sub_cost, max_vertices)
    w = len(hyp) + 1
    keys = [divmod(k, w) for k in flat]
    pairs = list(zip(keys[::2], keys[1::2], strict=True))
    assert len(set(pairs)) == len(pairs)  # each edge once per cost scheme
    return dict.fromkeys(pairs, 1)


@pytest.mark.parametrize("kernel", [True, False])
def test_interned_tokens_are_equal_exactly_where_the_strings_are(monkeypatch, kernel):
    if not kernel:
        monkeypatch.setattr(m2_lattice, "_kernel_interned", None)
    src, hyp = ["a", "é", "日本", "a", "A"], ["A", "日本", "b", "e\u0301"]
    s_ids, h_ids = m2_lattice._interned(src, hyp)
    for i, s in enumerate(src):
        for j, h in enumerate(hyp):
            assert (s_ids[i] == h_ids[j]) == (s == h)
    assert [s_ids[i] == s_ids[k] for i in range(5) for k in range(5)] == [
        src[i] == src[k] for i in range(5) for k in range(5)]


def test_band_rows_equal_the_python_table():
    rng = random.Random(32)
    for _ in range(400):
        src, hyp = random_pair(rng, 12)
        n, m = len(src), len(hyp)
        s_ids, h_ids = m2_lattice._interned(src, hyp)
        for sub_cost in (1, 2):
            klo = -rng.randint(0, n)
            khi = rng.randint(0, m)
            if rng.random() < 0.5:
                klo, khi = -n, m
            W = khi - klo + 1
            py = m2_lattice._band_rows(src, hyp, sub_cost, klo, khi)
            flat = m2_lattice._kernel_band_rows(s_ids, h_ids, sub_cost, klo, khi)
            assert len(flat) == (n + 1) * W
            for i in range(n + 1):
                assert [unreachable_as_none(v, PY_FAR) for v in py[i]] == [
                    unreachable_as_none(v, KERNEL_FAR) for v in flat[i * W:(i + 1) * W]], (
                    src, hyp, sub_cost, klo, khi, i)


def test_distances_agree_on_both_paths():
    rng = random.Random(33)
    for _ in range(300):
        src, hyp = random_pair(rng, 25)
        s_ids, h_ids = m2_lattice._interned(src, hyp)
        for sub_cost in (1, 2):
            _, klo, dist = m2_lattice._distances(src, hyp, sub_cost)
            _, kklo, kdist = m2_lattice._distances(s_ids, h_ids, sub_cost, compiled=True)
            assert (kklo, kdist) == (klo, dist)


def test_optimal_edges_equal_the_python_walk():
    rng = random.Random(34)
    for _ in range(600):
        src, hyp = random_pair(rng, 15)
        for sub_cost in (1, 2):
            assert kernel_edges(src, hyp, sub_cost) == python_edges(src, hyp, sub_cost), (
                src, hyp, sub_cost)


def test_base_lattice_equals_the_python_merge():
    """Vertices, every base edge (target, unchanged flag, multiplicity) and predecessor,
    compared through the edges out of each vertex, and the edit sequences of random
    annotators; max_unchanged_words 0..3."""
    from test_m2_fast import assert_same_lattice, random_gold

    rng = random.Random(35)
    for _ in range(250):
        src, hyp = random_pair(rng, 12)
        mu = rng.choice([0, 1, 2, 3])
        py = build_lattice(src, hyp, mu, compiled=False)
        fast = build_lattice(src, hyp, mu, compiled=True, grid=False)
        assert_same_lattice(py, fast)
        golds = [random_gold(rng, src, hyp, rng.randint(0, 4)) for _ in range(2)]
        assert best_edit_sequences(fast, golds) == best_edit_sequences(py, golds), (src, hyp)


def test_empty_and_identical_pairs():
    for src, hyp in [([], []), ([], ["a"]), (["a"], []), (["a", "b"], ["a", "b"])]:
        py = build_lattice(src, hyp, compiled=False)
        fast = build_lattice(src, hyp, compiled=True, grid=False)
        assert fast.vertices == py.vertices
        assert (fast.num_arcs, fast.num_edges) == (py.num_arcs, py.num_edges)
        assert [fast.arcs_of(a) for a in range(len(py.vertices))] == [
            py.arcs_of(a) for a in range(len(py.vertices))]


def test_vertex_budget_gives_the_same_message_on_both_paths():
    rng = random.Random(36)
    src = [rng.choice("ab") for _ in range(30)]
    hyp = [rng.choice("ab") for _ in range(30)]
    total = len({v for e in python_edges(src, hyp, 1) for v in e})
    assert kernel_edges(src, hyp, 1, total)  # at the budget: fine
    messages = []
    for edges in (python_edges, kernel_edges):
        with pytest.raises(LatticeTooLarge) as err:
            edges(src, hyp, 1, total - 1)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert f"over {total - 1:,} vertices" in messages[0]


def whole_hypothesis_overrides(lat, gold):
    """The gold-edge weights found by joining the text of every (j1, j2) of the
    hypothesis (the definition), kept where both ends are vertices of the lattice."""
    weights = {}
    spans: dict = {}
    for g in gold:
        spans.setdefault((g.start, g.end), []).append(g)
    for (s, e), golds in spans.items():
        if s == e:
            m2_lattice._insertion_weights(lat, s, golds, weights)
    for (s, e), golds in spans.items():
        if s >= e:
            continue
        corrections = {c for g in golds for c in g.corrections}
        for j1 in range(len(lat.hyp) + 1):
            for j2 in range(j1, len(lat.hyp) + 1):
                if " ".join(lat.hyp[j1:j2]) in corrections:
                    a, b = lat.index.get((s, j1)), lat.index.get((e, j2))
                    if a is not None and b is not None:
                        weights[(a, b)] = -float(lat.num_edges)
    return weights


def test_gold_edges_at_row_vertices_equal_the_whole_hypothesis_scan():
    from test_m2_fast import random_gold

    rng = random.Random(37)
    for _ in range(400):
        src, hyp = random_pair(rng, 10)
        for compiled in (False, True):
            lat = build_lattice(src, hyp, compiled=compiled, grid=False)
            gold = random_gold(rng, src, hyp, rng.randint(0, 5))
            assert m2_lattice._overrides(lat, gold) == whole_hypothesis_overrides(lat, gold)


@pytest.mark.full
@pytest.mark.real_data
def test_conll2014_changed_pairs_equal_on_both_paths():
    """Every distinct changed pair of three outputs: vertices, edges and |E| of the
    compiled base lattice equal the Python ones."""
    from test_m2_fast import assert_same_lattice

    m2 = read_m2(CONLL_M2)
    seen = set()
    for team in ("AMU", "CAMB", "UFC"):
        for d, line in enumerate(read_lines(SUBMISSIONS / team)):
            src, hyp = m2.sentences[d].source.split(), line.split()
            if src == hyp or (d, line) in seen:
                continue
            seen.add((d, line))
            assert_same_lattice(build_lattice(src, hyp, compiled=False),
                                build_lattice(src, hyp, compiled=True))
    assert len(seen) > 1000


@pytest.mark.parametrize("step", ["band_rows", "optimal_edges"])
def test_signal_handlers_run_while_the_kernel_works(step):
    """A 1 ms interval timer: if the kernel never ran Python's signal handlers, they
    would run once, after it returned; they run many times during one call. A handler
    that raises (Ctrl-C's KeyboardInterrupt) therefore stops the kernel within a
    fraction of a millisecond of work. The walk's case has 1,121,500 optimal edges
    (every way of deleting 800 of 1,500 equal tokens), the table's 6 million cells."""
    if step == "band_rows":
        rng = random.Random(38)
        src = [rng.choice("ab") for _ in range(2000)]
        hyp = [rng.choice("ab") for _ in range(2000)]
    else:
        src, hyp = ["a"] * 1500, ["a"] * 700
    s_ids, h_ids = m2_lattice._interned(src, hyp)
    n, m = len(src), len(hyp)
    rows = m2_lattice._kernel_band_rows(s_ids, h_ids, 1, -n, m)
    calls = []
    old = signal.signal(signal.SIGALRM, lambda *_: calls.append(time.perf_counter()))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
        start = time.perf_counter()
        if step == "band_rows":
            m2_lattice._kernel_band_rows(s_ids, h_ids, 1, -n, m)
        else:
            m2_lattice._kernel_optimal_edges(rows, -n, s_ids, h_ids, 1, 10**9)
        end = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert end - start > 0.01  # enough work to test anything
    assert len([t for t in calls if t < end]) >= 3, (len(calls), end - start)
