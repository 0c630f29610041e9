"""A slow, plain chrF / chrF++ written from Popović's definition (tests only).

Counters of character n-grams (whitespace removed unless asked) and of word
n-grams (words with one leading or trailing punctuation mark split off);
precision and recall per order, averaged over the orders where both the
hypothesis and the reference have n-grams, then F_beta. A reference without
n-grams of an order contributes no hypothesis count for it (sacrebleu's rule).
"""

from __future__ import annotations

import string
from collections import Counter

PUNCT = set(string.punctuation)


def char_ngrams(text: str, n: int, whitespace: bool) -> Counter:
    chars = text if whitespace else "".join(ch for ch in text if not ch.isspace())
    return Counter(chars[i:i + n] for i in range(len(chars) - n + 1))


def words(text: str) -> list[str]:
    out = []
    for w in text.split():
        if len(w) >= 2 and w[-1] in PUNCT:
            out.extend([w[:-1], w[-1]])
        elif len(w) >= 2 and w[0] in PUNCT:
            out.extend([w[0], w[1:]])
        else:
            out.append(w)
    return out


def word_ngrams(text: str, n: int) -> Counter:
    ws = words(text)
    return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))


def counts(hyp: str, ref: str, char_order=6, word_order=0, whitespace=False, lowercase=False):
    """[(hyp n-grams, ref n-grams, matches)] per order, chars first."""
    if lowercase:
        hyp, ref = hyp.lower(), ref.lower()
    bags = [(char_ngrams(hyp, n, whitespace), char_ngrams(ref, n, whitespace))
            for n in range(1, char_order + 1)]
    bags += [(word_ngrams(hyp, n), word_ngrams(ref, n)) for n in range(1, word_order + 1)]
    out = []
    for h, r in bags:
        matches = sum((h & r).values())
        out.append((sum(h.values()) if r else 0, sum(r.values()), matches))
    return out


def f_score(stats, beta=2.0) -> float:
    """chrF in 0-1 (sacrebleu's default averaging, without eps smoothing)."""
    precisions, recalls = [], []
    for h, r, m in stats:
        if h > 0 and r > 0:
            precisions.append(m / h)
            recalls.append(m / r)
    if not precisions:
        return 0.0
    p = sum(precisions) / len(precisions)
    rc = sum(recalls) / len(recalls)
    if p + rc == 0:
        return 0.0
    return (1 + beta**2) * p * rc / (beta**2 * p + rc)


def best(hyp: str, refs: list[str], beta: float, **options):
    """Statistics against the reference with the highest sentence chrF (first on ties)."""
    options_stats = [counts(hyp, r, **options) for r in refs]
    scores = [f_score(s, beta) for s in options_stats]
    return options_stats[scores.index(max(scores))]


def sentence_chrf(refs, hyp, beta=2.0, **options) -> list[float]:
    return [f_score(best(h, [r[i] for r in refs], beta, **options), beta)
            for i, h in enumerate(hyp)]


def corpus_chrf(refs, hyp, beta=2.0, **options) -> float:
    total = None
    for i, h in enumerate(hyp):
        stats = best(h, [r[i] for r in refs], beta, **options)
        total = stats if total is None else [tuple(a + b for a, b in zip(x, y, strict=True))
                                             for x, y in zip(total, stats, strict=True)]
    return f_score(total, beta)
