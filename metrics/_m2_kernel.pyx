# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled M2 kernel: transitive edges, weights and shortest path on integer arrays.

Speed path of :mod:`gecmetrics.metrics.m2_lattice`, same contract and same
numbers as its pure-Python code (``_arcs_from``, ``_count_arcs`` and
``_python_paths``), which stays as the fallback and is checked against this
kernel in ``tests/test_m2_fast.py``.

Input: the merged base lattice with vertices numbered in lexicographic (hence
topological) order, as CSR arrays: ``succ_*`` (successors of each vertex,
sorted by target; their "unchanged word" flag and their multiplicity in the
official edge list) and ``pred_*`` (predecessors of each vertex, sorted by
source; their unchanged flag).

The transitive edges are never stored: their number grows with the fourth
power of the length of a fully rewritten sentence. :class:`Lattice` recomputes
the edges out of a vertex when they are needed (one forward pass in vertex
order over the vertices reachable from it, exactly as ``_arcs_from``), with
O(V) scratch memory: :meth:`Lattice.count` (|E| and the number of edges, with
a budget), :meth:`Lattice.arcs`, :meth:`Lattice.row_arcs` and
:meth:`Lattice.paths`, the shortest paths of several annotators in one sweep
over the source vertices in topological order. Every edge that is not
overridden (gold edges, insertion edges weighed by the two-pointer scan)
weighs ``d`` plus 0.001 added ``mult`` times, as doubles added in the same
order as the Python code, so sums round identically (no fused or reordered
floating-point operations here).
"""

from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport int32_t, int64_t, uint8_t
from cpython cimport array
from libc.stdlib cimport calloc, free, malloc, qsort, realloc

import array as _array_module


cdef double _EPSILON = 0.001
#: The long loops (over the vertices of a lattice, the rows of a grid) take the GIL
#: back every this many steps to run Python's signal handlers (PyErr_CheckSignals):
#: without it, Ctrl-C and SIGTERM (which the CLI turns into exceptions) wait until
#: the kernel returns, minutes on a large lattice.
cdef int32_t SIGNAL_CHECK_EVERY = 64


cdef class Lattice:
    """The base lattice (CSR arrays) and scratch space to recompute its transitive edges."""

    cdef int32_t V
    cdef int max_unchanged
    cdef const int32_t[:] succ_start
    cdef const int32_t[:] succ_b
    cdef const uint8_t[:] succ_noop
    cdef const int32_t[:] succ_mult
    cdef const int32_t[:] pred_start
    cdef const int32_t[:] pred_k
    cdef const uint8_t[:] pred_noop
    # scratch of one forward pass (stamped with the pass number, never cleared)
    cdef int32_t epoch
    cdef int32_t *stamp
    cdef int32_t *isbase
    cdef int32_t *queued
    cdef int32_t *sd
    cdef int32_t *su
    cdef int32_t *sm
    # the edges out of the last source vertex, sorted by target
    cdef int32_t n_out
    cdef int32_t *otgt
    cdef int32_t *od
    cdef int32_t *om
    cdef uint8_t *onoop
    # all edges (CSR by source vertex), kept by count() when few enough; NULL otherwise
    cdef int64_t *kstart
    cdef int32_t *ktgt
    cdef int32_t *kd
    cdef int32_t *km
    cdef uint8_t *knoop
    # the edges _edges_of() found: the scratch buffers above or a slice of the kept ones
    cdef int32_t e_n
    cdef int32_t *e_tgt
    cdef int32_t *e_d
    cdef int32_t *e_m
    cdef uint8_t *e_noop

    def __cinit__(self, int V,
                  const int32_t[:] succ_start, const int32_t[:] succ_b,
                  const uint8_t[:] succ_noop, const int32_t[:] succ_mult,
                  const int32_t[:] pred_start, const int32_t[:] pred_k,
                  const uint8_t[:] pred_noop, int max_unchanged):
        self.V = V
        self.max_unchanged = max_unchanged
        self.succ_start = succ_start
        self.succ_b = succ_b
        self.succ_noop = succ_noop
        self.succ_mult = succ_mult
        self.pred_start = pred_start
        self.pred_k = pred_k
        self.pred_noop = pred_noop
        self.epoch = 0
        self.kstart = NULL
        self.ktgt = NULL
        self.kd = NULL
        self.km = NULL
        self.knoop = NULL
        cdef size_t n = V + 1
        self.stamp = <int32_t *> calloc(n, sizeof(int32_t))
        self.isbase = <int32_t *> calloc(n, sizeof(int32_t))
        self.queued = <int32_t *> calloc(n, sizeof(int32_t))
        self.sd = <int32_t *> malloc(n * sizeof(int32_t))
        self.su = <int32_t *> malloc(n * sizeof(int32_t))
        self.sm = <int32_t *> malloc(n * sizeof(int32_t))
        self.otgt = <int32_t *> malloc(n * sizeof(int32_t))
        self.od = <int32_t *> malloc(n * sizeof(int32_t))
        self.om = <int32_t *> malloc(n * sizeof(int32_t))
        self.onoop = <uint8_t *> malloc(n * sizeof(uint8_t))
        if (self.stamp == NULL or self.isbase == NULL or self.queued == NULL
                or self.sd == NULL or self.su == NULL or self.sm == NULL or self.otgt == NULL
                or self.od == NULL or self.om == NULL or self.onoop == NULL):
            raise MemoryError()

    def __dealloc__(self):
        free(self.stamp); free(self.isbase); free(self.queued)
        free(self.sd); free(self.su); free(self.sm)
        free(self.otgt); free(self.od); free(self.om); free(self.onoop)
        self._drop_kept()

    cdef void _drop_kept(self) noexcept nogil:
        free(self.kstart); free(self.ktgt); free(self.kd); free(self.km); free(self.knoop)
        self.kstart = NULL
        self.ktgt = NULL
        self.kd = NULL
        self.km = NULL
        self.knoop = NULL

    cdef void _edges_of(self, int32_t a) noexcept nogil:
        """Point ``e_*`` at the edges out of ``a``: kept ones, or recomputed."""
        cdef int64_t s0
        if self.kstart != NULL:
            s0 = self.kstart[a]
            self.e_n = <int32_t> (self.kstart[a + 1] - s0)
            self.e_tgt = self.ktgt + s0
            self.e_d = self.kd + s0
            self.e_m = self.km + s0
            self.e_noop = self.knoop + s0
        else:
            self._pass(a, self.V)
            self.e_n = self.n_out
            self.e_tgt = self.otgt
            self.e_d = self.od
            self.e_m = self.om
            self.e_noop = self.onoop

    cdef void _pass(self, int32_t a, int32_t limit) noexcept nogil:
        """The edges out of ``a`` with targets below ``limit`` into ``o*`` (see ``_arcs_from``).

        Vertices below ``limit`` depend only on vertices below it (topological
        order), so a limited pass gives the same edges as a full one, cut.
        """
        cdef int32_t b, c, k, lo, hi, best_d, best_u, imp, d, u
        cdef int32_t ep
        cdef int64_t e, f, p
        self.n_out = 0
        if self.succ_start[a] == self.succ_start[a + 1]:
            return
        self.epoch += 1
        ep = self.epoch
        lo = self.V
        hi = -1
        # base successors: fixed at one base edge
        for e in range(self.succ_start[a], self.succ_start[a + 1]):
            b = self.succ_b[e]
            if b >= limit:
                continue
            self.stamp[b] = ep
            self.isbase[b] = ep
            self.sd[b] = 1
            self.su[b] = self.succ_noop[e]
            self.sm[b] = self.succ_mult[e]
            if b < lo:
                lo = b
            if b > hi:
                hi = b
        if hi < 0:
            return
        for e in range(self.succ_start[a], self.succ_start[a + 1]):
            b = self.succ_b[e]
            if b >= limit:
                continue
            for f in range(self.succ_start[b], self.succ_start[b + 1]):
                c = self.succ_b[f]
                if c < limit and self.isbase[c] != ep:
                    self.queued[c] = ep
                    if c > hi:
                        hi = c
        # forward pass in vertex (topological) order; hi grows as vertices are reached
        b = lo - 1
        while b < hi:
            b += 1
            if self.queued[b] != ep:
                continue
            best_d = -1
            best_u = 0
            imp = 0
            for p in range(self.pred_start[b], self.pred_start[b + 1]):
                k = self.pred_k[p]
                if self.stamp[k] != ep:
                    continue
                d = self.sd[k] + 1
                u = self.su[k] + self.pred_noop[p]
                if u > self.max_unchanged:
                    continue
                if best_d < 0 or d < best_d:
                    best_d = d
                    best_u = u
                    imp += 1
            if best_d < 0:
                continue
            self.stamp[b] = ep
            self.sd[b] = best_d
            self.su[b] = best_u
            self.sm[b] = imp
            for f in range(self.succ_start[b], self.succ_start[b + 1]):
                c = self.succ_b[f]
                if c < limit and self.isbase[c] != ep:
                    self.queued[c] = ep
                    if c > hi:
                        hi = c
        # the edges out of a, sorted by target
        for b in range(lo, hi + 1):
            if self.stamp[b] != ep:
                continue
            if self.su[b] == self.sd[b] and self.sd[b] > 1:
                continue  # transitive edges of unchanged words only are removed
            self.otgt[self.n_out] = b
            self.od[self.n_out] = self.sd[b]
            self.om[self.n_out] = self.sm[b]
            self.onoop[self.n_out] = 1 if self.su[b] == self.sd[b] else 0
            self.n_out += 1

    def count(self, int64_t max_arcs, int64_t keep_arcs):
        """(edges, |E|): edges stored once each, and the official edge-list length.

        Stops early and returns None once there are more than ``max_arcs``
        edges. While there are at most ``keep_arcs`` edges they are kept (13
        bytes each), so that :meth:`paths` does not recompute them: small
        lattices, the usual case, then cost one forward pass per vertex
        instead of two.
        """
        cdef int64_t n_arcs = 0, n_listed = 0, cap = 0
        cdef int32_t a, e
        cdef bint over = False
        cdef bint keep = keep_arcs > 0
        self._drop_kept()
        if keep:
            cap = keep_arcs if keep_arcs < 4 * (<int64_t> self.V + 1) else 4 * (<int64_t> self.V + 1)
            if not self._reserve(cap):
                keep = False
        try:
            with nogil:
                for a in range(self.V):
                    if a % SIGNAL_CHECK_EVERY == 0:
                        with gil:
                            PyErr_CheckSignals()
                    self._pass(a, self.V)
                    if keep:
                        self.kstart[a] = n_arcs
                        if n_arcs + self.n_out > keep_arcs:
                            keep = False
                        elif n_arcs + self.n_out > cap:
                            while cap < n_arcs + self.n_out:
                                cap *= 2
                            keep = self._reserve(cap)
                        if keep:
                            for e in range(self.n_out):
                                self.ktgt[n_arcs + e] = self.otgt[e]
                                self.kd[n_arcs + e] = self.od[e]
                                self.km[n_arcs + e] = self.om[e]
                                self.knoop[n_arcs + e] = self.onoop[e]
                    n_arcs += self.n_out
                    for e in range(self.n_out):
                        n_listed += self.om[e]
                    if n_arcs > max_arcs:
                        over = True
                        break
        except BaseException:  # a signal handler's exception: nothing kept
            self._drop_kept()
            raise
        if keep and not over:
            self.kstart[self.V] = n_arcs
        else:
            self._drop_kept()
        if over:
            return None
        return n_arcs, n_listed

    cdef bint _reserve(self, int64_t cap) noexcept nogil:
        """Grow the kept-edge arrays to ``cap`` edges; False (and nothing kept) if out of memory."""
        cdef void *p
        if self.kstart == NULL:
            self.kstart = <int64_t *> malloc((self.V + 1) * sizeof(int64_t))
            if self.kstart == NULL:
                self._drop_kept()
                return False
        p = realloc(self.ktgt, cap * sizeof(int32_t))
        if p == NULL:
            self._drop_kept()
            return False
        self.ktgt = <int32_t *> p
        p = realloc(self.kd, cap * sizeof(int32_t))
        if p == NULL:
            self._drop_kept()
            return False
        self.kd = <int32_t *> p
        p = realloc(self.km, cap * sizeof(int32_t))
        if p == NULL:
            self._drop_kept()
            return False
        self.km = <int32_t *> p
        p = realloc(self.knoop, cap * sizeof(uint8_t))
        if p == NULL:
            self._drop_kept()
            return False
        self.knoop = <uint8_t *> p
        return True

    def arcs(self, int a):
        """The edges out of ``a`` as ``m2_lattice`` lists them: (b, d, mult, is_noop, weight)."""
        if a < 0 or a >= self.V:
            raise IndexError(a)
        cdef int32_t e
        cdef list out = []
        self._pass(a, self.V)
        for e in range(self.n_out):
            out.append((self.otgt[e], self.od[e], self.om[e], bool(self.onoop[e]),
                        _weight(self.od[e], self.om[e], self.onoop[e])))
        return out

    def row_arcs(self, int lo, int hi):
        """Edges (a, b, d, mult) with both ends in the vertex range [lo, hi), sorted."""
        cdef int32_t a, e
        cdef list out = []
        for a in range(lo, hi):
            self._pass(a, hi)
            for e in range(self.n_out):
                out.append((a, self.otgt[e], self.od[e], self.om[e]))
        return out

    def paths(self, int K, const int32_t[:] ov_k, const int32_t[:] ov_a,
              const int32_t[:] ov_b, const double[:] ov_w):
        """Shortest paths from vertex 0 to vertex V-1 of K annotators, in topological order.

        Override ``q`` gives annotator ``ov_k[q]``'s edge ``ov_a[q] -> ov_b[q]``
        the weight ``ov_w[q]`` (overrides sorted by source vertex); every other
        edge weighs ``d``, plus 0.001 added ``mult`` times unless it is
        unchanged words. Ties keep the earliest source vertex. Returns, per
        annotator, the path as a list of (a, b, is_noop) from the start.
        """
        cdef int32_t V = self.V
        cdef int64_t KV = <int64_t> K * (V + 1)
        cdef Py_ssize_t n_ov = ov_a.shape[0]
        cdef double *dist = <double *> malloc(KV * sizeof(double))
        cdef double *ovw = <double *> malloc(KV * sizeof(double))
        cdef int32_t *ovmark = <int32_t *> malloc(KV * sizeof(int32_t))
        cdef int32_t *back = <int32_t *> malloc(KV * sizeof(int32_t))
        cdef uint8_t *back_noop = <uint8_t *> malloc(KV * sizeof(uint8_t))
        cdef uint8_t *has = <uint8_t *> calloc(KV, sizeof(uint8_t))
        if (dist == NULL or ovw == NULL or ovmark == NULL or back == NULL
                or back_noop == NULL or has == NULL):
            free(dist); free(ovw); free(ovmark); free(back); free(back_noop); free(has)
            raise MemoryError()
        cdef int32_t a, b, e, k
        cdef int64_t row, i
        cdef Py_ssize_t q = 0
        cdef double da, w0, w, nd
        cdef bint any_reached
        cdef list out = []
        cdef list path
        try:
            for i in range(KV):
                ovmark[i] = -1
                back[i] = -1
                back_noop[i] = 1
            if V == 0:
                return [[] for _ in range(K)]
            for k in range(K):
                dist[<int64_t> k * (V + 1)] = 0.0
                has[<int64_t> k * (V + 1)] = 1
            with nogil:
                for a in range(V):
                    if a % SIGNAL_CHECK_EVERY == 0:
                        with gil:
                            PyErr_CheckSignals()
                    while q < n_ov and ov_a[q] < a:
                        q += 1
                    while q < n_ov and ov_a[q] == a:
                        row = <int64_t> ov_k[q] * (V + 1)
                        ovmark[row + ov_b[q]] = a
                        ovw[row + ov_b[q]] = ov_w[q]
                        q += 1
                    any_reached = False
                    for k in range(K):
                        if has[<int64_t> k * (V + 1) + a]:
                            any_reached = True
                    if not any_reached:
                        continue
                    self._edges_of(a)
                    for e in range(self.e_n):
                        b = self.e_tgt[e]
                        w0 = _weight(self.e_d[e], self.e_m[e], self.e_noop[e])
                        for k in range(K):
                            row = <int64_t> k * (V + 1)
                            if not has[row + a]:
                                continue
                            da = dist[row + a]
                            if ovmark[row + b] == a:
                                w = ovw[row + b]
                            else:
                                w = w0
                            nd = da + w
                            if not has[row + b] or nd < dist[row + b]:
                                dist[row + b] = nd
                                has[row + b] = 1
                                back[row + b] = a
                                back_noop[row + b] = self.e_noop[e]
            for k in range(K):
                row = <int64_t> k * (V + 1)
                path = []
                b = V - 1
                while b > 0:
                    a = back[row + b]
                    path.append((a, b, bool(back_noop[row + b])))
                    b = a
                path.reverse()
                out.append(path)
            return out
        finally:
            free(dist); free(ovw); free(ovmark); free(back); free(back_noop); free(has)


cdef inline double _weight(int32_t d, int32_t mult, uint8_t noop) noexcept nogil:
    cdef double w = <double> d
    cdef int32_t m
    if not noop:
        for m in range(mult):
            w = w + _EPSILON
    return w


# ----------------------------------------------------------------------------
# The full grid: a sentence pair with no token in common
# ----------------------------------------------------------------------------

cdef class Grid:
    """The lattice of a pair that shares no token, its edges implicit (closed form).

    When no source token equals a hypothesis token, every alignment costs
    n + m under substitution cost 2, so the base lattice is the whole
    (n+1) x (m+1) grid (steps down, right and diagonal), and the forward pass
    of ``_arcs_from`` has a closed form: from ``a`` there is an edge to every
    ``b >= a`` (componentwise), ``b != a``, with ``d = max(bi - ai, bj - aj)``
    base edges, no unchanged word, and multiplicity 1, except the base edges,
    listed once more when they are also on an optimal alignment under
    substitution cost 1 (``max(i, j)`` is then the distance from the start and
    ``max(n - i, m - j)`` to the end). Its weight is ``d + 0.001`` (base
    edges: ``1 + 0.001 [+ 0.001]``), added as ``_weight`` adds it.

    The shortest path never lists the edges: an edge into ``b`` from ring
    ``t`` (the vertices at Chebyshev distance ``t`` above and left of ``b``)
    weighs ``c_t = t + 0.001`` whatever its start, and float addition is
    monotone, so the best value from ring ``t`` is ``fl(min(dist on ring) +
    c_t)``. The ring minima come from two running window-minimum tables (the
    top row of the ring: a window of the row ``bi - t``; its left column: a
    window of column ``bj - t`` ending at row ``bi``), so ``b`` costs
    O(max(bi, bj)) instead of O(bi * bj). Ties are broken as
    ``Lattice.paths`` breaks them: among the start vertices whose float sum
    equals the minimum, the first in vertex order, found on the tied rings
    with sparse tables of the finished rows and columns (``_first_hit``), in
    O(log n) a ring: when long sentences' sums lose the 0.001 increments
    nearly every ring ties, and reading them vertex by vertex took minutes at
    1,000 tokens. A vertex with an overridden edge into it (gold edges, insertion
    edges weighed by the two-pointer scan) is relaxed edge by edge, as the
    general kernel does. Vertex ``(i, j)`` has index ``i * (m + 1) + j``
    (lexicographic order, as the general lattice numbers its vertices).
    """

    cdef int32_t n, m, W
    cdef int64_t V
    cdef uint8_t *d1   # cost-1 alignment flags of the base edges into (i, j): 1 diag, 2 down, 4 right
    cdef double *ct    # ct[t] = t + 0.001 (weight of a non-base edge of length t)

    def __cinit__(self, int n, int m):
        cdef int32_t i, j, D, f
        self.n = n
        self.m = m
        self.W = m + 1
        self.V = <int64_t> (n + 1) * (m + 1)
        self.d1 = <uint8_t *> calloc(self.V, sizeof(uint8_t))
        cdef int32_t T = (n if n > m else m) + 2
        self.ct = <double *> malloc(T * sizeof(double))
        if self.d1 == NULL or self.ct == NULL:
            raise MemoryError()
        for i in range(T):
            self.ct[i] = _weight(i, 1, 0)
        D = n if n > m else m
        for i in range(n + 1):
            for j in range(m + 1):
                f = 0
                if i > 0 and j > 0 and _cheb(i - 1, j - 1) + 1 + _cheb(n - i, m - j) == D:
                    f |= 1
                if i > 0 and _cheb(i - 1, j) + 1 + _cheb(n - i, m - j) == D:
                    f |= 2
                if j > 0 and _cheb(i, j - 1) + 1 + _cheb(n - i, m - j) == D:
                    f |= 4
                self.d1[<int64_t> i * self.W + j] = f

    def __dealloc__(self):
        free(self.d1)
        free(self.ct)

    def counts(self):
        """(edges, |E|): every pair a <= b, a != b, plus the second listings of base edges."""
        cdef int64_t n1 = self.n + 1, m1 = self.m + 1, extra = 0, v
        for v in range(self.V):
            extra += (self.d1[v] & 1) + ((self.d1[v] >> 1) & 1) + ((self.d1[v] >> 2) & 1)
        arcs = (n1 * (n1 + 1) // 2) * (m1 * (m1 + 1) // 2) - n1 * m1
        return arcs, arcs + extra

    cdef inline double _w(self, int32_t ai, int32_t aj, int32_t bi, int32_t bj) noexcept nogil:
        """Default weight of the edge (ai, aj) -> (bi, bj) (a <= b, a != b)."""
        cdef int32_t t = _cheb(bi - ai, bj - aj)
        cdef uint8_t f
        if t > 1:
            return self.ct[t]
        f = self.d1[<int64_t> bi * self.W + bj]
        if ai < bi and aj < bj:
            return _weight(1, 2 if f & 1 else 1, 0)
        if ai < bi:
            return _weight(1, 2 if f & 2 else 1, 0)
        return _weight(1, 2 if f & 4 else 1, 0)

    cdef inline int32_t _mult(self, int32_t ai, int32_t aj, int32_t bi, int32_t bj) noexcept nogil:
        cdef uint8_t f
        if _cheb(bi - ai, bj - aj) > 1:
            return 1
        f = self.d1[<int64_t> bi * self.W + bj]
        if ai < bi and aj < bj:
            return 2 if f & 1 else 1
        if ai < bi:
            return 2 if f & 2 else 1
        return 2 if f & 4 else 1

    def arcs(self, int a):
        """The edges out of ``a``: (b, d, mult, is_noop, weight), sorted by b (as ``Lattice.arcs``)."""
        if a < 0 or a >= self.V:
            raise IndexError(a)
        cdef int32_t ai = a // self.W, aj = a % self.W, bi, bj
        cdef list out = []
        for bi in range(ai, self.n + 1):
            for bj in range(aj, self.m + 1):
                if bi == ai and bj == aj:
                    continue
                out.append((bi * self.W + bj, _cheb(bi - ai, bj - aj), self._mult(ai, aj, bi, bj),
                            False, self._w(ai, aj, bi, bj)))
        return out

    def row_arcs(self, int lo, int hi):
        """Edges (a, b, d, mult) with both ends in the vertex range [lo, hi) of one row, sorted."""
        cdef int32_t a, b
        cdef list out = []
        for a in range(lo, hi):
            for b in range(a + 1, hi):
                out.append((a, b, b - a,
                            self._mult(a // self.W, a % self.W, b // self.W, b % self.W)))
        return out

    def insertion_weights(self, int s, list gold_keys, double gold_weight):
        """The official two-pointer scan of the insertion edges of row ``s`` (``_insertion_weights``).

        ``gold_keys[g]``: the sorted keys ``j1 * (m + 1) + j2`` of the row's
        edges whose text is one of gold edit g's corrections. Returns the
        (j1, j2, weight) of the edges whose weight differs from the default.
        """
        cdef int32_t m = self.m, W = self.W, G = len(gold_keys)
        cdef int64_t E = <int64_t> m * (m + 1) // 2, L = 0, e, x
        cdef int32_t j1, j2, g
        cdef list out = []
        if E == 0:
            return out
        for j1 in range(m):
            L += 1 if not (self.d1[<int64_t> s * W + j1 + 1] & 4) else 2
        L += E - m
        cdef int32_t *lj1 = <int32_t *> malloc(L * sizeof(int32_t))
        cdef int32_t *lj2 = <int32_t *> malloc(L * sizeof(int32_t))
        cdef int64_t *off = <int64_t *> malloc((m + 1) * sizeof(int64_t))
        cdef double *wt = <double *> malloc(E * sizeof(double))
        cdef list flat = []
        cdef int64_t *goff = <int64_t *> malloc((G + 1) * sizeof(int64_t))
        if goff == NULL:
            raise MemoryError()
        goff[0] = 0
        for g in range(G):
            flat.extend(sorted(gold_keys[g]))
            goff[g + 1] = len(flat)
        cdef int64_t *gkeys = <int64_t *> malloc((len(flat) + 1) * sizeof(int64_t))
        for x in range(len(flat)):
            gkeys[x] = flat[x]
        cdef int64_t lptr, rptr, cur, glo, ghi
        cdef bint left, matched
        cdef int64_t ea, eb
        try:
            if lj1 == NULL or lj2 == NULL or off == NULL or wt == NULL or gkeys == NULL:
                raise MemoryError()
            x = 0
            e = 0
            for j1 in range(m):
                off[j1] = e
                for j2 in range(j1 + 1, m + 1):
                    wt[e] = <double> (j2 - j1)
                    lj1[x] = j1
                    lj2[x] = j2
                    x += 1
                    if j2 == j1 + 1 and self.d1[<int64_t> s * W + j2] & 4:
                        lj1[x] = j1
                        lj2[x] = j2
                        x += 1
                    e += 1
            lptr, rptr, cur = 0, L - 1, 0
            glo, ghi = 0, G - 1
            while lptr <= rptr:
                ea, eb = lj1[cur], lj2[cur]
                e = off[ea] + eb - ea - 1
                left = cur == lptr
                matched = False
                g = glo if left else ghi
                while glo <= g <= ghi:
                    if _has_key(gkeys, goff[g], goff[g + 1], ea * W + eb):
                        matched = True
                        wt[e] = gold_weight
                        if left:
                            glo = g + 1
                        else:
                            ghi = g - 1
                        break
                    g += 1 if left else -1
                if not matched:
                    wt[e] = wt[e] + _EPSILON
                    if left:
                        lptr += 1
                        cur = rptr
                    else:
                        rptr -= 1
                        cur = lptr
                elif left:
                    lptr += 1
                    while lptr < L and lj1[lptr] != eb:
                        x = off[lj1[lptr]] + lj2[lptr] - lj1[lptr] - 1
                        wt[x] = wt[x] + _EPSILON
                        lptr += 1
                    cur = lptr
                else:
                    rptr -= 1
                    while rptr >= 0 and lj2[rptr] != ea:
                        x = off[lj1[rptr]] + lj2[rptr] - lj1[rptr] - 1
                        wt[x] = wt[x] + _EPSILON
                        rptr -= 1
                    cur = rptr
            for j1 in range(m):
                for j2 in range(j1 + 1, m + 1):
                    e = off[j1] + j2 - j1 - 1
                    if wt[e] != self._w(s, j1, s, j2):
                        out.append((j1, j2, wt[e]))
            return out
        finally:
            free(lj1); free(lj2); free(off); free(wt); free(goff); free(gkeys)

    def paths(self, int K, const int32_t[:] ov_k, const int32_t[:] ov_a,
              const int32_t[:] ov_b, const double[:] ov_w):
        """Shortest paths from vertex 0 to the last vertex, as ``Lattice.paths`` (same arguments)."""
        cdef list out = []
        cdef int32_t k
        cdef Py_ssize_t q
        cdef list items
        for k in range(K):
            items = sorted((ov_b[q], ov_a[q], ov_w[q]) for q in range(ov_a.shape[0]) if ov_k[q] == k)
            if not items:
                # every weight is the default: the one edge from the start to the end
                # (cost max(n, m) + 0.001) is the only shortest path, since a path of k
                # edges costs at least max(n, m) + k * 0.001
                out.append([(0, self.V - 1, False)] if self.V > 1 else [])
            else:
                out.append(self._path(items))
        return out

    cdef list _path(self, list items):
        """One annotator's path; ``items``: its overrides (b, a, weight), sorted.

        Every ring ``t >= 2`` of ``b = (bi, bj)`` is read from four tables
        that cover the rows before ``bi`` and are updated once per row, each
        read contiguously (the edges into a row's vertices are relaxed while
        the row is computed, so only its own vertices are read directly):

        - top row of the ring, ``(bi - t, max(0, bj - t) .. bj)``:
          ``ST[bj][r]``, the minimum of row ``r`` over the window
          ``[bj - (bi - r), bj]``, widened by one column per row;
        - left column of the ring, rows ``bi - t + 1 .. bi - 1`` of column
          ``c = bj - t``: ``G[bj - bi][c]``, the minimum of column ``c`` from
          row ``c - (bj - bi) + 1`` on (fixed per diagonal ``bj - bi``),
          lengthened by one row per row; ``P[c]`` (all rows) when that start
          is above row 0;
        - ``(bi, bj - t)``: the current row itself.

        ``K`` is a copy of the distances by diagonal, so that widening
        ``ST`` reads contiguous memory.
        """
        cdef int32_t n = self.n, m = self.m, W = self.W
        cdef int64_t V = self.V, R = n + 1, ND = n + m + 1
        cdef Py_ssize_t n_ov = len(items), q
        cdef double *dist = <double *> malloc(V * sizeof(double))
        cdef int32_t *back = <int32_t *> malloc(V * sizeof(int32_t))
        cdef double *ST = <double *> malloc(V * sizeof(double))
        # K and G hold one diagonal per row, only its cells that can be read: a
        # diagonal has at most min(n, m) + 1 vertices (K: by row, from its first),
        # and G's windows of it lie in rows 0 .. n - 1 (by row, from column dlt),
        # so that memory stays O(V) on narrow grids (n x m with n << m or m << n)
        cdef int64_t KW = (n if n < m else m) + 1, GW = n + 1
        cdef double *K = <double *> malloc(ND * KW * sizeof(double))
        cdef double *G = <double *> malloc(ND * GW * sizeof(double))
        cdef double *P = <double *> malloc(W * sizeof(double))
        # QM[b]: the minimum of dist over the vertices a <= b (a lower bound for every ring)
        cdef double *QM = <double *> malloc(V * sizeof(double))
        # sparse tables for the tie scan: CD is dist by column (c * R + r); RT and CU
        # hold levels k >= 1 (level k at (k - 1) * V): the minimum of 2^k consecutive
        # entries of a row (RT, from column c) or a column (CU, from row r)
        cdef int32_t KR = 1, KC = 1, half, rb, cb, k
        while (1 << KR) <= W:
            KR += 1
        while (1 << KC) <= R:
            KC += 1
        cdef double *RT = <double *> malloc((KR - 1) * V * sizeof(double) + 8)
        cdef double *CU = <double *> malloc((KC - 1) * V * sizeof(double) + 8)
        cdef double *CD = <double *> malloc(V * sizeof(double))
        # lg[L] = floor(log2 L), for the range-minimum test of _first_hit
        cdef int32_t *lg = <int32_t *> malloc((W + R + 2) * sizeof(int32_t))
        cdef const double *src
        cdef double *dst
        cdef double qmin
        cdef int32_t *ovb = <int32_t *> malloc((n_ov + 1) * sizeof(int32_t))
        cdef int32_t *ova = <int32_t *> malloc((n_ov + 1) * sizeof(int32_t))
        cdef double *ovw = <double *> malloc((n_ov + 1) * sizeof(double))
        # one entry per ring and loop, ring 1 three times, one per overridden edge
        cdef int32_t *tied = <int32_t *> malloc((4 * (n + m) + 8 + n_ov) * sizeof(int32_t))
        cdef int32_t *seen = <int32_t *> calloc(n + m + 2, sizeof(int32_t))
        cdef int32_t bi, bj, ai, aj, t, T, r, c, ntied, x, top_r, c0, dlt, lo, hi, stamp = 0
        cdef Py_ssize_t qe
        cdef bint brute
        cdef int64_t b, a, besta, p
        cdef double best, v, w
        cdef const double *ct = self.ct
        cdef const double *row
        cdef Py_ssize_t qp = 0
        cdef list path
        try:
            if (dist == NULL or back == NULL or ST == NULL or K == NULL or G == NULL or P == NULL
                    or ovb == NULL or ova == NULL or ovw == NULL or tied == NULL or seen == NULL
                    or QM == NULL or RT == NULL or CU == NULL or CD == NULL
                    or lg == NULL):
                raise MemoryError()
            lg[0] = 0
            lg[1] = 0
            for x in range(2, W + R + 2):
                lg[x] = lg[x // 2] + 1
            for q in range(n_ov):
                ovb[q], ova[q], ovw[q] = items[q]
            ovb[n_ov] = -1
            with nogil:
                for bi in range(n + 1):
                    with gil:  # a row: up to 1,000 vertices x their rings
                        PyErr_CheckSignals()
                    for bj in range(m + 1):
                        b = <int64_t> bi * W + bj
                        if b == 0:
                            dist[0] = 0.0
                            back[0] = -1
                            K[(<int64_t> n) * KW] = 0.0
                            QM[0] = 0.0
                            continue
                        while qp < n_ov and ovb[qp] < b:
                            qp += 1
                        # b's overridden edges are ova/ovw[qp:qe]; relax edge by edge only if
                        # one is heavier than its default (else the ring minima still bound it)
                        qe = qp
                        brute = False
                        while qe < n_ov and ovb[qe] == b:
                            if ovw[qe] > self._w(ova[qe] // W, ova[qe] % W, bi, bj):
                                brute = True
                            qe += 1
                        if brute:
                            # relax every edge into b, in vertex order
                            besta = -1
                            best = 0.0
                            q = qp
                            for ai in range(bi + 1):
                                for aj in range(bj + 1):
                                    a = <int64_t> ai * W + aj
                                    if a == b:
                                        continue
                                    while q < n_ov and ovb[q] == b and ova[q] < a:
                                        q += 1
                                    if q < n_ov and ovb[q] == b and ova[q] == a:
                                        w = ovw[q]
                                    else:
                                        w = self._w(ai, aj, bi, bj)
                                    v = dist[a] + w
                                    if besta < 0 or v < best:
                                        best = v
                                        besta = a
                        else:
                            best = 0.0
                            ntied = 0
                            # ring 1: the base edges, each with its own weight
                            if bi > 0 and bj > 0:
                                _consider(dist[b - W - 1] + self._w(bi - 1, bj - 1, bi, bj), 1,
                                          &best, tied, &ntied)
                            if bi > 0:
                                _consider(dist[b - W] + self._w(bi - 1, bj, bi, bj), 1,
                                          &best, tied, &ntied)
                            if bj > 0:
                                _consider(dist[b - 1] + self._w(bi, bj - 1, bi, bj), 1,
                                          &best, tied, &ntied)
                            # overridden edges (gold edges: lighter than by default)
                            for q in range(qp, qe):
                                _consider(dist[ova[q]] + ovw[q], 0, &best, tied, &ntied)
                            # rings t >= 2, each loop stopping at the first t whose bound
                            # fl(qmin + c_t) is over best (c_t grows with t; addition is
                            # monotone, so no vertex of a later ring can reach best)
                            if bi > 0 and bj > 0:
                                qmin = QM[b - W] if QM[b - W] < QM[b - 1] else QM[b - 1]
                            elif bi > 0:
                                qmin = QM[b - W]
                            else:
                                qmin = QM[b - 1]
                            # top rows
                            row = ST + <int64_t> bj * R + bi
                            for t in range(2, bi + 1):
                                if qmin + ct[t] > best:
                                    break
                                v = row[-t] + ct[t]
                                if v <= best:
                                    _consider(v, t, &best, tied, &ntied)
                            # left columns, rows before bi
                            dlt = bj - bi
                            hi = bi if bi < bj else bj
                            row = G + <int64_t> (dlt + n) * GW + bi
                            for t in range(2, hi + 1):
                                if qmin + ct[t] > best:
                                    break
                                v = row[-t] + ct[t]
                                if v <= best:
                                    _consider(v, t, &best, tied, &ntied)
                            lo = bi + 1 if bi + 1 > 2 else 2
                            if bi == 0:
                                lo = bj + 1  # no row above: P is empty
                            for t in range(lo, bj + 1):
                                if qmin + ct[t] > best:
                                    break
                                v = P[bj - t] + ct[t]
                                if v <= best:
                                    _consider(v, t, &best, tied, &ntied)
                            # left columns, row bi
                            row = dist + b
                            for t in range(2, bj + 1):
                                if qmin + ct[t] > best:
                                    break
                                v = row[-t] + ct[t]
                                if v <= best:
                                    _consider(v, t, &best, tied, &ntied)
                            # the first start vertex (in vertex order) that gives best: on
                            # the tied rings, or an overridden edge (ring "0")
                            besta = V
                            for q in range(qp, qe):
                                if dist[ova[q]] + ovw[q] == best and ova[q] < besta:
                                    besta = ova[q]
                            # tied rings from the largest t down: ring t's first vertex
                            # comes before every vertex of the smaller rings (row bi - t, or
                            # row 0 at column bj - t), so the scan stops at the first ring
                            # that starts at or after the earliest hit so far
                            stamp += 1
                            T = 0
                            for x in range(ntied):
                                t = tied[x]
                                seen[t] = stamp
                                if t > T:
                                    T = t
                            for t in range(T, 0, -1):
                                if seen[t] != stamp:
                                    continue
                                top_r = bi - t
                                c0 = bj - t
                                if top_r >= 0:
                                    a = <int64_t> top_r * W + (c0 if c0 > 0 else 0)
                                else:
                                    a = c0
                                if a >= besta:
                                    break
                                if t == 1:  # the base edges, each with its own weight
                                    for c in range(c0 if c0 > 0 else 0,
                                                   bj + 1 if top_r >= 0 else 0):
                                        a = <int64_t> top_r * W + c
                                        if a < besta and dist[a] + _wov(
                                                self._w(top_r, c, bi, bj), a, ova, ovw, qp,
                                                qe) == best:
                                            besta = a
                                            break
                                    a = <int64_t> bi * W + c0
                                    if c0 >= 0 and a < besta and dist[a] + _wov(
                                            self._w(bi, c0, bi, bj), a, ova, ovw, qp,
                                            qe) == best:
                                        besta = a
                                    continue
                                # ring t >= 2: every edge weighs ct[t] by default, and an
                                # overridden one is lighter here, so a vertex of the ring
                                # gives best exactly when fl(dist + ct[t]) <= best (best is
                                # the minimum); the first such vertex of a row window or a
                                # column is found in O(log n) from the sparse tables
                                rb = <int32_t> (besta // W)
                                cb = <int32_t> (besta % W)
                                if top_r >= 0:  # top row, columns up to the earliest hit
                                    hi = bj
                                    if top_r == rb and cb - 1 < hi:
                                        hi = cb - 1
                                    lo = c0 if c0 > 0 else 0
                                    c = _first_hit(dist, RT, V, <int64_t> top_r * W, lo, hi,
                                                   KR, lg, ct[t], best)
                                    if c <= hi:
                                        besta = <int64_t> top_r * W + c
                                        continue
                                if c0 >= 0:  # left column: finished rows, then row bi
                                    lo = top_r + 1 if top_r >= 0 else 0
                                    hi = bi - 1
                                    if besta < V:
                                        x = rb if c0 < cb else rb - 1
                                        if x < hi:
                                            hi = x
                                    if lo <= hi:
                                        r = _first_hit(CD, CU, V, <int64_t> c0 * R, lo, hi, KC,
                                                       lg, ct[t], best)
                                        if r <= hi:
                                            besta = <int64_t> r * W + c0
                                            continue
                                    a = <int64_t> bi * W + c0
                                    if a < besta and dist[a] + ct[t] <= best:
                                        besta = a
                        dist[b] = best
                        back[b] = <int32_t> besta
                        K[(<int64_t> (bj - bi + n)) * KW + bi - (bi - bj if bi > bj else 0)] = best
                        v = best
                        if bi > 0 and QM[b - W] < v:
                            v = QM[b - W]
                        if bj > 0 and QM[b - 1] < v:
                            v = QM[b - 1]
                        QM[b] = v
                    # row bi is done: its sparse tables (minima of 2^k consecutive
                    # columns), and those of the columns for the blocks that end at row bi
                    row = dist + <int64_t> bi * W
                    for k in range(1, KR):
                        half = 1 << (k - 1)
                        src = row if k == 1 else RT + (<int64_t> (k - 2)) * V + <int64_t> bi * W
                        dst = RT + (<int64_t> (k - 1)) * V + <int64_t> bi * W
                        for c in range(W - (1 << k) + 1):
                            v = src[c]
                            if src[c + half] < v:
                                v = src[c + half]
                            dst[c] = v
                    for c in range(W):
                        CD[<int64_t> c * R + bi] = row[c]
                    for k in range(1, KC):
                        r = bi - (1 << k) + 1
                        if r < 0:
                            break
                        half = 1 << (k - 1)
                        src = CD if k == 1 else CU + (<int64_t> (k - 2)) * V
                        dst = CU + (<int64_t> (k - 1)) * V
                        for c in range(W):
                            p = <int64_t> c * R + r
                            v = src[p]
                            if src[p + half] < v:
                                v = src[p + half]
                            dst[p] = v
                    # row bi is done: update the tables for row bi + 1
                    for c in range(m + 1):  # windows of the rows above widen by one column
                        lo = bi + 1 - c if bi + 1 - c > 0 else 0
                        # diagonal c - bi - 1, whose first row is lo (when it has rows < bi)
                        a = <int64_t> (c - bi - 1 + n) * KW - lo
                        p = <int64_t> c * R
                        for r in range(lo, bi):
                            v = K[a + r]
                            if v < ST[p + r]:
                                ST[p + r] = v
                        v = dist[<int64_t> bi * W + c]
                        if c > 0 and dist[<int64_t> bi * W + c - 1] < v:
                            v = dist[<int64_t> bi * W + c - 1]
                        ST[p + bi] = v
                    row = dist + <int64_t> bi * W
                    for dlt in range(-n, m - bi):  # column windows gain row bi
                        p = <int64_t> (dlt + n) * GW - dlt  # column c of diagonal dlt at p + c
                        lo = dlt if dlt > 0 else 0
                        hi = dlt + bi - 1 if dlt + bi - 1 < m + 1 else m + 1
                        for c in range(lo, hi):
                            v = row[c]
                            if v < G[p + c]:
                                G[p + c] = v
                        c = dlt + bi - 1
                        if lo <= c <= m:
                            G[p + c] = row[c]
                    for c in range(m + 1):
                        if bi == 0 or row[c] < P[c]:
                            P[c] = row[c]
            path = []
            b = V - 1
            while b > 0:
                a = back[b]
                path.append((a, b, False))
                b = a
            path.reverse()
            return path
        finally:
            free(dist); free(back); free(ST); free(K); free(G); free(P); free(QM)
            free(RT); free(CU); free(CD); free(lg)
            free(ovb); free(ova); free(ovw); free(tied); free(seen)


cdef inline int32_t _first_hit(const double *l0, const double *up, int64_t V, int64_t base,
                               int32_t lo, int32_t hi, int32_t levels, const int32_t *lg,
                               double c, double best) noexcept nogil:
    """The first p in [lo, hi] with fl(x[p] + c) <= best, or hi + 1 if there is none.

    ``x[p]`` is ``l0[base + p]``; the minimum of ``x[p .. p + 2^k - 1]`` is
    ``up[(k - 1) * V + base + p]`` (k >= 1, ``2^levels`` > hi - lo + 1;
    ``lg[L]`` = floor(log2 L)). Float addition is monotone, so a range holds a
    hit exactly when its minimum is one: first the whole range, from two
    overlapping blocks (most queries end there), then blocks without a hit are
    skipped greedily from the largest (binary lifting: the number of leading
    non-hits is taken bit by bit).
    """
    cdef int32_t pos = lo, k
    cdef double x
    if lo > hi:
        return hi + 1
    k = lg[hi - lo + 1]
    if k == 0:
        return lo if l0[base + lo] + c <= best else hi + 1
    if not (up[(<int64_t> (k - 1)) * V + base + lo] + c <= best
            or up[(<int64_t> (k - 1)) * V + base + hi - (1 << k) + 1] + c <= best):
        return hi + 1
    k = levels - 1
    while k >= 0:
        if pos + (1 << k) - 1 <= hi:
            x = l0[base + pos] if k == 0 else up[(<int64_t> (k - 1)) * V + base + pos]
            if not (x + c <= best):
                pos += 1 << k
        k -= 1
    return pos

cdef inline double _wov(double w, int64_t a, const int32_t *ova, const double *ovw,
                        Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """The override of edge ``a -> b`` if ``ova[lo:hi]`` (sorted) has ``a``, else ``w``."""
    cdef Py_ssize_t mid, end = hi
    while lo < hi:
        mid = (lo + hi) // 2
        if ova[mid] < a:
            lo = mid + 1
        else:
            hi = mid
    return ovw[lo] if lo < end and ova[lo] == a else w


cdef inline int32_t _cheb(int32_t x, int32_t y) noexcept nogil:
    return x if x > y else y


cdef inline void _consider(double v, int32_t t, double *best, int32_t *tied,
                           int32_t *ntied) noexcept nogil:
    """Keep the smallest value and the rings that reach it."""
    if ntied[0] == 0 or v < best[0]:
        best[0] = v
        tied[0] = t
        ntied[0] = 1
    elif v == best[0]:
        tied[ntied[0]] = t
        ntied[0] += 1


cdef inline bint _has_key(const int64_t *keys, int64_t lo, int64_t hi, int64_t key) noexcept nogil:
    """Binary search of ``key`` in the sorted ``keys[lo:hi]``."""
    cdef int64_t mid, end = hi
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo < end and keys[lo] == key


# ----------------------------------------------------------------------------
# The base lattice: banded Levenshtein tables, optimal alignments, CSR arrays
# ----------------------------------------------------------------------------
# Speed path of ``_band_rows``, ``_optimal_edges`` and the merge in ``build_lattice``
# (tokens interned to integers by the caller: equal ids exactly when equal strings).
# Distances are int32 and every value at or above _FAR means unreachable, as the
# Python code's 1 << 40 and its sums do: a finite distance is at most n + m, far
# below _FAR, so the equalities that pick predecessors compare the same values.

cdef int32_t _FAR = 1 << 30
cdef array.array _INT_ARRAY = _array_module.array("i")
cdef array.array _INT64_ARRAY = _array_module.array("q")
cdef array.array _UINT8_ARRAY = _array_module.array("B")
#: cells between two runs of Python's signal handlers in the distance table
cdef int64_t _CELLS_PER_CHECK = 1 << 16


def interned(list src, list hyp):
    """The tokens of ``src`` and ``hyp`` as int32 arrays of ids, equal exactly where the
    strings are equal (numbered in order of first appearance)."""
    cdef dict ids = {}
    cdef Py_ssize_t k
    cdef array.array s_ids = array.clone(_INT_ARRAY, len(src), zero=False)
    cdef array.array h_ids = array.clone(_INT_ARRAY, len(hyp), zero=False)
    cdef int32_t *out = <int32_t *> s_ids.data.as_ints
    for k in range(len(src)):
        v = ids.get(src[k])
        if v is None:
            v = len(ids)
            ids[src[k]] = v
        out[k] = v
    out = <int32_t *> h_ids.data.as_ints
    for k in range(len(hyp)):
        v = ids.get(hyp[k])
        if v is None:
            v = len(ids)
            ids[hyp[k]] = v
        out[k] = v
    return s_ids, h_ids


def band_rows(const int32_t[:] src, const int32_t[:] hyp, int sub_cost, int64_t klo,
              int64_t khi):
    """``_band_rows`` on interned tokens, as one flat int32 array: the distance of
    (i, i + klo + c) is ``rows[i * W + c]`` with W = khi - klo + 1 (at least _FAR
    outside the band or where unreachable)."""
    cdef int64_t n = src.shape[0], m = hyp.shape[0]
    cdef int64_t W = khi - klo + 1
    cdef array.array out = array.clone(_INT_ARRAY, (n + 1) * W, zero=False)
    cdef int32_t *rows = <int32_t *> out.data.as_ints
    cdef int32_t *prev
    cdef int32_t *cur
    cdef int64_t i, j, c, base, jlo, jhi, since = 0
    cdef int32_t s, diag, up, best, left
    for c in range(W):
        j = klo + c
        rows[c] = <int32_t> j if 0 <= j <= m else _FAR
    for i in range(1, n + 1):
        prev = rows + (i - 1) * W
        cur = rows + i * W
        s = src[i - 1]
        base = i + klo
        jlo = base if base > 0 else 0
        jhi = i + khi if i + khi < m else m
        for c in range(W):
            cur[c] = _FAR
        left = _FAR
        for j in range(jlo, jhi + 1):
            c = j - base
            if j > 0:
                diag = prev[c] + (0 if s == hyp[j - 1] else sub_cost)
            else:
                diag = _FAR
            up = prev[c + 1] + 1 if c + 1 < W else _FAR
            best = diag if diag < up else up
            if left + 1 < best:
                best = left + 1
            if best > _FAR:
                best = _FAR
            cur[c] = best
            left = best
        since += W
        if since >= _CELLS_PER_CHECK:
            since = 0
            PyErr_CheckSignals()
    return out


def optimal_edges(const int32_t[:] rows, int64_t klo, const int32_t[:] src,
                  const int32_t[:] hyp, int sub_cost, int64_t max_vertices):
    """``_optimal_edges`` on the table of :func:`band_rows`: the edges of every optimal
    alignment, each once, as an int64 array of (p, q) pairs of vertex keys i * (m + 1) + j;
    None once the alignments reach more than ``max_vertices`` vertices."""
    cdef int64_t n = src.shape[0], m = hyp.shape[0]
    cdef int64_t W = rows.shape[0] // (n + 1)
    cdef int64_t w1 = m + 1
    cdef uint8_t *seen = <uint8_t *> calloc((n + 1) * W, sizeof(uint8_t))
    cdef int64_t *stack = NULL
    cdef int64_t top = 0, cap = 64, nseen = 1, steps = 0
    cdef array.array edges = array.clone(_INT64_ARRAY, 0, zero=False)
    cdef int64_t i, j, c, cell, pi, pj, pc, k, npred
    cdef int64_t pis[3]
    cdef int64_t pjs[3]
    cdef int64_t pcs[3]
    cdef int32_t dij
    cdef int64_t pair[2]
    if seen == NULL:
        raise MemoryError()
    stack = <int64_t *> malloc(cap * sizeof(int64_t))
    if stack == NULL:
        free(seen)
        raise MemoryError()
    try:
        cell = n * W + (m - n - klo)
        seen[cell] = 1
        stack[top] = cell
        top += 1
        while top > 0:
            top -= 1
            cell = stack[top]
            i = cell // W
            c = cell - i * W
            j = i + klo + c
            dij = rows[cell]
            npred = 0
            if i > 0:
                if j > 0 and rows[cell - W] + (0 if src[i - 1] == hyp[j - 1] else sub_cost) == dij:
                    pis[npred] = i - 1; pjs[npred] = j - 1; pcs[npred] = cell - W; npred += 1
                if c + 1 < W and rows[cell - W + 1] + 1 == dij:
                    pis[npred] = i - 1; pjs[npred] = j; pcs[npred] = cell - W + 1; npred += 1
            if j > 0 and c > 0 and rows[cell - 1] + 1 == dij:
                pis[npred] = i; pjs[npred] = j - 1; pcs[npred] = cell - 1; npred += 1
            for k in range(npred):
                pair[0] = pis[k] * w1 + pjs[k]
                pair[1] = i * w1 + j
                array.extend_buffer(edges, <char *> pair, 2)
                pc = pcs[k]
                if not seen[pc]:
                    seen[pc] = 1
                    nseen += 1
                    if top == cap:
                        cap *= 2
                        stack = <int64_t *> _grow(stack, cap * sizeof(int64_t))
                    stack[top] = pc
                    top += 1
            if nseen > max_vertices:
                return None
            steps += 1
            if steps % 256 == 0:  # each step reads a few cells: as often as band_rows
                PyErr_CheckSignals()
        return edges
    finally:
        free(seen)
        free(stack)


cdef void *_grow(void *p, size_t size) except NULL:
    """realloc, or MemoryError (the old block is freed)."""
    cdef void *q = realloc(p, size)
    if q == NULL:
        free(p)
        raise MemoryError()
    return q


cdef int _cmp_int64(const void *x, const void *y) noexcept nogil:
    cdef int64_t a = (<const int64_t *> x)[0], b = (<const int64_t *> y)[0]
    return (a > b) - (a < b)


cdef int64_t _find(const int64_t *keys, int64_t n, int64_t key) noexcept nogil:
    """The position of ``key`` in the sorted, distinct ``keys[:n]`` (it is there)."""
    cdef int64_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


def base_lattice(list edge_lists, const int32_t[:] src, const int32_t[:] hyp,
                 int max_unchanged):
    """The merge of ``build_lattice``: (vertices, Lattice) from the edge arrays of
    :func:`optimal_edges` (one per cost scheme).

    Vertices are the edges' ends in lexicographic order (``[(0, 0)]`` when there is
    no edge); an edge's multiplicity is the number of arrays that list it; an edge
    is unchanged when it is a diagonal step over equal tokens. The CSR arrays are
    those ``_kernel_lattice`` builds from the sorted Python lists.
    """
    cdef int64_t m = hyp.shape[0], w1 = m + 1
    cdef int64_t E = 0, V, e, k, a, b, start, nd, r
    cdef const int64_t[:] lst
    for obj in edge_lists:
        E += len(obj) // 2
    cdef int64_t *ends = <int64_t *> malloc((2 * E + 1) * sizeof(int64_t))
    cdef int64_t *pairs = <int64_t *> malloc((E + 1) * sizeof(int64_t))
    cdef int64_t *pk
    cdef int32_t *cnt
    cdef array.array succ_start, succ_b, succ_noop, succ_mult, pred_start, pred_k, pred_noop
    cdef int32_t *ss
    cdef int32_t *sb
    cdef uint8_t *sn
    cdef int32_t *sm
    cdef int32_t *ps
    cdef int32_t *pkk
    cdef uint8_t *pn
    cdef int64_t pi, pj, qi, qj
    cdef uint8_t noop
    if ends == NULL or pairs == NULL:
        free(ends); free(pairs)
        raise MemoryError()
    try:
        k = 0
        for obj in edge_lists:
            lst = obj
            for e in range(lst.shape[0]):
                ends[k] = lst[e]
                k += 1
        if E == 0:
            V = 1
            ends[0] = 0
        else:
            qsort(ends, 2 * E, sizeof(int64_t), _cmp_int64)
            V = 0
            for e in range(2 * E):
                if V == 0 or ends[e] != ends[V - 1]:
                    ends[V] = ends[e]
                    V += 1
        if V >= (<int64_t> 1) << 31:
            raise MemoryError()
        k = 0
        for obj in edge_lists:
            lst = obj
            for e in range(0, lst.shape[0], 2):
                a = _find(ends, V, lst[e])
                b = _find(ends, V, lst[e + 1])
                pairs[k] = (a << 32) | b
                k += 1
        qsort(pairs, E, sizeof(int64_t), _cmp_int64)
        nd = 0  # distinct edges, counted in place (pairs[nd] with its multiplicity)
        succ_mult = array.clone(_INT_ARRAY, E, zero=False)
        sm = <int32_t *> succ_mult.data.as_ints
        for e in range(E):
            if nd > 0 and pairs[e] == pairs[nd - 1]:
                sm[nd - 1] += 1
            else:
                pairs[nd] = pairs[e]
                sm[nd] = 1
                nd += 1
        array.resize(succ_mult, nd)
        sm = <int32_t *> succ_mult.data.as_ints
        succ_start = array.clone(_INT_ARRAY, V + 1, zero=True)
        succ_b = array.clone(_INT_ARRAY, nd, zero=False)
        succ_noop = array.clone(_UINT8_ARRAY, nd, zero=False)
        pred_start = array.clone(_INT_ARRAY, V + 1, zero=True)
        pred_k = array.clone(_INT_ARRAY, nd, zero=False)
        pred_noop = array.clone(_UINT8_ARRAY, nd, zero=False)
        ss = <int32_t *> succ_start.data.as_ints
        sb = <int32_t *> succ_b.data.as_ints
        sn = <uint8_t *> succ_noop.data.as_uchars
        ps = <int32_t *> pred_start.data.as_ints
        pkk = <int32_t *> pred_k.data.as_ints
        pn = <uint8_t *> pred_noop.data.as_uchars
        for e in range(nd):
            a = pairs[e] >> 32
            b = pairs[e] & 0xFFFFFFFF
            pi = ends[a] // w1
            pj = ends[a] - pi * w1
            qi = ends[b] // w1
            qj = ends[b] - qi * w1
            noop = 1 if (qi - pi == 1 and qj - pj == 1 and src[pi] == hyp[pj]) else 0
            sb[e] = <int32_t> b
            sn[e] = noop
            ss[a + 1] += 1
            ps[b + 1] += 1
        for k in range(V):
            ss[k + 1] += ss[k]
            ps[k + 1] += ps[k]
        cnt = <int32_t *> calloc(V + 1, sizeof(int32_t))
        if cnt == NULL:
            raise MemoryError()
        for e in range(nd):  # by source vertex, so each vertex's predecessors come sorted
            a = pairs[e] >> 32
            b = pairs[e] & 0xFFFFFFFF
            r = ps[b] + cnt[b]
            cnt[b] += 1
            pkk[r] = <int32_t> a
            pn[r] = sn[e]
        free(cnt)
        vertices = []
        for k in range(V):
            pi = ends[k] // w1
            vertices.append((pi, ends[k] - pi * w1))
    finally:
        free(ends)
        free(pairs)
    lat = Lattice(V, succ_start, succ_b, succ_noop, succ_mult, pred_start, pred_k, pred_noop,
                  max_unchanged)
    return vertices, lat
