"""A slow, plain GREEN written straight from the paper's formulas (tests only).

Independent of the fast path on purpose: n-grams are counted with Counter
on strings/tuples, the seven regions use the per-n-gram min/max formulas of
the README (not the closed forms from intersections), the geometric mean is
a product and a root, and F is (1+b^2)PR / (b^2 P + R).
"""

from __future__ import annotations

from collections import Counter
from functools import cache

REGION_NAMES = ("TD", "TI", "TK", "OD", "OI", "UD", "UI")


@cache
def ngrams(sentence: str, n: int, tokenize: str) -> Counter:
    units = sentence.split() if tokenize == "word" else list(sentence)
    return Counter(tuple(units[i:i + n]) for i in range(len(units) - n + 1))


@cache  # memoised only to keep real-data tests quick; same values
def regions(s: str, r: str, c: str, n: int, tokenize: str) -> dict[str, int]:
    S, R, C = ngrams(s, n, tokenize), ngrams(r, n, tokenize), ngrams(c, n, tokenize)
    out = dict.fromkeys(REGION_NAMES, 0)
    for x in S.keys() | R.keys() | C.keys():
        ms, mr, mc = S.get(x, 0), R.get(x, 0), C.get(x, 0)
        out["TD"] += max(ms - max(mr, mc), 0)
        out["TI"] += max(min(mr, mc) - ms, 0)
        out["TK"] += min(ms, mr, mc)
        out["OD"] += max(min(ms, mr) - mc, 0)
        out["OI"] += max(mc - max(ms, mr), 0)
        out["UD"] += max(min(ms, mc) - mr, 0)
        out["UI"] += max(mr - max(ms, mc), 0)
    return out


def tp_fp_fn(reg: dict[str, int]) -> tuple[int, int, int]:
    return (reg["TD"] + reg["TI"] + reg["TK"], reg["OD"] + reg["OI"], reg["UD"] + reg["UI"])


def prf(counts: list[tuple[int, int, int]], beta: float) -> tuple[float, float, float]:
    """P, R, F over orders 1..len(counts) from per-order (TP, FP, FN)."""
    p_prod = 1.0
    r_prod = 1.0
    for tp, fp, fn in counts:
        p_prod *= tp / (tp + fp) if tp + fp > 0 else 1.0
        r_prod *= tp / (tp + fn) if tp + fn > 0 else 0.0
    k = len(counts)
    p = p_prod ** (1 / k)
    r = r_prod ** (1 / k)
    if p == 0 or r == 0:
        return p, r, 0.0
    return p, r, (1 + beta**2) * p * r / (beta**2 * p + r)


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


def best_reference(s: str, refs: list[str], c: str, n: int, tokenize: str, beta: float) -> int:
    """Highest sentence F over 1..n; ties by F over 1..n-1, ...; then the first reference."""
    per_ref = [[tp_fp_fn(regions(s, r, c, m, tokenize)) for m in range(1, n + 1)] for r in refs]
    best = 0
    for k in range(1, len(refs)):
        for m in range(n, 0, -1):
            fk = prf(per_ref[k][:m], beta)[2]
            fb = prf(per_ref[best][:m], beta)[2]
            if close(fk, fb):
                continue
            if fk > fb:
                best = k
            break
    return best


def corpus_green(src, refs, hyp, n, tokenize, beta):
    """(P, R, F) at corpus level; ``refs`` is a list of reference lists."""
    totals = [[0, 0, 0] for _ in range(n)]
    for i, (s, c) in enumerate(zip(src, hyp, strict=True)):
        options = [ref[i] for ref in refs]
        r = options[best_reference(s, options, c, n, tokenize, beta)]
        for m in range(1, n + 1):
            for j, v in enumerate(tp_fp_fn(regions(s, r, c, m, tokenize))):
                totals[m - 1][j] += v
    return prf([tuple(t) for t in totals], beta)


def sentence_green(src, refs, hyp, n, tokenize, beta):
    out = []
    for i, (s, c) in enumerate(zip(src, hyp, strict=True)):
        options = [ref[i] for ref in refs]
        r = options[best_reference(s, options, c, n, tokenize, beta)]
        counts = [tp_fp_fn(regions(s, r, c, m, tokenize)) for m in range(1, n + 1)]
        out.append(prf(counts, beta)[2])
    return out
