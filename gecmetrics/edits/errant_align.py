"""ERRANT 3.0.2's alignment of two parsed sentences, compiled when the kernel is built.

errant's ``Alignment`` fills two Python matrices of source x other tokens
(float costs and string operations) and, per cell of a changed stretch,
re-sorts growing token windows to test for transpositions: about 140 s for
a 1,000 x 1,000-token pair. :func:`align_seq` computes the same alignment
sequence with the compiled kernel ``gecmetrics.edits._align_kernel`` (built
by setup.py when Cython and a C compiler are present): the same dynamic
program, costs and tie-breaks, on ids and code points precomputed here from
the spaCy tokens. Without the kernel it is errant's own ``Alignment``.

:func:`annotate` is ``errant.Annotator.annotate`` with that alignment: the
alignment sequence goes into an errant ``Alignment`` object, then errant's
own merger (``merging``) and classifier run on it, so the edits are
errant's. The tests check the kernel against errant itself on every
CoNLL-2014 pair and on fuzzed pairs (tests/test_errant_align.py).
"""

from __future__ import annotations

from typing import Any

from .. import kernels

try:  # the compiled speed path; optional by design
    from ._align_kernel import align_seq as _align_compiled
    from ._align_kernel import token_arrays as _token_arrays_compiled
except ImportError:  # pragma: no cover - depends on the build
    _align_compiled = _token_arrays_compiled = None

#: One step of an alignment sequence, as errant writes it:
#: (op, o_start, o_end, c_start, c_end), op one of M, S, I, D or T<k>.
AlignStep = tuple[str, int, int, int, int]


def compiled() -> bool:
    """Whether the compiled alignment kernel is built (else errant's Python runs)."""
    return _align_compiled is not None


def align_seq(orig: Any, cor: Any, lev: bool = False, native: bool = True) -> list[AlignStep]:
    """errant 3.0.2's ``Alignment(orig, cor, lev).align_seq`` of two spaCy Docs.

    ``native=False`` (or no kernel built) runs errant's own ``Alignment``.
    """
    if native and _align_compiled is not None:
        return _align_compiled(*_token_arrays(orig, cor), lev)
    if _align_compiled is None:
        kernels.missing("gecmetrics.edits._align_kernel")
    from errant.alignment import Alignment

    return list(Alignment(orig, cor, lev).align_seq)


def alignment(orig: Any, cor: Any, lev: bool = False, native: bool = True) -> Any:
    """An ``errant.alignment.Alignment`` of ``orig`` and ``cor`` whose ``align_seq``
    comes from :func:`align_seq`: what errant's merger and ``get_all_*_edits`` read
    (the cost and operation matrices, which only its ``__str__`` shows, are not kept)."""
    from errant.alignment import Alignment

    if not native or _align_compiled is None:
        return Alignment(orig, cor, lev)
    out = Alignment.__new__(Alignment)
    out.orig, out.cor = orig, cor
    out.cost_matrix = out.op_matrix = None
    out.align_seq = align_seq(orig, cor, lev)
    return out


def annotate(annotator: Any, orig: Any, cor: Any, lev: bool = False,
             merging: str = "rules", native: bool = True) -> list[Any]:
    """``annotator.annotate(orig, cor, lev, merging)`` (errant's typed ``Edit`` objects)
    with the alignment of :func:`alignment` and, for ``rules``, :func:`rule_edits`."""
    aligned = alignment(orig, cor, lev, native)
    if native and merging == "rules" and annotator.lang == "en":
        edits = rule_edits(aligned)
    else:
        edits = annotator.merge(aligned, merging)
    for edit in edits:
        annotator.classify(edit)
    return edits


def _token_arrays(orig: Any, cor: Any) -> tuple[list, ...]:
    """What the kernel needs of the tokens (see ``_align_kernel.align_seq``): dense ids
    of orth, lower and lemma (one id per spaCy hash, shared by both sentences), POS
    ids, errant's open-class flags for the alignment's POS cost, and per token the id
    of its text among the code points of the sentence's distinct texts."""
    from errant.alignment import Alignment
    from spacy.attrs import LEMMA, LOWER, ORTH, POS

    # errant's own set (Alignment._open_pos: ADJ, ADV, NOUN, VERB), read, not copied
    open_pos = vars(Alignment)["_open_pos"]
    attrs = [ORTH, LOWER, LEMMA, POS]
    o_rows = orig.to_array(attrs).tolist() if len(orig) else []
    c_rows = cor.to_array(attrs).tolist() if len(cor) else []
    return _token_arrays_compiled(o_rows, c_rows, orig.vocab.strings, cor.vocab.strings,
                                  open_pos)


#: A stretch of changed alignment steps at least this long is merged by
#: :func:`_process_long` (each rule O(1) on precomputed token arrays); shorter
#: ones by errant's own ``process_seq``, cheaper there than the precomputation.
LONG_STRETCH = 6


def rule_edits(alignment: Any) -> list[Any]:
    """errant 3.0.2's ``errant.en.merger.get_rule_edits(alignment)``, the same edits,
    with long stretches of changes merged by :func:`_process_long`: errant's own
    ``process_seq`` slices spaCy spans and joins strings for every (start, end) pair
    of a stretch, cubic in its length (142 s for 150 changed tokens)."""
    from itertools import groupby

    from errant.edit import Edit
    from errant.en import merger

    edits = []
    orig, cor = alignment.orig, alignment.cor
    for op, steps in groupby(alignment.align_seq,
                             lambda x: x[0][0] if x[0][0] in {"M", "T"} else False):
        group = list(steps)
        if op == "M":
            continue
        if op == "T":
            edits += [Edit(orig, cor, seq[1:]) for seq in group]
            continue
        processed = (merger.process_seq(group, alignment) if len(group) < LONG_STRETCH
                     else _process_long(group, alignment))
        edits += [Edit(orig, cor, seq[1:]) for seq in processed]
    return edits


def _process_long(seq: list[AlignStep], alignment: Any) -> list[AlignStep]:
    """errant's ``process_seq(seq, alignment)`` with each rule's test on a (start, end)
    range made O(1) by per-token arrays and prefix counts; the same rules in the same
    order, the same recursion, so the same result."""
    import re

    import spacy.symbols as sym
    from errant.en import merger

    orig, cor = alignment.orig, alignment.cor
    aux = {sym.AUX, sym.PART, sym.VERB}
    strip = re.compile("['-]")

    def side(doc: Any, lo: int, hi: int) -> dict[str, Any]:
        toks = [doc[t] for t in range(lo, hi)]
        pos = [t.pos for t in toks]
        size = len(toks)
        nxt = [size] * size  # the first later token with another POS
        for t in range(size - 2, -1, -1):
            nxt[t] = t + 1 if pos[t + 1] != pos[t] else nxt[t + 1]
        text = [strip.sub("", t.lower_) for t in toks]
        length, not_aux, opened = [0], [0], [0]
        for word, p in zip(text, pos, strict=True):
            length.append(length[-1] + len(word))
            not_aux.append(not_aux[-1] + (p not in aux))
            opened.append(opened[-1] + (p in merger.open_pos))
        return {"lo": lo, "tok": toks, "poss": [t.tag_ == "POS" for t in toks],
                "lower": [t.lower for t in toks], "upper": [t.text[0].isupper() for t in toks],
                "punct": [merger.is_punct(t) for t in toks], "pos": pos, "next": nxt,
                "text": text, "length": length, "not_aux": not_aux, "open": opened}

    o = side(orig, seq[0][1], seq[-1][2])
    c = side(cor, seq[0][3], seq[-1][4])
    ops = [step[0] for step in seq]
    n_s, n_d, n_i = [0], [0], [0]
    for op in ops:
        n_s.append(n_s[-1] + (op == "S"))
        n_d.append(n_d[-1] + (op == "D"))
        n_i.append(n_i[-1] + (op == "I"))

    def merge(x: int, y: int) -> list[AlignStep]:
        return [("X", seq[x][1], seq[y - 1][2], seq[x][3], seq[y - 1][4])] if x < y else []

    def run(lo: int, hi: int) -> list[AlignStep]:
        n = hi - lo
        if n <= 1:
            return seq[lo:hi]
        if n_d[hi] - n_d[lo] == n or n_i[hi] - n_i[lo] == n:
            return merge(lo, hi)
        content = False
        for d in range(n - 1, 0, -1):
            for start in range(n - d):
                end = start + d
                a, b = lo + start, lo + end
                if n_s[b + 1] == n_s[a]:
                    continue
                o1, o2 = seq[a][1] - o["lo"], seq[b][2] - o["lo"]
                c1, c2 = seq[a][3] - c["lo"], seq[b][4] - c["lo"]
                if start == 0 and (o["poss"][o1] or c["poss"][c1]):
                    return [seq[lo]] + run(lo + 1, hi)
                if o["poss"][o2 - 1] or c["poss"][c2 - 1]:
                    return run(lo, b - 1) + merge(b - 1, b + 1) + run(b + 1, hi)
                if o["lower"][o2 - 1] == c["lower"][c2 - 1]:
                    if start == 0 and ((o2 - o1 == 1 and c["upper"][c1])
                                       or (c2 - c1 == 1 and o["upper"][o1])):
                        return merge(a, b + 1) + run(b + 1, hi)
                    if ((o2 - o1 > 1 and o["punct"][o2 - 2])
                            or (c2 - c1 > 1 and c["punct"][c2 - 2])):
                        return run(lo, b - 1) + merge(b - 1, b + 1) + run(b + 1, hi)
                if (o["length"][o2] - o["length"][o1] == c["length"][c2] - c["length"][c1]
                        and "".join(o["text"][o1:o2]) == "".join(c["text"][c1:c2])):
                    return run(lo, a) + merge(a, b + 1) + run(b + 1, hi)
                one_pos = (o["next"][o1] >= o2 and c["next"][c1] >= c2
                           and o["pos"][o1] == c["pos"][c1])
                all_aux = (o["not_aux"][o2] == o["not_aux"][o1]
                           and c["not_aux"][c2] == c["not_aux"][c1])
                if o2 - o1 != c2 - c1 and (one_pos or all_aux):
                    return run(lo, a) + merge(a, b + 1) + run(b + 1, hi)
                if end - start < 2:
                    if o2 - o1 == c2 - c1 == 2:
                        return run(lo, a + 1) + run(a + 1, hi)
                    if ((ops[a] == "S"
                         and merger.char_cost(o["tok"][o1], c["tok"][c1]) > 0.75)
                            or (ops[b] == "S"
                                and merger.char_cost(o["tok"][o2 - 1], c["tok"][c2 - 1]) > 0.75)):
                        return run(lo, a + 1) + run(a + 1, hi)
                    if end == n - 1 and ((ops[b] in {"D", "S"} and o["pos"][o2 - 1] == sym.DET)
                                         or (ops[b] in {"I", "S"}
                                             and c["pos"][c2 - 1] == sym.DET)):
                        return run(lo, hi - 1) + [seq[hi - 1]]
                if (o["open"][o2] > o["open"][o1]) or (c["open"][c2] > c["open"][c1]):
                    content = True
        return merge(lo, hi) if content else seq[lo:hi]

    return run(0, len(seq))
