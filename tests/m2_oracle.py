"""A slow, literal M2 scorer for tests: the official CoNLL-2014 algorithm step by step.

Written from the description of the NUS M2 scorer 3.2 (``levenshtein.py``),
independently of :mod:`gecmetrics.metrics.m2_lattice`: it keeps the official
data structures and their quirks on purpose (the edge list with duplicates,
the cubic transitive-closure loop over all vertices, float weights with
EPSILON = 0.001 and -|E| for gold edges, Bellman-Ford over the edge list,
the removal loop that skips the element after each removal). Cubic in the
lattice size: use it on small sentences only.
"""

from __future__ import annotations

EPSILON = 0.001


def _matrix(first, second, sub_cost):
    n, m = len(first), len(second)
    dist = [[0] * (m + 1) for _ in range(n + 1)]
    back = {}
    for i in range(1, n + 1):
        dist[i][0] = i
        back[(i, 0)] = [((i - 1, 0), ("del", i - 1, i, first[i - 1], "", 0))]
    for j in range(1, m + 1):
        dist[0][j] = j
        back[(0, j)] = [((0, j - 1), ("ins", 0, 0, "", second[j - 1], 0))]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            same = first[i - 1] == second[j - 1]
            sub = dist[i - 1][j - 1] + (0 if same else sub_cost)
            dele = dist[i - 1][j] + 1
            ins = dist[i][j - 1] + 1
            low = min(sub, dele, ins)
            dist[i][j] = low
            options = []
            if sub == low:
                kind = "noop" if same else "sub"
                options.append(((i - 1, j - 1), (kind, i - 1, i, first[i - 1], second[j - 1],
                                                 1 if same else 0)))
            if dele == low:
                options.append(((i - 1, j), ("del", i - 1, i, first[i - 1], "", 0)))
            if ins == low:
                options.append(((i, j - 1), ("ins", i, i, "", second[j - 1], 0)))
            back[(i, j)] = options
    return dist, back


def _graph(dist, back):
    V, E, weight, edits = [], [], {}, {}
    queue = [(len(dist) - 1, len(dist[0]) - 1)]
    while queue:
        v = queue.pop(0)
        if v in V:
            continue
        V.append(v)
        for prev, edit in back.get(v, []):
            E.append((prev, v))
            weight[(prev, v)] = 1
            edits[(prev, v)] = edit
            if prev not in queue:
                queue.append(prev)
    return V, E, weight, edits


def _merge(g1, g2):
    V1, E1, w1, ed1 = g1
    V2, E2, w2, ed2 = g2
    V = sorted(set(V1) | set(V2))
    E = sorted(E1 + E2)  # the official merge keeps every edge of both lists
    weight = dict(w1)
    weight.update({k: v for k, v in w2.items() if k not in weight})
    edits = dict(ed1)
    edits.update({k: v for k, v in ed2.items() if k not in edits})
    return V, E, weight, edits


def _join(e1, e2):
    kinds = (e1[0], e2[0])
    start, end, unchanged = e1[1], e2[2], e1[5] + e2[5]
    orig = " ".join(x for x in (e1[3], e2[3]) if x)
    corr = " ".join(x for x in (e1[4], e2[4]) if x)
    kind = "noop" if kinds == ("noop", "noop") else (
        "ins" if kinds == ("ins", "ins") else "del" if kinds == ("del", "del") else "sub")
    return (kind, start, end, orig, corr, unchanged)


def _transitive(V, E, weight, edits, max_unchanged):
    inf = float("inf")
    for vk in V:
        for vi in V:
            if (vi, vk) not in edits:
                continue
            for vj in V:
                if (vk, vj) not in edits:
                    continue
                dik = weight.get((vi, vk), inf)
                dkj = weight.get((vk, vj), inf)
                if dik + dkj < weight.get((vi, vj), inf):
                    merged = _join(edits[(vi, vk)], edits[(vk, vj)])
                    if merged[5] <= max_unchanged:
                        E.append((vi, vj))
                        weight[(vi, vj)] = dik + dkj
                        edits[(vi, vj)] = merged
    for edge in E:  # iterating while removing skips the next element, as the original does
        if edits[edge][0] == "noop" and weight[edge] > 1:
            E.remove(edge)
            weight[edge] = inf
            del edits[edge]
    return V, E, weight, edits


def _weights(E, weight, edits, gold):
    out = dict(weight)
    M, G = {}, {}
    for edge in E:
        key = (edits[edge][1], edits[edge][2])
        M.setdefault(key, []).append(edge)
        G.setdefault(key, [])
    for g in gold:
        G.setdefault((g[0], g[1]), []).append(g)

    def matches(edit, g):
        return edit[1] == g[0] and edit[2] == g[1] and edit[3] == g[2] and edit[4] in g[3]

    for key in sorted(M):
        edges = sorted(M[key])
        golds = G[key]
        if key[0] != key[1]:
            for edge in edges:
                if any(matches(edits[edge], g) for g in golds):
                    out[edge] = -len(E)
                elif edits[edge][0] != "noop":
                    out[edge] += EPSILON
            continue
        lptr, rptr, cur = 0, len(edges) - 1, 0
        glo, ghi = 0, len(golds) - 1
        while lptr <= rptr:
            edge = edges[cur]
            left = cur == lptr
            found = False
            for gi in (range(glo, ghi + 1) if left else reversed(range(glo, ghi + 1))):
                if matches(edits[edge], golds[gi]):
                    found = True
                    out[edge] = -len(E)
                    if left:
                        glo = gi + 1
                    else:
                        ghi = gi - 1
                    break
            if not found:
                out[edge] += EPSILON
                if left:
                    lptr += 1
                    cur = rptr
                else:
                    rptr -= 1
                    cur = lptr
            elif left:
                lptr += 1
                while lptr < len(edges) and edges[lptr][0] != edges[cur][1]:
                    out[edges[lptr]] += EPSILON
                    lptr += 1
                cur = lptr
            else:
                rptr -= 1
                while rptr >= 0 and edges[rptr][1] != edges[cur][0]:
                    out[edges[rptr]] += EPSILON
                    rptr -= 1
                cur = rptr
    return out


def _bellman_ford(V, E, weight, edits):
    best = {v: float("inf") for v in V}
    best[(0, 0)] = 0
    path = {}
    for _ in range(len(V) - 1):
        for edge in E:
            v, w = edge
            if best[v] + weight[edge] < best[w]:
                best[w] = best[v] + weight[edge]
                path[w] = v
    v = V[-1] if V else (0, 0)
    seq = []
    while v in path:
        u = path[v]
        edit = edits[(u, v)]
        if edit[0] != "noop":
            seq.append((edit[1], edit[2], edit[3], edit[4]))
        v = u
    return seq


def _match(seq, gold):
    correct, last = 0, 0
    for e in reversed(seq):
        for i in range(last, len(gold)):
            g = gold[i]
            if e[0] == g[0] and e[1] == g[1] and e[2] == g[2] and e[3] in g[3]:
                correct += 1
                last = i + 1
    return correct


def sentence_counts(source, hypothesis, golds_by_annotator, max_unchanged=2,
                    ignore_whitespace_casing=False):
    """{annotator: (correct, proposed, gold)}; gold edits are (start, end, orig, [corrs])."""
    src, hyp = source.split(), hypothesis.split()
    g1 = _graph(*_matrix(src, hyp, 1))
    g2 = _graph(*_matrix(src, hyp, 2))
    V, E, weight, edits = _transitive(*_merge(g1, g2), max_unchanged)
    out = {}
    for annotator, gold in golds_by_annotator.items():
        seq = _bellman_ford(V, E, _weights(E, weight, edits, gold), edits)
        if ignore_whitespace_casing:
            seq = [e for e in seq
                   if e[2].replace(" ", "").lower() != e[3].replace(" ", "").lower()]
        out[annotator] = (_match(seq, gold), len(seq), len(gold))
    return out


def read_gold(m2_path):
    """(sources, [{annotator: [(start, end, orig, [corrections])]}]) as the official reader."""
    sources, golds = [], []
    with open(m2_path, encoding="utf-8") as handle:
        blocks = handle.read().split("\n\n")
    for block in blocks:
        lines = [line for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        sentence = lines[0][2:].strip()
        tokens = sentence.split()
        annotations = {}
        for line in lines[1:]:
            fields = line[2:].split("|||")
            start, end = (int(x) for x in fields[0].split())
            if fields[1] == "noop":
                start = end = -1
            corrs = [c.strip() if c != "-NONE-" else "" for c in fields[2].split("||")]
            edit = (start, end, " ".join(tokens[start:end]), corrs)
            annotations.setdefault(int(fields[5]), []).append(edit)
        edits = {a: [e for e in es if 0 <= e[0] <= len(tokens) and 0 <= e[1] <= len(tokens)]
                 for a, es in sorted(annotations.items())}
        sources.append(sentence)
        golds.append(edits or {0: []})
    return sources, golds


def corpus_prf(hypotheses, sources, golds, beta=0.5, max_unchanged=2,
               ignore_whitespace_casing=False):
    """Corpus P, R, F with the official running annotator choice."""
    c = p = g = 0.0
    b2 = beta * beta
    for hyp, src, gold in zip(hypotheses, sources, golds, strict=True):
        counts = sentence_counts(src, hyp.strip(), gold, max_unchanged, ignore_whitespace_casing)
        best = None
        for annotator in gold:
            tc, tp_, tg = counts[annotator]
            lc, lp, lg = c + tc, p + tp_, g + tg
            try:
                f = (1 + b2) * lc / (b2 * lg + lp)
            except ZeroDivisionError:
                f = 1.0 if lc == 0 else 0.0
            if best is None or f > best[0] or (f == best[0] and lc > best[1]) or (
                    f == best[0] and lc == best[1] and best[2] + b2 * best[3] > lp + b2 * lg):
                best = (f, lc, lp, lg)
        _, c, p, g = best
    prec = c / p if p else 1.0
    rec = c / g if g else 1.0
    f = (1 + b2) * prec * rec / (b2 * prec + rec) if (b2 * prec + rec) else 0.0
    return prec, rec, f
