"""gec-evaluation (Östling et al., LREC-COLING 2024): ``sv-gec``, Swedish with ratings.

Upstream ``robertostling/gec-evaluation`` (GPL-3.0; fetched by ``gecmetrics download
sv-gec``, never packaged) holds 64 Swedish learner sentences at each CEFR level A, B
and C (``data/balanced_test/Nyberg.CEFR_{A,B,C}.balanced_test.orig.txt``), a minimal
reference (``.corr.txt``) and six systems' outputs (``.granska``, ``.mt``,
``.mt-large``, ``.mm``, ``.mw``, ``.s2``). ``annotations/balanced_{A,B,C}/*.json``
(made by the authors' ``annotator/create_annotation_file.py``) hold, per sentence,
the original, the reference and five systems' outputs (``mt-large`` was never
rated), each with its annotators' ratings 1-4 of ``Grammaticality``, ``Fluency``
and ``Meaning Preservation`` (0: the tool's "other", not on the scale) and each
annotator's post-edit (``corrected``).

Why the corpus is built the way it is:

* The texts scored are the *rated* texts of the annotation files, not the raw
  system files: the authors tokenised every file with spaCy's
  ``sv_core_news_sm`` before rating (``create_annotation_file.py``), so the rated
  outputs split punctuation like the sources and the reference do, while some
  raw ``.s2``/``.mm``/``.mw`` lines do not (``den.`` for ``den .``). A
  whitespace-tokenised metric would otherwise punish GPT-3 for spacing. The
  loader checks that each rated output equals its system file's line once
  whitespace is removed, and that the annotation files' originals and
  references equal the ``.orig.txt`` and ``.corr.txt`` lines.
* Sentences are the three levels in order (A 0-63, B 64-127, C 128-191).
* Human scores are those of annotator ``katarina``, the only ones the paper uses
  (upstream README: ``robert`` rated 11 sentences of level A only). A rating 0
  ("other") is left out of means, as ``analyze_annotations.py`` does.
* System level (``--human grammaticality|fluency|meaning``): a system's mean
  rating over its 192 outputs; this is the "All" column of the paper's Table 4.
  Sentence level: one ranking item per sentence and criterion, the five outputs
  grouped by equal rating (:func:`.base.rating_items`); the criterion follows
  ``--human`` (:attr:`.base.Benchmark.criteria`).

:func:`human_table` recomputes the paper's Table 4 (mean rating per system and
level, and NLD, the mean normalised character Levenshtein distance between an
output and the annotator's post-edit).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.errors import InputError
from gecmetrics.readers import parse_json, read_lines, read_text

from .base import (
    Benchmark,
    CriterionFacets,
    HumanCell,
    Judgments,
    description,
    rating_items,
    require_files,
)

NAME = "sv-gec"
OTHER = 0  # the annotation tool's "other" rating: not on the 1-4 scale, left out of means
ALL = "All"  # the paper's column over every level
NLD = "NLD"  # Table 4's row of normalised Levenshtein distances to the post-edits
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class SvGecData:
    """The rated part of gec-evaluation, sentences in level order (A, B, C).

    ``ratings[criterion][system][i]``: the annotator's rating of sentence ``i``
    (None: "other" or not rated); ``post_edits[system][i]``: the annotator's
    correction of that output (None: none)."""

    levels: tuple[str, ...]
    level_of: tuple[str, ...]
    sources: list[str]
    reference: list[str]
    outputs: dict[str, list[str]]
    ratings: dict[str, dict[str, list[int | None]]]
    post_edits: dict[str, list[str | None]]


def _read_json(path: Path) -> dict[str, Any]:
    # read as every input is (UTF-8; a byte-order mark or CRLF kept apart from the JSON;
    # NUL bytes, UTF-16, stray CRs and over-long lines named with their line)
    text = read_text(path, "sv-gec annotation")
    if not text.strip():
        raise InputError(f"sv-gec annotation file {path} is empty; run `gecmetrics download "
                         "sv-gec` to fetch it again")
    try:
        data = parse_json(text, str(path))
    except InputError as err:
        raise InputError(f"{path}: not a readable annotation file ({err}); run "
                         "`gecmetrics download sv-gec` to fetch it again") from None
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise InputError(f"{path}: no 'data' list; expected gec-evaluation's annotation "
                         "format ({\"data\": [...], \"item_order\": ...})")
    return data


def _rating(value: object, where: str) -> int | None:
    if not isinstance(value, int) or not OTHER <= value <= 4:
        raise InputError(f"{where}: rating {value!r} is not one of 0 (other), 1, 2, 3, 4")
    return None if value == OTHER else value


def _same_text(rated: str, raw: str) -> bool:
    """The rated text is the raw line re-tokenised: equal once whitespace is removed."""
    return _SPACE.sub("", rated) == _SPACE.sub("", raw)


def read(root: Path, desc: Mapping[str, Any] | None = None) -> SvGecData:
    """Read and cross-check the texts and one annotator's ratings (the description's)."""
    desc = desc or description(NAME)
    base = root / desc["root"]
    annotator = desc["annotator"]
    systems = list(desc["systems"])
    criteria: Mapping[str, str] = desc["criteria"]
    levels = tuple(desc["levels"])
    sources: list[str] = []
    reference: list[str] = []
    level_of: list[str] = []
    outputs: dict[str, list[str]] = {s: [] for s in systems}
    ratings: dict[str, dict[str, list[int | None]]] = {
        c: {s: [] for s in systems} for c in criteria}
    post_edits: dict[str, list[str | None]] = {s: [] for s in systems}
    for level in levels:
        src_path = base / desc["source"].format(level=level)
        ref_path = base / desc["reference"].format(level=level)
        src = read_lines(src_path, "source")
        ref = read_lines(ref_path, "reference")
        raw = {s: read_lines(base / desc["system_file"].format(level=level, system=s),
                             "hypothesis") for s in systems}
        path = base / desc["annotations"].format(level=level, annotator=annotator)
        items = _read_json(path)["data"]
        expected = desc["sentences_per_level"]
        for what, lines in [(src_path, src), (ref_path, ref), (path, items),
                            *[(s, raw[s]) for s in systems]]:
            if len(lines) != expected:
                raise InputError(f"{what}: {len(lines)} sentences, expected {expected} "
                                 f"(CEFR level {level})")
        for i, item in enumerate(items):
            where = f"{path}, item {i}"
            if item.get("original") != src[i] or item.get("reference") != ref[i]:
                raise InputError(f"{where}: its original/reference differ from line {i + 1} "
                                 f"of {src_path.name}/{ref_path.name}; the files are not "
                                 "from one gec-evaluation version")
            for s in systems:
                entry = item.get("systems", {}).get(s)
                if entry is None or not _same_text(entry.get("output", ""), raw[s][i]):
                    raise InputError(f"{where}: output of system {s!r} is not line {i + 1} "
                                     f"of its system file; the files are not from one "
                                     "gec-evaluation version")
                outputs[s].append(entry["output"])
                mine = entry.get("annotators", {}).get(annotator, {})
                for criterion, field in criteria.items():
                    value = mine.get(field)
                    ratings[criterion][s].append(
                        None if value is None else _rating(value, f"{where}, {s}, {field}"))
                post_edits[s].append(mine.get("corrected"))
        sources += src
        reference += ref
        level_of += [level] * len(src)
    return SvGecData(levels, tuple(level_of), sources, reference, outputs, ratings,
                     post_edits)


def levenshtein(a: str, b: str) -> int:
    """Character edit distance (insertion, deletion, substitution: cost 1), one numpy
    row at a time: the insertions along a row are a running minimum. A post-edit is
    mostly its output unchanged, so the common ends are stripped first."""
    start = 0  # a common prefix and suffix cost nothing: strip them first
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    a, b = a[start:len(a) - end], b[start:len(b) - end]
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    codes = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    steps = np.arange(len(b) + 1)
    row = steps.copy()
    for i, char in enumerate(a, start=1):
        sub = row[:-1] + (codes != ord(char))
        best = np.empty_like(row)
        best[0] = i
        best[1:] = np.minimum(row[1:] + 1, sub)
        row = np.minimum.accumulate(best - steps) + steps
    return int(row[-1])


def nld(output: str, post_edit: str) -> float:
    """Levenshtein distance normalised by the longer text (analyze_annotations.py's)."""
    longest = max(len(output), len(post_edit))
    return levenshtein(output, post_edit) / longest if longest else 0.0


def human_table(data: SvGecData, labels: Mapping[str, str] | None = None
                ) -> list[HumanCell]:
    """Table 4 of the paper, recomputed: for each criterion then NLD, system and level
    (All, then each level), the mean rating ("other" left out) or the mean NLD;
    ``labels``: the paper's row name of each system (default: the system's)."""
    label = dict(labels or {})
    cells = []
    levels = (ALL, *data.levels)
    for criterion, per_system in data.ratings.items():
        for system, values in per_system.items():
            for level in levels:
                chosen = [v for v, lv in zip(values, data.level_of, strict=True)
                          if level in (ALL, lv)]
                rated = [v for v in chosen if v is not None]
                mean = sum(rated) / len(rated) if rated else math.nan
                counts = tuple(rated.count(k) for k in (4, 3, 2, 1))
                cells.append(HumanCell(criterion, system, label.get(system, system),
                                       level, mean, len(rated),
                                       len(chosen) - len(rated), counts))
    distances = {s: [None if e is None else nld(o, e)
                     for o, e in zip(data.outputs[s], edits, strict=True)]
                 for s, edits in data.post_edits.items()}
    for system, ds in distances.items():
        for level in levels:
            got = [d for d, lv in zip(ds, data.level_of, strict=True)
                   if level in (ALL, lv) and d is not None]
            cells.append(HumanCell(NLD, system, label.get(system, system), level,
                                   sum(got) / len(got) if got else math.nan, len(got), 0, ()))
    return cells


def _segment(values: Sequence[int | None]) -> list[float | None]:
    return [None if v is None else float(v) for v in values]


def load(root: Path, name: str = NAME, **_: object) -> Benchmark:
    desc = description(NAME)
    require_files(root, desc, name)
    data = read(root, desc)
    systems = list(desc["systems"])
    corpus = Corpus(data.sources, [data.reference], data.outputs)
    human: dict[str, dict[str, float]] = {}
    criteria: dict[str, CriterionFacets] = {}
    for criterion, per_system in data.ratings.items():
        human[criterion] = {}
        for s in systems:
            rated = [v for v in per_system[s] if v is not None]
            if not rated:
                raise InputError(f"benchmark {name}: system {s} has no {criterion} rating")
            human[criterion][s] = sum(rated) / len(rated)
        segment = {s: _segment(per_system[s]) for s in systems}
        criteria[criterion] = CriterionFacets(
            Judgments(rating_items(segment, systems, desc["annotator"]), criterion), segment)
    default = desc["meta_eval"]["benchmarks"][NAME]["default_human"]
    return Benchmark(
        name=name, corpus=corpus, human=human, system_sets={"all": systems},
        default_set="all", default_human=default,
        setting=(f"gec-evaluation balanced test, CEFR {'+'.join(data.levels)} "
                 f"({corpus.num_sentences} sentences, 1 reference, ratings of "
                 f"annotator {desc['annotator']})"),
        corpus_label=NAME, judgments=criteria[default].judgments,
        segment_scores=criteria[default].segment_scores, criteria=criteria,
        human_table=lambda: human_table(data, desc["paper_rows"]),
    )
