"""Which annotator's counts a sentence is scored with: the official tools' rules.

With several annotators, the M2 scorer and ERRANT score each sentence
against one annotator only, chosen sentence by sentence in corpus order:

``m2``
    the NUS M2 scorer: the annotator that maximises the *running corpus*
    F_beta (totals so far plus this sentence, :func:`~gecmetrics.fscore.m2_running_f`);
    ties go to more correct edits, then to the smaller
    ``proposed + beta^2 * gold``, then to the first annotator.
``errant``
    ERRANT's ``compare_m2``: the same running-F choice, with F rounded to 4
    decimals as errant's ``computeFScore`` does (so F values that differ only
    beyond the 4th decimal tie); ties to more TP, then fewer FP, then fewer
    FN, then the first annotator.

Because the choice depends on the running totals, it is made once per beta
over the whole corpus in its order. ``running=False`` chooses each sentence
on its own, for sentence-level scores. A beta sweep makes it for many betas
at once (:data:`MANY_RULES`): the same rules on (system, beta) arrays.

Each rule takes one system's counts as nested lists ``tp[d][a]`` (plain
Python ints: this loop runs once per sentence and annotator, where numpy
scalars would be slower) and ``present[d][a]`` (False: annotator ``a`` has
no annotation of sentence ``d`` and is never chosen), and returns the chosen
annotator index per sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..fscore import m2_running_f, prf

Rows = Sequence[Sequence[int]]
ChoiceRule = Callable[[Rows, Rows, Rows, Sequence[Sequence[bool]], float, bool], list[int]]


def choose_m2(tp: Rows, fp: Rows, fn: Rows, present: Sequence[Sequence[bool]],
              beta: float, running: bool) -> list[int]:
    """The official M2 scorer's choice for one system."""
    b2 = beta * beta
    c = e = g = 0.0
    out = []
    for d in range(len(tp)):
        best: tuple[float, float, float, float] | None = None
        chosen = -1
        for a in range(len(tp[d])):
            if not present[d][a]:
                continue
            lc = (c if running else 0.0) + tp[d][a]
            le = (e if running else 0.0) + tp[d][a] + fp[d][a]
            lg = (g if running else 0.0) + tp[d][a] + fn[d][a]
            f = m2_running_f(lc, le, lg, beta)
            if best is None or f > best[0] or (f == best[0] and lc > best[1]) or (
                    f == best[0] and lc == best[1] and best[2] + b2 * best[3] > le + b2 * lg):
                best = (f, lc, le, lg)
                chosen = a
        out.append(chosen)
        c += tp[d][chosen]
        e += tp[d][chosen] + fp[d][chosen]
        g += tp[d][chosen] + fn[d][chosen]
    return out


def choose_errant(tp: Rows, fp: Rows, fn: Rows, present: Sequence[Sequence[bool]],
                  beta: float, running: bool) -> list[int]:
    """ERRANT ``compare_m2``'s choice for one system."""
    T = F = N = 0
    out = []
    for d in range(len(tp)):
        best: tuple[float, int, int, int] | None = None
        chosen = -1
        for a in range(len(tp[d])):
            if not present[d][a]:
                continue
            t, f_, n = tp[d][a], fp[d][a], fn[d][a]
            # errant's computeFScore rounds F to 4 decimals before comparing it.
            if running:
                f = round(prf(T + t, F + f_, N + n, beta)[2], 4)
            else:
                f = round(prf(t, f_, n, beta)[2], 4)
            if best is None or f > best[0] or (f == best[0] and t > best[1]) or (
                    f == best[0] and t == best[1] and f_ < best[2]) or (
                    f == best[0] and t == best[1] and f_ == best[2] and n < best[3]):
                best = (f, t, f_, n)
                chosen = a
        out.append(chosen)
        T += tp[d][chosen]
        F += fp[d][chosen]
        N += fn[d][chosen]
    return out


def _tied_sentences(counts: tuple[np.ndarray, ...], present: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The first present annotator of each sentence, and whether the sentence's
    present annotators have the same ``counts`` (each (H, D, A)) for every
    system: such a sentence ties all the way under either rule, so its first
    present annotator wins for every beta, with nothing to compare."""
    H, D, _ = counts[0].shape
    first = present.argmax(axis=1)
    same = np.ones(D, dtype=bool)
    for x in counts:
        at_first = np.take_along_axis(x, np.broadcast_to(first[None, :, None], (H, D, 1)),
                                      axis=2)  # (H, D, 1)
        same &= (~present | (x == at_first).all(axis=0)).all(axis=1)
    return first, same


def choose_m2_many(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, present: np.ndarray,
                   betas: Sequence[float], running: bool) -> np.ndarray:
    """:func:`choose_m2` for every system and every beta of ``betas`` at once.

    ``tp``, ``fp``, ``fn``: integer arrays (H, D, A); ``present``: bool (D, A).
    Returns the chosen annotator per (beta, system, sentence), shape (B, H, D),
    equal to :func:`choose_m2` run per system and beta (the tests keep that
    as the oracle): the sentences are still walked in order, since each
    choice moves the running totals, but each step compares the annotators
    for all systems and betas as (H, B) arrays, with the same floating-point
    operations as :func:`~gecmetrics.fscore.m2_running_f` and the same tie
    rules. This makes a 501-beta sweep cost about as much as a few betas.
    """
    tp = np.asarray(tp, dtype=np.int64)
    H, D, A = tp.shape
    B = len(betas)
    beta = np.asarray(betas, dtype=np.float64)
    b2 = beta * beta  # (B,): the rule's beta * beta, element-wise the same double
    one_b2 = 1 + b2
    # The counts as float64 (exact for any count below 2**53), as the Python rule's
    # float running totals plus int counts give.
    ftp = tp.astype(np.float64)
    fe = (tp + np.asarray(fp, dtype=np.int64)).astype(np.float64)  # proposed
    fg = (tp + np.asarray(fn, dtype=np.int64)).astype(np.float64)  # gold
    present = np.asarray(present, dtype=bool)
    out = np.empty((B, H, D), dtype=np.int64)
    c = np.zeros((H, B))
    e = np.zeros((H, B))
    g = np.zeros((H, B))
    first, same = _tied_sentences((ftp, fe, fg), present)
    for d in range(D):
        if same[d]:
            k = int(first[d])
            out[:, :, d] = k
            if running:
                c += ftp[:, d, k, None]
                e += fe[:, d, k, None]
                g += fg[:, d, k, None]
            continue
        ann = np.flatnonzero(present[d]).tolist()
        for i, a in enumerate(ann):
            lc = ftp[:, d, a, None] + c if running else np.broadcast_to(ftp[:, d, a, None], (H, B))
            le = fe[:, d, a, None] + e if running else np.broadcast_to(fe[:, d, a, None], (H, B))
            lg = fg[:, d, a, None] + g if running else np.broadcast_to(fg[:, d, a, None], (H, B))
            den = b2 * lg + le  # also the tie key proposed + beta^2 * gold
            with np.errstate(divide="ignore", invalid="ignore"):
                f = one_b2 * lc / den
            zero = den == 0
            if zero.any():  # m2_running_f's ZeroDivisionError: 0/0 -> 1, else 0
                f = np.where(zero, np.where(lc == 0, 1.0, 0.0), f)
            if i == 0:
                best_f, best_c, best_e, best_g, best_k = f, lc, le, lg, den
                chosen = np.full((H, B), a, dtype=np.int64)
                continue
            tie = f == best_f
            better = (f > best_f) | (tie & ((lc > best_c) | ((lc == best_c) & (best_k > den))))
            chosen[better] = a
            if i + 1 < len(ann):
                best_f = np.where(better, f, best_f)
                best_k = np.where(better, den, best_k)
            # the running totals after this sentence are the chosen annotator's lc, le, lg
            best_c = np.where(better, lc, best_c)
            best_e = np.where(better, le, best_e)
            best_g = np.where(better, lg, best_g)
        out[:, :, d] = chosen.T
        if running:
            c, e, g = best_c, best_e, best_g
    return out


#: How close to a half ``F * 10**4`` must be for :func:`choose_errant_many` to
#: round that F with Python's ``round`` instead of numpy's: far above the error
#: of the product (about 1e-12 for F <= 1), so every other F rounds alike.
ROUND_HALF_MARGIN = 1e-9


def round4(f: np.ndarray) -> np.ndarray:
    """``round(x, 4)`` element-wise, bit for bit: ``rint(x * 10**4) / 10**4`` is
    Python's correctly rounded result wherever ``x * 10**4`` is not within
    :data:`ROUND_HALF_MARGIN` of a half; those few go through ``round``."""
    y = f * 10000.0
    out = np.rint(y) / 10000.0
    near = np.abs(y - np.floor(y) - 0.5) < ROUND_HALF_MARGIN
    if near.any():
        out[near] = [round(x, 4) for x in f[near].tolist()]
    return out


def choose_errant_many(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, present: np.ndarray,
                       betas: Sequence[float], running: bool) -> np.ndarray:
    """:func:`choose_errant` for every system and every beta of ``betas`` at once,
    shape (B, H, D), as :func:`choose_m2_many` does for the M2 rule: F as
    :func:`~gecmetrics.fscore.prf` computes it, rounded to 4 decimals as
    ``round`` does (:func:`round4`), and the same tie rules."""
    tp = np.asarray(tp, dtype=np.int64)
    H, D, A = tp.shape
    B = len(betas)
    beta = np.asarray(betas, dtype=np.float64)
    b2 = beta * beta
    one_b2 = 1 + b2
    ftp = tp.astype(np.float64)
    ffp = np.asarray(fp, dtype=np.int64).astype(np.float64)
    ffn = np.asarray(fn, dtype=np.int64).astype(np.float64)
    present = np.asarray(present, dtype=bool)
    out = np.empty((B, H, D), dtype=np.int64)
    T = np.zeros((H, B))
    F = np.zeros((H, B))
    N = np.zeros((H, B))
    first, same = _tied_sentences((ftp, ffp, ffn), present)
    for d in range(D):
        if same[d]:
            k = int(first[d])
            out[:, :, d] = k
            if running:
                T += ftp[:, d, k, None]
                F += ffp[:, d, k, None]
                N += ffn[:, d, k, None]
            continue
        ann = np.flatnonzero(present[d]).tolist()
        for i, a in enumerate(ann):
            # running totals plus this annotator's counts; the tie rules compare the
            # sentence's own counts, which order as these sums do (same totals added)
            lt = ftp[:, d, a, None] + T if running else np.broadcast_to(ftp[:, d, a, None], (H, B))
            lf = ffp[:, d, a, None] + F if running else np.broadcast_to(ffp[:, d, a, None], (H, B))
            ln = ffn[:, d, a, None] + N if running else np.broadcast_to(ffn[:, d, a, None], (H, B))
            proposed = lt + lf
            gold = lt + ln
            with np.errstate(divide="ignore", invalid="ignore"):
                p = np.where(proposed != 0, lt / proposed, 1.0)
                r = np.where(gold != 0, lt / gold, 1.0)
                den = b2 * p + r
                f = round4(np.where(den != 0, one_b2 * p * r / den, 0.0))
            if i == 0:
                best_f, best_t, best_fp, best_fn = f, lt, lf, ln
                chosen = np.full((H, B), a, dtype=np.int64)
                continue
            tie = f == best_f
            better = (f > best_f) | (tie & ((lt > best_t) | ((lt == best_t) & (
                (lf < best_fp) | ((lf == best_fp) & (ln < best_fn))))))
            chosen[better] = a
            if i + 1 < len(ann):
                best_f = np.where(better, f, best_f)
            best_t = np.where(better, lt, best_t)
            best_fp = np.where(better, lf, best_fp)
            best_fn = np.where(better, ln, best_fn)
        out[:, :, d] = chosen.T
        if running:
            T, F, N = best_t, best_fp, best_fn
    return out


CHOICE_RULES: dict[str, ChoiceRule] = {"m2": choose_m2, "errant": choose_errant}

ManyRule = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Sequence[float], bool],
                    np.ndarray]

#: The rules of :data:`CHOICE_RULES` for many betas and every system at once
#: (shape (B, H, D)), where one exists; equal to the per-beta rule, which the
#: tests keep as the oracle.
MANY_RULES: dict[str, ManyRule] = {"m2": choose_m2_many, "errant": choose_errant_many}
