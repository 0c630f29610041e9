"""The I-measure's token alignment of source, hypothesis and reference, and its counts.

The official tool (``align.py`` of mfelice/imeasure) aligns the three token
sequences exactly under the sum-of-pairs model: a column costs the sum of
its three pairwise costs, 0 for equal tokens, 3 for different tokens and 2
for a token against a gap (two gaps cost 0). When two of the sequences are
equal, a pairwise alignment of the two distinct ones (costs 0/3/2) is used.
Among equally cheap alignments the backtrace (from the end) prefers, in this
order: a column of three tokens; two tokens (source+hypothesis,
source+reference, hypothesis+reference); one token (source, hypothesis,
reference). The pairwise backtrace prefers a diagonal step, then a token of
the first sequence, then of the second. These tie rules decide the counts,
so they are kept exactly.

Each column of the alignment is then classified (``get_counts`` of
``ieval.py``), for detection (``d``) and correction (``c``):

* source = hypothesis = reference: TN;
* source = hypothesis != reference: FN;
* source != hypothesis, source = reference: FP;
* source != hypothesis, source != reference: detection TP; for correction
  TP when hypothesis = reference, else FP, FN and FPN (both at once).

:func:`alignment_counts` is the pure-Python implementation (the fallback
when the compiled kernel ``_imeasure_kernel`` is missing, and the oracle it
is tested against). Tokens are given as integer ids (equal ids, equal
tokens); a gap is ``-1``.
"""

from __future__ import annotations

from collections.abc import Sequence

GAP_COST = 2
MISMATCH = 3
GAP = -1

#: Most cells of the dynamic-programming table of one alignment (4 bytes a cell in the
#: compiled kernel): (n1+1)(n2+1)(n3+1) for three distinct sequences, which is cubic in
#: the sentence (a 3,000-token line asked for 108 GB and died with a MemoryError
#: traceback), (n1+1)(n2+1) when two are equal. 10^8 cells is 400 MB and about a
#: second: three distinct sequences of 460 tokens, two of 10,000. The longest
#: CoNLL-2014 sentence (227 tokens) needs 1.2 x 10^7. :func:`alignment_cells` is
#: checked for every sentence before any is aligned (``metrics/imeasure.py``).
MAX_ALIGNMENT_CELLS = 100_000_000

#: Order of the counts returned by :func:`alignment_counts`.
COUNT_FIELDS = ("d_tp", "d_tn", "d_fp", "d_fn", "c_tp", "c_fp", "c_fn", "c_fpn")


def _pairwise_table(a: Sequence[int], b: Sequence[int]) -> list[list[int]]:
    m, n = len(a), len(b)
    t = [[0] * (n + 1) for _ in range(m + 1)]
    for j in range(1, n + 1):
        t[0][j] = j * GAP_COST
    for i in range(1, m + 1):
        row, prev = t[i], t[i - 1]
        row[0] = i * GAP_COST
        ai = a[i - 1]
        for j in range(1, n + 1):
            diag = prev[j - 1] + (0 if ai == b[j - 1] else MISMATCH)
            row[j] = min(prev[j] + GAP_COST, row[j - 1] + GAP_COST, diag)
    return t


def _pairwise(a: Sequence[int], b: Sequence[int]) -> tuple[list[int], list[int]]:
    """Aligned copies of ``a`` and ``b`` (gaps as -1), with the official tie rules."""
    t = _pairwise_table(a, b)
    la: list[int] = []
    lb: list[int] = []
    i, j = len(a), len(b)
    while i or j:
        diag = (0 if a[i - 1] == b[j - 1] else MISMATCH) if i > 0 and j > 0 else 0
        if i > 0 and j > 0 and t[i][j] == t[i - 1][j - 1] + diag:
            la.append(a[i - 1])
            lb.append(b[j - 1])
            i, j = i - 1, j - 1
        elif i > 0 and t[i][j] == t[i - 1][j] + GAP_COST:
            la.append(a[i - 1])
            lb.append(GAP)
            i -= 1
        else:
            la.append(GAP)
            lb.append(b[j - 1])
            j -= 1
    la.reverse()
    lb.reverse()
    return la, lb


def _threeway(s1: Sequence[int], s2: Sequence[int], s3: Sequence[int]
              ) -> tuple[list[int], list[int], list[int]]:
    n1, n2, n3 = len(s1) + 1, len(s2) + 1, len(s3) + 1
    g2 = 2 * GAP_COST
    # D[i][j][k]; the three boundary planes are pairwise costs plus gaps.
    d = [[[0] * n3 for _ in range(n2)] for _ in range(n1)]
    t12, t13, t23 = _pairwise_table(s1, s2), _pairwise_table(s1, s3), _pairwise_table(s2, s3)
    for i in range(n1):
        for j in range(n2):
            d[i][j][0] = t12[i][j] + (i + j) * GAP_COST
    for i in range(n1):
        for k in range(n3):
            d[i][0][k] = t13[i][k] + (i + k) * GAP_COST
    for j in range(n2):
        for k in range(n3):
            d[0][j][k] = t23[j][k] + (j + k) * GAP_COST
    for i in range(1, n1):
        a = s1[i - 1]
        cur, prev = d[i], d[i - 1]
        for j in range(1, n2):
            b = s2[j - 1]
            cij = 0 if a == b else MISMATCH
            row, row_j1, prow, prow_j1 = cur[j], cur[j - 1], prev[j], prev[j - 1]
            for k in range(1, n3):
                c = s3[k - 1]
                cik = 0 if a == c else MISMATCH
                cjk = 0 if b == c else MISMATCH
                row[k] = min(prow_j1[k - 1] + cij + cik + cjk,
                             prow_j1[k] + cij + g2,
                             prow[k - 1] + cik + g2,
                             row_j1[k - 1] + cjk + g2,
                             prow[k] + g2,
                             row_j1[k] + g2,
                             row[k - 1] + g2)
    l1: list[int] = []
    l2: list[int] = []
    l3: list[int] = []
    i, j, k = n1 - 1, n2 - 1, n3 - 1
    while i or j or k:
        here = d[i][j][k]
        cij = (0 if s1[i - 1] == s2[j - 1] else MISMATCH) if i and j else 0
        cik = (0 if s1[i - 1] == s3[k - 1] else MISMATCH) if i and k else 0
        cjk = (0 if s2[j - 1] == s3[k - 1] else MISMATCH) if j and k else 0
        if i and j and k and here == d[i - 1][j - 1][k - 1] + cij + cik + cjk:
            step = (1, 1, 1)
        elif i and j and here == d[i - 1][j - 1][k] + cij + g2:
            step = (1, 1, 0)
        elif i and k and here == d[i - 1][j][k - 1] + cik + g2:
            step = (1, 0, 1)
        elif j and k and here == d[i][j - 1][k - 1] + cjk + g2:
            step = (0, 1, 1)
        elif i and here == d[i - 1][j][k] + g2:
            step = (1, 0, 0)
        elif j and here == d[i][j - 1][k] + g2:
            step = (0, 1, 0)
        else:
            step = (0, 0, 1)
        l1.append(s1[i - 1] if step[0] else GAP)
        l2.append(s2[j - 1] if step[1] else GAP)
        l3.append(s3[k - 1] if step[2] else GAP)
        i, j, k = i - step[0], j - step[1], k - step[2]
    l1.reverse()
    l2.reverse()
    l3.reverse()
    return l1, l2, l3


def align(src: Sequence[int], hyp: Sequence[int], ref: Sequence[int]
          ) -> tuple[list[int], list[int], list[int]]:
    """The official alignment of the three sequences: aligned source, hypothesis, reference."""
    src, hyp, ref = list(src), list(hyp), list(ref)
    if src == hyp == ref:
        return src, hyp, ref
    if src == hyp:
        a, b = _pairwise(hyp, ref)
        return a, a, b
    if src == ref:
        a, b = _pairwise(ref, hyp)
        return a, b, a
    if hyp == ref:
        a, b = _pairwise(ref, src)
        return b, a, a
    return _threeway(src, hyp, ref)


def alignment_cells(src: Sequence, hyp: Sequence, ref: Sequence) -> int:
    """Cells of the table that :func:`align` fills for these sequences (as it dispatches)."""
    src, hyp, ref = list(src), list(hyp), list(ref)
    n1, n2, n3 = len(src) + 1, len(hyp) + 1, len(ref) + 1
    if src == hyp == ref:
        return 0
    if src == hyp:
        return n2 * n3
    if src == ref or hyp == ref:
        return n1 * n2 if hyp == ref else n3 * n2
    return n1 * n2 * n3


def alignment_counts(src: Sequence[int], hyp: Sequence[int], ref: Sequence[int]
                     ) -> tuple[int, ...]:
    """Counts of the official alignment, in the order of :data:`COUNT_FIELDS`."""
    d_tp = d_tn = d_fp = d_fn = c_tp = c_fpn = 0
    for s, h, r in zip(*align(src, hyp, ref), strict=True):
        if s == h:
            if h == r:
                d_tn += 1
            else:
                d_fn += 1
        elif s == r:
            d_fp += 1
        else:
            d_tp += 1
            if h == r:
                c_tp += 1
            else:
                c_fpn += 1
    # Correction differs from detection only on detected but wrongly corrected columns.
    return (d_tp, d_tn, d_fp, d_fn, c_tp, d_fp + c_fpn, d_fn + c_fpn, c_fpn)
