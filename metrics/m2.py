"""M2 (MaxMatch; Dahlmeier and Ng, NAACL 2012), exact to the official CoNLL-2014 scorer.

For every sentence and annotator, the hypothesis edits are the path through
the edit lattice of source and hypothesis that matches the most gold edits
(:mod:`gecmetrics.metrics.m2_lattice`); they give (correct, proposed, gold)
counts, kept per (system, sentence, annotator). The corpus score then picks,
sentence by sentence, the annotator that maximises the running corpus
F_beta, with the official tie rules (:mod:`gecmetrics.edits.choice`).

Options (defaults as the official scorer): ``beta`` (0.5),
``max_unchanged_words`` (2), ``ignore_whitespace_casing`` (false); and
``max_lattice_edges`` (3 * 10^7), the budget of one sentence's edit lattice: a
sentence over it is an error naming it, instead of hours of work (the
official scorer hangs on such sentences). A pair with no token in common
(rewritten throughout) is scored without listing its edges, so the edge
budget does not apply to it; its lattice has a vertex budget instead.
The edit lattice does not depend on beta, so a beta sweep re-runs only the
annotator choice. ``edits``: ``m2`` (default: the gold edits of the M2 file)
or ``neutral``: gold edits extracted from the text references (``-r``, any
language; with ``--m2``, its annotators' corrected texts) by the
language-neutral extractor (:mod:`gecmetrics.edits.neutral`,
docs/edits-neutral.md), as ``gecmetrics m2-from-text`` writes them. See
docs/metrics/m2.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from gecmetrics.chunked import join_edit_counts
from gecmetrics.corpus import Corpus
from gecmetrics.edits import neutral
from gecmetrics.edits.metric import EditMetric, TypeCounts, gold_of
from gecmetrics.edits.neutral import NEUTRAL, M2Edits, check_edits_option, neutral_edits
from gecmetrics.edits.statistics import EditCounts, EditStatistics
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.m2_format import Edit, M2File, M2Sentence
from gecmetrics.metric import LAST_STEP, SIGNED_WHEN_SET, Counting, MetricConfig, check_beta
from gecmetrics.parallel import map_ordered, pool_size, workers_for

from .m2_lattice import (
    MAX_LATTICE_EDGES,
    GoldEdit,
    LatticeTooLarge,
    best_edit_sequences,
    build_lattice,
    check_pair,
    sentence_counts_many,
)


@dataclass(frozen=True)
class M2Config(MetricConfig):
    beta: float = field(default=0.5, metadata=LAST_STEP)
    max_unchanged_words: int = 2
    ignore_whitespace_casing: bool = False
    max_lattice_edges: int = MAX_LATTICE_EDGES
    edits: M2Edits = field(default="m2", metadata=SIGNED_WHEN_SET)

    def validate(self) -> None:
        check_beta(self.beta)
        check_edits_option("m2", self.edits, "m2")
        m = self.max_unchanged_words
        if not isinstance(m, int) or isinstance(m, bool) or m < 0:
            raise ConfigError(f"m2 option max_unchanged_words must be an integer >= 0 (got {m!r})")
        if not isinstance(self.ignore_whitespace_casing, bool):
            raise ConfigError("m2 option ignore_whitespace_casing must be true or false")
        e = self.max_lattice_edges
        if not isinstance(e, int) or isinstance(e, bool) or e < 1:
            raise ConfigError(f"m2 option max_lattice_edges must be an integer >= 1 (got {e!r})")


class M2(EditMetric[M2Config]):
    """The MaxMatch scorer (M2), as the official CoNLL-2014 scorer computes it."""

    name: ClassVar[str] = "m2"
    description: ClassVar[str] = (
        "M2 MaxMatch edit F-score (Dahlmeier & Ng 2012; official CoNLL-2014 scorer, exact); "
        "needs --m2; beta (0.5), max_unchanged_words (2), ignore_whitespace_casing, "
        "max_lattice_edges (3e7)"
    )
    Config = M2Config
    config: M2Config
    choice_rule: ClassVar[str] = "m2"
    types_from_m2_file: ClassVar[bool] = True

    @property
    def display_name(self) -> str:
        return "M2"

    def text_references_problem(self) -> str | None:
        """None with ``edits=neutral``: its gold edits come from the text references."""
        return None if self.config.edits == NEUTRAL else super().text_references_problem()

    def gold_from_m2(self, corpus: Corpus) -> bool:
        """Never with ``edits=neutral``: its gold edits come from the text references."""
        return self.config.edits != NEUTRAL and super().gold_from_m2(corpus)

    def gold_corpus(self, corpus: Corpus) -> Corpus:
        """``corpus`` itself, or with ``edits=neutral`` the same texts with the gold
        M2 of its text references (:func:`neutral_gold`)."""
        if self.config.edits != NEUTRAL:
            return corpus
        return Corpus(corpus.sources, corpus.references, corpus.hypotheses,
                      m2=neutral_gold(corpus.sources, corpus.references))

    def statistics(self, corpus: Corpus) -> EditStatistics:
        if self.config.edits != NEUTRAL:
            return super().statistics(corpus)
        return self.cached_statistics(
            corpus, lambda: EditStatistics(self.edit_counts(corpus), self.choice_rule))

    def edit_counts(self, corpus: Corpus) -> EditCounts:
        corpus = self.gold_corpus(corpus)
        cfg = self.config
        assert isinstance(cfg, M2Config)
        return m2_counts(corpus, cfg.max_unchanged_words, cfg.ignore_whitespace_casing,
                         cfg.max_lattice_edges)

    def type_counts(self, corpus: Corpus, stats: EditStatistics, beta: float
                    ) -> list[TypeCounts]:
        """TP and FN per type of the M2 file (:func:`m2_type_counts`); the
        official scorer's hypothesis edits have no type, so every FP is untyped."""
        cfg = self.config
        corpus = self.gold_corpus(corpus)
        per_m2 = m2_type_counts(corpus, stats.choice(beta), cfg.max_unchanged_words,
                                cfg.ignore_whitespace_casing, cfg.max_lattice_edges)
        totals = stats.totals(beta).tolist()
        return [TypeCounts({t: (tp, None, fn) for t, (tp, fn) in per.items()},
                           untyped_fp=int(totals[h][1]))
                for h, per in enumerate(per_m2)]

    def fp_without_gold(self, corpus: Corpus, sentences: list[int]) -> np.ndarray:
        corpus = self.gold_corpus(corpus)
        cfg = self.config
        return m2_fp_without_gold(corpus, sentences, cfg.max_unchanged_words,
                                  cfg.ignore_whitespace_casing, cfg.max_lattice_edges)

    def counting(self) -> Counting:
        return Counting(self.edit_counts,
                        lambda systems, counts: EditStatistics(counts, self.choice_rule),
                        join=join_edit_counts, needs_gold=True,
                        not_additive="M2, whose annotator choice depends on the running "
                                     "corpus totals")


def neutral_gold(sources: Sequence[str], references: Sequence[Sequence[str]]) -> M2File:
    """The gold M2 of text references: per sentence, each reference's
    language-neutral edits against the source (annotators 0..k-1 in reference
    order, a noop for a reference equal to the source), as ``gecmetrics
    m2-from-text`` writes it. Every pair's size is checked before any is aligned."""
    tokens = [src.split() for src in sources]
    refs = [[line.split() for line in ref] for ref in references]
    for k, ref in enumerate(refs):
        for d, src in enumerate(tokens):
            try:
                neutral.check_size(len(src), len(ref[d]))
            except InputError as exc:
                raise InputError(f"m2:edits=neutral: reference {k + 1}, line {d + 1}: "
                                 f"{exc}") from None
    sentences = []
    for d, src in enumerate(tokens):
        edits: list[Edit] = []
        for k, ref in enumerate(refs):
            found = neutral_edits(src, ref[d])
            if not found:
                edits.append(Edit(-1, -1, "noop", "-NONE-", k))
            edits += [Edit(e.start, e.end, e.type, e.correction, k) for e in found]
        sentences.append(M2Sentence(" ".join(src), tuple(edits)))
    return M2File("(neutral edits of the text references)", sentences)


def m2_counts(corpus: Corpus, max_unchanged_words: int = 2,
              ignore_whitespace_casing: bool = False,
              max_lattice_edges: int = MAX_LATTICE_EDGES) -> EditCounts:
    """(TP, FP, FN) of every (system, sentence, annotator) by the official M2 algorithm."""
    golds = gold_of(corpus)
    sentences = corpus.m2.sentences
    annotators = sorted({a for g in golds for a in g})
    col = {a: k for k, a in enumerate(annotators)}
    H, D, A = len(corpus.hypotheses), corpus.num_sentences, len(annotators)
    tp = np.zeros((H, D, A), dtype=np.int64)
    fp = np.zeros_like(tp)
    fn = np.zeros_like(tp)
    present = np.zeros((D, A), dtype=bool)
    src_tokens = []
    lattice_golds = []
    for d, (sent, gold) in enumerate(zip(sentences, golds, strict=True)):
        tokens = sent.source.split()  # gold_of checked they are the source line's
        src_tokens.append(tokens)
        lattice_golds.append({a: [GoldEdit(e.start, e.end, " ".join(tokens[e.start:e.end]),
                                           e.corrections) for e in edits]
                              for a, edits in gold.items()})
        for a in gold:
            present[d, col[a]] = True
    # Each distinct (sentence, hypothesis) pair is scored once, whichever systems
    # share it; the changed ones, the real work, by the -j worker processes
    # (pair_counts), their counts back in the order of first appearance. Every
    # line is split once: this part stays in this process whatever -j.
    keys = [[(d, tuple(line.split())) for d, line in enumerate(lines)]
            for lines in corpus.hypotheses.values()]
    first: dict[tuple[int, tuple[str, ...]], str] = {}
    for name, system_keys in zip(corpus.hypotheses, keys, strict=True):
        for key in system_keys:
            first.setdefault(key, name)
    options = (max_unchanged_words, ignore_whitespace_casing, max_lattice_edges)
    found = pair_counts([(src_tokens[d], list(hyp), lattice_golds[d]) for d, hyp in first],
                        options)
    for ((d, _hyp), name), counts in zip(first.items(), found, strict=True):
        if isinstance(counts, str):  # the first pair over a budget, in input order
            raise LatticeTooLarge(f"m2: hypothesis {name}, line {d + 1}: {counts}")
    cache: dict[tuple[int, tuple[str, ...]], list[tuple[int, int, int, int]]] = {}
    for key, counts in zip(first, found, strict=True):
        assert isinstance(counts, dict)  # every pair is scored where none failed
        cache[key] = [(col[a], c, p - c, g - c) for a, (c, p, g) in counts.items()]
    for h, system_keys in enumerate(keys):
        for d, key in enumerate(system_keys):
            for k, c, p, g in cache[key]:
                tp[h, d, k], fp[h, d, k], fn[h, d, k] = c, p, g
    return EditCounts(tuple(corpus.hypotheses), tp, fp, fn, present, tuple(annotators))


#: What scoring one changed (sentence, hypothesis) pair weighs in the unit of
#: :data:`gecmetrics.parallel.WORK_UNIT_S` (0.2 ms of one core), for the default
#: ``--jobs``: about 0.045 ms a pair with the compiled lattice (0.33 s of CPU for
#: the 7,435 distinct changed pairs of the 13 CoNLL-2014 outputs, idle), so that
#: those 13 outputs, under :data:`~gecmetrics.parallel.MIN_PARALLEL_WORK`, are
#: scored in one process, where workers did not pay.
M2_PAIR_WORK = 0.25

#: Changed pairs per task of the ``-j`` workers (:func:`pair_counts`): about 40 ms
#: of work, so that the per-task cost (a pickled task and its counts) stays a
#: few percent and the last task leaves the other workers idle only briefly.
M2_CHUNK_PAIRS = 64

#: One pair to score: source tokens, hypothesis tokens, the gold edits by annotator.
Pair = tuple[list[str], list[str], dict[int, list[GoldEdit]]]

#: A pair's counts by annotator, or the message of its budget error.
PairCounts = dict[int, tuple[int, int, int]] | str


def pair_counts(pairs: Sequence[Pair], options: tuple[int, bool, int]
                ) -> list[PairCounts | None]:
    """:func:`_sentence`'s counts of every pair, in order, over the ``--jobs``
    worker processes (:func:`gecmetrics.parallel.map_ordered`; the default
    ``--jobs`` sizes the pool once from the work, :data:`M2_PAIR_WORK` a
    changed pair, and uses it for both steps).

    First every changed pair is checked against the budgets
    (:func:`~gecmetrics.metrics.m2_lattice.check_pair`), then scored: a pair
    a cheap bound proves over a budget stops the run before any is scored, as
    :func:`check_budgets` does. A pair over a budget gives its error message
    instead of counts: the first such pair in input order, whichever worker
    met it, is the one string of the list, and no pair is scored after it
    (None). The counts do not depend on ``--jobs``.
    """
    out: list[PairCounts | None] = [None] * len(pairs)
    changed = []
    for i, (src, hyp, golds) in enumerate(pairs):
        if src == hyp:  # one alignment, all unchanged: nothing to check or distribute
            out[i] = {a: (0, 0, len(g)) for a, g in golds.items()}
        else:
            changed.append(i)
    chunks = [changed[at:at + M2_CHUNK_PAIRS] for at in range(0, len(changed), M2_CHUNK_PAIRS)]
    jobs = pool_size(workers_for(M2_PAIR_WORK * len(changed), len(chunks)), len(chunks))
    mu, _, max_edges = options
    checks = [([pairs[i][:2] for i in chunk], mu, max_edges) for chunk in chunks]
    for chunk, failed in zip(chunks, map_ordered(_check_chunk, checks, jobs=jobs), strict=True):
        if failed is not None:
            k, message = failed
            failure: list[PairCounts | None] = [None] * len(pairs)
            failure[chunk[k]] = message
            return failure
    tasks = [([pairs[i] for i in chunk], options) for chunk in chunks]
    for chunk, counted in zip(chunks, map_ordered(_count_pairs, tasks, jobs=jobs),
                              strict=True):
        for i, counts in zip(chunk, counted, strict=False):  # shorter after an error
            out[i] = counts
            if isinstance(counts, str):
                return [c if j <= i else None for j, c in enumerate(out)]
    return out


def _check_chunk(task: tuple[Sequence[tuple[list[str], list[str]]], int, int]
                 ) -> tuple[int, str] | None:
    """The first pair of a task of :func:`pair_counts` over a budget (its index,
    the error's message), or None."""
    pairs, max_unchanged_words, max_lattice_edges = task
    for k, (src, hyp) in enumerate(pairs):
        try:
            check_pair(src, hyp, max_unchanged_words, max_lattice_edges)
        except LatticeTooLarge as exc:
            return k, str(exc)
    return None


def _count_pairs(task: tuple[Sequence[Pair], tuple[int, bool, int]]) -> list[PairCounts]:
    """One task of :func:`pair_counts` (in a worker, or in this process): the counts
    of its pairs up to the first over a budget (its message ends the list)."""
    pairs, (max_unchanged_words, ignore_whitespace_casing, max_lattice_edges) = task
    out: list[PairCounts] = []
    for src, hyp, golds in pairs:
        try:
            out.append(_sentence(src, hyp, golds, max_unchanged_words,
                                 ignore_whitespace_casing, max_lattice_edges))
        except LatticeTooLarge as exc:
            out.append(str(exc))
            break
    return out


def check_budgets(corpus: Corpus, src_tokens: list[list[str]], max_unchanged_words: int = 2,
                  max_lattice_edges: int = MAX_LATTICE_EDGES) -> None:
    """Every distinct changed (sentence, hypothesis) pair against the budgets, before any is scored.

    A pair that a cheap bound proves over a budget (:func:`check_pair`: the
    distance table, the lattice's vertices and edges, the full grid's) stops
    the run here, with the output and line, instead of after the minutes of
    work on the sentences before it (or, for a 10,000-token line, after
    gigabytes of alignment).
    """
    first: dict[tuple[int, tuple[str, ...]], str] = {}
    for name, lines in corpus.hypotheses.items():
        for d, line in enumerate(lines):
            first.setdefault((d, tuple(line.split())), name)
    _check_pairs(first, src_tokens, max_unchanged_words, max_lattice_edges)


def _check_pairs(first: dict[tuple[int, tuple[str, ...]], str], src_tokens: list[list[str]],
                 max_unchanged_words: int, max_lattice_edges: int) -> None:
    """:func:`check_budgets` of the distinct pairs ``first`` ((sentence, hypothesis
    tokens): the first output that has it), in their order."""
    for (d, hyp), name in first.items():
        try:
            check_pair(src_tokens[d], list(hyp), max_unchanged_words, max_lattice_edges)
        except LatticeTooLarge as exc:
            raise LatticeTooLarge(f"m2: hypothesis {name}, line {d + 1}: {exc}") from None


def _sentence(src, hyp, golds, max_unchanged_words, ignore_whitespace_casing, max_lattice_edges):
    if src == hyp:  # one alignment, all unchanged: no hypothesis edit
        return {a: (0, 0, len(g)) for a, g in golds.items()}
    lat = build_lattice(src, hyp, max_unchanged_words, max_edges=max_lattice_edges)
    counts = sentence_counts_many(lat, list(golds.values()), ignore_whitespace_casing)
    return dict(zip(golds, counts, strict=True))


def m2_type_counts(corpus: Corpus, choice, max_unchanged_words: int = 2,
                   ignore_whitespace_casing: bool = False,
                   max_lattice_edges: int = MAX_LATTICE_EDGES
                   ) -> list[dict[str, tuple[int, int]]]:
    """Per system, {gold type: (TP, FN)} against the chosen annotators.

    ``choice``: annotator index (into the sorted annotator ids, as in
    :func:`m2_counts`) per (system, sentence). The hypothesis edits are the
    official scorer's (:func:`best_edit_sequences` for the chosen annotator);
    a gold edit is a TP when the official ``matchSeq`` loop
    (:func:`match_count`) matches it, typed by its M2 type (``A`` line field
    2), and an FN otherwise. Hypothesis edits carry no type in M2, so the FP
    are not split by type (docs/metrics/m2.md). The TP and FN of all types
    sum to the corpus TP and FN.
    """
    golds = gold_of(corpus)
    annotators = sorted({a for g in golds for a in g})
    out = []
    for h, lines in enumerate(corpus.hypotheses.values()):
        totals: dict[str, list[int]] = {}
        for d, line in enumerate(lines):
            src = corpus.m2.sentences[d].source.split()
            gold = golds[d][annotators[int(choice[h][d])]]
            lattice_gold = [GoldEdit(e.start, e.end, " ".join(src[e.start:e.end]),
                                     e.corrections) for e in gold]
            hyp = line.split()
            matched: set[int] = set()
            if hyp != src:
                lat = build_lattice(src, hyp, max_unchanged_words, max_edges=max_lattice_edges)
                seq = best_edit_sequences(lat, [lattice_gold])[0]
                if ignore_whitespace_casing:
                    seq = [e for e in seq if e[2].replace(" ", "").lower()
                           != e[3].replace(" ", "").lower()]
                last = 0
                for start, end, original, correction in seq:  # as match_count
                    for i in range(last, len(lattice_gold)):
                        g = lattice_gold[i]
                        if (start == g.start and end == g.end and original == g.original
                                and correction in g.corrections):
                            matched.add(i)
                            last = i + 1
            for i, e in enumerate(gold):
                acc = totals.setdefault(e.type, [0, 0])
                acc[0 if i in matched else 1] += 1
        out.append({t: (v[0], v[1]) for t, v in sorted(totals.items())})
    return out


def m2_fp_without_gold(corpus: Corpus, sentences: list[int], max_unchanged_words: int = 2,
                       ignore_whitespace_casing: bool = False,
                       max_lattice_edges: int = MAX_LATTICE_EDGES) -> np.ndarray:
    """Proposed edits of every system on ``sentences`` against an empty gold,
    shape (systems, len(sentences)): the FP the official scorer counts where an
    annotator made no edit (a sentence without its ``A`` lines)."""
    out = np.zeros((len(corpus.hypotheses), len(sentences)), dtype=np.int64)
    for h, lines in enumerate(corpus.hypotheses.values()):
        for j, d in enumerate(sentences):
            src = corpus.m2.sentences[d].source.split()
            _c, p, _g = _sentence(src, lines[d].split(), {0: []}, max_unchanged_words,
                                  ignore_whitespace_casing, max_lattice_edges)[0]
            out[h, j] = p
    return out
