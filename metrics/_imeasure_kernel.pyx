# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled I-measure alignment: the same DP, tie rules and counts as imeasure_align.py.

Speed path of :func:`gecmetrics.metrics.imeasure_align.alignment_counts`
(the pure-Python fallback and oracle, checked against this kernel in
``tests/test_imeasure.py``): the sum-of-pairs table of source, hypothesis and
reference (or the pairwise table when two of them are equal) in one int32
buffer, the backtrace with the official preference order, and the column
counts, without building the aligned sequences.
"""

from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc

cdef enum:
    GAP_COST = 2
    MISMATCH = 3
    GAP = -1


#: Python's signal handlers (Ctrl-C; SIGTERM, which the CLI turns into an
#: exception) run only between bytecodes, never inside this C code: the tables
#: call them after every this many cells (whole rows), about a millisecond, so
#: a signal ends even a table of MAX_ALIGNMENT_CELLS at once.
cdef long SIGNAL_CHECK_CELLS = 1 << 16


cdef inline int32_t _min2(int32_t a, int32_t b) nogil:
    return a if a < b else b


cdef int32_t* _pair_table(int32_t* a, int m, int32_t* b, int n) except NULL:
    cdef int32_t* t = <int32_t*> malloc((m + 1) * (n + 1) * sizeof(int32_t))
    cdef int i, j, w = n + 1
    cdef long unchecked = 0
    if t == NULL:
        raise MemoryError()
    try:
        for j in range(n + 1):
            t[j] = j * GAP_COST
        for i in range(1, m + 1):
            unchecked += n
            if unchecked >= SIGNAL_CHECK_CELLS:
                unchecked = 0
                PyErr_CheckSignals()
            t[i * w] = i * GAP_COST
            for j in range(1, n + 1):
                t[i * w + j] = _min2(_min2(t[(i - 1) * w + j] + GAP_COST,
                                           t[i * w + j - 1] + GAP_COST),
                                     t[(i - 1) * w + j - 1] + (0 if a[i - 1] == b[j - 1]
                                                               else MISMATCH))
    except BaseException:  # a signal handler's exception
        free(t)
        raise
    return t


cdef inline void _column(int32_t s, int32_t h, int32_t r, long* c) nogil:
    # c: d_tp, d_tn, d_fp, d_fn, c_tp, c_fpn
    if s == h:
        if h == r:
            c[1] += 1
        else:
            c[3] += 1
    elif s == r:
        c[2] += 1
    else:
        c[0] += 1
        if h == r:
            c[4] += 1
        else:
            c[5] += 1


cdef void _pairwise_counts(int32_t* a, int m, int32_t* b, int n, int which, long* c) except *:
    """Backtrace of the pairwise table; ``which`` says how (a, b) map to (src, hyp, ref):
    0: a = src = hyp, b = ref; 1: a = src = ref, b = hyp; 2: a = hyp = ref, b = src."""
    cdef int32_t* t = _pair_table(a, m, b, n)
    cdef int i = m, j = n, w = n + 1
    cdef int32_t x, y
    while i > 0 or j > 0:
        if i > 0 and j > 0 and t[i * w + j] == t[(i - 1) * w + j - 1] + (
                0 if a[i - 1] == b[j - 1] else MISMATCH):
            x, y = a[i - 1], b[j - 1]
            i -= 1
            j -= 1
        elif i > 0 and t[i * w + j] == t[(i - 1) * w + j] + GAP_COST:
            x, y = a[i - 1], GAP
            i -= 1
        else:
            x, y = GAP, b[j - 1]
            j -= 1
        if which == 0:
            _column(x, x, y, c)
        elif which == 1:
            _column(x, y, x, c)
        else:
            _column(y, x, x, c)
    free(t)


cdef void _threeway_counts(int32_t* s1, int n1, int32_t* s2, int n2, int32_t* s3, int n3,
                           long* c) except *:
    cdef int N1 = n1 + 1, N2 = n2 + 1, N3 = n3 + 1
    cdef long size = <long> N1 * N2 * N3
    cdef int32_t* d = NULL
    cdef int32_t* t12 = NULL
    cdef int32_t* t13 = NULL
    cdef int32_t* t23 = NULL
    cdef int i, j, k, sj = N3, si = N2 * N3
    cdef int32_t a, b, cc, cij, cik, cjk, best, v, here
    cdef int g2 = 2 * GAP_COST
    cdef int di, dj, dk
    cdef long unchecked = 0
    try:
        d = <int32_t*> malloc(size * sizeof(int32_t))
        if d == NULL:
            raise MemoryError()
        t12 = _pair_table(s1, n1, s2, n2)
        t13 = _pair_table(s1, n1, s3, n3)
        t23 = _pair_table(s2, n2, s3, n3)
        for i in range(N1):
            for j in range(N2):
                d[i * si + j * sj] = t12[i * N2 + j] + (i + j) * GAP_COST
        for i in range(N1):
            for k in range(N3):
                d[i * si + k] = t13[i * N3 + k] + (i + k) * GAP_COST
        for j in range(N2):
            for k in range(N3):
                d[j * sj + k] = t23[j * N3 + k] + (j + k) * GAP_COST
        for i in range(1, N1):
            a = s1[i - 1]
            for j in range(1, N2):
                unchecked += n3
                if unchecked >= SIGNAL_CHECK_CELLS:
                    unchecked = 0
                    PyErr_CheckSignals()
                b = s2[j - 1]
                cij = 0 if a == b else MISMATCH
                for k in range(1, N3):
                    cc = s3[k - 1]
                    cik = 0 if a == cc else MISMATCH
                    cjk = 0 if b == cc else MISMATCH
                    best = d[(i - 1) * si + (j - 1) * sj + k - 1] + cij + cik + cjk
                    v = d[(i - 1) * si + (j - 1) * sj + k] + cij + g2
                    if v < best:
                        best = v
                    v = d[(i - 1) * si + j * sj + k - 1] + cik + g2
                    if v < best:
                        best = v
                    v = d[i * si + (j - 1) * sj + k - 1] + cjk + g2
                    if v < best:
                        best = v
                    v = d[(i - 1) * si + j * sj + k] + g2
                    if v < best:
                        best = v
                    v = d[i * si + (j - 1) * sj + k] + g2
                    if v < best:
                        best = v
                    v = d[i * si + j * sj + k - 1] + g2
                    if v < best:
                        best = v
                    d[i * si + j * sj + k] = best
        i, j, k = n1, n2, n3
        while i > 0 or j > 0 or k > 0:
            here = d[i * si + j * sj + k]
            cij = (0 if s1[i - 1] == s2[j - 1] else MISMATCH) if (i > 0 and j > 0) else 0
            cik = (0 if s1[i - 1] == s3[k - 1] else MISMATCH) if (i > 0 and k > 0) else 0
            cjk = (0 if s2[j - 1] == s3[k - 1] else MISMATCH) if (j > 0 and k > 0) else 0
            if i > 0 and j > 0 and k > 0 and here == d[(i - 1) * si + (j - 1) * sj + k - 1] + cij + cik + cjk:
                di, dj, dk = 1, 1, 1
            elif i > 0 and j > 0 and here == d[(i - 1) * si + (j - 1) * sj + k] + cij + g2:
                di, dj, dk = 1, 1, 0
            elif i > 0 and k > 0 and here == d[(i - 1) * si + j * sj + k - 1] + cik + g2:
                di, dj, dk = 1, 0, 1
            elif j > 0 and k > 0 and here == d[i * si + (j - 1) * sj + k - 1] + cjk + g2:
                di, dj, dk = 0, 1, 1
            elif i > 0 and here == d[(i - 1) * si + j * sj + k] + g2:
                di, dj, dk = 1, 0, 0
            elif j > 0 and here == d[i * si + (j - 1) * sj + k] + g2:
                di, dj, dk = 0, 1, 0
            else:
                di, dj, dk = 0, 0, 1
            _column(s1[i - 1] if di else GAP, s2[j - 1] if dj else GAP, s3[k - 1] if dk else GAP, c)
            i -= di
            j -= dj
            k -= dk
    finally:
        free(d)
        free(t12)
        free(t13)
        free(t23)


cdef int32_t* _array(object seq, int* n) except NULL:
    cdef Py_ssize_t m = len(seq), x
    cdef int32_t* out = <int32_t*> malloc((m + 1) * sizeof(int32_t))
    if out == NULL:
        raise MemoryError()
    for x in range(m):
        out[x] = seq[x]
    n[0] = <int> m
    return out


def alignment_counts(src, hyp, ref):
    """Counts (d_tp, d_tn, d_fp, d_fn, c_tp, c_fp, c_fn, c_fpn) of the official alignment."""
    cdef long c[6]
    cdef int ns, nh, nr, x
    cdef int32_t* s
    cdef int32_t* h
    cdef int32_t* r
    for x in range(6):
        c[x] = 0
    s = _array(src, &ns)
    h = _array(hyp, &nh)
    r = _array(ref, &nr)
    try:
        src_hyp = list(src) == list(hyp)
        src_ref = list(src) == list(ref)
        hyp_ref = list(hyp) == list(ref)
        if src_hyp and src_ref:
            c[1] = ns
        elif src_hyp:
            _pairwise_counts(h, nh, r, nr, 0, c)
        elif src_ref:
            _pairwise_counts(r, nr, h, nh, 1, c)
        elif hyp_ref:
            _pairwise_counts(r, nr, s, ns, 2, c)
        else:
            _threeway_counts(s, ns, h, nh, r, nr, c)
    finally:
        free(s)
        free(h)
        free(r)
    return (c[0], c[1], c[2], c[3], c[4], c[2] + c[5], c[3] + c[5], c[5])
