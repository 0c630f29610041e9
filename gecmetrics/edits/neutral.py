"""Language-neutral edits: ERRANT's alignment and a merging without a tagger.

ERRANT (Bryant, Felice and Briscoe, ACL 2017) aligns a source and a
correction with a Damerau-Levenshtein dynamic program whose substitution
cost reads spaCy's lemmas and part-of-speech tags, then merges adjacent
changes by English rules. :func:`neutral_edits` needs neither: the same
dynamic program and backtrace (ERRANT 3.0.2's, compiled in
:mod:`gecmetrics.edits._align_kernel`), with the substitution cost of two
different words reduced to their character cost plus a constant, and a
merging of adjacent changes by operation, character similarity and spacing
only. Its edits carry operation-only types: ``M`` (missing: an insertion),
``U`` (unnecessary: a deletion), ``R`` (replacement) and ``W`` (word order:
a transposition). docs/edits-neutral.md states the rules with a worked
example, and how often the edits equal ERRANT's on English.

The cost of substituting source token ``a`` by target token ``b``:

* 0 when they are equal (a match, no edit);
* 0 when they differ only in case (``a.lower() == b.lower()``);
* otherwise :data:`WORD_COST` + the character cost, ``rapidfuzz``'s
  ``Indel.normalized_distance(a, b)`` (1 - 2 x LCS / (len a + len b)), as
  ERRANT computes it.

Insertions and deletions cost 1; a transposition of k + 1 tokens (the same
lower-case tokens in another order) costs k, as in ERRANT.

Bounded time and memory: the dynamic program keeps a cost and an operation
per (source, target) token pair (12 bytes a cell in the kernel), so a pair is
aligned only when (S + 1) x (T + 1) <= :data:`MAX_CELLS`; a 2,000-token
essay rewritten throughout (4 million cells) takes about a second.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import Any, Literal

from .. import kernels
from ..errors import ConfigError, InputError
from ..formatting import short_repr
from .errant_align import AlignStep
from .pipeline import check_pipeline_files
from .span import SpanEdit

try:  # the compiled speed path; optional by design
    from ._align_kernel import align_seq as _align_compiled
except ImportError:  # pragma: no cover - depends on the build
    _align_compiled = None

#: Added to the character cost of a substitution of two words that differ in
#: more than case. ERRANT adds 0.499 when the lemmas differ and 0 to 0.5 for
#: the part of speech; without a tagger every different word is treated as a
#: different lemma of the same part of speech. Chosen by the agreement with
#: ERRANT on the CoNLL-2014 references (docs/edits-neutral.md).
WORD_COST = 0.499

#: A substitution whose character cost is below this is "similar" (a spelling,
#: inflection or case change) and stays an edit of its own when a stretch of
#: changes is merged (rule 4 in docs/edits-neutral.md). On the CoNLL-2014
#: references 0.3 agrees with ERRANT's spans slightly more often (F 84.9 against
#: 84.5) but merges ``has a`` / ``have an`` into one edit, which ERRANT splits;
#: 0.7 agrees less (82.2).
SIMILAR = 0.5

#: Rule 3 (spacing) looks for runs of at most this many alignment steps whose
#: two sides spell the same text: ``can not`` / ``cannot`` is 2 steps; the cap
#: keeps a stretch of L changes at O(L x JOIN_STEPS) comparisons.
JOIN_STEPS = 8

#: The largest dynamic program aligned: (S + 1) x (T + 1) cells for S source
#: and T target tokens; at 12 bytes a cell in the kernel, 25 million cells is
#: 300 MB (a 5,000 x 5,000-token pair).
MAX_CELLS = 25_000_000

#: The edit types: operation only.
MISSING, UNNECESSARY, REPLACEMENT, WORD_ORDER = "M", "U", "R", "W"


def compiled() -> bool:
    """Whether the compiled alignment kernel is built (else the Python twin runs)."""
    return _align_compiled is not None


def neutral_edits(source: Sequence[str], target: Sequence[str],
                  native: bool = True) -> list[SpanEdit]:
    """The edits that turn the ``source`` tokens into the ``target`` tokens.

    Each edit replaces source tokens [start, end) by its one correction (the
    target tokens joined by spaces; "" for a deletion), typed ``M``, ``U``,
    ``R`` or ``W``; in source order. ``native=False`` runs the pure-Python
    alignment (the same result, for the tests). Raises InputError when the
    pair exceeds :data:`MAX_CELLS`.
    """
    steps = align(source, target, native)
    return [SpanEdit(o1, o2, (" ".join(target[c1:c2]),), kind)
            for kind, o1, o2, c1, c2 in merge(steps, source, target)]


def check_tokens(tokens: Any, argument: str) -> None:
    """InputError naming ``argument`` unless ``tokens`` is a sequence of strings
    (one sentence's tokens): the kernel would otherwise fail on None or an int
    token with a TypeError that names neither, and a plain string would be
    aligned character by character."""
    if isinstance(tokens, (str, bytes)) or not isinstance(tokens, Sequence):
        hint = " (split it: text.split())" if isinstance(tokens, str) else ""
        raise InputError(f"{argument} must be a list of token strings{hint}, got "
                         f"{type(tokens).__name__} {short_repr(tokens)}")
    for position, token in enumerate(tokens):
        if not isinstance(token, str):
            raise InputError(f"{argument}[{position}] must be a token string, got "
                             f"{type(token).__name__} {short_repr(token)}")


def check_size(n_source: int, n_target: int) -> None:
    """InputError when aligning these token counts would exceed :data:`MAX_CELLS`."""
    if (n_source + 1) * (n_target + 1) > MAX_CELLS:
        raise InputError(
            f"a pair of {n_source} x {n_target} tokens is too long for the language-neutral "
            f"edit alignment (at most {MAX_CELLS:,} token pairs, MAX_CELLS); split it into "
            "shorter segments")


def align(source: Sequence[str], target: Sequence[str], native: bool = True) -> list[AlignStep]:
    """The alignment steps (op, o_start, o_end, c_start, c_end) of the two token
    lists, op one of M, S, I, D or T<k>, in ERRANT's layout."""
    check_tokens(source, "source")
    check_tokens(target, "target")
    check_size(len(source), len(target))
    if native and _align_compiled is not None:
        return _align_compiled(*kernel_arrays(source, target), False)
    if _align_compiled is None:
        kernels.missing("gecmetrics.edits._align_kernel")
    return align_python(source, target)


def kernel_arrays(source: Sequence[str], target: Sequence[str]) -> tuple[list, ...]:
    """The kernel's 14 token lists for the neutral cost: dense ids of each token
    and of its lower-case form (shared by both sides); the lower-case id as the
    "lemma" (so two words that differ in more than case pay ERRANT's 0.499 lemma
    cost, :data:`WORD_COST`); one part of speech for all (no POS cost); per
    token the id of its text among the sentence's distinct texts' code points."""
    ids: dict[str, int] = {}
    out = []
    for tokens in (source, target):
        texts: dict[str, int] = {}
        orth, lower, typ, chars = [], [], [], []
        for tok in tokens:
            orth.append(ids.setdefault(tok, len(ids)))
            lower.append(ids.setdefault(tok.lower(), len(ids)))
            if tok not in texts:
                texts[tok] = len(texts)
                chars.append([ord(ch) for ch in tok])
            typ.append(texts[tok])
        zeros = [0] * len(tokens)
        out.append((orth, lower, lower, zeros, zeros, typ, chars))
    a, b = out
    return (a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5],
            a[6], b[6])


def char_cost(a: str, b: str) -> float:
    """rapidfuzz's ``Indel.normalized_distance``: (la + lb - 2 LCS) / (la + lb)."""
    la, lb = len(a), len(b)
    if la + lb == 0:
        return 0.0
    row = [0] * (lb + 1)
    for x in a:
        diag = 0
        for y in range(lb):
            up = row[y + 1]
            row[y + 1] = diag + 1 if x == b[y] else max(up, row[y])
            diag = up
    return (la + lb - 2 * row[lb]) / (la + lb)


def align_python(source: Sequence[str], target: Sequence[str]) -> list[AlignStep]:
    """:func:`align` in Python: the kernel's dynamic program, operation for
    operation (the same float additions and strict comparisons, so the same
    tie-breaks)."""
    n, m = len(source), len(target)
    o_low = [t.lower() for t in source]
    c_low = [t.lower() for t in target]
    cost = [[0.0] * (m + 1) for _ in range(n + 1)]
    op = [[""] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0], op[i][0] = cost[i - 1][0] + 1, "D"
    for j in range(1, m + 1):
        cost[0][j], op[0][j] = cost[0][j - 1] + 1, "I"
    for i in range(n):
        for j in range(m):
            if source[i] == target[j]:
                cost[i + 1][j + 1], op[i + 1][j + 1] = cost[i][j], "M"
                continue
            d_cost, i_cost = cost[i][j + 1] + 1, cost[i + 1][j] + 1
            sc = 0.0 if o_low[i] == c_low[j] else (WORD_COST + 0.0) + char_cost(source[i],
                                                                                target[j])
            s_cost, t_cost, k = cost[i][j] + sc, float("inf"), 1
            while i - k >= 0 and j - k >= 0 and cost[i - k + 1][j - k + 1] != cost[i - k][j - k]:
                if sorted(o_low[i - k:i + 1]) == sorted(c_low[j - k:j + 1]):
                    t_cost = cost[i - k][j - k] + k
                    break
                k += 1
            best, code = t_cost, f"T{k + 1}"
            for c, name in ((s_cost, "S"), (i_cost, "I"), (d_cost, "D")):
                if c < best:
                    best, code = c, name
            cost[i + 1][j + 1], op[i + 1][j + 1] = best, code
    seq: list[AlignStep] = []
    i, j = n, m
    while i + j:
        code = op[i][j]
        if code in ("M", "S"):
            seq.append((code, i - 1, i, j - 1, j))
            i, j = i - 1, j - 1
        elif code == "D":
            seq.append(("D", i - 1, i, j, j))
            i -= 1
        elif code == "I":
            seq.append(("I", i, i, j - 1, j))
            j -= 1
        else:
            k = int(code[1:])
            seq.append((code, i - k, i, j - k, j))
            i, j = i - k, j - k
    seq.reverse()
    return seq


def merge(steps: Sequence[AlignStep], source: Sequence[str],
          target: Sequence[str]) -> list[AlignStep]:
    """The edits (type, o_start, o_end, c_start, c_end) of an alignment, by the
    rules of docs/edits-neutral.md: matches are no edit (rule 1), each
    transposition is a ``W`` edit (rule 1), and each stretch of adjacent
    substitutions, insertions and deletions is merged by :func:`merge_stretch`."""
    out: list[AlignStep] = []
    for kind, group in groupby(steps, lambda s: s[0][0] if s[0][0] in "MT" else "X"):
        run = list(group)
        if kind == "M":
            continue
        if kind == "T":
            out += [(WORD_ORDER, *s[1:]) for s in run]
            continue
        for _, o1, o2, c1, c2 in merge_stretch(run, source, target):
            kind_ = MISSING if o1 == o2 else UNNECESSARY if c1 == c2 else REPLACEMENT
            out.append((kind_, o1, o2, c1, c2))
    return out


def merge_stretch(run: Sequence[AlignStep], source: Sequence[str],
                  target: Sequence[str]) -> list[AlignStep]:
    """Rules 2 to 4 on one stretch of S/I/D steps (docs/edits-neutral.md)."""
    if len(run) <= 1:
        return list(run)
    ops = {s[0] for s in run}
    if ops == {"D"} or ops == {"I"}:  # rule 2
        return [_joined(run, 0, len(run))]
    # rule 3: the shortest (then leftmost) run of 2..JOIN_STEPS steps spelling one text
    o_low = [t.lower() for t in source[run[0][1]:run[-1][2]]]
    c_low = [t.lower() for t in target[run[0][3]:run[-1][4]]]
    o_off, c_off = _offsets(o_low), _offsets(c_low)
    o_text, c_text = "".join(o_low), "".join(c_low)
    o0, c0 = run[0][1], run[0][3]
    for width in range(2, min(JOIN_STEPS, len(run)) + 1):
        for a in range(len(run) - width + 1):
            b = a + width
            x1, x2 = o_off[run[a][1] - o0], o_off[run[b - 1][2] - o0]
            y1, y2 = c_off[run[a][3] - c0], c_off[run[b - 1][4] - c0]
            if x2 - x1 == y2 - y1 > 0 and o_text[x1:x2] == c_text[y1:y2]:
                return (merge_stretch(run[:a], source, target) + [_joined(run, a, b)]
                        + merge_stretch(run[b:], source, target))
    # rule 4: similar substitutions alone; each run of the other steps one edit
    out: list[AlignStep] = []
    start = 0
    for t, step in enumerate(run):
        if step[0] == "S" and (source[step[1]].lower() == target[step[3]].lower()
                               or char_cost(source[step[1]], target[step[3]]) < SIMILAR):
            if start < t:
                out.append(_joined(run, start, t))
            out.append(step)
            start = t + 1
    if start < len(run):
        out.append(_joined(run, start, len(run)))
    return out


def _offsets(tokens: Sequence[str]) -> list[int]:
    off = [0]
    for tok in tokens:
        off.append(off[-1] + len(tok))
    return off


def _joined(run: Sequence[AlignStep], a: int, b: int) -> AlignStep:
    """Steps run[a:b] as one step."""
    return ("X", run[a][1], run[b - 1][2], run[a][3], run[b - 1][4])


def m2_block(source: Sequence[str], references: Sequence[Sequence[str]]) -> list[str]:
    """One M2 block (without its blank line) of a tokenised source and its
    tokenised references: the ``S`` line, then each reference's edits, annotator
    ids 0..k-1 in reference order, a ``noop`` line for a reference equal to the
    source, as ``errant_parallel`` writes them (a deletion's correction is empty)."""
    check_tokens(source, "source")
    if isinstance(references, (str, bytes)) or not isinstance(references, Sequence):
        raise InputError(f"references must be a list of token lists, got "
                         f"{type(references).__name__} {short_repr(references)}")
    for k, ref in enumerate(references):
        check_tokens(ref, f"references[{k}]")
    lines = ["S " + " ".join(source)]
    for k, ref in enumerate(references):
        edits = neutral_edits(source, ref)
        if not edits:
            lines.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{k}")
        lines += [f"A {e.start} {e.end}|||{e.type}|||{e.correction}|||REQUIRED|||-NONE-|||{k}"
                  for e in edits]
    return lines


#: (start, end, correction) of an edit, the span compared by :func:`span_agreement`.
Span = tuple[int, int, str]


def span_agreement(pairs: Sequence[tuple[Sequence[Span], Sequence[tuple[int, int, str, str]]]]
                   ) -> dict[str, Any]:
    """How often the neutral edits equal another extractor's (ERRANT's) edits.

    ``pairs``: per sentence pair, (neutral spans, the other's (start, end,
    correction, type) edits). An edit agrees when both have the same source
    span and the same correction. Returns the counts ``tp`` (in both), ``fp``
    (neutral only), ``fn`` (the other's only), precision / recall / F1 of the
    neutral edits against the other's, and per type of the other's edits
    ``by_type``: {type: [found, total]}.
    """
    tp = fp = fn = 0
    by_type: dict[str, list[int]] = {}
    for ours, theirs in pairs:
        mine = set(ours)
        other = {(s, e, c) for s, e, c, _ in theirs}
        tp += len(mine & other)
        fp += len(mine - other)
        fn += len(other - mine)
        for s, e, c, kind in theirs:
            row = by_type.setdefault(kind, [0, 0])
            row[0] += (s, e, c) in mine
            row[1] += 1
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "precision": p, "recall": r, "f1": f,
            "by_type": by_type}


#: What ``edits=`` of an edit metric accepts besides its own default: the
#: language-neutral extractor, for text references in any language.
NEUTRAL = "neutral"
#: The values of ``edits=``: an ERRANT-based metric's (errant, cleme, cleme2,
#: gotoscorer) and M2's (its default is the M2 file's gold edits).
ErrantEdits = Literal["errant", "neutral"]
M2Edits = Literal["m2", "neutral"]


def check_edits_option(metric: str, edits: str, default: str, references: str = "auto",
                       model: str = "", lang: str = "en") -> None:
    """The one check of an edit metric's ``edits=`` option: its ``default`` or
    ``neutral``; neutral edits come from text, so ``references=m2`` (the M2
    file's own edits) and a spaCy ``model`` make no sense with them. A named
    ``model`` for ERRANT's edits must give what ERRANT reads (for ``lang``):
    :func:`gecmetrics.edits.pipeline.check_pipeline_files`."""
    if edits not in (default, NEUTRAL):
        raise ConfigError(f"{metric} option edits must be {default} or {NEUTRAL} "
                          f"(got {edits!r})")
    if edits == NEUTRAL and references == "m2":
        raise ConfigError(f"{metric}:edits=neutral extracts the edits of text references; it "
                          "cannot score the M2 file's own edits (references=m2): drop one of "
                          "them")
    if edits == NEUTRAL and model:
        raise ConfigError(f"{metric}:edits=neutral reads no spaCy pipeline; drop model=")
    if edits == "errant" and isinstance(model, str) and isinstance(lang, str):
        check_pipeline_files(model, lang, f"{metric}:model")


class NeutralExtractor:
    """The language-neutral edits of many pairs, with the interface of
    :class:`gecmetrics.edits.extraction.Extractor` (``extract``, keyed by
    :func:`~gecmetrics.edits.extraction.pair_key`), so that a metric that counts
    ERRANT's edits counts these with ``edits=neutral``. No model, no cache (the
    alignment is fast); M2 gold items are refused (their edits are a human's)."""

    parse_cache = None
    computed = 0

    def __enter__(self) -> NeutralExtractor:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def close(self) -> None:
        return None

    def extract(self, hyp_pairs: Any, golds: Any) -> dict[tuple[str, ...],
                                                          list[tuple[int, int, str, str]]]:
        """{("h", source, other): edits} of every pair with different tokens; every
        pair's size is checked (:func:`check_size`) before any is aligned."""
        if list(golds):
            raise AssertionError("the neutral extractor takes text pairs, not M2 gold")
        jobs: dict[tuple[str, ...], tuple[list[str], list[str]]] = {}
        for src, other in hyp_pairs:
            a, b = src.split(), other.split()
            key: tuple[str, ...] = ("h", " ".join(a), " ".join(b))
            if a != b and key not in jobs:
                check_size(len(a), len(b))
                jobs[key] = (a, b)
        out: dict[tuple[str, ...], list[tuple[int, int, str, str]]] = {}
        for key, (a, b) in jobs.items():
            out[key] = [(e.start, e.end, e.correction, e.type) for e in neutral_edits(a, b)]
            self.computed += 1
        return out
