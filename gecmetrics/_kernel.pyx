# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled n-gram intersection kernel (speed path of gecmetrics.ngrams).

Same contract and same integers as ``gecmetrics.ngrams._intersect_python``;
see that function for the meaning of every array. Per sentence group and per
order n, each n-gram gets a dense local id through a small open-addressing
hash table: order-1 ids come from the token values, order-n ids from the pair
(id of the (n-1)-gram at p, id of the token at p+n-1). Ids are exact (no
hashing of n-gram contents), so counts are exact. Counts per id then give the
multiset intersections in one pass over each hypothesis.
"""

from cpython.exc cimport PyErr_CheckSignals
from libc.stdlib cimport malloc, free
from libc.string cimport memset
from libc.stdint cimport int64_t, uint64_t


#: Python's signal handlers (Ctrl-C; SIGTERM, which the CLI turns into an
#: exception) run only when the GIL is taken back: before a pass of one order
#: over one sentence group, once this many tokens have been passed over since
#: the last check (milliseconds of work), so a corpus of short lines pays almost
#: nothing and one huge line is still interrupted between its orders.
cdef int64_t SIGNAL_CHECK_TOKENS = 1 << 16


cdef inline int64_t _min(int64_t a, int64_t b) nogil:
    return a if a < b else b


cdef struct Table:
    int64_t *keys
    int64_t *vals
    uint64_t mask
    int64_t size


cdef inline int64_t _lookup(Table *t, int64_t key) noexcept nogil:
    """Dense id of ``key``, assigning the next id to a new key."""
    cdef uint64_t h = (<uint64_t>key * <uint64_t>0x9E3779B97F4A7C15ULL) >> 17
    cdef uint64_t i = h & t.mask
    while t.vals[i] >= 0:
        if t.keys[i] == key:
            return t.vals[i]
        i = (i + 1) & t.mask
    t.keys[i] = key
    t.vals[i] = t.size
    t.size += 1
    return t.vals[i]


def intersect(
    const int64_t[::1] tokens,
    const int64_t[::1] text_start,
    const int64_t[::1] group_start,
    int num_refs,
    int max_n,
    int64_t[:, :, ::1] sr,
    int64_t[:, ::1] sc,
    int64_t[:, :, ::1] rc,
    int64_t[:, :, ::1] src,
    int64_t[:, :, ::1] sc_off_r,
    int64_t[:, ::1] rc_max,
):
    cdef Py_ssize_t num_groups = group_start.shape[0] - 1
    cdef Py_ssize_t g, t, p, q, k, u, first, last, pos0, pos1, length
    cdef int n, K = num_refs
    cdef int64_t c, s, r, key, cap_needed, uniq
    cdef uint64_t cap
    cdef Py_ssize_t max_len = 0
    # Size the buffers for the longest group.
    for g in range(num_groups):
        length = text_start[group_start[g + 1]] - text_start[group_start[g]]
        if length > max_len:
            max_len = length
    cap = 16
    while cap < <uint64_t>(2 * max_len + 2):
        cap <<= 1
    cdef Table table
    table.keys = <int64_t *> malloc(cap * sizeof(int64_t))
    table.vals = <int64_t *> malloc(cap * sizeof(int64_t))
    cdef int64_t *tok_id = <int64_t *> malloc((max_len + 1) * sizeof(int64_t))
    cdef int64_t *gram_id = <int64_t *> malloc((max_len + 1) * sizeof(int64_t))
    # counts[j * (max_len+1) + u]: j = 0 source, 1..K references, K+1 hypothesis
    cdef int64_t *counts = <int64_t *> malloc((K + 2) * (max_len + 1) * sizeof(int64_t))
    cdef int64_t *touched = <int64_t *> malloc((max_len + 1) * sizeof(int64_t))
    cdef int64_t stride
    cdef uint64_t gcap
    cdef int64_t ntouched, base, unchecked = 0
    cdef int64_t a_sc, a_rc, a_src, a_off, a_max, most
    if not table.keys or not table.vals or not tok_id or not gram_id or not counts or not touched:
        free(table.keys); free(table.vals); free(tok_id); free(gram_id); free(counts); free(touched)
        raise MemoryError()
    try:
        with nogil:
            for g in range(num_groups):
                first = group_start[g]
                last = group_start[g + 1]
                pos0 = text_start[first]
                pos1 = text_start[last]
                length = pos1 - pos0
                # Buffers are sized for the longest group but only this group's
                # share is cleared and used (clearing all of it per group was the
                # bottleneck when one sentence is very long).
                stride = length + 1
                gcap = 16
                while gcap < <uint64_t>(2 * length + 2):
                    gcap <<= 1
                # Order-1 ids from token values.
                memset(table.vals, 0xFF, gcap * sizeof(int64_t))
                table.size = 0
                table.mask = gcap - 1
                for p in range(length):
                    tok_id[p] = _lookup(&table, tokens[pos0 + p])
                    gram_id[p] = tok_id[p]
                for n in range(1, max_n + 1):
                    unchecked += length
                    if unchecked >= SIGNAL_CHECK_TOKENS:
                        unchecked = 0
                        with gil:
                            PyErr_CheckSignals()
                    if n > 1:
                        # gram_id[p] (order n-1) is valid where its window fits in its text;
                        # only such positions are extended and later read.
                        memset(table.vals, 0xFF, gcap * sizeof(int64_t))
                        table.size = 0
                        for t in range(first, last):
                            for p in range(text_start[t] - pos0, text_start[t + 1] - pos0 - n + 1):
                                key = gram_id[p] * stride + tok_id[p + n - 1]
                                gram_id[p] = _lookup(&table, key)
                    uniq = table.size
                    memset(counts, 0, (K + 2) * stride * sizeof(int64_t))
                    # Source (j = 0) and reference (j = 1..K) counts.
                    for k in range(K + 1):
                        t = first + k
                        base = k * stride
                        for p in range(text_start[t] - pos0, text_start[t + 1] - pos0 - n + 1):
                            counts[base + gram_id[p]] += 1
                    for k in range(K):
                        a_sc = 0
                        for u in range(uniq):
                            a_sc += _min(counts[u], counts[(k + 1) * stride + u])
                        sr[g, k, n - 1] = a_sc
                    # Each hypothesis text: count, then intersect over its own n-grams.
                    base = (K + 1) * stride
                    for t in range(first + K + 1, last):
                        ntouched = 0
                        for p in range(text_start[t] - pos0, text_start[t + 1] - pos0 - n + 1):
                            u = gram_id[p]
                            if counts[base + u] == 0:
                                touched[ntouched] = u
                                ntouched += 1
                            counts[base + u] += 1
                        a_sc = 0
                        for q in range(ntouched):
                            u = touched[q]
                            a_sc += _min(counts[base + u], counts[u])
                        sc[t, n - 1] = a_sc
                        for k in range(K):
                            a_rc = 0
                            a_src = 0
                            a_off = 0
                            for q in range(ntouched):
                                u = touched[q]
                                c = counts[base + u]
                                s = counts[u]
                                r = counts[(k + 1) * stride + u]
                                a_rc += _min(c, r)
                                a_src += _min(_min(c, r), s)
                                if r == 0:
                                    a_off += _min(c, s)
                            rc[t, k, n - 1] = a_rc
                            src[t, k, n - 1] = a_src
                            sc_off_r[t, k, n - 1] = a_off
                        # BLEU's clipping: against the largest count over the references.
                        a_max = 0
                        for q in range(ntouched):
                            u = touched[q]
                            most = 0
                            for k in range(K):
                                if counts[(k + 1) * stride + u] > most:
                                    most = counts[(k + 1) * stride + u]
                            a_max += _min(counts[base + u], most)
                        rc_max[t, n - 1] = a_max
                        for q in range(ntouched):
                            counts[base + touched[q]] = 0
    finally:
        free(table.keys); free(table.vals); free(tok_id); free(gram_id); free(counts); free(touched)
