# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""ERRANT 3.0.2's token alignment, compiled (built by setup.py when Cython is present).

The same dynamic program as ``errant.alignment.Alignment.align`` and the same
backtrace as ``get_cheapest_align_seq``, on arrays that
:mod:`gecmetrics.edits.errant_align` precomputes from the spaCy tokens (dense
ids of each token's orth, lower-case form and lemma; its POS; whether the POS
is open-class for the alignment's cost; its text). errant's floating-point
arithmetic is reproduced operation for operation (additions of the same
doubles in the same order, the same strict comparisons, and the character
cost as ``rapidfuzz.distance.Indel.normalized_distance``: the LCS-based indel
distance divided by the summed lengths, exact integers then one division), so
the cost matrix, and hence every tie-break of the backtrace, is errant's.
The transposition test (errant: ``sorted(o_low[i-k:i+1]) ==
sorted(c_low[j-k:j+1])`` for k = 1, 2, ... while the diagonal is not a match)
is the same multiset comparison kept incrementally: O(1) per k, not O(k log k).
"""

from cpython.exc cimport PyErr_CheckSignals
from libc.stdlib cimport malloc, calloc, free
from libc.stdint cimport int32_t, int64_t

cdef double INF = float("inf")
#: Python's signal handlers (Ctrl-C; SIGTERM, which the CLI turns into an
#: exception) run only when the GIL is taken back: the dynamic program does so
#: after every this many cells (whole rows), well under 0.1 s even with each
#: cell's transposition walk at its longest, so a signal ends even a 5,000 x
#: 5,000-token alignment at once, while a short pair never pays for the check.
cdef Py_ssize_t SIGNAL_CHECK_CELLS = 4096

# op codes in the op matrix: T<k> is stored as k (>= 2)
DEF OP_M = -1
DEF OP_S = -2
DEF OP_I = -3
DEF OP_D = -4


cdef int32_t* _ints(object values, Py_ssize_t n) except NULL:
    """A malloc'ed C copy of ``n`` Python ints (at least one slot)."""
    cdef int32_t* out = <int32_t*>malloc((n if n > 0 else 1) * sizeof(int32_t))
    if out == NULL:
        raise MemoryError()
    cdef Py_ssize_t t
    for t in range(n):
        out[t] = values[t]
    return out


cdef double _indel(const int32_t* a, Py_ssize_t la, const int32_t* b, Py_ssize_t lb,
                   int32_t* row) noexcept nogil:
    """rapidfuzz's Indel.normalized_distance of two code-point strings:
    (la + lb - 2 * LCS) / (la + lb), 0 when both are empty."""
    cdef Py_ssize_t x, y
    cdef int32_t diag, up, best
    if la + lb == 0:
        return 0.0
    for y in range(lb + 1):
        row[y] = 0
    for x in range(la):
        diag = 0  # row[x][0]
        for y in range(lb):
            up = row[y + 1]
            if a[x] == b[y]:
                best = diag + 1
            else:
                best = up if up > row[y] else row[y]
            diag = up
            row[y + 1] = best
    return <double>(la + lb - 2 * row[lb]) / <double>(la + lb)


cdef inline void _bump(int32_t* counts, int32_t code, int32_t delta, int32_t* nz) noexcept nogil:
    """Add ``delta`` to one count of the multiset difference; ``nz`` counts the
    non-zero entries (0: the two windows hold the same lower-case tokens)."""
    cdef int32_t before = counts[code]
    counts[code] = before + delta
    if before == 0:
        nz[0] += 1
    elif before + delta == 0:
        nz[0] -= 1


def align_seq(list o_orth, list c_orth, list o_lower, list c_lower, list o_lemma,
              list c_lemma, list o_pos, list c_pos, list o_open, list c_open,
              list o_type, list c_type, list o_chars, list c_chars, bint lev):
    """errant's ``align_seq``: [(op, o_start, o_end, c_start, c_end), ...].

    Per token of the original (``o_``) and corrected (``c_``) sentence: dense
    ids of orth, lower and lemma (equal ids for equal spaCy hashes, shared by
    both sides), the POS id, whether the POS is in errant's open-class set,
    and the id of its text among ``o_chars`` / ``c_chars`` (each text's code
    points, one list per distinct text). ``lev``: errant's ``lev`` flag
    (substitution cost 1, no transpositions).
    """
    cdef Py_ssize_t n = len(o_orth), m = len(c_orth)
    cdef Py_ssize_t w = m + 1
    cdef Py_ssize_t i, j, k, t, added, to, tc, n_low, la, lb, longest = 0, unchecked = 0
    cdef double d_cost, i_cost, s_cost, t_cost, best, sc, lemma_cost, pos_cost
    cdef double* cost = NULL
    cdef int32_t* op = NULL
    cdef int32_t* counts = NULL
    cdef int32_t* row = NULL
    cdef double* memo = NULL
    cdef int32_t* oo = NULL
    cdef int32_t* co = NULL
    cdef int32_t* ol = NULL
    cdef int32_t* cl = NULL
    cdef int32_t* olem = NULL
    cdef int32_t* clem = NULL
    cdef int32_t* opos = NULL
    cdef int32_t* cpos = NULL
    cdef int32_t* oopen = NULL
    cdef int32_t* copen = NULL
    cdef int32_t* otyp = NULL
    cdef int32_t* ctyp = NULL
    cdef int32_t** ochr = NULL
    cdef int32_t** cchr = NULL
    cdef Py_ssize_t* olen = NULL
    cdef Py_ssize_t* clen = NULL
    cdef int32_t nz, v, code
    cdef Py_ssize_t n_ot = len(o_chars), n_ct = len(c_chars)
    n_low = 0
    for v in o_lower:
        if v + 1 > n_low:
            n_low = v + 1
    for v in c_lower:
        if v + 1 > n_low:
            n_low = v + 1
    try:
        cost = <double*>malloc((n + 1) * w * sizeof(double))
        op = <int32_t*>malloc((n + 1) * w * sizeof(int32_t))
        counts = <int32_t*>calloc(n_low + 1, sizeof(int32_t))
        memo = <double*>malloc((n_ot * n_ct if n_ot * n_ct > 0 else 1) * sizeof(double))
        ochr = <int32_t**>calloc(n_ot + 1, sizeof(int32_t*))
        cchr = <int32_t**>calloc(n_ct + 1, sizeof(int32_t*))
        olen = <Py_ssize_t*>malloc((n_ot + 1) * sizeof(Py_ssize_t))
        clen = <Py_ssize_t*>malloc((n_ct + 1) * sizeof(Py_ssize_t))
        if (cost == NULL or op == NULL or counts == NULL or memo == NULL or ochr == NULL
                or cchr == NULL or olen == NULL or clen == NULL):
            raise MemoryError()
        oo, co = _ints(o_orth, n), _ints(c_orth, m)
        ol, cl = _ints(o_lower, n), _ints(c_lower, m)
        olem, clem = _ints(o_lemma, n), _ints(c_lemma, m)
        opos, cpos = _ints(o_pos, n), _ints(c_pos, m)
        oopen, copen = _ints(o_open, n), _ints(c_open, m)
        otyp, ctyp = _ints(o_type, n), _ints(c_type, m)
        for t in range(n_ot):
            olen[t] = len(o_chars[t])
            ochr[t] = _ints(o_chars[t], olen[t])
            if olen[t] > longest:
                longest = olen[t]
        for t in range(n_ct):
            clen[t] = len(c_chars[t])
            cchr[t] = _ints(c_chars[t], clen[t])
            if clen[t] > longest:
                longest = clen[t]
        row = <int32_t*>malloc((longest + 1) * sizeof(int32_t))
        if row == NULL:
            raise MemoryError()
        with nogil:
            for t in range(n_ot * n_ct):
                memo[t] = -1.0
            cost[0] = 0.0
            op[0] = 0
            for i in range(1, n + 1):
                cost[i * w] = cost[(i - 1) * w] + 1
                op[i * w] = OP_D
            for j in range(1, m + 1):
                cost[j] = cost[j - 1] + 1
                op[j] = OP_I
            for i in range(n):
                unchecked += m
                if unchecked >= SIGNAL_CHECK_CELLS:
                    unchecked = 0
                    with gil:
                        PyErr_CheckSignals()
                for j in range(m):
                    if oo[i] == co[j]:
                        cost[(i + 1) * w + j + 1] = cost[i * w + j]
                        op[(i + 1) * w + j + 1] = OP_M
                        continue
                    d_cost = cost[i * w + j + 1] + 1
                    i_cost = cost[(i + 1) * w + j] + 1
                    t_cost = INF
                    k = 1
                    if lev:
                        s_cost = cost[i * w + j] + 1
                    else:
                        # errant's get_sub_cost: (lemma + pos) + char, 0 for a case change
                        if ol[i] == cl[j]:
                            sc = 0.0
                        else:
                            lemma_cost = 0.0 if olem[i] == clem[j] else 0.499
                            if opos[i] == cpos[j]:
                                pos_cost = 0.0
                            elif oopen[i] and copen[j]:
                                pos_cost = 0.25
                            else:
                                pos_cost = 0.5
                            to, tc = otyp[i], ctyp[j]
                            if memo[to * n_ct + tc] < 0:
                                memo[to * n_ct + tc] = _indel(ochr[to], olen[to], cchr[tc],
                                                              clen[tc], row)
                            sc = (lemma_cost + pos_cost) + memo[to * n_ct + tc]
                        s_cost = cost[i * w + j] + sc
                        # transpositions: the multiset difference of the two windows
                        added = -1
                        nz = 0
                        while (i - k >= 0 and j - k >= 0
                               and cost[(i - k + 1) * w + j - k + 1] != cost[(i - k) * w + j - k]):
                            if added < 0:
                                _bump(counts, ol[i], 1, &nz)
                                _bump(counts, cl[j], -1, &nz)
                            _bump(counts, ol[i - k], 1, &nz)
                            _bump(counts, cl[j - k], -1, &nz)
                            added = k
                            if nz == 0:
                                t_cost = cost[(i - k) * w + j - k] + k
                                break
                            k += 1
                        for t in range(added + 1):
                            counts[ol[i - t]] = 0
                            counts[cl[j - t]] = 0
                    # the first cheapest of [trans, sub, ins, del]
                    best = t_cost
                    code = k + 1
                    if s_cost < best:
                        best = s_cost
                        code = OP_S
                    if i_cost < best:
                        best = i_cost
                        code = OP_I
                    if d_cost < best:
                        best = d_cost
                        code = OP_D
                    cost[(i + 1) * w + j + 1] = best
                    op[(i + 1) * w + j + 1] = code
        # the backtrace of get_cheapest_align_seq
        seq = []
        names = {OP_M: "M", OP_S: "S", OP_I: "I", OP_D: "D"}
        i, j = n, m
        while i + j != 0:
            code = op[i * w + j]
            if code == OP_M or code == OP_S:
                seq.append((names[code], i - 1, i, j - 1, j))
                i -= 1
                j -= 1
            elif code == OP_D:
                seq.append(("D", i - 1, i, j, j))
                i -= 1
            elif code == OP_I:
                seq.append(("I", i, i, j - 1, j))
                j -= 1
            else:
                seq.append(("T" + str(code), i - code, i, j - code, j))
                i -= code
                j -= code
        seq.reverse()
        return seq
    finally:
        free(cost)
        free(op)
        free(counts)
        free(row)
        free(memo)
        free(oo)
        free(co)
        free(ol)
        free(cl)
        free(olem)
        free(clem)
        free(opos)
        free(cpos)
        free(oopen)
        free(copen)
        free(otyp)
        free(ctyp)
        if ochr != NULL:
            for t in range(n_ot):
                free(ochr[t])
        if cchr != NULL:
            for t in range(n_ct):
                free(cchr[t])
        free(ochr)
        free(cchr)
        free(olen)
        free(clen)


def char_cost(str a, str b):
    """The kernel's character cost of two texts, for the tests: must equal
    ``rapidfuzz.distance.Indel.normalized_distance(a, b)`` bit for bit."""
    cdef Py_ssize_t la = len(a), lb = len(b)
    cdef int32_t* x = _ints([ord(ch) for ch in a], la)
    cdef int32_t* y = NULL
    cdef int32_t* row = NULL
    try:
        y = _ints([ord(ch) for ch in b], lb)
        row = <int32_t*>malloc((lb + 1) * sizeof(int32_t))
        if row == NULL:
            raise MemoryError()
        return _indel(x, la, y, lb, row)
    finally:
        free(x)
        free(y)
        free(row)


def token_arrays(list o_rows, list c_rows, object o_strings, object c_strings,
                 object open_pos):
    """The 14 token lists :func:`align_seq` takes, from each sentence's
    ``Doc.to_array([ORTH, LOWER, LEMMA, POS])`` rows and its string store:
    dense ids (one per spaCy hash, shared by both sentences), POS ids,
    open-class flags (POS in ``open_pos``), per-sentence text ids and each
    distinct text's code points."""
    cdef dict ids = {}
    cdef dict types
    cdef list out = []
    cdef list orth, lower, lemma, pos, is_open, typ, chars, rows
    cdef object r, o, p, found
    cdef str text
    cdef Py_UCS4 ch
    for rows, strings in ((o_rows, o_strings), (c_rows, c_strings)):
        types = {}
        orth, lower, lemma, pos, is_open, typ, chars = [], [], [], [], [], [], []
        for r in rows:
            o = r[0]
            for found, target in ((o, orth), (r[1], lower), (r[2], lemma)):
                v = ids.get(found)
                if v is None:
                    v = len(ids)
                    ids[found] = v
                target.append(v)
            p = r[3]
            pos.append(p)
            is_open.append(1 if p in open_pos else 0)
            v = types.get(o)
            if v is None:
                v = len(types)
                types[o] = v
                text = strings[o]
                chars.append([<int32_t>ch for ch in text])
            typ.append(v)
        out.append((orth, lower, lemma, pos, is_open, typ, chars))
    a, b = out
    return (a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5],
            a[6], b[6])
