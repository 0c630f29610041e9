"""A slow, plain GLEU written straight from the formulas (tests only).

Independent of the fast path on purpose: n-grams are Counters of tuples, the
penalties are the per-n-gram formulas of the GLEU README (official code) and
of the GLEU+ paper, the geometric mean is a product and a root, and the brevity
penalty is exp(1 - r/h) written out. Nothing is vectorised or cached.
"""

from __future__ import annotations

import math
import random
from collections import Counter


def ngrams(sentence: str, n: int, tokenize: str) -> Counter:
    units = sentence.split() if tokenize == "word" else list(sentence)
    return Counter(tuple(units[i:i + n]) for i in range(len(units) - n + 1))


def length(sentence: str, tokenize: str) -> int:
    return len(sentence.split()) if tokenize == "word" else len(sentence)


def order_counts(s: str, r: str, c: str, n: int, tokenize: str, variant: str):
    """(numerator clipped at 0, denominator) of one sentence at order n."""
    S, R, C = ngrams(s, n, tokenize), ngrams(r, n, tokenize), ngrams(c, n, tokenize)
    match = penalty = 0
    for x, eta in C.items():
        sigma, rho = S[x], R[x]
        match += min(rho, eta)
        if variant == "official":
            sigma_diff = sigma if rho == 0 else 0
            penalty += min(sigma_diff, eta)
        else:
            penalty += max(0, min(sigma, eta) - min(rho, eta))
    return max(0, match - penalty), sum(C.values())


def gleu_of(counts, rlen: int, hlen: int) -> float:
    """GLEU from per-order (numerator, denominator) sums and the lengths."""
    if hlen == 0 and rlen > 0:
        return 0.0
    bp = 1.0 if rlen < hlen or hlen == 0 else math.exp(1 - rlen / hlen)
    product = 1.0
    for numer, denom in counts:
        product *= numer / denom if denom else 1.0
    return bp * product ** (1 / len(counts))


def per_order_of(counts, rlen: int, hlen: int) -> list[float]:
    if hlen == 0 and rlen > 0:
        return [0.0] * len(counts)
    bp = 1.0 if rlen < hlen or hlen == 0 else math.exp(1 - rlen / hlen)
    return [bp * (numer / denom if denom else 1.0) for numer, denom in counts]


def sentence_table(src, refs, hyp, n, tokenize, variant):
    """[sentence][reference] -> (per-order counts, rlen, hlen)."""
    table = []
    for i, (s, c) in enumerate(zip(src, hyp, strict=True)):
        row = []
        for ref in refs:
            counts = [order_counts(s, ref[i], c, m, tokenize, variant) for m in range(1, n + 1)]
            row.append((counts, length(ref[i], tokenize), length(c, tokenize)))
        table.append(row)
    return table


def official_draws(iterations: int, sentences: int, num_refs: int) -> list[list[int]]:
    """Python 2's randint(0, K-1) = int(random() * K) after seeding i * 101."""
    draws = []
    for i in range(iterations):
        rng = random.Random(i * 101)
        draws.append([int(rng.random() * num_refs) for _ in range(sentences)])
    return draws


def corpus_from_choice(table, choice) -> float:
    n = len(table[0][0][0])
    sums = [[0, 0] for _ in range(n)]
    rlen = hlen = 0
    for row, k in zip(table, choice, strict=True):
        counts, r, h = row[k]
        for m, (numer, denom) in enumerate(counts):
            sums[m][0] += numer
            sums[m][1] += denom
        rlen += r
        hlen += h
    return gleu_of(sums, rlen, hlen)


def best_reference(row) -> int:
    """Highest sentence GLEU; ties by per-order scores from n = N down; then the first."""
    best, best_key = 0, None
    for k, (counts, r, h) in enumerate(row):
        key = (gleu_of(counts, r, h), per_order_of(counts, r, h)[::-1])
        if best_key is None or key > best_key:
            best, best_key = k, key
    return best


def corpus_gleu(src, refs, hyp, n=4, tokenize="word", variant="official", mode="sampling",
                draws=None) -> float:
    table = sentence_table(src, refs, hyp, n, tokenize, variant)
    if mode == "max":
        return corpus_from_choice(table, [best_reference(row) for row in table])
    scores = [corpus_from_choice(table, choice) for choice in draws]
    return sum(scores) / len(scores)


def sentence_gleu(src, refs, hyp, n=4, tokenize="word", variant="official", mode="sampling"):
    """max: the best reference's sentence GLEU; sampling: the mean over references."""
    out = []
    for row in sentence_table(src, refs, hyp, n, tokenize, variant):
        scores = [gleu_of(counts, r, h) for counts, r, h in row]
        out.append(max(scores) if mode == "max" else sum(scores) / len(scores))
    return out
