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

from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc, realloc


cdef double _EPSILON = 0.001


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
        with nogil:
            for a in range(self.V):
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
