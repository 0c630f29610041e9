# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled M2 kernel: transitive edges, weights and shortest path on integer arrays.

Speed path of :mod:`gecmetrics.metrics.m2_lattice`, same contract and same
numbers as its pure-Python code (``_arcs_from`` and the relaxation loop of
``best_edit_sequence``), which stays as the fallback and is checked against
this kernel in ``tests/test_m2_fast.py``.

Input: the merged base lattice with vertices numbered in lexicographic (hence
topological) order, as CSR arrays: ``succ_*`` (successors of each vertex,
sorted by target; their "unchanged word" flag and their multiplicity in the
official edge list) and ``pred_*`` (predecessors of each vertex, sorted by
source; their unchanged flag).

:class:`Closure` builds, per start vertex, the edges the official transitive
closure leaves (one forward pass in vertex order over the vertices reachable
from it, exactly as ``_arcs_from``) and stores them as CSR arrays sorted by
target. :meth:`Closure.path` runs the shortest path in topological order with
per-annotator weight overrides (gold edges, insertion edges weighed by the
two-pointer scan); every other edge weighs ``d`` plus 0.001 added ``mult``
times, as doubles added in the same order as the Python code, so sums round
identically (no fused or reordered floating-point operations here).
"""

from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc, realloc


cdef double _EPSILON = 0.001


cdef class Closure:
    """The transitive edges of one lattice (CSR by source vertex, sorted by target)."""

    cdef int32_t V
    cdef int64_t n_arcs
    cdef int64_t n_listed
    cdef int64_t cap
    cdef int64_t *start
    cdef int32_t *tgt
    cdef int32_t *dist
    cdef int32_t *mult
    cdef uint8_t *noop

    def __cinit__(self):
        self.V = 0
        self.n_arcs = 0
        self.n_listed = 0
        self.cap = 0
        self.start = NULL
        self.tgt = NULL
        self.dist = NULL
        self.mult = NULL
        self.noop = NULL

    def __dealloc__(self):
        free(self.start)
        free(self.tgt)
        free(self.dist)
        free(self.mult)
        free(self.noop)

    cdef int _grow(self) except -1:
        cdef int64_t cap = self.cap * 2 if self.cap else 1024
        cdef int32_t *tgt = <int32_t *> realloc(self.tgt, cap * sizeof(int32_t))
        if tgt == NULL:
            raise MemoryError()
        self.tgt = tgt
        cdef int32_t *dist = <int32_t *> realloc(self.dist, cap * sizeof(int32_t))
        if dist == NULL:
            raise MemoryError()
        self.dist = dist
        cdef int32_t *mult = <int32_t *> realloc(self.mult, cap * sizeof(int32_t))
        if mult == NULL:
            raise MemoryError()
        self.mult = mult
        cdef uint8_t *noop = <uint8_t *> realloc(self.noop, cap * sizeof(uint8_t))
        if noop == NULL:
            raise MemoryError()
        self.noop = noop
        self.cap = cap
        return 0

    @property
    def num_arcs(self):
        """Number of stored edges (base and transitive, each once)."""
        return self.n_arcs

    @property
    def num_listed(self):
        """The official edge-list length |E| (each edge counted with its multiplicity)."""
        return self.n_listed

    def build(self, int V,
              const int32_t[:] succ_start, const int32_t[:] succ_b,
              const uint8_t[:] succ_noop, const int32_t[:] succ_mult,
              const int32_t[:] pred_start, const int32_t[:] pred_k,
              const uint8_t[:] pred_noop, int max_unchanged):
        """Compute every edge out of every vertex (see ``m2_lattice._arcs_from``)."""
        if self.start != NULL:
            raise RuntimeError("Closure.build called twice")
        self.V = V
        self.start = <int64_t *> malloc((V + 1) * sizeof(int64_t))
        cdef int32_t *stamp = <int32_t *> malloc((V + 1) * sizeof(int32_t))
        cdef int32_t *isbase = <int32_t *> malloc((V + 1) * sizeof(int32_t))
        cdef int32_t *queued = <int32_t *> malloc((V + 1) * sizeof(int32_t))
        cdef int32_t *sd = <int32_t *> malloc((V + 1) * sizeof(int32_t))
        cdef int32_t *su = <int32_t *> malloc((V + 1) * sizeof(int32_t))
        cdef int32_t *sm = <int32_t *> malloc((V + 1) * sizeof(int32_t))
        if (self.start == NULL or stamp == NULL or isbase == NULL or queued == NULL
                or sd == NULL or su == NULL or sm == NULL):
            free(stamp); free(isbase); free(queued); free(sd); free(su); free(sm)
            raise MemoryError()
        cdef int32_t a, b, c, k, lo, hi, best_d, best_u, imp, d, u
        cdef int64_t e, f, p
        try:
            for b in range(V):
                stamp[b] = -1
                isbase[b] = -1
                queued[b] = -1
            for a in range(V):
                self.start[a] = self.n_arcs
                if succ_start[a] == succ_start[a + 1]:
                    continue
                lo = V
                hi = -1
                # base successors: fixed at one base edge
                for e in range(succ_start[a], succ_start[a + 1]):
                    b = succ_b[e]
                    stamp[b] = a
                    isbase[b] = a
                    sd[b] = 1
                    su[b] = succ_noop[e]
                    sm[b] = succ_mult[e]
                    if b < lo:
                        lo = b
                    if b > hi:
                        hi = b
                for e in range(succ_start[a], succ_start[a + 1]):
                    b = succ_b[e]
                    for f in range(succ_start[b], succ_start[b + 1]):
                        c = succ_b[f]
                        if isbase[c] != a:
                            queued[c] = a
                            if c > hi:
                                hi = c
                # forward pass in vertex (topological) order; hi grows as vertices are
                # reached (a range() bound would be evaluated once)
                b = lo - 1
                while b < hi:
                    b += 1
                    if queued[b] != a:
                        continue
                    best_d = -1
                    best_u = 0
                    imp = 0
                    for p in range(pred_start[b], pred_start[b + 1]):
                        k = pred_k[p]
                        if stamp[k] != a:
                            continue
                        d = sd[k] + 1
                        u = su[k] + pred_noop[p]
                        if u > max_unchanged:
                            continue
                        if best_d < 0 or d < best_d:
                            best_d = d
                            best_u = u
                            imp += 1
                    if best_d < 0:
                        continue
                    stamp[b] = a
                    sd[b] = best_d
                    su[b] = best_u
                    sm[b] = imp
                    for f in range(succ_start[b], succ_start[b + 1]):
                        c = succ_b[f]
                        if isbase[c] != a:
                            queued[c] = a
                            if c > hi:
                                hi = c
                # the edges out of a, sorted by target
                for b in range(lo, hi + 1):
                    if stamp[b] != a:
                        continue
                    if su[b] == sd[b] and sd[b] > 1:
                        continue  # transitive edges of unchanged words only are removed
                    if self.n_arcs == self.cap:
                        self._grow()
                    self.tgt[self.n_arcs] = b
                    self.dist[self.n_arcs] = sd[b]
                    self.mult[self.n_arcs] = sm[b]
                    self.noop[self.n_arcs] = 1 if su[b] == sd[b] else 0
                    self.n_arcs += 1
                    self.n_listed += sm[b]
            self.start[V] = self.n_arcs
        finally:
            free(stamp); free(isbase); free(queued); free(sd); free(su); free(sm)

    def arcs(self, int a):
        """The edges out of ``a`` as ``m2_lattice`` lists them: (b, d, mult, is_noop, weight)."""
        if a < 0 or a >= self.V:
            raise IndexError(a)
        cdef int64_t e
        cdef list out = []
        for e in range(self.start[a], self.start[a + 1]):
            out.append((self.tgt[e], self.dist[e], self.mult[e], bool(self.noop[e]),
                        _weight(self.dist[e], self.mult[e], self.noop[e])))
        return out

    def row_arcs(self, int lo, int hi):
        """Edges (a, b, d, mult) with both ends in the vertex range [lo, hi), sorted."""
        cdef int64_t e
        cdef int32_t a
        cdef list out = []
        for a in range(lo, hi):
            for e in range(self.start[a], self.start[a + 1]):
                if self.tgt[e] >= hi:
                    break
                out.append((a, self.tgt[e], self.dist[e], self.mult[e]))
        return out

    def path(self, const int32_t[:] ov_a, const int32_t[:] ov_b, const double[:] ov_w):
        """Shortest path from vertex 0 to vertex V-1 in topological order.

        Edges listed in the overrides (sorted by source vertex) take the given
        weight; the others weigh ``d``, plus 0.001 added ``mult`` times unless
        they are unchanged words. Ties keep the earliest source vertex.
        Returns the path as a list of (a, b, is_noop) from the start.
        """
        cdef int32_t V = self.V
        cdef Py_ssize_t n_ov = ov_a.shape[0]
        cdef double *dist = <double *> malloc((V + 1) * sizeof(double))
        cdef double *ovw = <double *> malloc((V + 1) * sizeof(double))
        cdef int32_t *ovmark = <int32_t *> malloc((V + 1) * sizeof(int32_t))
        cdef int32_t *back = <int32_t *> malloc((V + 1) * sizeof(int32_t))
        cdef uint8_t *back_noop = <uint8_t *> malloc((V + 1) * sizeof(uint8_t))
        cdef uint8_t *has = <uint8_t *> malloc((V + 1) * sizeof(uint8_t))
        if (dist == NULL or ovw == NULL or ovmark == NULL or back == NULL
                or back_noop == NULL or has == NULL):
            free(dist); free(ovw); free(ovmark); free(back); free(back_noop); free(has)
            raise MemoryError()
        cdef int32_t a, b, m
        cdef int64_t e
        cdef Py_ssize_t q = 0
        cdef double da, w, nd
        cdef list out = []
        try:
            for b in range(V):
                has[b] = 0
                ovmark[b] = -1
                back[b] = -1
                back_noop[b] = 1
            if V == 0:
                return out
            dist[0] = 0.0
            has[0] = 1
            for a in range(V):
                while q < n_ov and ov_a[q] < a:
                    q += 1
                while q < n_ov and ov_a[q] == a:
                    ovmark[ov_b[q]] = a
                    ovw[ov_b[q]] = ov_w[q]
                    q += 1
                if not has[a]:
                    continue
                da = dist[a]
                for e in range(self.start[a], self.start[a + 1]):
                    b = self.tgt[e]
                    if ovmark[b] == a:
                        w = ovw[b]
                    else:
                        w = <double> self.dist[e]
                        if not self.noop[e]:
                            for m in range(self.mult[e]):
                                w = w + _EPSILON
                    nd = da + w
                    if not has[b] or nd < dist[b]:
                        dist[b] = nd
                        has[b] = 1
                        back[b] = a
                        back_noop[b] = self.noop[e]
            b = V - 1
            while b > 0:
                a = back[b]
                out.append((a, b, bool(back_noop[b])))
                b = a
            out.reverse()
            return out
        finally:
            free(dist); free(ovw); free(ovmark); free(back); free(back_noop); free(has)


cdef double _weight(int32_t d, int32_t mult, uint8_t noop):
    cdef double w = <double> d
    cdef int32_t m
    if not noop:
        for m in range(mult):
            w = w + _EPSILON
    return w
