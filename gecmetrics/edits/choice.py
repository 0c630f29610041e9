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
on its own, for sentence-level scores.

Each rule takes one system's counts as nested lists ``tp[d][a]`` (plain
Python ints: this loop runs once per sentence and annotator, where numpy
scalars would be slower) and ``present[d][a]`` (False: annotator ``a`` has
no annotation of sentence ``d`` and is never chosen), and returns the chosen
annotator index per sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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


CHOICE_RULES: dict[str, ChoiceRule] = {"m2": choose_m2, "errant": choose_errant}
