"""Edit attributions against human edit judgments: SEEDA's EditEval (Kobayashi et al., TACL 2024).

SEEDA's ``data/EditEval_Step1/annotator{1,2,3}/N.txt`` (N = 0 .. 199) show one
CoNLL-2014 sentence (``<t>...</t>``, with its context) and several systems'
corrections of it (``<s1>`` ...), each edit written in place as
``[original→correction|True]`` (``False``: the annotator rejected the edit).
The markup was typed by hand and is not always regular; :func:`parse_correction`
reads it as follows, and :func:`read_edit_judgments` counts what it leaves out:

* a label may stand inside the brackets anywhere (``[it→the|Truey]``: the
  correction is ``they``) or right after them (``[has→have]|True``,
  ``[Afterall→After all] |True,``): it is taken out and the rest joined;
* an edit without a label, or with two different ones, is kept as an edit of
  the correction but not judged;
* the sentence's source is the one most corrections' markup gives back (the
  ``<t>`` line brackets words in its own way); a correction whose markup gives
  another one, or cannot be read (an unclosed bracket), is left out whole;
* every sentence is one of CoNLL-2014's sources (where its references are).

:func:`attribution_auc` then attributes each correction's sentence-score change
to exactly these edits (:func:`gecmetrics.workflows.attribution.attribute`, edits given)
and reports the ROC AUC of the attributions separating accepted from rejected
edits, over every (annotator, edit) judgment.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gecmetrics.m2_format import M2File
from gecmetrics.workflows.attribution import (
    AttributionOptions,
    CandidateScorer,
    EditTuple,
    attribute,
)

from ..corpus import Corpus
from ..errors import InputError
from ..metric import Metric
from ..readers import read_text
from ..stats.pairwise_accuracy import roc_auc

#: Where SEEDA's edit judgments are under a data folder, and how many files each
#: annotator has.
FOLDER = Path("SEEDA", "data", "EditEval_Step1")
ANNOTATORS = (1, 2, 3)
FILES = 200

_BRACKET = re.compile(r"\[([^\[\]]*)\]")
_LABEL = re.compile(r"\|(True|False)")
_AFTER = re.compile(r"\s*\|(True|False)")  # used with match(line, pos)
_CORRECTION = re.compile(r"^<s(\d+)>(.*)</s\1>\s*$")


@dataclass(frozen=True)
class JudgedCorrection:
    """One system's correction of a SEEDA sentence as one annotator judged it.

    ``edits``: (start, end, correction, type "") on the source's tokens;
    ``labels``: per edit, True (accepted), False (rejected) or None (no label).
    """

    annotator: int
    file: int
    slot: int
    source: str
    hypothesis: str
    edits: tuple[EditTuple, ...]
    labels: tuple[bool | None, ...]


def parse_correction(line: str) -> tuple[list[str], list[str], list[EditTuple],
                                         list[bool | None]] | None:
    """(source tokens, hypothesis tokens, edits, labels) of one ``<sK>`` line's
    content, or None where the markup cannot be read."""
    src: list[str] = []
    hyp: list[str] = []
    edits: list[EditTuple] = []
    labels: list[bool | None] = []
    at = 0
    while True:
        m = _BRACKET.search(line, at)
        outside = line[at:m.start() if m else len(line)]
        if "[" in outside or "]" in outside:
            return None
        words = outside.split()
        src += words
        hyp += words
        if m is None:
            break
        content = m.group(1)
        found = _LABEL.findall(content)
        at = m.end()
        after = _AFTER.match(line, at)
        if after is not None:
            found.append(after.group(1))
            at = after.end()
        content = _LABEL.sub("", content)
        if content.count("→") != 1:
            return None
        orig, corr = (part.split() for part in content.split("→"))
        edits.append((len(src), len(src) + len(orig), " ".join(corr), ""))
        src += orig
        hyp += corr
        labels.append(found[0] == "True" if len(set(found)) == 1 else None)
    return src, hyp, edits, labels


@dataclass(frozen=True)
class EditJudgments:
    """Every readable judged correction, and what was left out (for the record)."""

    corrections: tuple[JudgedCorrection, ...]
    unreadable: int
    unlabelled: int


def read_edit_judgments(data: Path) -> EditJudgments:
    """SEEDA's edit judgments under ``data`` (:data:`FOLDER`)."""
    folder = Path(data) / FOLDER
    out: list[JudgedCorrection] = []
    unreadable = unlabelled = 0
    for annotator in ANNOTATORS:
        for n in range(FILES):
            path = folder / f"annotator{annotator}" / f"{n}.txt"
            if not path.is_file():
                raise InputError(f"SEEDA edit judgments: cannot read {path} (no such file); "
                                 "get them with `gecmetrics download seeda --data-dir DIR`")
            # read as every input is: a BOM or CRLF read, UTF-16 or NUL bytes named
            lines = read_text(path, "SEEDA edit judgment").splitlines()
            target = next((ln for ln in lines if ln.startswith("<t>")), None)
            if target is None:
                raise InputError(f"{path}: no <t> line (the judged sentence)")
            parsed = [(int(m.group(1)), parse_correction(m.group(2)))
                      for m in map(_CORRECTION.match, lines) if m is not None]
            # The sentence: the source the corrections' markup gives back (most of
            # them agree); the <t> line marks words in its own, irregular way.
            sources = Counter(" ".join(p[0]) for _, p in parsed if p is not None)
            tagged = " ".join(target[3:].replace("</t>", "").replace("[", " ")
                              .replace("]", " ").split())
            source = max(sources, key=lambda s: (sources[s], s == tagged)) if sources else ""
            for slot, p in parsed:
                if p is None or " ".join(p[0]) != source:
                    unreadable += 1
                    continue
                _, hyp, edits, labels = p
                unlabelled += sum(label is None for label in labels)
                out.append(JudgedCorrection(annotator, n, slot, source, " ".join(hyp),
                                            tuple(edits), tuple(labels)))
    return EditJudgments(tuple(out), unreadable, unlabelled)


@dataclass(frozen=True)
class AucRow:
    """How well one metric's attributions separate accepted from rejected edits."""

    metric: str
    method: str
    auc: float
    accepted: int
    rejected: int


def attribution_auc(metric: Metric, judgments: EditJudgments, sources: Sequence[str],
                    references: Sequence[Sequence[str]], m2: object = None,
                    methods: Sequence[str] = ("shapley", "add", "remove")) -> list[AucRow]:
    """The ROC AUC of ``metric``'s edit attributions (one row per method) over every
    labelled (annotator, edit) judgment. ``sources``/``references`` (and ``m2``, the
    gold M2 file for edit metrics) are CoNLL-2014's; each judged sentence is found there."""
    where = {s: d for d, s in enumerate(sources)}
    distinct = list(dict.fromkeys((c.source, c.hypothesis, c.edits)
                                  for c in judgments.corrections))
    missing = [s for s, _, _ in distinct if s not in where]
    if missing:
        raise InputError(f"SEEDA sentence not in the CoNLL-2014 sources: {missing[0][:60]!r}")
    lines = [where[s] for s, _, _ in distinct]
    gold = None
    if m2 is not None:

        gold = M2File(m2.path, [m2.sentences[d] for d in lines])  # type: ignore[attr-defined]
    corpus = Corpus([sources[d] for d in lines], [[r[d] for d in lines] for r in references],
                    {"judged": [h for _, h, _ in distinct]}, m2=gold)
    edits = {"judged": [list(e) for _, _, e in distinct]}
    index = {key: k for k, key in enumerate(distinct)}
    rows = []
    scorer = CandidateScorer(metric, corpus)  # each candidate scored once for all methods
    for method in methods:
        result = attribute(metric, corpus, AttributionOptions(method), edits, scorer)
        scores, labels = [], []
        for c in judgments.corrections:
            sent = result.sentences[index[(c.source, c.hypothesis, c.edits)]]
            for e, label in zip(sent.edits, c.labels, strict=True):
                if label is not None:
                    scores.append(e.attribution)
                    labels.append(label)
        rows.append(AucRow(metric.spec, method, roc_auc(scores, labels), sum(labels),
                           len(labels) - sum(labels)))
    return rows
