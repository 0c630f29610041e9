"""The M2 scorer's hypothesis edit sequence, step by step as PT-M2's copy computes it.

PT-M2 weighs each hypothesis edit, so it needs *the* edit sequence the M2
scorer extracts, not only its counts. The native lattice
(:mod:`gecmetrics.metrics.m2_lattice`) gives the official counts but, where
several edit sequences have bit-identical path weights, it may return another
one of them (its docstring: "Known difference"); M2's counts do not change,
PT-M2's weights do (on 60 CoNLL-2014 sentences of CAMB, 2 sentences got
other edits: ``(10, 13, member to be)`` for ``(9, 12, family member to)``).
So PT-M2 takes the sequence from here: the algorithm of PT-M2's
``m2score/levenshtein.py`` (the NUS M2 scorer 3.2 with its quirks), with the
same data structures in the same order, so that its Bellman-Ford keeps the
same one of equal paths:

* two Levenshtein lattices (substitution cost 1 and 2) merged, the edge list
  sorted with the edges of both (duplicates kept); an insertion before the
  first source token is ``(j-1, j-1)``, as there;
* transitive edges appended in the loop order (k, i, j) whenever they improve
  and span at most ``max_unchanged_words`` unchanged words, then transitive
  all-unchanged edges removed by a loop that skips the element after each
  removal (as the original, which removes from the list it iterates);
* per annotator, gold edges weigh ``-|E|``, others get +0.001 per listing,
  with the two-pointer scan over insertion edges; then Bellman-Ford over the
  edge list, ``|V| - 1`` passes, strict improvements only.

Only the transitive loop is organised differently: it visits, for each k, the
predecessors and successors of k in vertex order instead of all vertex pairs
(the others are skipped by the original too), which gives the same edges in
the same order. Its cost grows with the lattice, so a sentence pair whose
lattice is over the M2 budget is refused (the native lattice counts it first).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .m2_lattice import GoldEdit

EPSILON = 0.001
Edit = tuple[int, int, str, str]
_RawEdit = tuple[str, int, int, str, str, int]
Vertex = tuple[int, int]


def _levenshtein(first: Sequence[str], second: Sequence[str], cost_sub: int
                 ) -> tuple[list[list[int]], dict[Vertex, list[tuple[Vertex, _RawEdit]]]]:
    n, m = len(first) + 1, len(second) + 1
    dist = [[0] * m for _ in range(n)]
    back: dict[Vertex, list[tuple[Vertex, _RawEdit]]] = {}
    for i in range(1, n):
        dist[i][0] = i
        back[(i, 0)] = [((i - 1, 0), ("del", i - 1, i, first[i - 1], "", 0))]
    for j in range(1, m):
        dist[0][j] = j
        back[(0, j)] = [((0, j - 1), ("ins", j - 1, j - 1, "", second[j - 1], 0))]
    for i in range(1, n):
        for j in range(1, m):
            same = first[i - 1] == second[j - 1]
            sub = dist[i - 1][j - 1] + (0 if same else cost_sub)
            dele = dist[i - 1][j] + 1
            ins = dist[i][j - 1] + 1
            low = min(sub, dele, ins)
            options = []
            if sub == low:
                if same:
                    options.append(((i - 1, j - 1), ("noop", i - 1, i, first[i - 1],
                                                     second[j - 1], 1)))
                else:
                    options.append(((i - 1, j - 1), ("sub", i - 1, i, first[i - 1],
                                                     second[j - 1], 0)))
            if dele == low:
                options.append(((i - 1, j), ("del", i - 1, i, first[i - 1], "", 0)))
            if ins == low:
                options.append(((i, j - 1), ("ins", i, i, "", second[j - 1], 0)))
            dist[i][j] = low
            back[(i, j)] = options
    return dist, back


def _graph(dist: list[list[int]], back: dict[Vertex, list[tuple[Vertex, _RawEdit]]]):
    """The breadth-first walk from the last cell along the backpointers."""
    V: list[Vertex] = []
    E: list[tuple[Vertex, Vertex]] = []
    weight: dict[tuple[Vertex, Vertex], float] = {}
    edits: dict[tuple[Vertex, Vertex], _RawEdit] = {}
    queue = [(len(dist) - 1, len(dist[0]) - 1)]
    seen: set[Vertex] = set()
    while queue:
        v = queue.pop(0)
        if v in seen:
            continue
        seen.add(v)
        V.append(v)
        for prev, edit in back.get(v, []):
            E.append((prev, v))
            weight[(prev, v)] = 1
            edits[(prev, v)] = edit
            if prev not in queue:
                queue.append(prev)
    return V, E, weight, edits


def _merge_edits(e1: _RawEdit, e2: _RawEdit) -> _RawEdit:
    """Two consecutive edits as one (the original's ``merge_edits``)."""
    k1, k2 = e1[0], e2[0]
    u = e1[5] + e2[5]
    if k1 == "noop" and k2 == "noop":
        return ("noop", e1[1], e2[2], e1[3] + " " + e2[3], e1[4] + " " + e2[4], u)
    orig = _join(e1[3], e2[3], k1 == "ins", k2 == "ins")
    corr = _join(e1[4], e2[4], k1 == "del", k2 == "del")
    if k1 == "ins" and k2 == "ins":
        return ("ins", e1[1], e2[2], "", corr, u)
    if k1 == "del" and k2 == "del":
        return ("del", e1[1], e2[2], orig, "", u)
    return ("sub", e1[1], e2[2], orig, corr, u)


def _join(a: str, b: str, a_empty: bool, b_empty: bool) -> str:
    """The side of a merged edit: an insertion has no original, a deletion no correction."""
    if a_empty:
        return b
    if b_empty:
        return a
    return a + " " + b


def lattice(src: Sequence[str], hyp: Sequence[str], max_unchanged_words: int):
    """(V, E, weight, edits) after the transitive edges, as the original leaves them."""
    V1, E1, w1, ed1 = _graph(*_levenshtein(src, hyp, 1))
    V2, E2, w2, ed2 = _graph(*_levenshtein(src, hyp, 2))
    V = sorted(set(V1) | set(V2))
    E = sorted(E1 + E2)
    weight = dict(w1)
    for k, v in w2.items():
        weight[k] = min(weight.get(k, v), v)
    edits = dict(ed1)
    for k, e in ed2.items():
        edits.setdefault(k, e)
    succ: dict[Vertex, set[Vertex]] = {v: set() for v in V}
    pred: dict[Vertex, set[Vertex]] = {v: set() for v in V}
    for a, b in edits:
        succ[a].add(b)
        pred[b].add(a)
    for vk in V:
        before = sorted(pred[vk])
        after = sorted(succ[vk])
        for vi in before:
            eik = edits[(vi, vk)]
            dik = weight.get((vi, vk), math.inf)
            for vj in after:
                dkj = weight.get((vk, vj), math.inf)
                if dik + dkj < weight.get((vi, vj), math.inf):
                    eij = _merge_edits(eik, edits[(vk, vj)])
                    if eij[-1] <= max_unchanged_words:
                        E.append((vi, vj))
                        weight[(vi, vj)] = dik + dkj
                        edits[(vi, vj)] = eij
                        succ[vi].add(vj)
                        pred[vj].add(vi)
    for edge in E:  # noqa: B909 - the original removes from the list it iterates (skips one)
        e = edits.get(edge)
        if e is not None and e[0] == "noop" and weight[edge] > 1:
            E.remove(edge)
            weight[edge] = math.inf
            del edits[edge]
    return V, E, weight, edits


def _weights(E, weight, edits, gold: Sequence[GoldEdit]) -> dict:
    """Per-annotator edge weights (the original's ``set_weights``)."""
    out = dict(weight)
    spans: dict[tuple[int, int], list] = {}
    golds: dict[tuple[int, int], list[GoldEdit]] = {}
    for edge in E:
        t = edits.get(edge)
        if t is None:  # a removed edge left listed by the skipping loop (weight inf)
            continue
        spans.setdefault((t[1], t[2]), []).append(edge)
        golds.setdefault((t[1], t[2]), [])
    for g in gold:
        golds.setdefault((g.start, g.end), []).append(g)

    def match(t: _RawEdit, g: GoldEdit) -> bool:
        return t[1] == g.start and t[2] == g.end and t[3] == g.original and t[4] in g.corrections

    for key in sorted(spans):
        listing = sorted(spans[key])
        gl = golds[key]
        if key[0] != key[1]:
            for edge in listing:
                t = edits[edge]
                if any(match(t, g) for g in gl):
                    out[edge] = -len(E)
                elif t[0] != "noop":
                    out[edge] += EPSILON
            continue
        lptr, rptr, cur = 0, len(listing) - 1, 0
        glo, ghi = 0, len(gl) - 1
        while lptr <= rptr:
            edge = listing[cur]
            t = edits[edge]
            left = cur == lptr
            order = range(glo, ghi + 1) if left else reversed(range(glo, ghi + 1))
            matched = False
            for i in order:
                if match(t, gl[i]):
                    matched = True
                    out[edge] = -len(E)
                    if left:
                        glo = i + 1
                    else:
                        ghi = i - 1
                    break
            if not matched and t[0] != "noop":
                out[edge] += EPSILON
            if matched and left:
                lptr += 1
                while lptr < len(listing) and listing[lptr][0] != listing[cur][1]:
                    out[listing[lptr]] += EPSILON  # the original adds it to noop edges too
                    lptr += 1
                cur = lptr
            elif matched:
                rptr -= 1
                while rptr >= 0 and listing[rptr][1] != listing[cur][0]:
                    out[listing[rptr]] += EPSILON
                    rptr -= 1
                cur = rptr
            elif left:
                lptr += 1
                cur = rptr
            else:
                rptr -= 1
                cur = lptr
    return out


def _bellman_ford(V, E, weight, edits) -> list[Edit]:
    """The original's ``best_edit_seq_bf``: edits from the end of the sentence to the start."""
    best = {v: math.inf for v in V}
    best[(0, 0)] = 0
    path: dict[Vertex, Vertex] = {}
    for _ in range(len(V) - 1):
        changed = False
        for edge in E:
            v, w = edge
            nd = best[v] + weight[edge]
            if nd < best[w]:
                best[w] = nd
                path[w] = v
                changed = True
        if not changed:  # later passes would change nothing either
            break
    v = V[-1]
    seq: list[Edit] = []
    while v in path:
        u = path[v]
        e = edits[(u, v)]
        if e[0] != "noop":
            seq.append((e[1], e[2], e[3], e[4]))
        v = u
    return seq


def edit_sequences(src: Sequence[str], hyp: Sequence[str], golds: Sequence[Sequence[GoldEdit]],
                   max_unchanged_words: int = 2) -> list[list[Edit]]:
    """Per annotator, the hypothesis edits in source order (the reverse of the original's)."""
    V, E, weight, edits = lattice(src, hyp, max_unchanged_words)
    return [list(reversed(_bellman_ford(V, E, _weights(E, weight, edits, g), edits)))
            for g in golds]
