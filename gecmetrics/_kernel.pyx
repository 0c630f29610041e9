# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled kernels of the n-gram counting (gecmetrics.ngrams) and the line-shift
check (gecmetrics.alignment): :func:`intersect`, :func:`word_ids` (whitespace words
numbered, a string made of each distinct word only) and :func:`line_overlaps`.

:func:`intersect`:

Same contract and same integers as ``gecmetrics.ngrams._intersect_python``;
see that function for the meaning of every array. Per sentence group and per
order n, each n-gram gets a dense local id through a small open-addressing
hash table: order-1 ids come from the token values, order-n ids from the pair
(id of the (n-1)-gram at p, id of the token at p+n-1). Ids are exact (no
hashing of n-gram contents), so counts are exact. Counts per id then give the
multiset intersections in one pass over each hypothesis.
"""

from cpython.exc cimport PyErr_CheckSignals
from cpython.unicode cimport (PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND,
                              PyUnicode_READ, PyUnicode_Substring, Py_UNICODE_ISSPACE)
from libc.stdlib cimport malloc, free, realloc
from libc.string cimport memcmp, memcpy, memset
from libc.stdint cimport int64_t, uint64_t

import numpy as np


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


cdef struct Words:
    # distinct word d: its hash and its number of code points (its text is distinct[d])
    uint64_t *hash
    int64_t *length
    int64_t size, capacity
    # open addressing: slot -> distinct word id, -1 empty
    int64_t *slots
    uint64_t mask


cdef inline uint64_t _slot(uint64_t h) noexcept nogil:
    return (h * <uint64_t>0x9E3779B97F4A7C15ULL) >> 17


cdef bint _grow(Words *w) noexcept nogil:
    """Double the distinct-word arrays and the slots (load kept at most a half)."""
    cdef int64_t capacity = 2 * w.capacity, d
    cdef uint64_t i, mask = <uint64_t>(2 * capacity - 1)
    cdef uint64_t *hashes = <uint64_t *> realloc(w.hash, capacity * sizeof(uint64_t))
    if not hashes:
        return False
    w.hash = hashes
    cdef int64_t *lengths = <int64_t *> realloc(w.length, capacity * sizeof(int64_t))
    if not lengths:
        return False
    w.length = lengths
    cdef int64_t *slots = <int64_t *> malloc(2 * capacity * sizeof(int64_t))
    if not slots:
        return False
    memset(slots, 0xFF, 2 * capacity * sizeof(int64_t))
    for d in range(w.size):
        i = _slot(w.hash[d]) & mask
        while slots[i] >= 0:
            i = (i + 1) & mask
        slots[i] = d
    free(w.slots)
    w.slots = slots
    w.mask = mask
    w.capacity = capacity
    return True


cdef bint _same(object word, int kind, void *data, Py_ssize_t start, Py_ssize_t length):
    """Whether the stored ``word`` has the code points data[start:start + length]."""
    cdef int wkind = PyUnicode_KIND(word)
    cdef void *wdata = PyUnicode_DATA(word)
    cdef Py_ssize_t i
    if wkind == kind:
        return memcmp(wdata, <char *>data + start * kind, length * kind) == 0
    for i in range(length):
        if PyUnicode_READ(wkind, wdata, i) != PyUnicode_READ(kind, data, start + i):
            return False
    return True


def word_ids(list texts):
    """``texts``' whitespace words (``str.split()``) as ids of distinct words.

    Returns (ids, counts, distinct): the id of every word of every text in order
    (int64), each text's number of words (int64), and the distinct words in the
    order of their first occurrence, so that ``distinct[ids[j]]`` is word j. The
    same as ``dict.fromkeys`` over the split words, without making a string object
    for each word (only for each distinct one): whitespace is ``str.split``'s own
    test (``Py_UNICODE_ISSPACE``), and words are compared by their code points.
    """
    cdef Py_ssize_t num_texts = len(texts), t, i, start, length
    cdef int64_t num_ids = 0, id_capacity = 1024, words, found, unchecked = 0
    cdef int kind
    cdef void *data
    cdef Py_UCS4 ch
    cdef uint64_t h, slot
    cdef object text
    cdef int64_t *ids = <int64_t *> malloc(id_capacity * sizeof(int64_t))
    cdef int64_t *grown
    cdef Words w
    w.size = 0
    w.capacity = 1024
    w.mask = <uint64_t>(2 * w.capacity - 1)
    w.hash = <uint64_t *> malloc(w.capacity * sizeof(uint64_t))
    w.length = <int64_t *> malloc(w.capacity * sizeof(int64_t))
    w.slots = <int64_t *> malloc(2 * w.capacity * sizeof(int64_t))
    counts = np.zeros(num_texts, dtype=np.int64)
    cdef int64_t[::1] count_view = counts
    cdef int64_t[::1] out_view
    distinct = []
    try:
        if not ids or not w.hash or not w.length or not w.slots:
            raise MemoryError()
        memset(w.slots, 0xFF, 2 * w.capacity * sizeof(int64_t))
        for t in range(num_texts):
            text = texts[t]
            if not isinstance(text, str):
                raise TypeError(f"text {t} is a {type(text).__name__}, not a str")
            kind = PyUnicode_KIND(text)
            data = PyUnicode_DATA(text)
            length = PyUnicode_GET_LENGTH(text)
            unchecked += length
            if unchecked >= SIGNAL_CHECK_TOKENS * 16:
                unchecked = 0
                PyErr_CheckSignals()
            words = 0
            i = 0
            while True:
                while i < length and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)):
                    i += 1
                if i >= length:
                    break
                start = i
                h = 1469598103934665603ULL
                while i < length:
                    ch = PyUnicode_READ(kind, data, i)
                    if Py_UNICODE_ISSPACE(ch):
                        break
                    h = (h ^ <uint64_t>ch) * <uint64_t>1099511628211ULL
                    i += 1
                slot = _slot(h) & w.mask
                while True:
                    found = w.slots[slot]
                    if found < 0:
                        break
                    if (w.hash[found] == h and w.length[found] == i - start
                            and _same(distinct[found], kind, data, start, i - start)):
                        break
                    slot = (slot + 1) & w.mask
                if found < 0:
                    found = w.size
                    distinct.append(PyUnicode_Substring(text, start, i))
                    w.hash[found] = h
                    w.length[found] = i - start
                    w.slots[slot] = found
                    w.size += 1
                    if 2 * w.size > w.capacity and not _grow(&w):
                        raise MemoryError()
                if num_ids == id_capacity:
                    grown = <int64_t *> realloc(ids, 2 * id_capacity * sizeof(int64_t))
                    if not grown:
                        raise MemoryError()
                    ids = grown
                    id_capacity *= 2
                ids[num_ids] = found
                num_ids += 1
                words += 1
            count_view[t] = words
        out = np.empty(num_ids, dtype=np.int64)
        out_view = out
        if num_ids:
            memcpy(&out_view[0], ids, num_ids * sizeof(int64_t))
        return out, counts, distinct
    finally:
        free(ids); free(w.hash); free(w.length); free(w.slots)


def line_overlaps(const int64_t[::1] ids, const int64_t[::1] counts, Py_ssize_t n,
                  Py_ssize_t vocab):
    """Distinct-word overlaps of output lines with their source line and its neighbours.

    ``ids`` and ``counts`` are :func:`word_ids` of ``n`` source lines followed by
    ``n`` lines of each of F outputs (``vocab``: the number of distinct words).
    Returns (sizes, common): the number of distinct words of every line, int64 of
    length (F + 1) * n, and, int64 (F, n, 3), the number of distinct words output
    line i of each output shares with source line i, i + 1 and i - 1 (0 where
    that line does not exist): the Jaccard overlaps of :mod:`gecmetrics.alignment`.
    """
    cdef Py_ssize_t num_lines = counts.shape[0], files, f, i, j, line, w, k
    if n <= 0 or num_lines % n:
        raise ValueError(f"{num_lines} lines are not a multiple of {n}")
    files = num_lines // n - 1
    starts = np.zeros(num_lines + 1, dtype=np.int64)
    cdef int64_t[::1] start = starts
    for line in range(num_lines):
        start[line + 1] = start[line] + counts[line]
    if start[num_lines] != ids.shape[0]:
        raise ValueError("the word counts do not add up to the number of words")
    sizes = np.zeros(num_lines, dtype=np.int64)
    common = np.zeros((max(files, 0), n, 3), dtype=np.int64)
    cdef int64_t[::1] size = sizes
    cdef int64_t[:, :, ::1] shared = common
    # mark[0, w]: the last line that counted w (its number; -2 - it in the overlap
    # pass); mark[k, w], k = 1, 2, 3: the last (output, line) whose source line at
    # offset k (own, next, previous) holds w
    marks = np.full((4, max(vocab, 1)), -1, dtype=np.int64)
    cdef int64_t[:, ::1] mark = marks
    cdef int64_t key, distinct
    for line in range(num_lines):
        distinct = 0
        for k in range(start[line], start[line + 1]):
            w = ids[k]
            if w < 0 or w >= vocab:
                raise ValueError(f"word id {w} is outside the vocabulary of {vocab}")
            if mark[0, w] != line:
                mark[0, w] = line
                distinct += 1
        size[line] = distinct
    for f in range(files):
        PyErr_CheckSignals()
        for i in range(n):
            key = f * n + i
            for k in range(3):
                j = i if k == 0 else (i + 1 if k == 1 else i - 1)
                if j < 0 or j >= n:
                    continue
                for w in range(start[j], start[j + 1]):
                    mark[k + 1, ids[w]] = key
            line = (f + 1) * n + i
            for w in range(start[line], start[line + 1]):
                if mark[0, ids[w]] == -2 - line:
                    continue  # counted already (a repeated word of this line)
                mark[0, ids[w]] = -2 - line
                for k in range(3):
                    if mark[k + 1, ids[w]] == key:
                        shared[f, i, k] += 1
    return sizes, common
