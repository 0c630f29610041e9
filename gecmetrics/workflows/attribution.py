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
  the values add up to ``v(all edits)`` = ``delta``. Exact up to
  :data:`EXACT_MAX_EDITS` edits; beyond, permutation-sampled (the note says so).
* ``sampling``: the mean marginal contribution of e_i over ``samples`` random
  orders of the edits (Castro et al. 2009), with its standard error; when
  n! <= ``samples`` every order is taken once, which is the exact value.
* ``add``: ``v({e_i})``, rescaled so that the values add up to ``delta``
  (all 0 when the unscaled values add up to 0).
* ``remove``: ``delta - v(all edits but e_i)``, rescaled the same way.

These are gec-attribute's definitions (naist-nlp/gec-attribute, MIT; also
gec-metrics' ``analysis/attributor``); docs/attribution.md has the formulas, a
worked example and the differences (seeding, the reference's sampling).

Edits are spans of whitespace tokens, so every candidate scored here is a
list of tokens joined by single spaces, the source S and the hypothesis H too
(not their lines as read), against the source and references as read. Then
apply(S, {}) is exactly the S scored and apply(S, all edits) exactly the H
scored, and the values add up to ``delta`` for every metric and tokenizer,
also one that scores spacing (``green:tokenize=char``); where such a metric
scores a line as read otherwise, a note says so (:func:`spacing_note`). Edits
that do not give the hypothesis's tokens are refused (:func:`check_edits`).

Cost: a metric scores each *distinct* corrected sentence once. The subset
sentences of each (system, sentence) are built in order, deduplicated, and
scored together through the metric's own statistics in corpus passes of at
most :data:`ROWS_PER_PASS` rows and :data:`CHARS_PER_PASS` characters (one
row: a source with its references and one candidate), so attribution over a
corpus is a few corpus-scoring runs, not one per subset. Sampled orders are
drawn, scored and summed a pass at a time: memory does not grow with
``samples``. The metric is reached through the :class:`~gecmetrics.metric.Metric`
interface only (any registered metric whose sentence scores are a function of
the sentence alone: :meth:`~gecmetrics.metric.Metric.sentence_scores_problem`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from gecmetrics import progress
from gecmetrics.corpus import Corpus
from gecmetrics.edits.neutral import neutral_edits
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.formatting import plural, short_repr
from gecmetrics.m2_format import M2File
from gecmetrics.metric import Metric
from gecmetrics.signature import metric_signature
from gecmetrics.stats.resampling import iter_edit_orders
from gecmetrics.validate import check_int_range

if TYPE_CHECKING:
    import pandas as pd


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

#: The most edits one sentence may have (``max_edits``, ``--max-edits``), for
#: every method: sampling scores ``samples`` x n subset sentences of it, add and
#: remove n. Why 100: the 13 CoNLL-2014 submissions have at most 22 ERRANT edits
#: in a sentence (24 language-neutral ones), and a sentence at the bound (100
#: edits, 300 tokens, 64 orders) takes about 10 s with GREEN; time grows in
#: proportion to edits x tokens x ``samples``.
MAX_EDITS = 100

#: Default seed of the random orders (each sentence draws from its own stream
#: seeded by (seed, system, sentence), so a result does not depend on which
#: other sentences were attributed in the same run).
DEFAULT_SEED = 12345

#: Candidate rows scored in one corpus pass of the metric: bounds the memory of
#: the metric's statistics (GREEN: a few kB per row) whatever the corpus size.
ROWS_PER_PASS = 20_000

#: Characters of candidate text scored in one corpus pass: long lines make
#: large rows (GREEN's n-gram statistics take about 65 bytes a character, so
#: about 130 MB a pass), so a pass of long rows holds fewer of them. 20,000
#: CoNLL-2014 rows have about 2.5 MB.
CHARS_PER_PASS = 2_000_000

#: The most subset sentences one run may build (before deduplication): each is
#: scored once, so this bounds time (about a minute of GREEN for the whole
#: bound). A corpus of 13 CoNLL-2014 systems with exact Shapley values needs
#: about 200,000; 64 random orders of a 50-edit sentence, 3,200 per sentence.
MAX_CANDIDATES = 3_000_000

#: Edits of one hypothesis: (start, end, correction, type) on whitespace tokens
#: of the source, as :data:`gecmetrics.edits.span.ErrantEdit`.
EditTuple = tuple[int, int, str, str]


def _count(value: Any, option: str, low: int, high: int, what: str = "an integer") -> int:
    """A whole number option within [low, high] (not a bool, not a float)."""
    return check_int_range(value, option, low, high, what)


@dataclass(frozen=True)
class AttributionOptions:
    """How to attribute: ``method``, the random orders (``samples``, ``seed``) of
    sampling and of the fallback, the exact bound (``exact_max_edits``) and the
    size bounds of a sentence (``max_edits``, ``max_tokens``; None: ERRANT's
    ``max_tokens``)."""

    method: str = "shapley"
    samples: int = DEFAULT_SAMPLES
    seed: int = DEFAULT_SEED
    exact_max_edits: int = EXACT_MAX_EDITS
    max_edits: int = MAX_EDITS
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.method, str) or self.method not in METHODS:
            raise ConfigError(f"unknown attribution method {self.method!r}; choose one of "
                              f"{', '.join(METHODS)}")
        _count(self.samples, "--samples", 2, MAX_SAMPLES)
        _count(self.exact_max_edits, "exact_max_edits", 0, 16, "an integer (2^16 subsets)")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"--seed takes an integer >= 0 (got {self.seed!r})")
        _count(self.max_edits, "--max-edits", 1, 1_000_000, "a number of edits")
        if self.max_tokens is not None:
            _count(self.max_tokens, "--max-tokens", 1, 1_000_000, "a number of tokens")

    @property
    def token_limit(self) -> int:
        """The longest line (source or hypothesis) attribution takes, in tokens:
        ``max_tokens`` (``--max-tokens``), or when None ERRANT's own bound
        (:data:`gecmetrics.edits.extraction.MAX_TOKENS`, 300), which the same
        option raises for the edits ERRANT extracts. Every subset sentence is
        scored whole, so a line's length multiplies the cost of each of its
        edits; the longest line of the CoNLL-2014 submissions has 259 tokens."""
        if self.max_tokens is not None:
            return self.max_tokens
        from gecmetrics.edits.extraction import MAX_TOKENS as ERRANT_MAX_TOKENS

        return ERRANT_MAX_TOKENS

    def signature_fields(self) -> dict[str, Any]:
        """What the values depend on, for the signature: the method, and only the
        options that method reads (``exact_max`` for shapley; ``samples`` and
        ``seed`` for sampling and shapley's fallback). The size bounds refuse
        input, they change no value, so they are not recorded."""
        fields: dict[str, Any] = {"attribution": self.method}
        if self.method == "shapley":
            fields["exact_max"] = self.exact_max_edits
        if self.method in ("shapley", "sampling"):
            fields["samples"] = self.samples
            fields["seed"] = self.seed
        return fields


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
    back); ``sentence``: 0-based line index; the scores are those of the
    source's and the hypothesis's tokens joined by single spaces.
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
    at one position in their given order), joined by single spaces:
    gec-attribute's ``apply_edits``."""
    if isinstance(tokens, str) or not all(isinstance(t, str) for t in tokens):
        raise InputError("apply_edits: tokens must be a list of strings (a sentence's "
                         f"whitespace tokens), got {_short(tokens)}")
    checked = [_edit(e, len(tokens), f"apply_edits: edit {k + 1}") for k, e in enumerate(edits)]
    return _apply(tokens, sorted(checked, key=lambda e: e[0]))


def _apply(tokens: Sequence[str], edits: Sequence[EditTuple]) -> str:
    """:func:`apply_edits` of edits already checked and sorted by start."""
    out: list[str] = []
    at = 0
    for start, end, correction, _ in edits:
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
    return list(_orders(n, samples, seed, key))


def _orders(n: int, samples: int, seed: int, key: tuple[int, ...]
            ) -> Iterator[tuple[int, ...]]:
    """The orders of :func:`orders`, one at a time
    (:func:`gecmetrics.stats.resampling.iter_edit_orders`)."""
    if math.factorial(n) <= samples:
        return permutations(range(n))
    return iter_edit_orders(n, samples, seed, key)


def _stable(text: str) -> int:
    """A process-independent integer of ``text`` (Python's hash is salted)."""
    import zlib

    return zlib.crc32(text.encode("utf-8"))


@dataclass
class _Plan:
    """One hypothesis sentence being attributed: its edits, the texts to score, and
    what its values are made of as the scores come in."""

    system: str
    sentence: int
    method: str
    edits: list[EditTuple]
    tokens: list[str]
    options: AttributionOptions
    source_score: float = 0.0
    hypothesis_score: float = 0.0
    #: v of each subset of :meth:`subsets`, in order (exact methods)
    values: list[float] = field(default_factory=list)
    #: sampling: per edit, the summed marginal contributions, and Welford's running
    #: mean and sum of squared deviations (for the standard error), over ``taken`` orders
    sums: np.ndarray | None = None
    running: np.ndarray | None = None
    squares: np.ndarray | None = None
    taken: int = 0
    #: the edits sorted by start (ties in their given order), their indices, and
    #: their corrections' tokens: what :meth:`text` needs
    _sorted: list[tuple[int, int, int, list[str]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        order = sorted(range(len(self.edits)), key=lambda i: self.edits[i][0])
        self._sorted = [(i, self.edits[i][0], self.edits[i][1], self.edits[i][2].split())
                        for i in order]

    def text(self, chosen: Sequence[bool]) -> str:
        """The source with the edits ``chosen[i]`` applied: :func:`apply_edits`."""
        out: list[str] = []
        at = 0
        tokens = self.tokens
        for i, start, end, words in self._sorted:
            if chosen[i]:
                out.extend(tokens[at:start])
                out.extend(words)
                at = max(at, end)
        out.extend(tokens[at:])
        return " ".join(out)

    def subsets(self) -> Iterator[tuple[int, ...]]:
        """The edit index sets whose sentences the method needs, in the order their
        scores are read (sampling: each order's prefixes, order by order)."""
        n = len(self.edits)
        if self.method == "shapley":
            return (tuple(i for i in range(n) if m >> i & 1) for m in range(1 << n))
        if self.method == "add":
            return ((i,) for i in range(n))
        if self.method == "remove":
            return (tuple(j for j in range(n) if j != i) for i in range(n))
        return (tuple(sorted(o[:k + 1])) for o in self.orders() for k in range(n))

    def orders(self) -> Iterator[tuple[int, ...]]:
        o = self.options
        return _orders(len(self.edits), o.samples, o.seed, (_stable(self.system), self.sentence))

    def chunks(self) -> Iterator[tuple[list[str], Callable[[list[float]], None]]]:
        """The texts to score, a group at a time, each with what to do with their
        scores: one group for the exact methods, one per order for sampling (an
        order is summed in and dropped once scored)."""
        n = len(self.edits)
        if self.method != "sampling":
            texts = []
            for subset in self.subsets():
                chosen = [False] * n
                for i in subset:
                    chosen[i] = True
                texts.append(self.text(chosen))
            yield texts, self._exact
            return
        self.sums = np.zeros(n)
        self.running = np.zeros(n)
        self.squares = np.zeros(n)
        for order in self.orders():
            chosen = [False] * n
            texts = []
            for i in order:
                chosen[i] = True
                texts.append(self.text(chosen))
            yield texts, functools.partial(self._order, order)

    def _exact(self, scores: list[float]) -> None:
        self.values = [v - self.source_score for v in scores]

    def _order(self, order: tuple[int, ...], scores: list[float]) -> None:
        """Sum in the marginal contributions along one order."""
        assert self.sums is not None and self.running is not None and self.squares is not None
        margins = np.zeros(len(order))
        prev = 0.0
        for i, score in zip(order, scores, strict=True):
            v = score - self.source_score
            margins[i] = v - prev
            prev = v
        self.sums += margins
        self.taken += 1
        step = margins - self.running
        self.running += step / self.taken
        self.squares += step * (margins - self.running)

    def attributions(self) -> tuple[list[float], list[float] | None]:
        """The values (and standard errors, for sampling) once every score is in."""
        n = len(self.edits)
        if not n:
            return [], None
        delta = self.hypothesis_score - self.source_score
        if self.method == "shapley":
            values = np.zeros(1 << n)
            values[:] = self.values
            return shapley_from_values(values).tolist(), None
        if self.method == "add":
            return normalised(self.values, delta), None
        if self.method == "remove":
            return normalised([delta - v for v in self.values], delta), None
        assert self.sums is not None and self.squares is not None
        t = self.taken
        means = (self.sums / t).tolist()
        if math.factorial(n) <= self.options.samples or t < 2:
            return means, [0.0] * n  # every order taken: the exact value
        return means, (np.sqrt(self.squares / (t - 1)) / math.sqrt(t)).tolist()


def plan_sentence(system: str, d: int, edits: list[EditTuple], options: AttributionOptions,
                  notes: list[str], tokens: Sequence[str] = ()) -> _Plan:
    """How one hypothesis sentence is attributed (``method``: the fallback from exact
    Shapley values to sampling beyond ``exact_max_edits``, with a note)."""
    n = len(edits)
    method = options.method
    if method == "shapley" and n > options.exact_max_edits:
        method = "sampling"
        notes.append(f"note: {system} sentence {d + 1} has {plural(n, 'edit')}, more than "
                     f"the exact Shapley bound ({options.exact_max_edits}): its values are "
                     f"sampled over {options.samples} random orders (with standard errors)")
    return _Plan(system, d, method, list(edits), list(tokens), options)


# --------------------------------------------------------------------------
# Scoring candidates in corpus passes


class CandidateScorer:
    """Scores (sentence index, candidate text) rows through ``metric``'s statistics,
    each distinct row once, in corpus passes of at most :data:`ROWS_PER_PASS` rows.

    A row is the corpus's sentence ``d`` (source, references, M2 gold edits) with
    the candidate as the one hypothesis, so the metric sees exactly what it would
    see scoring that candidate as a system output. ``scores`` keeps the rows
    scored with ``keep`` (a later method on the same corpus reuses them);
    sampled orders' rows are scored, used and dropped.
    """

    def __init__(self, metric: Metric, corpus: Corpus) -> None:
        self.metric, self.corpus = metric, corpus
        self.scores: dict[tuple[int, str], float] = {}
        self.passes = 0
        self.rows_scored = 0

    def score(self, rows: Sequence[tuple[int, str]]) -> None:
        todo = [r for r in dict.fromkeys(rows) if r not in self.scores]
        for at in range(0, len(todo), ROWS_PER_PASS):
            part = todo[at:at + ROWS_PER_PASS]
            self.scores.update(zip(part, self.score_pass(part), strict=True))

    def score_pass(self, rows: Sequence[tuple[int, str]]) -> list[float]:
        """One corpus pass over ``rows`` (kept nowhere: the caller decides)."""
        values = score_rows(self.metric, self.corpus, rows)
        self.passes += 1
        self.rows_scored += len(rows)
        return values


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


class _Passes:
    """The rows waiting to be scored, in the order asked, and what to do with their
    scores: a pass is scored as soon as :data:`ROWS_PER_PASS` distinct new rows
    (or :data:`CHARS_PER_PASS` characters) wait, then every group whose rows are
    all scored is handed its scores, in the order the groups came."""

    def __init__(self, scorer: CandidateScorer, bar: progress.Bar) -> None:
        self.scorer, self.bar = scorer, bar
        self.pending: dict[tuple[int, str], bool] = {}  # row -> keep its score
        self.chars = 0
        self.waiting: list[tuple[list[tuple[int, str]], Callable[[list[float]], None],
                                 int]] = []
        self.waiting_rows = 0
        self.dropped: dict[tuple[int, str], float] = {}  # scores not kept, until used

    def ask(self, rows: list[tuple[int, str]], use: Callable[[list[float]], None],
            keep: bool, counts: int | None = None) -> None:
        """Score ``rows`` (kept in the scorer's cache if ``keep``), then call ``use``
        with their scores; ``counts``: the subset sentences they stand for on the
        progress bar (default: all)."""
        known = self.scorer.scores
        for row in rows:
            if row in known:
                continue
            if row in self.dropped:  # scored for an order, not used yet
                if keep:
                    known[row] = self.dropped[row]
                continue
            if row not in self.pending:
                self.chars += len(row[1])
            if keep or row not in self.pending:
                self.pending[row] = keep or self.pending.get(row, False)
        self.waiting.append((rows, use, len(rows) if counts is None else counts))
        self.waiting_rows += len(rows)
        # a pass when enough new rows wait, or when many groups wait on rows scored
        # already (the orders of a short sentence repeat its few subsets)
        while (len(self.pending) >= ROWS_PER_PASS or self.chars >= CHARS_PER_PASS
               or self.waiting_rows >= 2 * ROWS_PER_PASS):
            self.run()

    def run(self) -> None:
        """Score one pass of the waiting rows; hand out what is complete."""
        part: list[tuple[int, str]] = []
        chars = 0
        for row in self.pending:
            if part and (len(part) >= ROWS_PER_PASS or chars + len(row[1]) > CHARS_PER_PASS):
                break
            part.append(row)
            chars += len(row[1])
        if part:
            for row, value in zip(part, self.scorer.score_pass(part), strict=True):
                if self.pending.pop(row):
                    self.scorer.scores[row] = value
                else:
                    self.dropped[row] = value
            self.chars -= chars
        known, dropped = self.scorer.scores, self.dropped
        done = 0
        for rows, use, counts in self.waiting:
            if not all(r in known or r in dropped for r in rows):
                break
            use([known[r] if r in known else dropped[r] for r in rows])
            self.bar.update(counts)
            self.waiting_rows -= len(rows)
            done += 1
        del self.waiting[:done]
        # keep only the dropped scores a group still waits for
        needed = {r for rows, _, _ in self.waiting for r in rows}
        self.dropped = {r: v for r, v in dropped.items() if r in needed}

    def finish(self) -> None:
        while self.waiting:
            self.run()


# --------------------------------------------------------------------------
# Checks


def check_metric(metric: Metric) -> None:
    """A one-line :class:`ConfigError` if ``metric`` cannot score edit subsets."""
    if not isinstance(metric, Metric):
        raise ConfigError(f"metric must be a gecmetrics Metric (e.g. "
                          f"metric_from_spec('green')), got {_short(metric)}")
    problem = metric.sentence_scores_problem()
    if problem is not None:
        raise ConfigError(f"cannot attribute {metric.spec}'s scores to edits: {problem}; "
                          "choose a metric whose sentence score depends on that sentence "
                          "only (e.g. green, gleu, chrf, m2, errant)")


def _short(value: Any) -> str:
    """The type and the start of the repr of a wrong argument, for its message."""
    return f"{type(value).__name__} {short_repr(value, 63)}"


def _edit(e: Any, tokens: int, where: str) -> EditTuple:
    """One (start, end, correction, type) edit on a source of ``tokens`` tokens."""
    if isinstance(e, str | bytes) or not isinstance(e, Sequence) or len(e) != 4:
        raise InputError(f"{where} must be a (start, end, correction, type) tuple, got "
                         f"{_short(e)}")
    start, end, correction, kind = e
    if any(isinstance(x, bool) or not isinstance(x, int) for x in (start, end)):
        raise InputError(f"{where}: start and end must be integer token positions, got "
                         f"{_short((start, end))}")
    if not isinstance(correction, str) or not isinstance(kind, str):
        raise InputError(f"{where}: correction and type must be strings, got "
                         f"{_short((correction, kind))}")
    if not 0 <= start <= end <= tokens:
        raise InputError(f"{where}: span {start}-{end} is outside the source, which has "
                         f"{plural(tokens, 'token')} (0 <= start <= end <= {tokens})")
    return (start, end, correction, kind)


def check_edits(corpus: Corpus, edits: Any) -> dict[str, list[list[EditTuple]]]:
    """``edits`` (per system, per line, (start, end, correction, type) on the source's
    whitespace tokens) checked against ``corpus``: every system and line, spans
    inside the source, no two spans overlapping, and the edits applied giving the
    hypothesis's tokens (else the values would share another sentence's change);
    a one-line :class:`InputError` naming the argument, the system, the line and
    the edit otherwise."""
    if not isinstance(edits, Mapping):
        raise InputError("edits must map each system name to its edits per line, got "
                         f"{_short(edits)}")
    out: dict[str, list[list[EditTuple]]] = {}
    for name, lines in corpus.hypotheses.items():
        per = edits.get(name)
        if isinstance(per, str | bytes) or not isinstance(per, Sequence) \
                or len(per) != len(lines):
            got = "none" if per is None else (
                plural(len(per), "line") if isinstance(per, Sequence) else _short(per))
            raise InputError(f"edits: the edits of {name} do not cover its "
                             f"{plural(len(lines), 'line')} (got {got}); give one list of "
                             "edits per line")
        checked: list[list[EditTuple]] = []
        for d, (line_edits, hyp) in enumerate(zip(per, lines, strict=True)):
            tokens = corpus.sources[d].split()
            where = f"edits of {name}, line {d + 1}"
            if isinstance(line_edits, str | bytes) or not isinstance(line_edits, Sequence):
                raise InputError(f"{where} must be a list of edits, got {_short(line_edits)}")
            found = [_edit(e, len(tokens), f"{where}, edit {k + 1}")
                     for k, e in enumerate(line_edits)]
            spans = sorted(found, key=lambda e: e[0])
            for a, b in zip(spans, spans[1:], strict=False):
                if b[0] < a[1]:
                    raise InputError(f"{where}: the spans {a[0]}-{a[1]} and {b[0]}-{b[1]} "
                                     "overlap; give edits whose spans do not overlap")
            if _apply(tokens, spans).split() != hyp.split():
                raise InputError(f"{where}: the edits applied to the source do not give the "
                                 f"hypothesis's tokens (they give {_apply(tokens, spans)[:60]!r},"
                                 f" the line is {' '.join(hyp.split())[:60]!r}); give the "
                                 "edits of this hypothesis")
            checked.append(found)
        out[name] = checked
    return out


def check_lines(corpus: Corpus, options: AttributionOptions, source_name: str = "source"
                ) -> None:
    """A one-line :class:`InputError` for the first source or hypothesis line
    longer than ``options``' token limit (before edits are extracted);
    ``source_name`` names the sources in it (a hypothesis: its system name)."""
    limit = options.token_limit
    named = [(source_name, corpus.sources), *corpus.hypotheses.items()]
    for name, lines in named:
        for d, line in enumerate(lines):
            if (len(line) + 1) // 2 <= limit:  # n tokens need 2n - 1 characters
                continue
            n = len(line.split())
            if n > limit:
                raise InputError(
                    f"attribution cannot take {name}, line {d + 1}: {n:,} tokens, more than "
                    f"--max-tokens {limit} (every subset sentence of its edits is scored "
                    "whole: time grows with tokens x edits x --samples); split the sentence, "
                    f"or raise the limit with --max-tokens {n} if time and memory allow")


def check_edit_counts(edits: Mapping[str, Sequence[Sequence[EditTuple]]],
                      options: AttributionOptions) -> None:
    """A one-line :class:`InputError` for the first sentence with more edits than
    ``options.max_edits``."""
    for name, per in edits.items():
        for d, line_edits in enumerate(per):
            n = len(line_edits)
            if n > options.max_edits:
                raise InputError(
                    f"attribution cannot take {name}, line {d + 1}: {plural(n, 'edit')}, more "
                    f"than --max-edits {options.max_edits} (sampling scores --samples x "
                    f"{n} subset sentences of it); split the sentence, or raise the limit with "
                    f"--max-edits {n} if time allows")


def candidates_needed(n: int, options: AttributionOptions) -> int:
    """How many subset sentences a hypothesis of n edits needs (before deduplication)."""
    if options.method in ("add", "remove"):
        return n
    if options.method == "shapley" and n <= options.exact_max_edits:
        return 1 << n
    return n * min(options.samples, math.factorial(n)) if n < 20 else n * options.samples


def check_size(corpus: Corpus, edits: Mapping[str, Sequence[Sequence[EditTuple]]],
               options: AttributionOptions) -> int:
    """The subset sentences the run needs (with each line's source and hypothesis);
    a one-line :class:`InputError` before anything is built when that is more than
    :data:`MAX_CANDIDATES`."""
    total = 0
    for name in corpus.hypotheses:
        for per in edits.get(name, ()):
            total += 2 + candidates_needed(len(per), options)
    if total > MAX_CANDIDATES:
        raise InputError(f"attribution would build {total:,} subset sentences, more than "
                         f"{MAX_CANDIDATES:,}; attribute fewer systems or sentences at a time, "
                         "or lower --samples")
    return total


#: Where a hypothesis's edits come from when none are given: ERRANT (English,
#: typed) or the language-neutral alignment (any language, types M/U/R/W).
EXTRACTORS: tuple[str, ...] = ("errant", "neutral")

#: What the signature's ``edits:`` field may say: an extractor (:data:`EXTRACTORS`),
#: ``m2`` (an M2 file's edits, ``attribute --edits``), ``diff`` (the report's token
#: diff, :func:`gecmetrics.workflows.report_data.token_diff`) or ``given`` (edits passed to
#: :func:`attribute` without naming their source).
EDIT_ORIGINS: tuple[str, ...] = (*EXTRACTORS, "m2", "diff", "given")


def hypothesis_edits(corpus: Corpus, model: str = "", extractor: str = "errant",
                     max_tokens: int | None = None) -> dict[str, list[list[EditTuple]]]:
    """The edits of every hypothesis against its source: ERRANT's (English; through
    the edit layer's extractor and its disk cache) or, with ``extractor="neutral"``,
    the language-neutral ones (:func:`gecmetrics.edits.neutral.neutral_edits`).

    ``max_tokens``: ERRANT's bound on a pair's length (default
    :data:`gecmetrics.edits.extraction.MAX_TOKENS`; ``attribute --max-tokens``),
    checked before spaCy loads."""
    if not isinstance(corpus, Corpus):
        raise InputError(f"corpus must be a gecmetrics Corpus, got {_short(corpus)}")
    if not isinstance(model, str):
        raise ConfigError(f"model must be a spaCy pipeline name (a string), got {_short(model)}")
    if extractor not in EXTRACTORS:
        raise ConfigError(f"unknown edit extractor {extractor!r}; choose "
                          f"{' or '.join(EXTRACTORS)}")
    if extractor == "neutral":

        return {name: [[(e.start, e.end, e.correction, e.type)
                        for e in neutral_edits(corpus.sources[d].split(), line.split())]
                       for d, line in enumerate(lines)]
                for name, lines in corpus.hypotheses.items()}
    from gecmetrics.edits.extraction import (
        MAX_TOKENS as ERRANT_MAX_TOKENS,
    )
    from gecmetrics.edits.extraction import (
        Extractor,
        check_lengths,
        hypothesis_pairs,
        pair_edits,
    )

    limit = ERRANT_MAX_TOKENS if max_tokens is None else _count(
        max_tokens, "--max-tokens", 1, 1_000_000, "a number of tokens")
    check_lengths([(("source line ", ""), corpus.sources),
                   *(((f"{name} line ", ""), lines) for name, lines in corpus.hypotheses.items())],
                  limit, option="--max-tokens")
    with Extractor(model) as errant:
        found = errant.extract(hypothesis_pairs(corpus), [])
    return {name: [list(pair_edits(found, corpus.sources[d], line))
                   for d, line in enumerate(lines)]
            for name, lines in corpus.hypotheses.items()}


def _signature(metric: Metric, options: AttributionOptions, edit_source: str) -> str:
    """The metric's signature and the attribution's fields, each key once: a field
    the metric's signature already has (GLEU's ``seed``, ERRANT's ``edits``) is written
    ``attribution_KEY``."""
    return str(metric_signature(metric).extend_apart(
        "attribution", **options.signature_fields(), edits=edit_source))


def spacing_note(metric: Metric, differ: list[tuple[str, int]], lines: int) -> str:
    """The note for lines whose spacing the metric scores (``differ``: system and
    0-based line of each, out of ``lines`` attributed)."""
    system, d = differ[0]
    return (f"note: {metric.spec} scores spacing, and {len(differ):,} of the {lines:,} "
            f"lines attributed (first: {system}, line {d + 1}) have other spaces than one "
            "between tokens (leading, trailing or repeated); edits are spans of "
            "whitespace tokens, so the source, the hypothesis and every subset sentence "
            "are scored with single spaces: their source_score and hypothesis_score "
            "differ from gecmetrics score's sentence scores, and the values add up to "
            "their delta")


# --------------------------------------------------------------------------
# The whole run


def attribute(metric: Metric, corpus: Corpus, options: AttributionOptions | None = None,
              edits: Mapping[str, Sequence[Sequence[EditTuple]]] | None = None,
              scorer: CandidateScorer | None = None, edit_source: str | None = None,
              progress_bar: bool = True) -> AttributionResult:
    """Attribute every hypothesis sentence's score change to its edits.

    ``edits``: per system, per sentence, (start, end, correction, type) on the
    source's whitespace tokens, which applied must give the hypothesis's tokens;
    default: extracted by ``edit_source`` (ERRANT's, :func:`hypothesis_edits`).
    ``scorer``: a :class:`CandidateScorer` of the same metric and corpus to reuse
    (several methods on one corpus score each candidate once).
    ``edit_source``: where ``edits`` came from, for the signature's ``edits:``
    field (one of :data:`EDIT_ORIGINS`; default ``errant`` when ``edits`` is None,
    else ``given``): the same hypothesis split into other edits gets other
    attributions, so a result names its edits. With ``edits`` None it must be an
    extractor (:data:`EXTRACTORS`).
    ``progress_bar``: a bar on stderr when it is a terminal.
    """
    return attribute_metrics([metric], corpus, options, edits, edit_source,
                             progress_bar, scorer)[0]


def attribute_metrics(metrics: Sequence[Metric], corpus: Corpus,
                      options: AttributionOptions | None = None,
                      edits: Mapping[str, Sequence[Sequence[EditTuple]]] | None = None,
                      edit_source: str | None = None, progress_bar: bool = True,
                      scorer: CandidateScorer | None = None, source_name: str = "source"
                      ) -> tuple[AttributionResult, ...]:
    """:func:`attribute` for each of ``metrics``, in order, on the same edits
    (extracted once). Everything is checked before any edit is extracted or any
    subset sentence scored: the metrics, the lines' lengths, then the edits.
    ``source_name`` names the sources in messages (the CLI: the source file)."""
    if isinstance(metrics, str) or not isinstance(metrics, Sequence) or not metrics:
        raise ConfigError(f"metrics must be a non-empty list of Metric objects, got "
                          f"{_short(metrics)}")
    for metric in metrics:
        check_metric(metric)
    if not isinstance(corpus, Corpus):
        raise InputError(f"corpus must be a gecmetrics Corpus, got {_short(corpus)}")
    if not corpus.hypotheses:
        raise InputError("corpus has no hypotheses to attribute; give at least one system")
    if options is None:
        options = AttributionOptions()
    elif not isinstance(options, AttributionOptions):
        raise ConfigError(f"options must be an AttributionOptions, got {_short(options)}")
    if edit_source is None:
        edit_source = "errant" if edits is None else "given"
    if edit_source not in (EXTRACTORS if edits is None else EDIT_ORIGINS):
        raise ConfigError(f"unknown edit source {edit_source!r}; choose one of "
                          f"{', '.join(EXTRACTORS if edits is None else EDIT_ORIGINS)}")
    if scorer is not None and not isinstance(scorer, CandidateScorer):
        raise ConfigError(f"scorer must be a CandidateScorer, got {_short(scorer)}")
    check_lines(corpus, options, source_name)
    checked = None if edits is None else _checked(corpus, edits, options)
    scorers = []
    for metric in metrics:
        # One row first: a metric that cannot score this corpus (m2 without --m2, a
        # missing model) says so before ERRANT's edits are extracted.
        own = scorer if (scorer is not None and scorer.metric is metric
                         and scorer.corpus is corpus) else CandidateScorer(metric, corpus)
        own.score([(0, " ".join(corpus.sources[0].split()))])
        scorers.append(own)
    if checked is None:
        checked = _checked(corpus, hypothesis_edits(corpus, extractor=edit_source,
                                                    max_tokens=options.token_limit), options)
    edits, total = checked
    return tuple(_attribute(metric, own, corpus, options, edits, edit_source, total,
                            progress_bar)
                 for metric, own in zip(metrics, scorers, strict=True))


def _checked(corpus: Corpus, edits: Any, options: AttributionOptions
             ) -> tuple[dict[str, list[list[EditTuple]]], int]:
    """``edits`` checked (:func:`check_edits`, :func:`check_edit_counts`) and the
    subset sentences they need (:func:`check_size`)."""
    checked = check_edits(corpus, edits)
    check_edit_counts(checked, options)
    return checked, check_size(corpus, checked, options)


def _attribute(metric: Metric, scorer: CandidateScorer, corpus: Corpus,
               options: AttributionOptions, edits: Mapping[str, list[list[EditTuple]]],
               edit_source: str, total: int, progress_bar: bool) -> AttributionResult:
    """One metric's attributions of checked ``edits`` (``total`` subset sentences)."""
    notes: list[str] = []
    plans: list[_Plan] = []
    raw: dict[tuple[str, int], list[tuple[int, str]]] = {}  # lines as read, where spaced
    bar = progress.bar(total, f"attributing with {metric.spec}", enabled=progress_bar,
                       unit="sentence")
    passes = _Passes(scorer, bar)
    try:
        for name, lines in corpus.hypotheses.items():
            for d, line in enumerate(lines):
                tokens = corpus.sources[d].split()
                plan = plan_sentence(name, d, edits[name][d], options, notes, tokens)
                plans.append(plan)
                source, hypothesis = " ".join(tokens), " ".join(line.split())
                rows = [(d, source), (d, hypothesis)]
                spaced = [(d, text) for text, flat in ((corpus.sources[d], source),
                                                        (line, hypothesis)) if text != flat]
                if spaced:
                    raw[(name, d)] = spaced

                def ends(scores: list[float], plan: _Plan = plan) -> None:
                    plan.source_score, plan.hypothesis_score = scores[0], scores[1]

                passes.ask(rows + spaced, ends, keep=True, counts=2)
                if plan.edits:
                    for texts, use in plan.chunks():
                        passes.ask([(d, t) for t in texts], use,
                                   keep=plan.method != "sampling")
        passes.finish()
    finally:
        bar.close()
    out = []
    for plan in plans:
        attributions, errors = plan.attributions()
        tokens = plan.tokens
        out.append(SentenceAttribution(
            plan.system, plan.sentence, plan.method, plan.source_score, plan.hypothesis_score,
            tuple(EditAttribution(e[0], e[1], " ".join(tokens[e[0]:e[1]]), e[2], e[3], a,
                                  None if errors is None else errors[k])
                  for k, (e, a) in enumerate(zip(plan.edits, attributions, strict=True)))))
    if len(notes) > 3:
        notes = [*notes[:3], f"note: ... and {len(notes) - 3} more sentences sampled for the "
                             "same reason"]
    scores = scorer.scores
    differ = [(name, d) for (name, d), rows in raw.items()
              if any(scores[row] != scores[(d, " ".join(row[1].split()))] for row in rows)]
    if differ:
        notes.append(spacing_note(metric, differ, len(plans)))
    return AttributionResult(metric.spec, _signature(metric, options, edit_source), options,
                             tuple(out), tuple(notes), scorer.rows_scored, total)
