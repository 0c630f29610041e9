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
    with the alignment of :func:`alignment`."""
    edits = annotator.merge(alignment(orig, cor, lev, native), merging)
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
