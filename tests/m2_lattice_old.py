"""Test-only oracle: the M2 lattice code before bounded memory (commit d1984ac).

A verbatim copy of ``gecmetrics.metrics.m2_lattice`` as it was when every
transitive edge was materialised (memory quadratic in the lattice size, i.e.
quartic in sentence length on fully rewritten sentences). tests/test_m2_fast.py
checks the streaming implementation against its pure-Python path on generated
sentences; bench/bench_m2_bounds.py times it (compiled, via ``_Closure``) as the
baseline under a memory cap. Use on small inputs only.

Original module docstring follows.
The MaxMatch (M2) edit lattice and best edit sequence, fast and exact.

This re-derives the algorithm of the official CoNLL-2014 scorer (NUS M2
scorer 3.2, ``levenshtein.py``: ``batch_multi_pre_rec_f1``) and computes the
same edit sequences without its two costly steps:

1. **Lattice.** Vertices and edges are those of every optimal Levenshtein
   alignment of source and hypothesis tokens under two cost schemes
   (substitution 1 and substitution 2; insertion and deletion 1), merged.
   An edge present in both alignments' lattices is listed twice in the
   official edge list; that multiplicity matters (see weights) and is kept.

2. **Transitive edges.** The official scorer runs a Floyd-Warshall-like
   triple loop over all vertices (cubic in the lattice size). Because its
   vertex order is lexicographic, hence topological, its result has a simple
   closed description, which this module computes per start vertex in one
   forward pass over the vertices reachable from it: the edge from *a* to
   *b* stores the path ``stored(a, k) + (k -> b)`` over the base
   predecessors *k* of *b* (in vertex order) whose number of unchanged words
   stays within ``max_unchanged_words``, the first with the fewest base
   edges. Its multiplicity in the official edge list is the number of times
   the loop improved it. Transitive edges made of unchanged words only are
   dropped, as the official scorer drops them.

3. **Weights and shortest path.** An edge matching one of the annotator's
   gold edits weighs ``-|E|`` (|E|: the official edge list's length, with
   its duplicates); every other edge weighs its number of base edges, plus
   0.001 per listing for edits that change something. Weights are floats
   added in the official order, so sums round as they do there (two paths
   of equal exact weight can differ in the last bit, and the official
   scorer then takes the smaller sum). The shortest path is found in
   topological order instead of by Bellman-Ford. Insertion edges at the
   same source position are weighed with the official scorer's two-pointer
   scan, reproduced step by step.

   Known difference: when two paths have *bit-identical* float sums, the
   official Bellman-Ford keeps whichever reached the vertex first in its
   edge-list order, this module the one from the earliest vertex. On the
   13 CoNLL-2014 outputs and the all-empty output no sentence is affected
   (every (sentence, annotator) count equals the literal re-implementation
   in ``tests/m2_oracle.py``); on random sentences over 2-4 word types with
   random gold edits, about 1 in 3,000 is.

The edit sequence is then matched against the gold edits as the official
``matchSeq`` does (in order, each gold edit after the previous match).

4. **Compiled kernel.** When the optional Cython extension
   ``gecmetrics.metrics._m2_kernel`` is built, steps 2 and 3 run there on
   integer arrays (CSR lists of base successors and predecessors): the same
   forward pass per start vertex, the same multiplicities, the same doubles
   added in the same order, the same relaxation order (vertices in order,
   edges by target), so its results are those of the Python code, which stays
   as the fallback (``build_lattice(..., compiled=False)``) and as the
   cross-check in ``tests/test_m2_fast.py``. Per annotator, only the weights
   that differ from the default (gold edges, insertion edges of the
   two-pointer scan) are computed in Python and handed to the kernel; gold
   edges are found from the corrections' token positions in the hypothesis
   instead of joining the text of every edge.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# the old compiled kernel's Closure class; None (pure Python) unless a caller sets it
_Closure: Any = None

HAVE_KERNEL = _Closure is not None

# The official scorer's weight for an edit that matches no gold edit is added
# once per listing of the edge; weights and path sums are floats, added in the
# official order, so that ties are broken by the same rounding.
_EPSILON = 0.001


@dataclass(frozen=True)
class GoldEdit:
    """A gold edit as the official scorer reads it (token offsets)."""

    start: int
    end: int
    original: str
    corrections: tuple[str, ...]


@dataclass
class Lattice:
    """The merged edit lattice of one (source, hypothesis) pair, with its transitive edges.

    The edges are either Python lists (``arcs``) or, on the compiled path, held
    by the kernel (``closure``; ``arcs`` is then None): use :meth:`arcs_of`,
    :meth:`row_arcs` and :attr:`num_arcs`, which serve both.
    """

    src: list[str]
    hyp: list[str]
    vertices: list[tuple[int, int]]
    # arcs[a] = list of (b, d, mult, is_noop, weight) for every edge a -> b (base and
    # transitive): d base edges, listed mult times, weight when it matches no gold edit
    arcs: list[list[tuple[int, int, int, bool, float]]] | None
    # the official edge-list length |E| (gold edges weigh -|E|)
    num_edges: int = 0
    closure: Any = None  # the compiled kernel's edges (gecmetrics.metrics._m2_kernel.Closure)
    _index: dict[tuple[int, int], int] | None = field(default=None, repr=False)

    @property
    def compiled(self) -> bool:
        return self.closure is not None

    @property
    def num_arcs(self) -> int:
        """Edges stored (each (a, b) once; ``num_edges`` counts the official listings)."""
        if self.closure is not None:
            return self.closure.num_arcs
        return sum(len(out) for out in self.arcs)

    @property
    def index(self) -> dict[tuple[int, int], int]:
        if self._index is None:
            self._index = {v: k for k, v in enumerate(self.vertices)}
        return self._index

    def arcs_of(self, a: int) -> list[tuple[int, int, int, bool, float]]:
        """The edges out of vertex ``a``: (b, d, mult, is_noop, weight), sorted by b."""
        if self.closure is not None:
            return self.closure.arcs(a)
        return self.arcs[a]

    def row_range(self, s: int) -> tuple[int, int]:
        """The vertex indices [lo, hi) at source position ``s`` (vertices are sorted)."""
        verts = self.vertices
        return bisect_left(verts, (s, -1)), bisect_left(verts, (s + 1, -1))

    def row_arcs(self, s: int) -> list[tuple[int, int, int, int]]:
        """Edges (a, b, d, mult) with both ends at source position ``s``, sorted."""
        lo, hi = self.row_range(s)
        if self.closure is not None:
            return self.closure.row_arcs(lo, hi)
        return [(a, b, d, mult) for a in range(lo, hi)
                for b, d, mult, _, _ in self.arcs[a] if b < hi]


def _distance_matrix(src: Sequence[str], hyp: Sequence[str], sub_cost: int) -> list[list[int]]:
    n, m = len(src), len(hyp)
    prev = list(range(m + 1))
    rows = [prev]
    for i in range(1, n + 1):
        s = src[i - 1]
        cur = [i] * (m + 1)
        left = i
        for j in range(1, m + 1):
            diag = prev[j - 1] if s == hyp[j - 1] else prev[j - 1] + sub_cost
            up = prev[j] + 1
            ins = left + 1
            best = diag if diag < up else up
            if ins < best:
                best = ins
            cur[j] = best
            left = best
        rows.append(cur)
        prev = cur
    return rows


def _optimal_edges(src, hyp, sub_cost, edges: dict) -> None:
    """Add the edges of every optimal alignment (one listing each) to ``edges``."""
    D = _distance_matrix(src, hyp, sub_cost)
    n, m = len(src), len(hyp)
    seen = {(n, m)}
    stack = [(n, m)]
    while stack:
        i, j = stack.pop()
        dij = D[i][j]
        preds = []
        if i > 0 and j > 0:
            c = 0 if src[i - 1] == hyp[j - 1] else sub_cost
            if D[i - 1][j - 1] + c == dij:
                preds.append((i - 1, j - 1))
        if i > 0 and D[i - 1][j] + 1 == dij:
            preds.append((i - 1, j))
        if j > 0 and D[i][j - 1] + 1 == dij:
            preds.append((i, j - 1))
        for p in preds:
            key = (p, (i, j))
            edges[key] = edges.get(key, 0) + 1
            if p not in seen:
                seen.add(p)
                stack.append(p)


def build_lattice(src: list[str], hyp: list[str], max_unchanged_words: int = 2,
                  compiled: bool | None = None) -> Lattice:
    """The merged lattice of the two cost schemes and all its transitive edges.

    ``compiled``: None uses the compiled kernel when it is built, True requires
    it, False forces the pure-Python code (same results).
    """
    if compiled is None:
        compiled = HAVE_KERNEL
    elif compiled and not HAVE_KERNEL:
        raise RuntimeError("the compiled M2 kernel (gecmetrics.metrics._m2_kernel) is not built")
    edges: dict[tuple[tuple[int, int], tuple[int, int]], int] = {}
    _optimal_edges(src, hyp, 1, edges)
    _optimal_edges(src, hyp, 2, edges)
    vset = {v for e in edges for v in e}
    if not vset:
        vset = {(0, 0)}
    vertices = sorted(vset)
    index = {v: k for k, v in enumerate(vertices)}
    V = len(vertices)
    # base edges: preds[b] sorted by pred index; succs[a]
    preds: list[list[tuple[int, int]]] = [[] for _ in range(V)]  # (k, unchanged 0/1)
    succs: list[list[tuple[int, int, int]]] = [[] for _ in range(V)]  # (b, unchanged, mult)
    for (p, q), mult in edges.items():
        a, b = index[p], index[q]
        noop = 1 if (q[0] - p[0] == 1 and q[1] - p[1] == 1 and src[p[0]] == hyp[p[1]]) else 0
        preds[b].append((a, noop))
        succs[a].append((b, noop, mult))
    for lst in preds:
        lst.sort()
    for lst in succs:
        lst.sort()
    if compiled:
        return _build_compiled(src, hyp, vertices, index, preds, succs, max_unchanged_words)
    arcs = []
    num_edges = 0
    for a in range(V):
        out, listed = _arcs_from(a, preds, succs, max_unchanged_words)
        arcs.append(out)
        num_edges += listed
    return Lattice(src, hyp, vertices, arcs, num_edges)


def _build_compiled(src, hyp, vertices, index, preds, succs, max_unchanged) -> Lattice:
    succ_start, succ_b, succ_noop, succ_mult = array("i", [0]), array("i"), array("B"), array("i")
    for lst in succs:
        for b, noop, mult in lst:
            succ_b.append(b)
            succ_noop.append(noop)
            succ_mult.append(mult)
        succ_start.append(len(succ_b))
    pred_start, pred_k, pred_noop = array("i", [0]), array("i"), array("B")
    for lst in preds:
        for k, noop in lst:
            pred_k.append(k)
            pred_noop.append(noop)
        pred_start.append(len(pred_k))
    closure = _Closure()
    closure.build(len(vertices), succ_start, succ_b, succ_noop, succ_mult,
                  pred_start, pred_k, pred_noop, max_unchanged)
    return Lattice(src, hyp, vertices, None, closure.num_listed, closure, index)


def _arcs_from(a, preds, succs, max_unchanged):
    """Every edge out of vertex ``a`` as the official transitive-closure loop leaves it."""
    # state[b] = (d, u, mult); base successors are fixed at d = 1.
    state: dict[int, tuple[int, int, int]] = {}
    base = set()
    heap: list[int] = []
    queued: set[int] = set()
    for b, noop, mult in succs[a]:
        state[b] = (1, noop, mult)
        base.add(b)
    for b in base:
        for c, _, _ in succs[b]:
            if c not in base and c not in queued:
                queued.add(c)
                heapq.heappush(heap, c)
    while heap:
        b = heapq.heappop(heap)
        best_d = None
        best_u = 0
        improvements = 0
        for k, noop in preds[b]:
            st = state.get(k)
            if st is None:
                continue
            d = st[0] + 1
            u = st[1] + noop
            if u > max_unchanged:
                continue
            if best_d is None or d < best_d:
                best_d, best_u = d, u
                improvements += 1
        if best_d is None:
            continue
        state[b] = (best_d, best_u, improvements)
        for c, _, _ in succs[b]:
            if c not in base and c not in queued:
                queued.add(c)
                heapq.heappush(heap, c)
    out = []
    listed = 0
    for b, (d, u, mult) in state.items():
        is_noop = u == d
        if is_noop and d > 1:
            continue  # transitive arcs of unchanged words only are removed
        w = float(d)
        if not is_noop:
            for _ in range(mult):
                w += _EPSILON
        out.append((b, d, mult, is_noop, w))
        listed += mult
    out.sort()
    return out, listed


def _insertion_weights(lat: Lattice, s: int, golds: list[GoldEdit], weights: dict) -> None:
    """Weigh the insertion edges at source position ``s`` with the official two-pointer scan."""
    verts, hyp = lat.vertices, lat.hyp
    gold_weight = -float(lat.num_edges)
    listing = []
    for a, b, d, mult in lat.row_arcs(s):
        weights[(a, b)] = float(d)
        listing.extend([(a, b)] * mult)
    listing.sort()
    lptr, rptr, cur = 0, len(listing) - 1, 0
    glo, ghi = 0, len(golds) - 1
    while lptr <= rptr:
        edge = listing[cur]
        left = cur == lptr
        text = " ".join(hyp[verts[edge[0]][1]:verts[edge[1]][1]])
        order = range(glo, ghi + 1) if left else reversed(range(glo, ghi + 1))
        matched = False
        for g in order:
            if text in golds[g].corrections:
                matched = True
                weights[edge] = gold_weight
                if left:
                    glo = g + 1
                else:
                    ghi = g - 1
                break
        if not matched:
            weights[edge] += _EPSILON
            if left:
                lptr += 1
                cur = rptr
            else:
                rptr -= 1
                cur = lptr
        elif left:
            lptr += 1
            while lptr < len(listing) and listing[lptr][0] != edge[1]:
                weights[listing[lptr]] += _EPSILON
                lptr += 1
            cur = lptr
        else:
            rptr -= 1
            while rptr >= 0 and listing[rptr][1] != edge[0]:
                weights[listing[rptr]] += _EPSILON
                rptr -= 1
            cur = rptr


def best_edit_sequence(lat: Lattice, gold: Sequence[GoldEdit]) -> list[tuple[int, int, str, str]]:
    """The edit sequence the official scorer extracts for one annotator's gold edits.

    Edits are ``(start, end, original, correction)`` in source order.
    """
    verts, src, hyp = lat.vertices, lat.src, lat.hyp
    spans: dict[tuple[int, int], list[GoldEdit]] = {}
    for g in gold:
        spans.setdefault((g.start, g.end), []).append(g)
    ins_weights: dict[tuple[int, int], float] = {}
    for (s, e), golds in spans.items():
        if s == e:
            _insertion_weights(lat, s, golds, ins_weights)
    if lat.closure is not None:
        path = _compiled_path(lat, spans, ins_weights)
    else:
        path = _python_path(lat, spans, ins_weights)
    seq = []
    for a, b, is_noop in path:
        if not is_noop:
            (i1, j1), (i2, j2) = verts[a], verts[b]
            seq.append((i1, i2, " ".join(src[i1:i2]), " ".join(hyp[j1:j2])))
    return seq


def _gold_overrides(lat: Lattice, spans, weights: dict) -> None:
    """Every edge that matches a gold edit (not an insertion) gets weight -|E| in ``weights``.

    An edge (i1, j1) -> (i2, j2) with i1 != i2 matches when (i1, i2) is a gold
    span and ``" ".join(hyp[j1:j2])`` is one of its corrections. Hypothesis
    tokens are non-empty and contain no space, so a non-empty correction ``c``
    equals that text exactly when ``hyp[j1:j2] == c.split(" ")``; the empty
    correction matches every j1 == j2. The (j1, j2) are found by scanning the
    hypothesis once per correction; pairs that are not edges of the lattice are
    never looked up by the shortest path, so they are harmless.
    """
    hyp, index = lat.hyp, lat.index
    m = len(hyp)
    gold_weight = -float(lat.num_edges)
    for (s, e), golds in spans.items():
        if s >= e:
            continue
        for c in {c for g in golds for c in g.corrections}:
            if c == "":
                pairs = [(j, j) for j in range(m + 1)]
            else:
                toks = c.split(" ")
                n, first = len(toks), toks[0]
                pairs = [(j, j + n) for j in range(m - n + 1)
                         if hyp[j] == first and hyp[j:j + n] == toks]
            for j1, j2 in pairs:
                a, b = index.get((s, j1)), index.get((e, j2))
                if a is not None and b is not None:
                    weights[(a, b)] = gold_weight


def _compiled_path(lat: Lattice, spans, ins_weights) -> list[tuple[int, int, bool]]:
    weights = dict(ins_weights)
    _gold_overrides(lat, spans, weights)
    items = sorted(weights.items())
    ov_a = array("i", [a for (a, _), _ in items])
    ov_b = array("i", [b for (_, b), _ in items])
    ov_w = array("d", [w for _, w in items])
    return lat.closure.path(ov_a, ov_b, ov_w)


def _python_path(lat: Lattice, spans, ins_weights) -> list[tuple[int, int, bool]]:
    """Shortest path in topological order; the path as (a, b, is_noop) edges from the start."""
    verts, hyp, arcs = lat.vertices, lat.hyp, lat.arcs
    V = len(verts)
    gold_weight = -float(lat.num_edges)
    dist: list[float | None] = [None] * V
    back: list[tuple[int, bool]] = [(-1, True)] * V
    dist[0] = 0
    for a in range(V):
        da = dist[a]
        if da is None:
            continue
        i1, j1 = verts[a]
        for b, _, _, is_noop, w0 in arcs[a]:
            i2, j2 = verts[b]
            if i1 == i2 and (a, b) in ins_weights:
                w = ins_weights[(a, b)]
            else:
                w = w0
                golds = spans.get((i1, i2)) if i1 != i2 else None
                if golds:
                    text = " ".join(hyp[j1:j2])
                    if any(text in g.corrections for g in golds):
                        w = gold_weight
            nd = da + w
            db = dist[b]
            if db is None or nd < db:
                dist[b] = nd
                back[b] = (a, is_noop)
    path = []
    b = V - 1
    while b > 0:
        a, is_noop = back[b]
        path.append((a, b, is_noop))
        b = a
    path.reverse()
    return path


def _same_ignoring_whitespace_casing(a: str, b: str) -> bool:
    return a.replace(" ", "").lower() == b.replace(" ", "").lower()


def match_count(seq: Sequence[tuple[int, int, str, str]], gold: Sequence[GoldEdit]) -> int:
    """Correct edits as the official ``matchSeq`` counts them (gold edits in file order)."""
    tp = 0
    last = 0
    for start, end, original, correction in seq:
        for i in range(last, len(gold)):
            g = gold[i]
            if (start == g.start and end == g.end and original == g.original
                    and correction in g.corrections):
                tp += 1
                last = i + 1
    return tp


def sentence_counts(lat: Lattice, gold: Sequence[GoldEdit],
                    ignore_whitespace_casing: bool = False) -> tuple[int, int, int]:
    """(correct, proposed, gold) of one sentence against one annotator."""
    seq = best_edit_sequence(lat, gold)
    if ignore_whitespace_casing:
        seq = [e for e in seq if not _same_ignoring_whitespace_casing(e[2], e[3])]
    return match_count(seq, gold), len(seq), len(gold)
