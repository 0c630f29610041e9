"""Minimum-Bayes-risk selection: per source, the candidate with the highest expected utility.

For a source ``s`` with candidates ``c_1..c_N`` and pseudo-references ``r_1..r_K``
(by default the candidates themselves), the utility of candidate ``i`` against
pseudo-reference ``j`` is the metric's sentence score of the triple
(source ``s``, hypothesis ``c_i``, the single reference ``r_j``):

    U(i, j) = sentence score of c_i with r_j as the one reference,
    E(i)    = mean over j of U(i, j),
    choice  = the lowest i with the highest E(i).

Conventions (docs/mbr.md):

* ``include_self=True`` (the default, as ``mbrs`` does: its pseudo-references are
  the candidates, each compared with all of them) averages over all N
  candidates, ``c_i`` itself included; ``include_self=False`` averages over the
  N - 1 others (a candidate set of one then has no utility and is refused).
  Given pseudo-references are never the candidates: all K are used.
* Ties (equal expected utilities, e.g. candidates with the same text) go to the
  lowest candidate index, the order the candidates were given in.

Exactness: every ``U(i, j)`` is gecmetrics' own sentence score of that triple,
bit for bit (tests/test_mbr.py checks it against one corpus per triple). Speed: a
score depends on its triple only, so each source's distinct texts are scored once
(:func:`pairwise_utilities`), and every candidate is counted once and compared with
every pseudo-reference from those counts: a metric that declares how its counts run
over references (:attr:`gecmetrics.metric.Metric.reference_axes`: chrF, GLEU, GREEN)
counts a source as one corpus sentence with the pseudo-references as references and
the candidates as systems, then folds the counts into single-reference rows for its
own formula (:func:`fold_references`); ERRANT takes the pseudo-references as
annotators, and each (candidate, annotator) TP, FP, FN gives its F
(:func:`_folded_edits`); any other
metric scores one corpus of the distinct (source, candidate, pseudo-reference) rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.edits.metric import EditMetric
from gecmetrics.edits.statistics import EditStatistics
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.formatting import plural, short_repr
from gecmetrics.fscore import prf
from gecmetrics.metric import Metric, SentenceCounts
from gecmetrics.readers import check_same_length
from gecmetrics.registry import metric_from_spec
from gecmetrics.signature import metric_signature

if TYPE_CHECKING:
    import pandas as pd

#: The most utilities (sources x candidates x pseudo-references) one block is scored
#: in: the counts of a block grow with it (chrF keeps 6 orders of int16 per pair), so
#: any number of sources is scored in bounded memory, a block at a time.
BLOCK_UTILITIES = 1 << 20
#: The most utilities a selection keeps (8 bytes each: 1 GiB): 16,384 sources x 64 x 64
#: candidates; more is refused before any work (select the sources in parts).
MAX_UTILITIES = 1 << 27

#: The one tie rule: the lowest candidate index among the highest expected utilities.
TIE_RULES: tuple[str, ...] = ("first",)


@dataclass(frozen=True)
class MbrOptions:
    """One MBR selection: the metric (a spec or a Metric), whether a candidate counts
    as one of its own pseudo-references, and the tie rule."""

    metric: str | Metric = "chrf"
    include_self: bool = True
    tie: Literal["first"] = "first"

    def __post_init__(self) -> None:
        if not isinstance(self.metric, str | Metric):
            raise ConfigError(f"metric must be a metric spec such as 'chrf' or a gecmetrics "
                              f"Metric, got {type(self.metric).__name__} "
                              f"{short_repr(self.metric)}")
        if not isinstance(self.include_self, bool):
            raise ConfigError(f"include_self must be True or False, got "
                              f"{short_repr(self.include_self)}")
        if self.tie not in TIE_RULES:
            raise ConfigError(f"tie rule {self.tie!r} is unknown; use 'first' (the lowest "
                              "candidate index among the best)")

    def make_metric(self) -> Metric:
        """The metric, checked for sentence scores that depend on their sentence only."""
        metric = metric_from_spec(self.metric) if isinstance(self.metric, str) else self.metric
        check_metric(metric)
        return metric


@dataclass(frozen=True)
class MbrResult:
    """The selection per source and the expected utilities behind it.

    ``chosen[d]``: the index of the chosen candidate of source ``d`` (into
    ``candidates``, the candidate set names in order); ``texts[d]`` its text;
    ``expected``: the expected utilities, shape (sources, candidates).
    """

    metric: str
    signature: str
    candidates: tuple[str, ...]
    chosen: tuple[int, ...]
    texts: tuple[str, ...]
    expected: np.ndarray = field(repr=False)
    include_self: bool = True
    pseudo_references: int | None = None

    def utilities(self) -> pd.DataFrame:
        """The expected utilities: one row per source sentence (1-based index), one
        column per candidate set."""
        import pandas as pd

        frame = pd.DataFrame(self.expected, columns=list(self.candidates))
        frame.index = pd.RangeIndex(1, len(frame) + 1, name="sentence")
        return frame

    def to_frame(self) -> pd.DataFrame:
        """One row per source: sentence (1-based), chosen index (0-based) and set, its
        expected utility and text."""
        import pandas as pd

        rows = np.arange(len(self.chosen))
        return pd.DataFrame({
            "sentence": rows + 1,
            "chosen": list(self.chosen),
            "candidate": [self.candidates[i] for i in self.chosen],
            "utility": self.expected[rows, list(self.chosen)],
            "text": list(self.texts),
        })

    def to_json(self) -> list[dict[str, Any]]:
        """One object per source sentence (0-1 floats at full precision)."""
        return [{"sentence": d + 1, "chosen": i, "candidate": self.candidates[i],
                 "text": self.texts[d], "utility": float(self.expected[d, i]),
                 "utilities": [float(v) for v in self.expected[d]]}
                for d, i in enumerate(self.chosen)]


def check_metric(metric: Metric) -> None:
    """A one-line :class:`ConfigError` if ``metric`` has no per-sentence utility."""
    if not isinstance(metric, Metric):
        raise ConfigError(f"metric must be a gecmetrics Metric (e.g. "
                          f"metric_from_spec('chrf')), got {type(metric).__name__} "
                          f"{short_repr(metric)}")
    problem = metric.text_references_problem()
    if problem is not None:
        raise ConfigError(f"cannot use {metric.spec} for MBR: {problem}, and "
                          "pseudo-references are texts; use errant (F0.5 on ERRANT's edits "
                          "of each text) or m2:edits=neutral")
    problem = metric.sentence_scores_problem()
    if problem is not None:
        raise ConfigError(f"cannot use {metric.spec} for MBR: {problem}; choose a metric "
                          "whose sentence score depends on that sentence only (e.g. chrf, "
                          "bleu, gleu, green, errant)")


def _check_sets(what: str, sets: Sequence[Sequence[str]], sources: Sequence[str],
                names: Sequence[str]) -> list[tuple[str, ...]]:
    out = []
    for name, lines in zip(names, sets, strict=True):
        if isinstance(lines, str) or not isinstance(lines, Sequence):
            raise InputError(f"{what} {name} must be a sequence of strings (one per source), "
                             f"got {type(lines).__name__} {short_repr(lines)}")
        for d, line in enumerate(lines):
            if not isinstance(line, str):
                raise InputError(f"{what} {name}, line {d + 1}: not a string but "
                                 f"{type(line).__name__} {short_repr(line)}")
        out.append(tuple(lines))
    check_same_length([("the sources", sources), *((f"{what} {n}", s) for n, s
                                                    in zip(names, out, strict=True))])
    return out


def _named(sets: Mapping[str, Sequence[str]] | Sequence[Sequence[str]]
           ) -> tuple[list[str], list[Sequence[str]]]:
    if isinstance(sets, Mapping):
        return [str(k) for k in sets], list(sets.values())
    if isinstance(sets, str) or not isinstance(sets, Sequence):
        raise InputError(f"candidates must be a list of candidate sets (one string per "
                         f"source each) or a mapping of names to them, got "
                         f"{type(sets).__name__} {short_repr(sets)}")
    return [str(i) for i in range(len(sets))], list(sets)


def fold_references(counts: SentenceCounts, reference_axes: Mapping[str, int],
                    num_refs: int) -> SentenceCounts:
    """Counts of D sentences with K references as counts of D x K single-reference
    sentences (row ``d * K + k``: sentence ``d`` with reference ``k`` only).

    An array with a reference axis (``reference_axes[name]``, after its sentence axis)
    has that axis merged into its sentence axis and left with length 1; an array without one (per
    hypothesis only) is repeated K times along its sentence axis. Each row then
    holds exactly the counts the metric makes of that sentence with that one
    reference, since every count of a (sentence, reference) pair depends on that
    pair alone (tests/test_mbr.py checks it against the single-reference corpus).
    """
    arrays = {}
    for name, array in counts.arrays.items():
        axis = counts.axes[name]
        ref_axis = reference_axes.get(name)
        if ref_axis is None:
            arrays[name] = np.repeat(array, num_refs, axis=axis)
            continue
        if ref_axis <= axis:
            raise ValueError(f"the reference axis of {name!r} must follow its sentence axis")
        moved = np.moveaxis(array, ref_axis, axis + 1)  # (..., D, K, ...)
        shape = moved.shape
        merged = moved.reshape(*shape[:axis], shape[axis] * shape[axis + 1], *shape[axis + 2:])
        arrays[name] = np.expand_dims(merged, ref_axis)  # one reference a row
    return SentenceCounts(arrays, counts.axes)


def pairwise_utilities(metric: Metric, sources: Sequence[str],
                       candidates: Sequence[Sequence[str]],
                       references: Sequence[Sequence[str]] | None = None) -> np.ndarray:
    """U[d, i, j]: the sentence score of source ``d``'s candidate ``i`` against its
    pseudo-reference ``j`` alone (the candidates when ``references`` is None),
    shape (sources, candidates, pseudo-references).

    A score depends on its (source, candidate, pseudo-reference) triple only
    (:func:`check_metric`), so each source's distinct texts are scored once: the
    sources with the same numbers of distinct candidates and pseudo-references form
    one block (:func:`_block`), and equal texts share its scores.
    """
    refs = list(candidates) if references is None else list(references)
    out = np.empty((len(sources), len(candidates), len(refs)))
    groups: dict[tuple[int, int], list[tuple[int, list[str], list[str]]]] = {}
    slots_c = np.empty((len(sources), len(candidates)), dtype=np.int64)
    slots_r = np.empty((len(sources), len(refs)), dtype=np.int64)
    for d in range(len(sources)):
        texts_c: dict[str, int] = {}
        for i, lines in enumerate(candidates):
            slots_c[d, i] = texts_c.setdefault(lines[d], len(texts_c))
        if references is None:
            texts_r = texts_c
            slots_r[d] = slots_c[d]
        else:
            texts_r = {}
            for k, lines in enumerate(refs):
                slots_r[d, k] = texts_r.setdefault(lines[d], len(texts_r))
        groups.setdefault((len(texts_c), len(texts_r)), []).append(
            (d, list(texts_c), list(texts_r)))
    for members in groups.values():
        (num_c, num_r) = (len(members[0][1]), len(members[0][2]))
        step = max(1, BLOCK_UTILITIES // (num_c * num_r))
        for at in range(0, len(members), step):
            _score_block(metric, sources, members[at:at + step], slots_c, slots_r, out)
    if not np.all(np.isfinite(out)):
        d, i, k = (int(x[0]) for x in np.nonzero(~np.isfinite(out)))
        raise InputError(f"{metric.spec} gave an undefined sentence score for source {d + 1}, "
                         f"candidate {i + 1} against pseudo-reference {k + 1}; MBR needs a "
                         "finite utility for every pair")
    return out


def _score_block(metric: Metric, sources: Sequence[str],
                 members: list[tuple[int, list[str], list[str]]], slots_c: np.ndarray,
                 slots_r: np.ndarray, out: np.ndarray) -> None:
    """Score one block of sources (each: index, distinct candidates, distinct
    pseudo-references, as many of each) into ``out`` through the slots of its texts."""
    rows = [d for d, _, _ in members]
    block = _block(metric, [sources[d] for d in rows],
                   [list(t) for t in zip(*(c for _, c, _ in members), strict=True)],
                   [list(t) for t in zip(*(r for _, _, r in members), strict=True)])
    for pos, d in enumerate(rows):
        out[d] = block[pos][np.ix_(slots_c[d], slots_r[d])]


def _block(metric: Metric, sources: list[str], candidates: list[list[str]],
           refs: list[list[str]]) -> np.ndarray:
    """U of a block of sources, (sources, candidates, references), every source with
    the same numbers of candidates and references."""
    systems = {f"c{i}": lines for i, lines in enumerate(candidates)}
    counting = metric.counting()
    axes = metric.reference_axes
    if axes is not None and counting is not None:
        folded = fold_references(counting.count(Corpus(sources, refs, systems)), axes,
                                 len(refs))
        values: np.ndarray | None = counting.statistics(tuple(systems), folded).sentence(None)
    else:
        values = _folded_edits(metric, sources, systems, refs)
    if values is None:
        values = _distinct_rows(metric, sources, candidates, refs)
    values = np.asarray(values, dtype=float).reshape(len(candidates), len(sources), len(refs))
    return values.transpose(1, 0, 2)


def _folded_edits(metric: Metric, sources: list[str], systems: dict[str, list[str]],
                  refs: list[list[str]]) -> np.ndarray | None:
    """Sentence scores (candidates, sources x references) of an edit metric scoring text
    references (ERRANT) from one corpus with the K pseudo-references as its annotators:
    each text's edits are extracted once and every (candidate, annotator) pair is
    matched once. With one annotator a sentence's score is the F of that annotator's
    TP, FP, FN (:meth:`EditStatistics.sentence` with nothing to choose), computed by the
    same :func:`~gecmetrics.fscore.prf` call once per distinct (TP, FP, FN). None for a
    metric whose statistics are not plain edit counts."""
    if not (isinstance(metric, EditMetric) and metric.accepts_text_references):
        return None
    stats = metric.statistics(Corpus(sources, refs, systems))
    if type(stats) is not EditStatistics:
        return None
    beta = stats.resolve_beta(None)
    c = stats.counts
    triples = np.stack([c.tp, c.fp, c.fn], axis=-1).reshape(-1, 3)
    distinct, where = np.unique(triples, axis=0, return_inverse=True)
    f = np.array([prf(int(tp), int(fp), int(fn), beta)[2] for tp, fp, fn in distinct.tolist()])
    return f[where.reshape(-1)].reshape(len(c.systems), -1)


def _distinct_rows(metric: Metric, sources: Sequence[str], candidates: list[list[str]],
                   refs: list[list[str]]) -> np.ndarray:
    """U as (candidates, sources, references) from one corpus whose rows are the
    distinct (source, candidate text, pseudo-reference text) triples: one system, one
    reference a row. A score depends on its triple only (:func:`check_metric`), so
    equal texts (an unchanged sentence output by several systems) are scored once."""
    num_refs = len(refs)
    out = np.empty((len(candidates), len(sources), num_refs))
    rows: dict[tuple[int, str, str], int] = {}
    where = np.empty(out.shape, dtype=np.int64)
    for d in range(len(sources)):
        for i, cand in enumerate(candidates):
            for k, ref in enumerate(refs):
                where[i, d, k] = rows.setdefault((d, cand[d], ref[d]), len(rows))
    keys = list(rows)
    corpus = Corpus([sources[d] for d, _, _ in keys], [[r for _, _, r in keys]],
                    {"candidates": [h for _, h, _ in keys]})
    scores = np.asarray(metric.statistics(corpus).sentence(None), dtype=float)[0]
    out[...] = scores[where]
    return out


def expected_utilities(pairwise: np.ndarray, include_self: bool, self_pairs: bool) -> np.ndarray:
    """E[d, i] from U[d, i, j]: the mean over j, or (``self_pairs`` and not
    ``include_self``: the pseudo-references are the candidates) over j != i."""
    if include_self or not self_pairs:
        return pairwise.mean(axis=2)
    num = pairwise.shape[1]
    others = ~np.eye(num, dtype=bool)
    return pairwise[:, others].reshape(pairwise.shape[0], num, num - 1).mean(axis=2)


def select(sources: Sequence[str],
           candidates: Mapping[str, Sequence[str]] | Sequence[Sequence[str]],
           options: MbrOptions | None = None,
           pseudo_references: Sequence[Sequence[str]] | None = None) -> MbrResult:
    """MBR selection of one candidate per source (see the module's docstring).

    ``candidates``: N candidate sets, each one string per source (a mapping names
    them; a list is named 0..N-1); ``pseudo_references``: K sets to compare with
    instead of the candidates themselves.
    """
    options = MbrOptions() if options is None else options
    if not isinstance(options, MbrOptions):
        raise ConfigError(f"options must be MbrOptions, got {type(options).__name__}")
    metric = options.make_metric()
    if isinstance(sources, str) or not isinstance(sources, Sequence):
        raise InputError(f"sources must be a list of strings, got {type(sources).__name__} "
                         f"{short_repr(sources)}")
    names, sets = _named(candidates)
    if not sets:
        raise InputError("no candidate set given; give at least one (with pseudo-references) "
                         "or two")
    if not sources:
        raise InputError("no source sentence given; give at least one")
    cand = _check_sets("candidate set", sets, sources, names)
    refs = None
    if pseudo_references is not None:
        if isinstance(pseudo_references, str) or not isinstance(pseudo_references, Sequence):
            raise InputError("pseudo_references must be a list of reference sets, got "
                             f"{type(pseudo_references).__name__}")
        if not pseudo_references:
            raise InputError("pseudo_references is empty; give at least one set or None "
                             "(the candidates)")
        refs = _check_sets("pseudo-reference set", pseudo_references, sources,
                           [str(k) for k in range(len(pseudo_references))])
    elif len(cand) == 1 and not options.include_self:
        raise InputError("MBR needs at least two candidate sets to compare each with the "
                         f"others (got {plural(len(cand), 'set')}); give more candidates, "
                         "pseudo-references, or include each candidate itself")
    total = len(sources) * len(cand) * (len(cand) if refs is None else len(refs))
    if total > MAX_UTILITIES:
        raise InputError(f"MBR over {len(sources):,} sources with {len(cand):,} candidates "
                         f"would keep {total:,} utilities, more than {MAX_UTILITIES:,} "
                         f"(1 GiB); select the sources in parts")
    pairwise = pairwise_utilities(metric, list(sources), cand, refs)
    expected = expected_utilities(pairwise, options.include_self, refs is None)
    chosen = tuple(int(i) for i in np.argmax(expected, axis=1))  # the first of the best
    return MbrResult(
        metric=metric.spec, signature=str(metric_signature(metric).extend_apart(
            "mbr", include_self=options.include_self, ties=options.tie,
            pseudo_refs="candidates" if refs is None else len(refs))),
        candidates=tuple(names),
        chosen=chosen, texts=tuple(cand[i][d] for d, i in enumerate(chosen)),
        expected=expected, include_self=options.include_self,
        pseudo_references=None if refs is None else len(refs))
