"""Edit-level attribution of sentence-level scores (Goto, Vasselli and Watanabe, ACL 2025 SRW).

A sentence-level metric gives a hypothesis H one number; attribution says how
much of the change it brought over the source S is due to each of H's edits.
Every value below is a difference of sentence scores of the source with some
subset E' of H's edits applied, measured from the source itself (the empty
subset, whose difference is 0)::

    v(E') = M(S, apply(S, E')) - M(S, S)        v(empty) = 0
    delta = M(S, H) - M(S, S)                   (the sentence's score change)

* ``shapley``: the Shapley value of each edit e_i over all 2^n subsets,
  ``sum over E' without e_i of |E'|! (n - |E'| - 1)! / n! * (v(E' + e_i) - v(E'))``;
  the values add up to ``v(all edits)``. Exact up to :data:`EXACT_MAX_EDITS`
  edits; beyond, permutation-sampled (the note says so).
* ``sampling``: the mean marginal contribution of e_i over ``samples`` random
  orders of the edits (Castro et al. 2009), with its standard error; when
  n! <= ``samples`` every order is taken once, which is the exact value.
* ``add``: ``v({e_i})``, rescaled so that the values add up to ``delta``
  (all 0 when the unscaled values add up to 0).
* ``remove``: ``delta - v(all edits but e_i)``, rescaled the same way.

These are gec-attribute's definitions (naist-nlp/gec-attribute, MIT; also
gec-metrics' ``analysis/attributor``); docs/attribution.md has the formulas, a
worked example and the differences (seeding, the reference's sampling).

Cost: a metric scores each *distinct* corrected sentence once. All subset
sentences of every (system, sentence) are built first, deduplicated, and
scored together through the metric's own statistics in corpus passes of at
most :data:`ROWS_PER_PASS` rows (one row: a source with its references and one
candidate), so attribution over a corpus is a few corpus-scoring runs, not
one per subset. The metric is reached through the :class:`~gecmetrics.metric.Metric`
interface only (any registered metric whose sentence scores are a function of
the sentence alone: :meth:`~gecmetrics.metric.Metric.sentence_scores_problem`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.edits.neutral import neutral_edits
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.formatting import plural
from gecmetrics.m2_format import M2File
from gecmetrics.signature import metric_signature
from gecmetrics.stats.resampling import edit_orders

if TYPE_CHECKING:
    import pandas as pd

    from gecmetrics.metric import Metric

#: The attribution methods (``--method``).
Method = Literal["shapley", "sampling", "add", "remove"]
METHODS: tuple[str, ...] = ("shapley", "sampling", "add", "remove")

#: Exact Shapley values are computed for sentences of up to this many edits
#: (2^10 = 1,024 subset sentences to score); a sentence with more falls back to
#: permutation sampling, with a note. Why 10: CoNLL-2014's 13 submissions have
#: at most a few sentences above it, and 2^n grows past what a corpus run can
#: score (2^20 sentences for one sentence of 20 edits).
EXACT_MAX_EDITS = 10

#: Random orders per sentence for permutation-sampled Shapley values (``samples``):
#: gec-attribute's default T.
DEFAULT_SAMPLES = 64

#: The most random orders per sentence (``samples``): each order adds up to n
#: sentences to score.
MAX_SAMPLES = 10_000

#: Default seed of the random orders (each sentence draws from its own stream
#: seeded by (seed, system, sentence), so a result does not depend on which
#: other sentences were attributed in the same run).
DEFAULT_SEED = 12345

#: Candidate rows scored in one corpus pass of the metric: bounds the memory of
#: the metric's statistics (GREEN: a few kB per row) whatever the corpus size.
ROWS_PER_PASS = 20_000

#: The most subset sentences one run may build (before deduplication): each is a
#: string held until it is scored (a few hundred bytes), so this bounds memory
#: to about a gigabyte at worst. A corpus of 13 CoNLL-2014 systems with exact
#: Shapley values needs about 200,000; 64 random orders of a 50-edit sentence,
#: 3,200 per sentence.
MAX_CANDIDATES = 3_000_000

#: Edits of one hypothesis: (start, end, correction, type) on whitespace tokens
#: of the source, as :data:`gecmetrics.edits.span.ErrantEdit`.
EditTuple = tuple[int, int, str, str]


@dataclass(frozen=True)
class AttributionOptions:
    """How to attribute: ``method``, the random orders (``samples``, ``seed``) of
    sampling and of the fallback, and the exact bound (``exact_max_edits``)."""

    method: str = "shapley"
    samples: int = DEFAULT_SAMPLES
    seed: int = DEFAULT_SEED
    exact_max_edits: int = EXACT_MAX_EDITS

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ConfigError(f"unknown attribution method {self.method!r}; choose one of "
                              f"{', '.join(METHODS)}")
        if not (isinstance(self.samples, int) and 2 <= self.samples <= MAX_SAMPLES):
            raise ConfigError(f"--samples takes an integer from 2 to {MAX_SAMPLES} "
                              f"(got {self.samples!r})")
        if not (isinstance(self.exact_max_edits, int) and 0 <= self.exact_max_edits <= 16):
            raise ConfigError("exact_max_edits takes an integer from 0 to 16 (2^16 subsets) "
                              f"(got {self.exact_max_edits!r})")
        if not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"--seed takes an integer >= 0 (got {self.seed!r})")


@dataclass(frozen=True)
class EditAttribution:
    """One edit of a hypothesis and its share of the sentence's score change.

    ``start``/``end``: source token span; ``stderr``: the standard error of a
    sampled value (0 when every order was taken; None for exact methods).
    """

    start: int
    end: int
    original: str
    correction: str
    type: str
    attribution: float
    stderr: float | None = None


@dataclass(frozen=True)
class SentenceAttribution:
    """One hypothesis sentence: its scores and its edits' attributions.

    ``method``: the method actually used (``sampling`` where ``shapley`` fell
    back); ``sentence``: 0-based line index.
    """

    system: str
    sentence: int
    method: str
    source_score: float
    hypothesis_score: float
    edits: tuple[EditAttribution, ...]

    @property
    def delta(self) -> float:
        """M(S, H) - M(S, S): the change the attributions share."""
        return self.hypothesis_score - self.source_score


@dataclass(frozen=True)
class TypeAttribution:
    """The attributions of every edit of one error type (one system)."""

    system: str
    type: str
    count: int
    total: float

    @property
    def mean(self) -> float:
        return self.total / self.count


@dataclass(frozen=True)
class AttributionResult:
    """Attributions of every sentence of every system, for one metric."""

    metric: str
    signature: str
    options: AttributionOptions
    sentences: tuple[SentenceAttribution, ...]
    notes: tuple[str, ...] = ()
    #: Distinct candidate sentences the metric scored, and the subset sentences
    #: they stood for (how much the deduplication saved).
    scored: int = 0
    requested: int = 0
    _types: list[TypeAttribution] = field(default_factory=list, init=False, repr=False,
                                          compare=False)

    def by_type(self) -> list[TypeAttribution]:
        """Per system and error type: how many edits and their summed attribution
        (which kinds of edit the metric rewards or penalises), by system, then type."""
        if not self._types:
            sums: dict[tuple[str, str], list[float]] = {}
            for s in self.sentences:
                for e in s.edits:
                    acc = sums.setdefault((s.system, e.type), [0, 0.0])
                    acc[0] += 1
                    acc[1] += e.attribution
            order = {name: i for i, name in enumerate(dict.fromkeys(
                s.system for s in self.sentences))}
            self._types.extend(TypeAttribution(sys_, t, int(n), float(total))
                               for (sys_, t), (n, total) in sorted(
                                   sums.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])))
        return list(self._types)

    def to_json(self) -> list[dict[str, Any]]:
        """One object per sentence (with its edits), then one per (system, type)."""
        rows: list[dict[str, Any]] = []
        for s in self.sentences:
            rows.append({
                "metric": self.metric, "system": s.system, "sentence": s.sentence,
                "method": s.method, "source_score": s.source_score,
                "hypothesis_score": s.hypothesis_score, "delta": s.delta,
                "edits": [{"start": e.start, "end": e.end, "original": e.original,
                           "correction": e.correction, "type": e.type,
                           "attribution": e.attribution,
                           **({} if e.stderr is None else {"stderr": e.stderr})}
                          for e in s.edits],
                "signature": self.signature})
        for t in self.by_type():
            rows.append({"metric": self.metric, "system": t.system, "type": t.type,
                         "count": t.count, "total": t.total, "mean": t.mean,
                         "signature": self.signature})
        return rows

    def to_frame(self) -> pd.DataFrame:
        """One row per edit: system, sentence, method, span, texts, type, attribution,
        stderr (NaN for exact methods), and the sentence's delta."""
        import pandas as pd

        return pd.DataFrame([
            {"system": s.system, "sentence": s.sentence, "method": s.method,
             "start": e.start, "end": e.end, "original": e.original,
             "correction": e.correction, "type": e.type, "attribution": e.attribution,
             "stderr": math.nan if e.stderr is None else e.stderr, "delta": s.delta}
            for s in self.sentences for e in s.edits],
            columns=["system", "sentence", "method", "start", "end", "original",
                     "correction", "type", "attribution", "stderr", "delta"])


# --------------------------------------------------------------------------
# Subset sentences


def apply_edits(tokens: Sequence[str], edits: Sequence[EditTuple]) -> str:
    """The source tokens with ``edits`` applied (left to right by start; insertions
    at one position in their given order): gec-attribute's ``apply_edits``."""
    out: list[str] = []
    at = 0
    for start, end, correction, _ in sorted(edits, key=lambda e: e[0]):
        out.extend(tokens[at:start])
        out.extend(correction.split())
        at = max(at, end)
    out.extend(tokens[at:])
    return " ".join(out)


def shapley_weights(n: int) -> np.ndarray:
    """|E'|! (n - |E'| - 1)! / n! for |E'| = 0 .. n - 1."""
    return np.array([math.factorial(s) * math.factorial(n - s - 1) / math.factorial(n)
                     for s in range(n)])


def shapley_from_values(values: np.ndarray) -> np.ndarray:
    """Exact Shapley values from ``values[mask]`` = v(subset), bit i of mask = edit i."""
    n = int(values.shape[0]).bit_length() - 1
    masks = np.arange(1 << n)
    sizes = np.array([bin(m).count("1") for m in masks])
    weights = shapley_weights(n) if n else np.zeros(0)
    out = np.zeros(n)
    for i in range(n):
        without = masks[(masks >> i) & 1 == 0]
        out[i] = float(np.sum(weights[sizes[without]] * (values[without | (1 << i)]
                                                          - values[without])))
    return out


def normalised(raw: Sequence[float], delta: float) -> list[float]:
    """``raw`` rescaled to add up to ``delta`` (all 0 when ``raw`` adds up to 0)."""
    total = sum(raw)
    weight = 0.0 if total == 0 else delta / total
    return [weight * r for r in raw]


def orders(n: int, samples: int, seed: int, key: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every order of n edits when n! <= ``samples`` (the exact value), else
    ``samples`` random orders drawn with replacement
    (:func:`gecmetrics.stats.resampling.edit_orders`)."""
    if math.factorial(n) <= samples:
        return list(permutations(range(n)))

    return edit_orders(n, samples, seed, key)


@dataclass
class _Plan:
    """What one hypothesis needs scored: candidate keys and how to combine them."""

    system: str
    sentence: int
    method: str
    edits: list[EditTuple]
    subsets: list[tuple[int, ...]]  # edit index sets, in the order their scores are read
    orders: list[tuple[int, ...]] | None = None


def plan_sentence(system: str, d: int, edits: list[EditTuple], options: AttributionOptions,
                  notes: list[str]) -> _Plan:
    """The subsets whose sentences a hypothesis's attribution needs."""
    n = len(edits)
    method = options.method
    if method == "shapley" and n > options.exact_max_edits:
        method = "sampling"
        notes.append(f"note: {system} sentence {d + 1} has {plural(n, 'edit')}, more than "
                     f"the exact Shapley bound ({options.exact_max_edits}): its values are "
                     f"sampled over {options.samples} random orders (with standard errors)")
    if method == "shapley":
        subsets = [tuple(i for i in range(n) if m >> i & 1) for m in range(1 << n)]
        return _Plan(system, d, method, edits, subsets)
    if method == "add":
        return _Plan(system, d, method, edits, [(i,) for i in range(n)])
    if method == "remove":
        return _Plan(system, d, method, edits,
                     [tuple(j for j in range(n) if j != i) for i in range(n)])
    drawn = orders(n, options.samples, options.seed, (_stable(system), d))
    subsets = [tuple(sorted(o[:k + 1])) for o in drawn for k in range(n)]
    return _Plan(system, d, method, edits, subsets, drawn)


def _stable(text: str) -> int:
    """A process-independent integer of ``text`` (Python's hash is salted)."""
    import zlib

    return zlib.crc32(text.encode("utf-8"))


def combine(plan: _Plan, subset_values: list[float], delta: float
            ) -> tuple[list[float], list[float] | None]:
    """Attributions (and standard errors, for sampling) from v of each planned subset."""
    n = len(plan.edits)
    if plan.method == "shapley":
        values = np.zeros(1 << n)
        for subset, v in zip(plan.subsets, subset_values, strict=True):
            values[sum(1 << i for i in subset)] = v
        return shapley_from_values(values).tolist(), None
    if plan.method == "add":
        return normalised(subset_values, delta), None
    if plan.method == "remove":
        return normalised([delta - v for v in subset_values], delta), None
    assert plan.orders is not None
    t = len(plan.orders)
    margins = np.zeros((t, n))
    for k, order in enumerate(plan.orders):
        prev = 0.0
        for pos, i in enumerate(order):
            v = subset_values[k * n + pos]
            margins[k, i] = v - prev
            prev = v
    means = margins.mean(axis=0)
    exhaustive = t == math.factorial(n) and len(set(plan.orders)) == t
    if exhaustive or t < 2:
        errors = [0.0] * n
    else:
        errors = (margins.std(axis=0, ddof=1) / math.sqrt(t)).tolist()
    return means.tolist(), errors


# --------------------------------------------------------------------------
# Scoring candidates in corpus passes


class CandidateScorer:
    """Scores (sentence index, candidate text) rows through ``metric``'s statistics,
    each distinct row once, in corpus passes of at most :data:`ROWS_PER_PASS` rows.

    A row is the corpus's sentence ``d`` (source, references, M2 gold edits) with
    the candidate as the one hypothesis, so the metric sees exactly what it would
    see scoring that candidate as a system output.
    """

    def __init__(self, metric: Metric, corpus: Corpus) -> None:
        self.metric, self.corpus = metric, corpus
        self.scores: dict[tuple[int, str], float] = {}
        self.passes = 0

    def score(self, rows: Sequence[tuple[int, str]]) -> None:
        todo = [r for r in dict.fromkeys(rows) if r not in self.scores]
        for at in range(0, len(todo), ROWS_PER_PASS):
            part = todo[at:at + ROWS_PER_PASS]
            values = score_rows(self.metric, self.corpus, part)
            self.scores.update(zip(part, values, strict=True))
            self.passes += 1


def score_rows(metric: Metric, corpus: Corpus, rows: Sequence[tuple[int, str]]) -> list[float]:
    """Sentence scores of ``rows`` (sentence index, candidate) as one corpus of
    len(rows) sentences and one system."""
    idx = [d for d, _ in rows]
    m2 = corpus.m2
    if m2 is not None:

        m2 = M2File(m2.path, [m2.sentences[d] for d in idx])
    sub = Corpus([corpus.sources[d] for d in idx],
                 [[ref[d] for d in idx] for ref in corpus.references],
                 {"candidates": [text for _, text in rows]}, m2=m2)
    values = np.asarray(metric.statistics(sub).sentence(None), dtype=float)[0]
    if not np.all(np.isfinite(values)):
        bad = int(np.flatnonzero(~np.isfinite(values))[0])
        d, text = rows[bad]
        raise InputError(f"{metric.spec} gave an undefined sentence score for sentence "
                         f"{d + 1} with the candidate {text[:60]!r}; attribution needs a "
                         "finite score for every subset of edits")
    return values.tolist()


# --------------------------------------------------------------------------
# The whole run


def check_metric(metric: Metric) -> None:
    """A one-line :class:`ConfigError` if ``metric`` cannot score edit subsets."""
    problem = metric.sentence_scores_problem()
    if problem is not None:
        raise ConfigError(f"cannot attribute {metric.spec}'s scores to edits: {problem}; "
                          "choose a metric whose sentence score depends on that sentence "
                          "only (e.g. green, gleu, chrf, m2, errant)")


def candidates_needed(n: int, options: AttributionOptions) -> int:
    """How many subset sentences a hypothesis of n edits needs (before deduplication)."""
    if options.method in ("add", "remove"):
        return n
    if options.method == "shapley" and n <= options.exact_max_edits:
        return 1 << n
    return n * min(options.samples, math.factorial(n)) if n < 20 else n * options.samples


def check_size(corpus: Corpus, edits: Mapping[str, Sequence[Sequence[EditTuple]]],
               options: AttributionOptions) -> None:
    """A one-line :class:`InputError` before anything is built when the run would
    need more than :data:`MAX_CANDIDATES` subset sentences."""
    total = 0
    for name in corpus.hypotheses:
        for per in edits.get(name, ()):
            total += 2 + candidates_needed(len(per), options)
    if total > MAX_CANDIDATES:
        raise InputError(f"attribution would build {total:,} subset sentences, more than "
                         f"{MAX_CANDIDATES:,}; attribute fewer systems or sentences at a time, "
                         "or lower --samples")


#: Where a hypothesis's edits come from when none are given: ERRANT (English,
#: typed) or the language-neutral alignment (any language, types M/U/R/W).
EXTRACTORS: tuple[str, ...] = ("errant", "neutral")

#: What the signature's ``edits:`` field may say: an extractor (:data:`EXTRACTORS`),
#: ``m2`` (an M2 file's edits, ``attribute --edits``), ``diff`` (the report's token
#: diff, :func:`gecmetrics.workflows.report_data.token_diff`) or ``given`` (edits passed to
#: :func:`attribute` without naming their source).
EDIT_ORIGINS: tuple[str, ...] = (*EXTRACTORS, "m2", "diff", "given")


def hypothesis_edits(corpus: Corpus, model: str = "", extractor: str = "errant"
                     ) -> dict[str, list[list[EditTuple]]]:
    """The edits of every hypothesis against its source: ERRANT's (English; through
    the edit layer's extractor and its disk cache) or, with ``extractor="neutral"``,
    the language-neutral ones (:func:`gecmetrics.edits.neutral.neutral_edits`)."""
    if extractor not in EXTRACTORS:
        raise ConfigError(f"unknown edit extractor {extractor!r}; choose "
                          f"{' or '.join(EXTRACTORS)}")
    if extractor == "neutral":

        return {name: [[(e.start, e.end, e.correction, e.type)
                        for e in neutral_edits(corpus.sources[d].split(), line.split())]
                       for d, line in enumerate(lines)]
                for name, lines in corpus.hypotheses.items()}
    from gecmetrics.edits.extraction import Extractor, hypothesis_pairs, pair_edits

    with Extractor(model) as errant:
        found = errant.extract(hypothesis_pairs(corpus), [])
    return {name: [list(pair_edits(found, corpus.sources[d], line))
                   for d, line in enumerate(lines)]
            for name, lines in corpus.hypotheses.items()}


def attribute(metric: Metric, corpus: Corpus, options: AttributionOptions | None = None,
              edits: Mapping[str, Sequence[Sequence[EditTuple]]] | None = None,
              scorer: CandidateScorer | None = None, edit_source: str | None = None
              ) -> AttributionResult:
    """Attribute every hypothesis sentence's score change to its edits.

    ``edits``: per system, per sentence, (start, end, correction, type) on the
    source's whitespace tokens; default: ERRANT's (:func:`hypothesis_edits`).
    ``scorer``: a :class:`CandidateScorer` of the same metric and corpus to reuse
    (several methods on one corpus score each candidate once).
    ``edit_source``: where ``edits`` came from, for the signature's ``edits:``
    field (one of :data:`EDIT_ORIGINS`; default ``errant`` when ``edits`` is None,
    else ``given``): the same hypothesis split into other edits gets other
    attributions, so a result names its edits.
    """
    if edit_source is None:
        edit_source = "errant" if edits is None else "given"
    if edit_source not in EDIT_ORIGINS:
        raise ConfigError(f"unknown edit source {edit_source!r}; choose one of "
                          f"{', '.join(EDIT_ORIGINS)}")
    options = options or AttributionOptions()
    check_metric(metric)
    # One row first: a metric that cannot score this corpus (m2 without --m2, a
    # missing model) says so before ERRANT's edits are extracted.
    if scorer is None or scorer.metric is not metric or scorer.corpus is not corpus:
        scorer = CandidateScorer(metric, corpus)
    scorer.score([(0, corpus.sources[0])])
    if edits is None:
        edits = hypothesis_edits(corpus)
    check_size(corpus, edits, options)
    notes: list[str] = []
    plans: list[_Plan] = []
    rows: list[tuple[int, str]] = []
    requested = 0
    for name, lines in corpus.hypotheses.items():
        per = edits.get(name)
        if per is None or len(per) != len(lines):
            raise InputError(f"the edits of {name} do not cover its {plural(len(lines), 'line')}")
        for d, line in enumerate(lines):
            tokens = corpus.sources[d].split()
            plan = plan_sentence(name, d, [tuple(e) for e in per[d]], options,  # type: ignore[misc]
                                 notes)
            plans.append(plan)
            texts = [corpus.sources[d], line] + [
                apply_edits(tokens, [plan.edits[i] for i in s]) for s in plan.subsets]
            requested += len(texts)
            rows.extend((d, t) for t in texts)
    scorer.score(rows)
    out = []
    for plan in plans:
        d = plan.sentence
        tokens = corpus.sources[d].split()
        src_score = scorer.scores[(d, corpus.sources[d])]
        hyp_score = scorer.scores[(d, corpus.hypotheses[plan.system][d])]
        values = [scorer.scores[(d, apply_edits(tokens, [plan.edits[i] for i in s]))]
                  - src_score for s in plan.subsets]
        attributions, errors = combine(plan, values, hyp_score - src_score) if plan.edits \
            else ([], None)
        out.append(SentenceAttribution(
            plan.system, d, plan.method, src_score, hyp_score,
            tuple(EditAttribution(e[0], e[1], " ".join(tokens[e[0]:e[1]]), e[2], e[3], a,
                                  None if errors is None else errors[k])
                  for k, (e, a) in enumerate(zip(plan.edits, attributions, strict=True)))))
    if len(notes) > 3:
        notes = [*notes[:3], f"note: ... and {len(notes) - 3} more sentences sampled for the "
                             "same reason"]
    signature = str(metric_signature(metric).extend_apart(
        "attribution", attribution=options.method, exact_max=options.exact_max_edits,
        samples=options.samples, seed=options.seed, edits=edit_source))
    return AttributionResult(metric.spec, signature, options, tuple(out),
                             tuple(notes), len(scorer.scores), requested)
