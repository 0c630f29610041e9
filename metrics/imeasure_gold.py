"""The I-measure's gold standard: M2 edits grouped into errors, and the candidate references.

The official tool reads its own XML gold format; for an M2 file it ships the
converter ``m2_to_ixml.py``, and the official numbers for M2 test sets are
those of converter + scorer. This module does both steps on the parsed M2
sentence, with the same rules:

Conversion (``m2_to_ixml.py``), per sentence:

* the annotators of a sentence are those with any ``A`` line (``noop``
  included); their number is ``numann``;
* every edit but ``noop`` is kept with its first correction (text before
  ``||``), re-tokenised with NLTK's Treebank word tokenizer
  (:func:`treebank_tokenize`);
* edits sorted from the longest span to the shortest (stable) are grouped
  into errors: an edit joins the first error holding an edit it overlaps
  (same span; an insertion strictly inside the other's span; or two spans
  that intersect), else it starts a new error; errors are ordered by the
  span of their first edit;
* an error's alternatives are its edits grouped by annotator; the error is
  required when every annotator of the sentence has an alternative for it.

Candidates (``candgen.py``). With ``mix`` (the official default) every
combination of one alternative per error is a candidate reference (an
optional error may also be left uncorrected), unless two chosen edits have
the same span; without ``mix`` there is one candidate per annotator (and the
source when some annotator made no edit). Edits are applied from the last
span to the first; an edit that would empty the sentence is skipped, and an
empty result is replaced by the source. Equal candidate texts count once.

With ``mix`` the number of combinations is the product of the errors'
alternative counts, which can be astronomical (2^34 in CoNLL-2014 sentence
333, which the official tool never finishes); :func:`candidates` refuses a
sentence over ``max_references`` combinations instead of running for days.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from gecmetrics.errors import ConfigError

Correction = tuple[int, int, str]

# NLTK 3.4.5 word_tokenize (one segment, preserve_line=True), rule by rule: the
# converter re-tokenises each correction with it.
_A = re.ASCII
_STARTING_QUOTES = [
    (re.compile("([«“‘„]|[`]+)"), r" \1 "),
    (re.compile(r'^"', _A), r"``"),
    (re.compile(r"(``)", _A), r" \1 "),
    (re.compile(r"([ (\[{<])(\"|'{2})", _A), r"\1 `` "),
    (re.compile(r"(?i)(')(?!re|ve|ll|m|t|s|d)(\w)\b"), r"\1 \2"),
]
_PUNCTUATION = [
    (re.compile(r"([^.])(\.)([\])}>\"'»”’ ]*)\s*$"), r"\1 \2 \3 "),
    (re.compile(r"([:,])([^\d])", _A), r" \1 \2"),
    (re.compile(r"([:,])$", _A), r" \1 "),
    (re.compile(r"\.\.\.", _A), r" ... "),
    (re.compile(r"[;@#$%&]", _A), r" \g<0> "),
    (re.compile(r"([^.])(\.)([\])}>\"']*)\s*$", _A), r"\1 \2\3 "),
    (re.compile(r"[?!]", _A), r" \g<0> "),
    (re.compile(r"([^'])' ", _A), r"\1 ' "),
]
_PARENS = (re.compile(r"[\]\[(){}<>]", _A), r" \g<0> ")
_DASHES = (re.compile(r"--", _A), r" -- ")
_ENDING_QUOTES = [
    (re.compile("([»”’])"), r" \1 "),
    (re.compile(r'"', _A), " '' "),
    (re.compile(r"(\S)('')", _A), r"\1 \2 "),
    (re.compile(r"([^' ])('[sS]|'[mM]|'[dD]|') ", _A), r"\1 \2 "),
    (re.compile(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", _A), r"\1 \2 "),
]
_CONTRACTIONS = [re.compile(p, _A) for p in (
    r"(?i)\b(can)(not)\b", r"(?i)\b(d)('ye)\b", r"(?i)\b(gim)(me)\b", r"(?i)\b(gon)(na)\b",
    r"(?i)\b(got)(ta)\b", r"(?i)\b(lem)(me)\b", r"(?i)\b(mor)('n)\b", r"(?i)\b(wan)(na)\s",
    r"(?i) ('t)(is)\b", r"(?i) ('t)(was)\b",
)]


def treebank_tokenize(text: str) -> list[str]:
    """Tokens of ``text`` by NLTK's ``word_tokenize`` on one segment (version 3.4.5).

    Already tokenised corrections mostly pass unchanged; what changes is
    punctuation attached to a word (``known,the`` gives ``known , the``), a
    final period, double quotes (written as `` and ''), clitics (``don't``
    gives ``do n't``) and a few fused words (``cannot`` gives ``can not``).
    """
    for pattern, repl in _STARTING_QUOTES:
        text = pattern.sub(repl, text)
    for pattern, repl in _PUNCTUATION:
        text = pattern.sub(repl, text)
    for pattern, repl in (_PARENS, _DASHES):
        text = pattern.sub(repl, text)
    text = " " + text + " "
    for pattern, repl in _ENDING_QUOTES:
        text = pattern.sub(repl, text)
    for pattern in _CONTRACTIONS:
        text = pattern.sub(r" \1 \2 ", text)
    return text.split()


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    if a == b:
        return True
    if a[0] == a[1]:
        return b[0] < a[0] and a[1] < b[1]
    if b[0] == b[1]:
        return a[0] < b[0] and b[1] < a[1]
    return b[0] < a[1] <= b[1] or b[0] <= a[0] < b[1]


#: One error: (required, alternatives); an alternative is one annotator's
#: corrections (start, end, text) of the error, in the converter's order.
Error = tuple[bool, list[tuple[int, list[Correction]]]]


def gold_errors(edits: Sequence[tuple[int, int, str, str, int]]) -> tuple[int, list[Error]]:
    """``numann`` and the errors of one sentence, from its M2 edits.

    ``edits``: (start, end, type, correction, annotator) of every ``A`` line
    in file order, ``noop`` lines included (they count as annotators).
    """
    annotators = {e[4] for e in edits}
    kept = [(s, e, " ".join(treebank_tokenize(corr.split("||")[0])), ann)
            for s, e, typ, corr, ann in edits
            if not (s == -1 and e == -1 and typ.lower() == "noop")]
    kept.sort(key=lambda x: x[0] - x[1])
    clusters: list[list[tuple[int, int, str, int]]] = []
    for edit in kept:
        for cluster in clusters:
            if any(_overlap((edit[0], edit[1]), (c[0], c[1])) for c in cluster):
                cluster.append(edit)
                break
        else:
            clusters.append([edit])
    clusters.sort(key=lambda c: (c[0][0], c[0][1]))
    errors: list[Error] = []
    for cluster in clusters:
        by_ann = sorted(cluster, key=lambda x: x[3])
        alts = [(ann, [(s, e, text) for s, e, text, _ in group])
                for ann, group in itertools.groupby(by_ann, key=lambda x: x[3])]
        errors.append((len(alts) == len(annotators), alts))
    return len(annotators), errors


def _merge(corrections: list[Correction]) -> frozenset[Correction]:
    """One alternative's corrections, those of the same span joined by a space."""
    merged: dict[tuple[int, int], str] = {}
    for s, e, text in corrections:
        key = (s, e)
        merged[key] = merged[key] + " " + text if key in merged else text
    return frozenset((s, e, text) for (s, e), text in merged.items())


def _apply(source: list[str], edits: list[Correction]) -> str:
    corrected = source[:]
    for s, e, text in sorted(edits, key=lambda x: (x[0], x[1]), reverse=True):
        before = corrected[:]
        corrected[s:e] = text.split()
        if not corrected:  # the tool's NUCLE workaround: never delete the whole sentence
            corrected = before
    out = " ".join(corrected)
    return out if out.strip() else " ".join(source)


def candidates(source: str, numann: int, errors: list[Error], mix: bool = True,
               max_references: int | None = None, where: str = "") -> list[list[str]]:
    """The distinct candidate references of one sentence, as token lists, in generation order."""
    src = source.split()
    src_text = " ".join(src)
    targets: dict[str, None] = {}
    if mix:
        if not errors:
            return [src]
        choices: list[list[frozenset[Correction]]] = []
        total = 1
        for required, alts in errors:
            options: list[frozenset[Correction]] = [] if required else [frozenset()]
            for _, corrections in alts:
                alt = _merge(corrections)
                if alt not in options:
                    options.append(alt)
            choices.append(options)
            total *= len(options)
        if max_references is not None and total > max_references:
            raise ConfigError(
                f"imeasure: {where}mixing the annotators' corrections gives {total} candidate "
                f"references (more than max_references={max_references}); score with "
                "imeasure:mix=false (one reference per annotator, the tool's -nomix) or raise "
                "max_references")
        for combo in itertools.product(*choices):
            edits = [c for alt in combo for c in alt]
            if not edits:
                targets.setdefault(src_text)
            elif len({(s, e) for s, e, _ in edits}) == len(edits):
                targets.setdefault(_apply(src, edits))
    else:
        annotators: list[int] = []
        for _, alts in errors:
            for ann, _ in alts:
                if ann not in annotators:
                    annotators.append(ann)
        if numann <= 0 or len(annotators) < numann:
            targets.setdefault(src_text)
        for ann in annotators:
            edits = [c for _, alts in errors for a, corrections in alts if a == ann
                     for c in _merge(corrections)]
            targets.setdefault(_apply(src, edits) if edits else src_text)
    return [t.split() for t in targets]
