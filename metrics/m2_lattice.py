"""The MaxMatch (M2) edit lattice and best edit sequence, fast and exact.

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
   ``gecmetrics.metrics._m2_kernel`` is built, every step runs there on
   integer arrays. Step 1: the tokens are interned to integers, and the banded
   distance tables (``band_rows``), the walk back over every optimal alignment
   (``optimal_edges``) and the merge of the two cost schemes into sorted CSR
   lists of base successors and predecessors (``base_lattice``) give the
   vertices, edges and multiplicities of the Python code (``_band_rows``,
   ``_optimal_edges``, ``_python_base_lattice``). Steps 2 and 3: the same
   forward pass per start vertex, the same multiplicities, the same doubles
   added in the same order, the same relaxation order (vertices in order,
   edges by target), so its results are those of the Python code, which stays
   as the fallback (``build_lattice(..., compiled=False)``) and as the
   cross-check in ``tests/test_m2_fast.py``. Per annotator, only the weights
   that differ from the default (gold edges, insertion edges of the
   two-pointer scan) are computed in Python and handed to the kernel; gold
   edges are found from the corrections' token positions in the hypothesis
   instead of joining the text of every edge.

5. **Full grid.** A pair with no token in common (a sentence rewritten
   throughout) has the whole (n+1) x (m+1) grid as its lattice and about
   (n(n+1)/2)^2 edges, too many to list (2 * 10^9 for 300 tokens). Its edges
   have a closed form (every b >= a, length max(bi - ai, bj - aj),
   multiplicity 1 except base edges), and the kernel's ``Grid`` finds the
   same shortest paths from running window minima without listing them, in
   time O(V * (n + m)) per annotator (see its docstring and
   docs/metrics/m2.md). ``build_lattice`` dispatches such pairs there; every
   other pair takes the general path above.

6. **Budget before the work.** A pair whose whole grid could be over the
   budget gets a lower bound of its lattice first (:func:`lattice_lower_bound`:
   the rectangles between the matches of one longest common subsequence are
   full grids), so that a long sentence that keeps a few words stops at once
   instead of after building and counting its lattice.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gecmetrics import kernels
from gecmetrics.errors import GecMetricsError

try:  # the compiled speed path; optional by design
    from ._m2_kernel import Grid as _KernelGrid
    from ._m2_kernel import Lattice as _KernelLattice
    from ._m2_kernel import band_rows as _kernel_band_rows
    from ._m2_kernel import base_lattice as _kernel_base_lattice
    from ._m2_kernel import interned as _kernel_interned
    from ._m2_kernel import optimal_edges as _kernel_optimal_edges
except ImportError:  # pragma: no cover - depends on the build
    _KernelLattice = _KernelGrid = None
    _kernel_band_rows = _kernel_base_lattice = _kernel_optimal_edges = _kernel_interned = None

HAVE_KERNEL = _KernelLattice is not None

# The official scorer's weight for an edit that matches no gold edit is added
# once per listing of the edge; weights and path sums are floats, added in the
# official order, so that ties are broken by the same rounding.
_EPSILON = 0.001

#: Default budget of one sentence pair: most lattice edges (base and transitive,
#: each counted once). Time grows linearly with it (3 * 10^7 edges: 1 to 3 s
#: to count on the compiled path, as much again to score); memory does not
#: (it is linear in the vertices).
MAX_LATTICE_EDGES = 30_000_000
#: The compiled path keeps the edges of lattices with at most this many edges
#: (13 bytes each) between counting them and the shortest paths, instead of
#: recomputing them; almost every real sentence is far below it.
KEEP_LATTICE_EDGES = 4_000_000
#: Most vertices of one base lattice; its Python construction takes about
#: 0.5 KB a vertex.
MAX_LATTICE_VERTICES = 250_000
#: Most vertices of a full-grid lattice (a pair with no token in common, see
#: :func:`build_lattice`): 1,000 x 1,000 tokens. Its shortest path takes time
#: V * (n + m) per annotator with gold edits on the lattice (at 1,000 x 1,000
#: tokens, 4 to 20 s of CPU time on the project machine, depending on the gold
#: edits) and memory V * (230 bytes + 10 log2 n bytes), about 220 MB (up to 660 MB
#: when every source token has a gold deletion, each overriding an edge into every
#: vertex of a row); see docs/metrics/m2.md.
MAX_GRID_VERTICES = 1_002_001
#: Most work of a full-grid lattice, vertices x max(n, m): a vertex's rings reach
#: up to max(n, m) back, so a narrow grid (10 x 40,000 tokens: 1.8 x 10^10, 17 s of
#: CPU time) costs far more than a square one of as many vertices (1,000 x 1,000:
#: 10^9). 2 x 10^10: about 20 s at most. The code before this budget had none
#: (its O((n + m) max(n, m)) tables, now O(V), took 20 GB at 10 x 50,000 tokens).
MAX_GRID_WORK = 20_000_000_000
#: Most cells of the banded Levenshtein distance table of one pair (per cost scheme,
#: at the default ``max_lattice_edges``; in proportion above it, see
#: :func:`alignment_budget`). The table is computed in Python at about 1 us and 8 bytes
#: a cell, so the budget keeps one pair's alignment within seconds and 40 MB. A long
#: near-identical sentence needs few cells (the band follows the edit distance: 10,000
#: tokens with 20 changes, 0.3 M cells); a long sentence rewritten throughout needs the
#: whole n x m table (10,000 tokens: 10^8 cells, 7.8 GB and a MemoryError before this
#: budget) and is refused, before any of it is computed, with its line.
MAX_ALIGNMENT_CELLS = 5_000_000
#: Full-grid lattices with fewer edges than this take the general path (the
#: implicit one gives the same results; this keeps the usual sentences on the
#: path checked against the literal oracle).
GRID_MIN_EDGES = 100_000


class LatticeTooLarge(GecMetricsError):
    """The edit lattice of one sentence pair is over the budget (no score is computed).

    The message says what is over and how to go on; callers that know the
    sentence (``metrics/m2.py``) prefix where it is.
    """


@dataclass(frozen=True)
class GoldEdit:
    """A gold edit as the official scorer reads it (token offsets)."""

    start: int
    end: int
    original: str
    corrections: tuple[str, ...]


@dataclass
class Lattice:
    """The merged edit lattice of one (source, hypothesis) pair.

    Only the base lattice is stored (``preds``/``succs``, or, empty lists there,
    the compiled kernel's CSR arrays in ``kernel``); transitive edges are recomputed when
    needed, because storing them takes memory in the fourth power of the
    length of a fully rewritten sentence. Use :meth:`arcs_of`,
    :meth:`row_arcs` and :attr:`num_arcs`, which serve both paths.
    """

    src: list[str]
    hyp: list[str]
    vertices: Sequence[tuple[int, int]]
    # base edges: preds[b] = sorted (k, unchanged 0/1); succs[a] = sorted (b, unchanged, mult)
    preds: list[list[tuple[int, int]]]
    succs: list[list[tuple[int, int, int]]]
    max_unchanged_words: int
    # the official edge-list length |E| (gold edges weigh -|E|) and the edges stored once each
    num_edges: int = 0
    num_arcs: int = 0
    kernel: Any = None  # gecmetrics.metrics._m2_kernel.Lattice (or .Grid) on the compiled path
    _index: Mapping[tuple[int, int], int] | None = field(default=None, repr=False)
    #: True for the implicit full grid of a pair with no common token (``kernel`` is a Grid)
    grid: bool = False

    @property
    def compiled(self) -> bool:
        return self.kernel is not None

    @property
    def index(self) -> Mapping[tuple[int, int], int]:
        if self._index is None:
            self._index = {v: k for k, v in enumerate(self.vertices)}
        return self._index

    def arcs_of(self, a: int) -> list[tuple[int, int, int, bool, float]]:
        """The edges out of vertex ``a``: (b, d, mult, is_noop, weight), sorted by b."""
        if self.kernel is not None:
            return self.kernel.arcs(a)
        return _arcs_from(a, self.preds, self.succs, self.max_unchanged_words)[0]

    def row_range(self, s: int) -> tuple[int, int]:
        """The vertex indices [lo, hi) at source position ``s`` (vertices are sorted)."""
        verts = self.vertices
        return bisect_left(verts, (s, -1)), bisect_left(verts, (s + 1, -1))

    def row_arcs(self, s: int) -> list[tuple[int, int, int, int]]:
        """Edges (a, b, d, mult) with both ends at source position ``s``, sorted."""
        lo, hi = self.row_range(s)
        if self.kernel is not None:
            return self.kernel.row_arcs(lo, hi)
        return [(a, b, d, mult) for a in range(lo, hi)
                for b, d, mult, _, _ in _arcs_from(a, self.preds, self.succs,
                                                   self.max_unchanged_words, hi)[0]]


class _GridVertices(Sequence[tuple[int, int]]):
    """The vertices (i, j) of the full (n+1) x (m+1) grid in lexicographic order, unstored."""

    def __init__(self, n: int, m: int) -> None:
        self.n, self.w = n, m + 1

    def __len__(self) -> int:
        return (self.n + 1) * self.w

    def __getitem__(self, k):  # type: ignore[override]
        if isinstance(k, slice):
            return [self[x] for x in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        return divmod(k, self.w)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and len(other) == len(self) and all(
            tuple(x) == self[k] for k, x in enumerate(other))

    __hash__ = None  # type: ignore[assignment]


class _GridIndex(Mapping[tuple[int, int], int]):
    """Vertex (i, j) of the full grid -> its index i * (m + 1) + j."""

    def __init__(self, n: int, m: int) -> None:
        self.n, self.m = n, m

    def __getitem__(self, v: tuple[int, int]) -> int:
        i, j = v
        if 0 <= i <= self.n and 0 <= j <= self.m:
            return i * (self.m + 1) + j
        raise KeyError(v)

    def __len__(self) -> int:
        return (self.n + 1) * (self.m + 1)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return ((i, j) for i in range(self.n + 1) for j in range(self.m + 1))


_FAR = 1 << 40  # distance of a cell outside the computed band


def _band_rows(src: Sequence[str], hyp: Sequence[str], sub_cost: int,
               klo: int, khi: int) -> list[Sequence[int]]:
    """Levenshtein distances of the cells (i, j) with klo <= j - i <= khi.

    ``rows[i][c]`` is the distance of (i, i + klo + c); cells outside the band
    count as unreachable (``_FAR``), so a banded distance is never below the
    true one and equals it on every cell of an optimal alignment that stays
    inside the band.
    """
    n, m = len(src), len(hyp)
    W = khi - klo + 1
    rows: list[Sequence[int]] = [[j if 0 <= j <= m else _FAR for j in range(klo, khi + 1)]]
    prev = rows[0]
    for i in range(1, n + 1):
        s = src[i - 1]
        cur = [_FAR] * W
        base = i + klo  # column c is j = base + c
        left = _FAR
        for j in range(max(0, base), min(m, i + khi) + 1):
            c = j - base
            diag = (prev[c] + (0 if s == hyp[j - 1] else sub_cost)) if j > 0 else _FAR
            up = prev[c + 1] + 1 if c + 1 < W else _FAR
            best = diag if diag < up else up
            if left + 1 < best:
                best = left + 1
            cur[c] = best
            left = best
        rows.append(array("q", cur))  # 8 bytes a cell instead of a list's 8 + 32
        prev = cur
    return rows


def alignment_budget(max_edges: int) -> int:
    """The distance-table budget that goes with the edge budget ``max_edges``.

    :data:`MAX_ALIGNMENT_CELLS` at the default (or a lower) ``max_lattice_edges``,
    and in proportion above it: raising the one option that a too-large sentence's
    error names lets its alignment through too (time grows with both).
    """
    return max(MAX_ALIGNMENT_CELLS, max_edges * MAX_ALIGNMENT_CELLS // MAX_LATTICE_EDGES)


def _band(n: int, m: int, T: int) -> tuple[int, int]:
    """The diagonals [klo, khi] where an alignment of cost at most ``T`` can run."""
    delta = m - n
    h = (T - abs(delta)) // 2
    return max(-n, min(0, delta) - h), min(m, max(0, delta) + h)


def _check_cells(n: int, m: int, cells: int, max_cells: int, distance: int) -> None:
    """Refuse a distance table over ``max_cells`` cells before it is allocated."""
    if cells > max_cells:
        raise LatticeTooLarge(
            f"aligning this sentence pair ({n} source / {m} hypothesis tokens, edit distance "
            f"at least {distance:,}) needs a distance table of {cells:,} cells, over the "
            f"budget of {max_cells:,}; raise the m2 option max_lattice_edges (the budget "
            "grows with it, and time too), split or shorten the line, or leave M2 out for "
            "this output")


def _distances(src: Sequence[Any], hyp: Sequence[Any], sub_cost: int,
               max_cells: int = MAX_ALIGNMENT_CELLS, compiled: bool = False):
    """Banded distance rows covering every optimal alignment (Ukkonen's doubling).

    An alignment through diagonal k = j - i costs at least |k| + |m - n - k|
    (insertions and deletions each move one diagonal). With the band of the
    diagonals where that bound is at most T, a banded distance D <= T proves
    that every optimal alignment lies in the band; otherwise T doubles. Memory
    is O(n * D) instead of O(n * m): small for near-identical long sentences.
    A band of more than ``max_cells`` cells is refused before it is computed
    (:class:`LatticeTooLarge`; :func:`check_pair` refuses the pairs it can
    prove over it before any pair is aligned).
    Returns (rows, klo, D): the distance of (i, j) is ``rows[i][j - i - klo]``;
    ``compiled`` (``src`` and ``hyp`` interned to int32 arrays): the kernel's flat
    table, where it is ``rows[i * W + j - i - klo]`` (W: the band's width).
    """
    n, m = len(src), len(hyp)
    delta = m - n
    T = abs(delta) + 2
    known = abs(delta)  # a proven lower bound on the distance
    while True:
        klo, khi = _band(n, m, T)
        _check_cells(n, m, (n + 1) * (khi - klo + 1), max_cells, known)
        if compiled:
            rows = _kernel_band_rows(src, hyp, sub_cost, klo, khi)
            D = rows[n * (khi - klo + 1) + m - n - klo]
        else:
            rows = _band_rows(src, hyp, sub_cost, klo, khi)
            D = rows[n][m - n - klo]
        if D <= T or (klo == -n and khi == m):
            break
        known = T + 1  # an alignment of cost <= T would lie in the band
        T *= 2
    return rows, klo, D


def _too_many_vertices(n: int, m: int, max_vertices: int) -> LatticeTooLarge:
    return LatticeTooLarge(
        f"the M2 edit lattice of this sentence pair ({n} source / {m} hypothesis "
        f"tokens) has over {max_vertices:,} vertices (the sentence is rewritten "
        "throughout); split or shorten the line, or leave M2 out for this output")


def _optimal_edges(src, hyp, sub_cost, edges: dict, max_vertices: int,
                   max_cells: int = MAX_ALIGNMENT_CELLS) -> None:
    """Add the edges of every optimal alignment (one listing each) to ``edges``."""
    rows, klo, _ = _distances(src, hyp, sub_cost, max_cells)
    n, m = len(src), len(hyp)
    W = len(rows[0])
    seen = {(n, m)}
    stack = [(n, m)]
    while stack:
        i, j = stack.pop()
        c = j - i - klo  # band column of (i, j); (i-1, j-1) is column c of row i-1
        row = rows[i]
        dij = row[c]
        preds = []
        if i > 0:
            up = rows[i - 1]
            if j > 0 and up[c] + (0 if src[i - 1] == hyp[j - 1] else sub_cost) == dij:
                preds.append((i - 1, j - 1))
            if c + 1 < W and up[c + 1] + 1 == dij:
                preds.append((i - 1, j))
        if j > 0 and c > 0 and row[c - 1] + 1 == dij:
            preds.append((i, j - 1))
        for p in preds:
            key = (p, (i, j))
            edges[key] = edges.get(key, 0) + 1
            if p not in seen:
                seen.add(p)
                stack.append(p)
        if len(seen) > max_vertices:
            raise _too_many_vertices(n, m, max_vertices)


def _optimal_edges_compiled(src_ids, hyp_ids, sub_cost: int, max_vertices: int,
                            max_cells: int = MAX_ALIGNMENT_CELLS):
    """:func:`_optimal_edges` in the kernel, on interned tokens: the edges as an array
    of (p, q) vertex keys (i * (m + 1) + j), each once."""
    rows, klo, _ = _distances(src_ids, hyp_ids, sub_cost, max_cells, compiled=True)
    edges = _kernel_optimal_edges(rows, klo, src_ids, hyp_ids, sub_cost, max_vertices)
    if edges is None:
        raise _too_many_vertices(len(src_ids), len(hyp_ids), max_vertices)
    return edges


def _interned(src: Sequence[str], hyp: Sequence[str]) -> tuple[array, array]:
    """The tokens as int32 ids, equal exactly where the strings are equal (the kernel's
    ``interned`` when it is built: five times faster)."""
    if _kernel_interned is not None:
        return _kernel_interned(list(src), list(hyp))
    ids = {t: k for k, t in enumerate(dict.fromkeys([*src, *hyp]))}
    return array("i", map(ids.__getitem__, src)), array("i", map(ids.__getitem__, hyp))


def grid_edges(n: int, m: int) -> int:
    """Edges of the full (n+1) x (m+1) grid lattice: one per pair a <= b, a != b."""
    return ((n + 1) * (n + 2) // 2) * ((m + 1) * (m + 2) // 2) - (n + 1) * (m + 1)


def build_lattice(src: list[str], hyp: list[str], max_unchanged_words: int = 2,
                  compiled: bool | None = None,
                  max_edges: int = MAX_LATTICE_EDGES, grid: bool | None = None) -> Lattice:
    """The merged lattice of the two cost schemes, with |E| and the number of edges.

    ``compiled``: None uses the compiled kernel when it is built, True requires
    it, False forces the pure-Python code (same results). Raises
    :class:`LatticeTooLarge` when the lattice has more than ``max_edges``
    edges (counted without storing them, and stopping as soon as it is over)
    or more than :data:`MAX_LATTICE_VERTICES` vertices.

    A pair with no token in common (a sentence rewritten throughout) has the
    full grid as its lattice, with closed-form edges; on the compiled path it
    is scored without listing its edges (``Grid`` in the kernel), in time
    V * max(n, m) instead of V^2 / 4, so ``max_edges`` does not apply to it;
    :data:`MAX_GRID_VERTICES` does. ``grid``: None takes that path for such
    pairs with over :data:`GRID_MIN_EDGES` edges, True for any such pair
    (tests), False never.
    """
    if compiled is None:
        compiled = HAVE_KERNEL
        if not HAVE_KERNEL:
            kernels.missing("gecmetrics.metrics._m2_kernel")
    elif compiled and not HAVE_KERNEL:
        raise RuntimeError("the compiled M2 kernel (gecmetrics.metrics._m2_kernel) is not built")
    n, m = len(src), len(hyp)
    if grid is not False and compiled and max_unchanged_words >= 0 and set(src).isdisjoint(hyp):
        if grid or grid_edges(n, m) > GRID_MIN_EDGES:
            return _grid_lattice(src, hyp, max_unchanged_words)
    elif grid:
        raise ValueError("the grid path needs the compiled kernel and a pair with no common token")
    _precheck(src, hyp, max_edges)
    max_cells = alignment_budget(max_edges)
    if compiled:
        src_ids, hyp_ids = _interned(src, hyp)
        edge_lists = [_optimal_edges_compiled(src_ids, hyp_ids, sub_cost, MAX_LATTICE_VERTICES,
                                              max_cells) for sub_cost in (1, 2)]
        vertices, kernel = _kernel_base_lattice(edge_lists, src_ids, hyp_ids,
                                                max_unchanged_words)
        del edge_lists
        # the base lattice lives in the kernel's CSR arrays only
        lat = Lattice(src, hyp, vertices, [], [], max_unchanged_words, kernel=kernel)
        counted = kernel.count(max_edges, KEEP_LATTICE_EDGES)
    else:
        lat = _python_base_lattice(src, hyp, max_unchanged_words, max_cells)
        counted = _count_arcs(lat.preds, lat.succs, max_unchanged_words, max_edges)
    V = len(lat.vertices)
    if counted is None:
        raise LatticeTooLarge(
            f"the M2 edit lattice of this sentence pair ({len(src)} source / {len(hyp)} "
            f"hypothesis tokens, {V:,} vertices) has over {max_edges:,} edges (the sentence "
            "is rewritten throughout); raise the m2 option max_lattice_edges (time grows "
            "with it), split the line, or leave M2 out for this output")
    lat.num_arcs, lat.num_edges = counted
    return lat


#: The lower bound of :func:`lattice_lower_bound` is computed only for pairs with
#: at most this many matching token pairs per token (src[i] == hyp[j]), so that it
#: stays instant; pairs that share more tokens are counted as before.
LOWER_BOUND_MATCHES_PER_TOKEN = 16


def lattice_lower_bound(src: Sequence[str], hyp: Sequence[str]) -> tuple[int, int, int] | None:
    """(vertices, edges, common tokens): lower bounds on the lattice of a pair, without building it.

    Under substitution cost 2 (insertion and deletion 1), an alignment costs
    n + m - 2 x its matched tokens, so the optimal ones are the longest common
    subsequences (LCS). Take one LCS (Hunt-Szymanski: O((r + n) log n) for r
    matching token pairs); between two consecutive matches, and before the
    first and after the last, lies a rectangle of source and hypothesis tokens
    with no token in common (one would lengthen the LCS). Every monotone path
    through such a rectangle costs the same as the LCS alignment's, so the whole
    (h+1) x (w+1) grid of the rectangle is in the lattice, and every pair a <= b
    (a != b) of it is an edge of the official closure (a path of non-matching
    steps joins them, and no unchanged word limits it): ``grid_edges(h, w)``.
    The rectangles share no vertex and no pair, so their sums bound the whole
    lattice from below. Returns None when the pair has more than
    :data:`LOWER_BOUND_MATCHES_PER_TOKEN` x (n + m) matching pairs (the LCS
    would cost more than it saves; such pairs share many tokens).
    """
    n, m = len(src), len(hyp)
    where: dict[str, list[int]] = {}
    for j, tok in enumerate(hyp):
        where.setdefault(tok, []).append(j)
    r = sum(len(where.get(tok, ())) for tok in src)
    if r > LOWER_BOUND_MATCHES_PER_TOKEN * (n + m):
        return None
    # thresh[k]: the smallest hypothesis position ending a common subsequence of
    # length k + 1 so far; node[k]: its match (i, j) and the node before it
    thresh: list[int] = []
    node: list[tuple[int, int, Any]] = []
    for i, tok in enumerate(src):
        for j in reversed(where.get(tok, ())):
            k = bisect_left(thresh, j)
            link = (i, j, node[k - 1] if k else None)
            if k == len(thresh):
                thresh.append(j)
                node.append(link)
            elif j < thresh[k]:
                thresh[k] = j
                node[k] = link
    matches = []
    cur = node[-1] if node else None
    while cur is not None:
        matches.append((cur[0], cur[1]))
        cur = cur[2]
    matches.reverse()
    vertices = edges = 0
    pi = pj = 0
    for i, j in [*matches, (n, m)]:
        h, w = i - pi, j - pj
        vertices += (h + 1) * (w + 1)
        edges += grid_edges(h, w)
        pi, pj = i + 1, j + 1
    return vertices, edges, len(matches)


def check_pair(src: list[str], hyp: list[str], max_unchanged_words: int = 2,
               max_edges: int = MAX_LATTICE_EDGES, compiled: bool | None = None) -> None:
    """Raise :class:`LatticeTooLarge` now for a pair that :func:`build_lattice` would
    refuse, wherever a cheap bound proves it (no alignment is computed).

    ``metrics/m2.py`` runs it over every pair of a corpus before scoring any,
    so that a sentence over a budget stops the run at once, not after minutes
    of work on the sentences before it. Arguments as :func:`build_lattice`.
    """
    if compiled is None:
        compiled = HAVE_KERNEL
    n, m = len(src), len(hyp)
    if src == hyp:
        return
    if compiled and max_unchanged_words >= 0 and set(src).isdisjoint(hyp):
        if grid_edges(n, m) > GRID_MIN_EDGES:
            _check_grid(n, m)
            return
    _precheck(src, hyp, max_edges)


def _precheck(src: list[str], hyp: list[str], max_edges: int) -> None:
    """Stop before building a lattice that :func:`lattice_lower_bound` proves over budget.

    Only a pair whose whole grid could be over budget is looked at (the lattice
    is a subset of the grid, and each pair of its vertices is at most one
    edge), so the usual sentences skip it. A proven excess gives the error
    that building and counting would give, minus the seconds it took them.
    The same for the distance tables (:func:`_distances`): a pair whose widest
    band could be over :func:`alignment_budget` gets lower bounds of its two
    distances (from the tokens the two sides share, or from their longest
    common subsequence), hence of the band the doubling must reach.
    """
    n, m = len(src), len(hyp)
    max_cells = alignment_budget(max_edges)
    wide = (n + 1) * (n + m + 1) > max_cells
    if (not wide and grid_edges(n, m) <= max_edges
            and (n + 1) * (m + 1) <= MAX_LATTICE_VERTICES):
        return
    bound = lattice_lower_bound(src, hyp)
    if wide:
        shared = sum((Counter(src) & Counter(hyp)).values())
        # substitution cost 2: n + m - 2 x LCS; cost 1: at least half that, and at
        # least the tokens of the longer side that the other lacks
        d2 = n + m - 2 * (bound[2] if bound is not None else shared)
        for d in (max(max(n, m) - shared, (d2 + 1) // 2), d2):  # in build order
            T = abs(m - n) + 2
            while T < d:  # the doubling stops at the first T >= the banded distance
                T *= 2
            klo, khi = _band(n, m, T)
            _check_cells(n, m, (n + 1) * (khi - klo + 1), max_cells, d)
    if bound is None:
        return
    vertices, edges, common = bound
    where = (f"{n} source / {m} hypothesis tokens, {common} matched in a longest common "
             "subsequence")
    if vertices > MAX_LATTICE_VERTICES:
        raise LatticeTooLarge(
            f"the M2 edit lattice of this sentence pair ({where}) has over "
            f"{MAX_LATTICE_VERTICES:,} vertices (at least {vertices:,} in its rewritten "
            "stretches); split or shorten the line, or leave M2 out for this output")
    if edges > max_edges:
        raise LatticeTooLarge(
            f"the M2 edit lattice of this sentence pair ({where}) has over {max_edges:,} "
            f"edges (at least {edges:,} in its rewritten stretches); raise the m2 option "
            "max_lattice_edges (time grows with it), split the line, or leave M2 out for "
            "this output")


def _grid_lattice(src: list[str], hyp: list[str], max_unchanged_words: int) -> Lattice:
    n, m = len(src), len(hyp)
    _check_grid(n, m)
    kernel = _KernelGrid(n, m)
    lat = Lattice(src, hyp, _GridVertices(n, m), [], [], max_unchanged_words, kernel=kernel,
                  _index=_GridIndex(n, m), grid=True)
    lat.num_arcs, lat.num_edges = kernel.counts()
    return lat


def _check_grid(n: int, m: int) -> None:
    """The budgets of a full-grid lattice of n x m tokens (vertices, and vertices x steps)."""
    V = (n + 1) * (m + 1)
    if V > MAX_GRID_VERTICES:
        raise LatticeTooLarge(
            f"the M2 edit lattice of this sentence pair ({n} source / {m} hypothesis tokens, "
            f"no token in common) has {V:,} vertices, over the budget of "
            f"{MAX_GRID_VERTICES:,} (1,000 x 1,000 tokens); split or shorten the line, "
            "or leave M2 out for this output")
    if V * max(n, m) > MAX_GRID_WORK:
        raise LatticeTooLarge(
            f"the M2 edit lattice of this sentence pair ({n} source / {m} hypothesis tokens, "
            f"no token in common) needs {V:,} vertices x {max(n, m):,} steps of work, over "
            f"the budget of {MAX_GRID_WORK:,} (one side is far longer than the other); "
            "split or shorten the line, or leave M2 out for this output")


def _python_base_lattice(src: list[str], hyp: list[str], max_unchanged_words: int,
                         max_cells: int) -> Lattice:
    """The merged base lattice of the two cost schemes, on the pure-Python path."""
    edges: dict[tuple[tuple[int, int], tuple[int, int]], int] = {}
    _optimal_edges(src, hyp, 1, edges, MAX_LATTICE_VERTICES, max_cells)
    _optimal_edges(src, hyp, 2, edges, MAX_LATTICE_VERTICES, max_cells)
    vset = {v for e in edges for v in e}
    if not vset:
        vset = {(0, 0)}
    vertices = sorted(vset)
    index = {v: k for k, v in enumerate(vertices)}
    V = len(vertices)
    preds: list[list[tuple[int, int]]] = [[] for _ in range(V)]  # (k, unchanged 0/1)
    succs: list[list[tuple[int, int, int]]] = [[] for _ in range(V)]  # (b, unchanged, mult)
    for (p, q), mult in edges.items():
        a, b = index[p], index[q]
        noop = 1 if (q[0] - p[0] == 1 and q[1] - p[1] == 1 and src[p[0]] == hyp[p[1]]) else 0
        preds[b].append((a, noop))
        succs[a].append((b, noop, mult))
    del edges
    for plist in preds:
        plist.sort()
    for slist in succs:
        slist.sort()
    return Lattice(src, hyp, vertices, preds, succs, max_unchanged_words, _index=index)


def _count_arcs(preds, succs, max_unchanged, max_arcs):
    """(edges, |E|) of the pure-Python path, or None once over ``max_arcs`` edges."""
    n_arcs = n_listed = 0
    for a in range(len(succs)):
        out, listed = _arcs_from(a, preds, succs, max_unchanged)
        n_arcs += len(out)
        n_listed += listed
        if n_arcs > max_arcs:
            return None
    return n_arcs, n_listed


def _arcs_from(a, preds, succs, max_unchanged, limit=None):
    """Every edge out of vertex ``a`` as the official transitive-closure loop leaves it.

    With ``limit``, only the edges to vertices below it (they depend only on
    vertices below it: the order is topological).
    """
    # state[b] = (d, u, mult); base successors are fixed at d = 1.
    state: dict[int, tuple[int, int, int]] = {}
    base = set()
    heap: list[int] = []
    queued: set[int] = set()
    if limit is None:
        limit = len(succs)
    for b, noop, mult in succs[a]:
        if b < limit:
            state[b] = (1, noop, mult)
            base.add(b)
    for b in base:
        for c, _, _ in succs[b]:
            if c < limit and c not in base and c not in queued:
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
            if c < limit and c not in base and c not in queued:
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
    if lat.grid:  # the same scan in the kernel, on the implicit row; only changed weights
        W = len(hyp) + 1
        keys = [[j1 * W + j2 for j1, j2 in _matches(hyp, set(g.corrections)) if j1 < j2]
                for g in golds]
        for j1, j2, w in lat.kernel.insertion_weights(s, keys, gold_weight):
            weights[(s * W + j1, s * W + j2)] = w
        return
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
    return best_edit_sequences(lat, [gold])[0]


def best_edit_sequences(lat: Lattice, golds: Sequence[Sequence[GoldEdit]]
                        ) -> list[list[tuple[int, int, str, str]]]:
    """:func:`best_edit_sequence` of several annotators, in one sweep over the lattice.

    The transitive edges are recomputed per source vertex rather than stored,
    so the annotators share that work instead of repeating it.
    """
    verts, src, hyp = lat.vertices, lat.src, lat.hyp
    if lat.grid:
        # one annotator at a time: on the full grid a gold deletion overrides an edge
        # into every vertex of its end row, so overrides can number V per annotator
        paths = [_compiled_paths(lat, [_overrides(lat, gold)])[0] for gold in golds]
    elif lat.kernel is not None:
        paths = _compiled_paths(lat, [_overrides(lat, gold) for gold in golds])
    else:
        paths = _python_paths(lat, [_overrides(lat, gold) for gold in golds])
    seqs = []
    for path in paths:
        seq = []
        for a, b, is_noop in path:
            if not is_noop:
                (i1, j1), (i2, j2) = verts[a], verts[b]
                seq.append((i1, i2, " ".join(src[i1:i2]), " ".join(hyp[j1:j2])))
        seqs.append(seq)
    return seqs


def _overrides(lat: Lattice, gold: Sequence[GoldEdit]) -> dict[tuple[int, int], float]:
    """One annotator's edge weights that differ from the default: (a, b) -> weight."""
    spans: dict[tuple[int, int], list[GoldEdit]] = {}
    for g in gold:
        spans.setdefault((g.start, g.end), []).append(g)
    weights: dict[tuple[int, int], float] = {}
    for (s, e), gs in spans.items():
        if s == e:
            _insertion_weights(lat, s, gs, weights)
    _gold_overrides(lat, spans, weights)
    return weights


def _gold_overrides(lat: Lattice, spans, weights: dict) -> None:
    """Every edge that matches a gold edit (not an insertion) gets weight -|E| in ``weights``.

    An edge (i1, j1) -> (i2, j2) with i1 != i2 matches when (i1, i2) is a gold
    span and ``" ".join(hyp[j1:j2])`` is one of its corrections. Hypothesis
    tokens are non-empty and contain no space, so a non-empty correction ``c``
    equals that text exactly when ``hyp[j1:j2] == c.split(" ")``; the empty
    correction matches every j1 == j2. On the full grid (every (i, j) a vertex)
    the (j1, j2) are found by scanning the hypothesis once per correction; pairs
    that are not edges of the lattice are never looked up by the shortest path,
    so they are harmless. Elsewhere only the lattice's vertices are tried: each
    (i1, j1) at source position i1 (a band, not the whole hypothesis) with the
    one vertex (i2, j1 + the correction's length) that can end the edge.
    Insertion edges weighed by :func:`_insertion_weights` are left as they are.
    """
    gold_weight = -float(lat.num_edges)
    if lat.grid:
        hyp, index = lat.hyp, lat.index
        for (s, e), golds in spans.items():
            if s < e:
                for j1, j2 in _matches(hyp, {c for g in golds for c in g.corrections}):
                    a, b = index.get((s, j1)), index.get((e, j2))
                    if a is not None and b is not None:
                        weights[(a, b)] = gold_weight
        return
    hyp, verts = lat.hyp, lat.vertices
    for (s, e), golds in spans.items():
        if s >= e:
            continue
        lo, hi = lat.row_range(s)
        elo, ehi = lat.row_range(e)
        if lo == hi or elo == ehi:
            continue
        ends = {verts[b][1]: b for b in range(elo, ehi)}  # j2 -> vertex (e, j2)
        for c in {c for g in golds for c in g.corrections}:
            toks = c.split(" ") if c else []
            n = len(toks)
            for a in range(lo, hi):
                j1 = verts[a][1]
                b = ends.get(j1 + n)
                if b is not None and (not n or hyp[j1:j1 + n] == toks):
                    weights[(a, b)] = gold_weight


def _matches(hyp: Sequence[str], corrections: set[str]) -> list[tuple[int, int]]:
    """The (j1, j2) with ``" ".join(hyp[j1:j2])`` in ``corrections`` (tokens have no space)."""
    m = len(hyp)
    pairs: list[tuple[int, int]] = []
    for c in corrections:
        if c == "":
            pairs.extend((j, j) for j in range(m + 1))
        else:
            toks = c.split(" ")
            n, first = len(toks), toks[0]
            pairs.extend((j, j + n) for j in range(m - n + 1)
                         if hyp[j] == first and hyp[j:j + n] == toks)
    return pairs


def _compiled_paths(lat: Lattice, overrides: list[dict]) -> list[list[tuple[int, int, bool]]]:
    items = sorted((a, k, b, w) for k, weights in enumerate(overrides)
                   for (a, b), w in weights.items())
    ov_a, ov_k, ov_b, ov_w = zip(*items, strict=True) if items else ((), (), (), ())
    return lat.kernel.paths(len(overrides), array("i", ov_k), array("i", ov_a),
                            array("i", ov_b), array("d", ov_w))


def _python_paths(lat: Lattice, overrides: list[dict]) -> list[list[tuple[int, int, bool]]]:
    """Shortest paths in topological order; each path as (a, b, is_noop) edges from the start."""
    V = len(lat.vertices)
    K = len(overrides)
    dist: list[list[float | None]] = [[None] * V for _ in range(K)]
    back: list[list[tuple[int, bool]]] = [[(-1, True)] * V for _ in range(K)]
    for k in range(K):
        dist[k][0] = 0.0
    for a in range(V):
        reached = [k for k in range(K) if dist[k][a] is not None]
        if not reached:
            continue
        for b, _, _, is_noop, w0 in _arcs_from(a, lat.preds, lat.succs,
                                               lat.max_unchanged_words)[0]:
            for k in reached:
                w = overrides[k].get((a, b), w0)
                nd = dist[k][a] + w
                db = dist[k][b]
                if db is None or nd < db:
                    dist[k][b] = nd
                    back[k][b] = (a, is_noop)
    paths = []
    for k in range(K):
        path = []
        b = V - 1
        while b > 0:
            a, is_noop = back[k][b]
            path.append((a, b, is_noop))
            b = a
        path.reverse()
        paths.append(path)
    return paths


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
    return sentence_counts_many(lat, [gold], ignore_whitespace_casing)[0]


def sentence_counts_many(lat: Lattice, golds: Sequence[Sequence[GoldEdit]],
                         ignore_whitespace_casing: bool = False) -> list[tuple[int, int, int]]:
    """:func:`sentence_counts` of several annotators (one sweep over the lattice)."""
    out = []
    for gold, seq in zip(golds, best_edit_sequences(lat, golds), strict=True):
        if ignore_whitespace_casing:
            seq = [e for e in seq if not _same_ignoring_whitespace_casing(e[2], e[3])]
        out.append((match_count(seq, gold), len(seq), len(gold)))
    return out
