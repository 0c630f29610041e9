"""UA-GEC's test set (Syvokon et al. 2023; the ``ua-gec`` package, CC BY 4.0) as a
sentence-level corpus with several annotators, and gold M2 edits made from the
package's own annotations (which carry error types).

Used by tests/test_uagec.py and docs/generate/make_languages.py only: gecmetrics itself
never imports ``ua_gec`` (the optional test extra ``ua-gec``).

What the package gives, per document of the test set: the source text, and per
annotator (two for each of the 166 test documents) the text annotated inline,
``{source=>correction:::error_type=T}``, with character offsets into the source
text, plus both texts split into sentences and tokenised, one sentence a line,
the target's sentences aligned with the source's.

From the annotations to M2 (:func:`gold_m2`): each annotation is a character
span of the source replaced by a string. Its span is widened to whole tokens
on both sides (the text outside an annotation is the same in source and
target, so what is added on one side is added on the other), and annotations
whose widened spans overlap become one edit (typed ``Mixed`` when their types
differ). The source tokens of the span are the M2 edit's span, the target
tokens its correction. Checked on the whole test set: applying an
annotator's M2 edits to the tokenised source sentences gives exactly that
annotator's tokenised target sentences (:func:`apply_m2`), in every sentence
(tests/test_uagec.py).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

#: The annotation layers of the package: ``gec-fluency`` (every correction,
#: the package's default) and ``gec-only`` (grammar, spelling and
#: punctuation corrections, fluency ones left out).
LAYERS = ("gec-fluency", "gec-only")

#: The type of one edit made of annotations of different types.
MIXED = "Mixed"

#: (start, end, correction tokens joined by spaces, error type) in a sentence's tokens.
Edit = tuple[int, int, str, str]


@dataclass
class Document:
    """One test document: its tokenised source sentences and, per annotator id,
    its tokenised target sentences and its gold edits per sentence."""

    doc_id: str
    source: list[list[str]]
    targets: dict[int, list[list[str]]] = field(default_factory=dict)
    edits: dict[int, list[list[Edit]]] = field(default_factory=dict)
    merged: int = 0  # annotations merged with another one into one edit
    crossing: int = 0  # edits over a sentence boundary (split, see gold_edits)


@dataclass
class TestSet:
    """The test set of one layer, sentence by sentence (documents in id order)."""

    layer: str
    documents: list[Document]

    @property
    def annotators(self) -> list[int]:
        return sorted({a for d in self.documents for a in d.targets})

    def sources(self) -> list[str]:
        return [" ".join(s) for d in self.documents for s in d.source]

    def targets(self, annotator: int) -> list[str]:
        return [" ".join(s) for d in self.documents for s in d.targets[annotator]]

    def edits(self, annotator: int) -> list[list[Edit]]:
        return [e for d in self.documents for e in d.edits[annotator]]


def load(layer: str = "gec-fluency") -> TestSet:
    """The UA-GEC test set of ``layer`` with gold edits (imports ``ua_gec``)."""
    from ua_gec import Corpus

    by_doc: dict[str, dict[int, object]] = defaultdict(dict)
    for doc in Corpus("test", layer).get_documents():
        by_doc[doc.doc_id][doc.meta.annotator_id] = doc
    documents = []
    for doc_id in sorted(by_doc):
        versions = by_doc[doc_id]
        first = next(iter(versions.values()))
        out = Document(doc_id, [s.split() for s in first.source_sentences_tokenized])
        for annotator, doc in sorted(versions.items()):
            target = [s.split() for s in doc.target_sentences_tokenized]
            edits, merged, crossing = gold_edits(doc.source, out.source, doc.target, target,
                                       doc.annotated.get_annotations())
            out.targets[annotator], out.edits[annotator] = target, edits
            out.merged += merged
            out.crossing += crossing
        documents.append(out)
    return TestSet(layer, documents)


# --------------------------------------------------------------------------
# Annotations -> token edits


def token_offsets(text: str, sentences: Sequence[Sequence[str]]) -> list[tuple[int, int, int]]:
    """(start, end, sentence) of every token, found in order in ``text`` with only
    white space between them; ValueError when one is not there."""
    out, pos = [], 0
    for k, sentence in enumerate(sentences):
        for token in sentence:
            i = text.find(token, pos)
            if i < 0 or text[pos:i].strip():
                raise ValueError(f"token {token!r} not found at offset {pos}")
            out.append((i, i + len(token), k))
            pos = i + len(token)
    return out


def _widen(offsets: list[tuple[int, int, int]], starts: list[int], s: int, e: int
           ) -> tuple[int, int]:
    """How far [s, e) must be widened, left and right, to whole tokens."""
    left = right = 0
    i = bisect.bisect_right(starts, s) - 1  # the last token starting at or before s
    if i >= 0 and offsets[i][0] < s < offsets[i][1]:
        left = s - offsets[i][0]
    j = bisect.bisect_left(starts, e) - 1  # the last token starting before e
    if j >= 0 and offsets[j][0] < e < offsets[j][1]:
        right = offsets[j][1] - e
    return left, right


def _tokens_in(offsets: list[tuple[int, int, int]], s: int, e: int) -> list[int]:
    return [i for i, (a, b, _) in enumerate(offsets) if a >= s and b <= e and a < b]


def gold_edits(source_text: str, source: Sequence[Sequence[str]], target_text: str,
               target: Sequence[Sequence[str]], annotations: Sequence[object]
               ) -> tuple[list[list[Edit]], int, int]:
    """Per source sentence, the M2 edits of one annotator's ``annotations``; and how
    many annotations were merged into an edit with another one, and how many
    edits went over a sentence boundary (the correction replaces the edit's
    tokens in its first sentence, its tokens in the next ones are deleted)."""
    src_off = token_offsets(source_text, source)
    tgt_off = token_offsets(target_text, target)
    src_starts = [a for a, _, _ in src_off]
    tgt_starts = [a for a, _, _ in tgt_off]
    # [source start, source end, target start, target end, types]
    spans: list[list] = []
    delta = 0
    for ann in sorted(annotations, key=lambda a: (a.start, a.end)):  # type: ignore[attr-defined]
        correction = ann.suggestions[0] if ann.suggestions else ""  # type: ignore[attr-defined]
        t0 = ann.start + delta  # type: ignore[attr-defined]
        t1 = t0 + len(correction)
        delta += len(correction) - (ann.end - ann.start)  # type: ignore[attr-defined]
        spans.append([ann.start, ann.end, t0, t1,  # type: ignore[attr-defined]
                      {ann.meta.get("error_type", "")}])  # type: ignore[attr-defined]
    merged = 0
    changed = True
    while changed:
        changed = False
        # widen each span to whole tokens on both sides
        for span in spans:
            while True:
                sl, sr = _widen(src_off, src_starts, span[0], span[1])
                tl, tr = _widen(tgt_off, tgt_starts, span[2], span[3])
                left, right = max(sl, tl), max(sr, tr)
                if not left and not right:
                    break
                span[0] -= left
                span[2] -= left
                span[1] += right
                span[3] += right
        # merge spans that overlap (or insert at the same point)
        out: list[list] = []
        for span in sorted(spans, key=lambda x: (x[0], x[1])):
            if out and (span[0] < out[-1][1] or (span[0] == out[-1][0] == out[-1][1] == span[1])):
                last = out[-1]
                last[1], last[3] = max(last[1], span[1]), max(last[3], span[3])
                last[0], last[2] = min(last[0], span[0]), min(last[2], span[2])
                last[4] |= span[4]
                merged += 1
                changed = True
            else:
                out.append(span)
        spans = out
    # first token of each sentence, in the whole document's token numbering
    first = [0]
    for sentence in source:
        first.append(first[-1] + len(sentence))
    src_tokens = [t for sentence in source for t in sentence]
    target_tokens = [t for sentence in target for t in sentence]
    src_ends = [b for _, b, _ in src_off]
    edits: list[list[Edit]] = [[] for _ in source]
    crossing = 0
    for s, e, t0, t1, types in spans:
        src = _tokens_in(src_off, s, e)
        tgt_ids = _tokens_in(tgt_off, t0, t1)
        cor = [target_tokens[i] for i in tgt_ids]
        etype = MIXED if len(types) > 1 else next(iter(types))
        if [src_tokens[i] for i in src] == cor:
            continue  # white space only: the same tokens on both sides
        if src:
            k = src_off[src[0]][2]
            start, end = src[0] - first[k], min(src[-1] + 1, first[k + 1]) - first[k]
            # an edit over a sentence boundary: the correction replaces its tokens in
            # the first sentence, its tokens in the next ones are deleted
            for later in range(k + 1, src_off[src[-1]][2] + 1):
                edits[later].append((0, min(src[-1] + 1, first[later + 1]) - first[later],
                                     "", etype))
                crossing += 1
        else:
            # an insertion at the point s, after the g source tokens that end by s: at the
            # end of the previous token's sentence, or at the start of the next token's
            # sentence when it is glued to that token (a dash opening a sentence)
            g = bisect.bisect_right(src_ends, s)
            if g == 0 or (g < len(src_off) and src_off[g][0] == s and src_ends[g - 1] != s):
                k = src_off[g][2]
            else:
                k = src_off[g - 1][2]
            start = end = g - first[k]
        edits[k].append((start, end, " ".join(cor), etype))
    return edits, merged, crossing


def apply_m2(source: Sequence[str], edits: Sequence[Edit]) -> list[str]:
    """The tokens of ``source`` with ``edits`` applied (in (start, end) order)."""
    out = list(source)
    offset = 0
    for start, end, correction, _ in sorted(edits, key=lambda x: (x[0], x[1])):
        tokens = correction.split()
        out[start + offset:end + offset] = tokens
        offset += len(tokens) - (end - start)
    return out


def m2_text(test_set: TestSet, annotators: Sequence[int] | None = None) -> str:
    """The gold edits as an M2 file (annotators numbered from 0 in the given order)."""
    chosen = list(annotators) if annotators is not None else test_set.annotators
    per = [test_set.edits(a) for a in chosen]
    blocks = []
    for d, src in enumerate(test_set.sources()):
        lines = [f"S {src}"]
        for k, edits in enumerate(per):
            if not edits[d]:
                lines.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{k}")
            for start, end, correction, etype in sorted(edits[d], key=lambda x: (x[0], x[1])):
                lines.append(f"A {start} {end}|||{etype}|||{correction or '-NONE-'}"
                             f"|||REQUIRED|||-NONE-|||{k}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n\n"


def sentence_pairs(test_set: TestSet, annotator: int) -> Iterator[tuple[list[str], list[str],
                                                                         list[Edit]]]:
    """(source tokens, target tokens, gold edits) of every sentence for one annotator."""
    for d in test_set.documents:
        yield from zip(d.source, d.targets[annotator], d.edits[annotator], strict=True)
