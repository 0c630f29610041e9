"""GoToScorer (Gotou et al., COLING 2020): F_beta with edits weighted by correction difficulty.

"Taking the Correction Difficulty into Account in Grammatical Error
Correction Evaluation": an error that many systems correct is easy, one that
few correct is hard, and getting a hard one right (or wrong) should count
more. The gold correction of each sentence is cut into *chunks*
(:func:`chunks`): each gold edit is a chunk, every other source token is a
chunk, and an empty "insertion slot" chunk stands between them (where no gold
insertion is). Each of the N evaluated systems is judged on every gold chunk
(:func:`judge_gts`): did it change that part of the sentence (``modified``),
and is its text there the gold text (``correct``)? With ``n`` the number of
systems that got the chunk right, the chunk's weight is

    w = 1 - n / N

and each system adds ``w`` to TP (modified and correct), FP (modified and
wrong; also FN when the chunk is a gold edit), TN (unmodified and correct)
or FN (unmodified and wrong). P = TP / (TP + FP), R = TP / (TP + FN),
F_beta as usual. Chunks every system gets right weigh 0; ones no system gets
right weigh 1.

The weights are therefore a function of the *set of systems scored
together*: ``gecmetrics score`` with three hypothesis files weighs by those
three, a meta-evaluation by the benchmark's systems. The signature says
which (``weight_systems``: how many and a hash of their names), and
``weight_file`` loads the counts ``n`` computed on another set (the authors'
weight-file format, ``-gen_w_file``).

Default (``weights=paper``, ``scoring=gts``) is the authors' scorer,
github.com/gotutiyan/GTS (``gotoscorer.py`` with a=1, b=c=0): gold chunks
from the M2 file's annotator ``ref_id``, system edits by ERRANT
(``errant_parallel``; the edit layer's extractor,
:mod:`gecmetrics.edits.extraction`, so the disk edit cache is shared with
``errant``). ``weights=gec-metrics`` and
``scoring=gec-metrics`` reproduce gec-metrics 0.1.1 instead, whose weight
generator compares a gold chunk with a system chunk at *any* position (see
docs/metrics/gotoscorer.md for the difference, with a worked example);
``weights=none`` sets every weight to 1 (the authors' ``-no_weight``).

Weighted sums are kept exactly as integers: a chunk adds ``N - n`` and the
divisor N cancels in P and R; TP, FP, FN, TN in the details are divided back.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, NamedTuple, get_args

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.edits.extraction import (
    MAX_TOKENS,
    Extractor,
    ReferenceSource,
    check_lengths,
    hypothesis_pairs,
    pair_edits,
)
from gecmetrics.edits.metric import gold_of
from gecmetrics.edits.neutral import NEUTRAL, ErrantEdits, NeutralExtractor, check_edits_option
from gecmetrics.edits.span import ErrantEdit
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.formatting import plural
from gecmetrics.fscore import f_beta, prf
from gecmetrics.metric import (
    LAST_STEP,
    SIGNED_WHEN_SET,
    Metric,
    MetricConfig,
    Score,
    Statistics,
    check_beta,
)
from gecmetrics.readers import read_lines

Weights = Literal["paper", "gec-metrics", "none"]
Scoring = Literal["gts", "gec-metrics"]

#: Edit types that make no chunk: ERRANT's no-op and detection-only types.
SKIPPED_TYPES = ("noop", "UNK", "Um")


@dataclass(frozen=True)
class GoToScorerConfig(MetricConfig):
    beta: float = field(default=0.5, metadata=LAST_STEP)
    weights: Weights = "paper"
    scoring: Scoring = "gts"
    references: ReferenceSource = "auto"
    ref_id: int = 0
    weight_file: str = ""
    model: str = ""
    max_tokens: int = MAX_TOKENS
    cache: bool = True
    edits: ErrantEdits = field(default="errant", metadata=SIGNED_WHEN_SET)

    def validate(self) -> None:
        check_beta(self.beta)
        check_edits_option("gotoscorer", self.edits, "errant", self.references, self.model)
        if self.weights not in get_args(Weights):
            raise ConfigError(f"gotoscorer option weights must be paper, gec-metrics or none "
                              f"(got {self.weights!r})")
        if self.scoring not in get_args(Scoring):
            raise ConfigError(f"gotoscorer option scoring must be gts or gec-metrics "
                              f"(got {self.scoring!r})")
        if self.references not in get_args(ReferenceSource):
            raise ConfigError(f"gotoscorer option references must be auto, m2 or text "
                              f"(got {self.references!r})")
        if not isinstance(self.ref_id, int) or isinstance(self.ref_id, bool) or self.ref_id < 0:
            raise ConfigError(f"gotoscorer option ref_id must be an integer >= 0 "
                              f"(got {self.ref_id!r})")
        if self.weight_file and self.weights != "paper":
            raise ConfigError("gotoscorer option weight_file replaces the computed weights; "
                              f"drop weights={self.weights} or weight_file")
        if (not isinstance(self.max_tokens, int) or isinstance(self.max_tokens, bool)
                or self.max_tokens < 1):
            raise ConfigError(f"gotoscorer option max_tokens must be an integer >= 1 "
                              f"(got {self.max_tokens!r})")
        if not isinstance(self.cache, bool):
            raise ConfigError("gotoscorer option cache must be true or false")


class Chunk(NamedTuple):
    """A part of the source, [start, end), and its text after correction."""

    start: int
    end: int
    text: str
    edited: bool


def chunks(tokens: Sequence[str], edits: Sequence[tuple[int, int, str]]) -> list[Chunk]:
    """The chunk sequence of one sentence's edits (start, end, correction), in edit order.

    As the authors' ``chunker.py``: each edit is a chunk, each token outside
    the edits is a chunk, and an empty insertion-slot chunk (i, i, "") goes
    before every chunk that is not an insertion and does not follow one, and
    at the end unless the last chunk is an insertion.
    """
    basic: list[Chunk] = []
    i = 0
    for start, end, text in edits:
        basic.extend(Chunk(j, j + 1, tokens[j], False) for j in range(i, start))
        basic.append(Chunk(start, end, text, True))
        i = end
    basic.extend(Chunk(j, j + 1, tokens[j], False) for j in range(i, len(tokens)))
    out: list[Chunk] = []
    for k, c in enumerate(basic):
        if c.start != c.end and not (k > 0 and basic[k - 1].start == basic[k - 1].end):
            out.append(Chunk(c.start, c.start, "", False))
        out.append(c)
    if not basic or basic[-1].start != basic[-1].end:
        out.append(Chunk(len(tokens), len(tokens), "", False))
    return out


class Judged(NamedTuple):
    modified: bool
    correct: bool


def _overlapping(g: Chunk, hyp: Sequence[Chunk], starts: Sequence[int]) -> list[Chunk]:
    """The system chunks that share a range with, or overlap, ``g`` (in order).

    Those starting in [g.start, g.end) and one starting before g.start that
    reaches past it; for an insertion slot only the chunk of the same range.
    """
    lo = bisect_left(starts, g.start)
    if g.start == g.end:
        return [h for h in hyp[lo:lo + 2] if h.start == g.start and h.end == g.end]
    out = [hyp[lo - 1]] if lo > 0 and hyp[lo - 1].end > g.start else []
    for h in hyp[lo:]:
        if h.start >= g.end:
            break
        out.append(h)
    return out


def judge_gts(g: Chunk, hyp: Sequence[Chunk], starts: Sequence[int]) -> Judged:
    """The authors' ``alignmenter.update_evaluation`` for one gold chunk.

    Walking the system chunks in order: the same range and text is correct
    (its ``modified`` replaces what came before, and the walk stops); the same
    range with another text, or an overlap, is wrong and ORs ``modified``.
    A gold insertion slot looks only at the system chunk of the same range.
    No system chunk there: unmodified, correct unless ``g`` is a gold edit.
    """
    state: Judged | None = None
    for h in _overlapping(g, hyp, starts):
        if h.start == g.start and h.end == g.end and h.text == g.text:
            return Judged(h.edited, True)
        state = Judged(h.edited or (state.modified if state else False), False)
    return state if state is not None else Judged(False, not g.edited)


def judge_gec_metrics(g: Chunk, hyp: Sequence[Chunk], starts: Sequence[int]) -> Judged:
    """gec-metrics 0.1.1's ``GoToScorer.annotate`` for one gold chunk.

    The system chunk of the same range decides (text equal: correct; its
    ``modified`` replaces the OR of the overlapping chunks before it); a gold
    insertion slot without a system chunk of its range is correct.
    """
    modified = False
    for h in _overlapping(g, hyp, starts):
        if h.start == g.start and h.end == g.end:
            return Judged(h.edited, h.text == g.text)
        modified |= h.edited
    return Judged(modified, g.start == g.end)


JUDGES = {"gts": judge_gts, "gec-metrics": judge_gec_metrics}


def anywhere_correct(g: Chunk, hyp: Sequence[Chunk]) -> bool:
    """gec-metrics 0.1.1's weight generator: some system chunk, at any position,
    has the gold chunk's text (its range test compares the gold chunk with itself)."""
    return any(h.text == g.text for h in hyp)


# --------------------------------------------------------------------------
# Statistics


class GoToStatistics(Statistics):
    """Weighted TP, FP, FN, TN per (system, sentence) as integers over ``divisor``.

    ``counts``: int64 (H, D, 4); the weighted sums are ``counts / divisor``.
    ``scoring`` picks the corpus-level edge rules (``gts``: P or R is 0 when
    undefined, as the authors' scorer; ``gec-metrics``: P = 1 without FP,
    R = 1 without FN). Sentence scores use the latter (a sentence left alone
    that needed nothing scores 1), as gec-metrics' sentence level does.
    """

    default_beta = 0.5

    def __init__(self, systems: Sequence[str], counts: np.ndarray, divisor: int,
                 scoring: str, weight_systems: str, n_correct: list[list[int]]) -> None:
        self.systems = tuple(systems)
        self.counts = counts
        self.divisor = divisor
        self.scoring = scoring
        self.weight_systems = weight_systems
        #: Per sentence, per gold chunk: how many weighting systems got it right.
        self.n_correct = n_correct

    @property
    def empty(self) -> float:
        """P (R) without TP + FP (TP + FN) at the corpus level: 0 for the
        authors' scorer, 1 for gec-metrics'."""
        return 1.0 if self.scoring == "gec-metrics" else 0.0

    def totals(self, sentences: np.ndarray | None = None) -> np.ndarray:
        c = self.counts if sentences is None else self.counts[:, np.asarray(sentences,
                                                                            dtype=np.int64)]
        return c.sum(axis=1)

    def corpus(self, beta: float | None, sentences: np.ndarray | None = None) -> list[Score]:
        beta = self.resolve_beta(beta)
        out = []
        for tp, fp, fn, tn in self.totals(sentences).tolist():
            p, r, f = prf(tp, fp, fn, beta, self.empty)
            n = self.divisor
            out.append(Score(f, p, r, {"TP": tp / n, "FP": fp / n, "FN": fn / n, "TN": tn / n,
                                       "weight_systems": self.weight_systems}))
        return out

    def sentence(self, beta: float | None) -> np.ndarray:
        beta = self.resolve_beta(beta)
        tp, fp, fn = (self.counts[..., i] for i in range(3))
        return f_beta(tp, fp, fn, beta)

    def sentence_statistics(self, beta: float | None):
        beta = self.resolve_beta(beta)
        empty = self.empty

        def formula(sums: np.ndarray) -> np.ndarray:
            return f_beta(sums[..., 0], sums[..., 1], sums[..., 2], beta, empty)

        return self.counts[..., :3], formula


# --------------------------------------------------------------------------
# The metric


class GoToScorer(Metric[GoToScorerConfig]):
    """GoToScorer: difficulty-weighted F_beta (Gotou et al. 2020)."""

    name: ClassVar[str] = "gotoscorer"
    extras: ClassVar[tuple[str, ...]] = ("errant",)
    description: ClassVar[str] = (
        "GoToScorer difficulty-weighted F-score (Gotou et al. 2020; weights from the systems "
        "scored together); --m2 or -r; beta (0.5), weights (paper|gec-metrics|none), scoring "
        "(gts|gec-metrics), references (auto|m2|text), ref_id (0), weight_file; needs the "
        "errant extra"
    )
    Config = GoToScorerConfig
    config: GoToScorerConfig
    has_beta: ClassVar[bool] = True

    def sentence_scores_problem(self) -> str | None:
        if self.config.weight_file or self.config.weights == "none":
            return None
        return ("its edit weights come from the systems scored together, so a sentence's "
                "score is not a function of that sentence alone (fixed weights: "
                "weight_file=FILE or weights=none)")

    @property
    def display_name(self) -> str:
        return "GoToScorer"

    def required_extras(self) -> tuple[str, ...]:
        """No extra for the language-neutral edits (no spaCy, no errant)."""
        return () if self.config.edits == NEUTRAL else self.extras

    def extra_signature(self, corpus: Corpus) -> dict[str, Any]:
        """Which systems define the weights on ``corpus`` (:func:`weight_label`)."""
        return {"weight_systems": weight_label(self.config.weights, self.config.weight_file,
                                               list(corpus.hypotheses))}

    def statistics(self, corpus: Corpus) -> GoToStatistics:
        return self.cached_statistics(corpus, lambda: self._compute(corpus))

    # -- inputs ---------------------------------------------------------------
    def _m2_gold(self, corpus: Corpus) -> list[list[tuple[int, int, str]]] | None:
        """Per sentence, annotator ``ref_id``'s M2 edits (start, end, correction), or
        None when the gold comes from a text reference (checked here, before any
        parsing, that ``ref_id`` names one)."""
        cfg = self.config
        if cfg.references == "m2" and corpus.m2 is None:
            raise InputError("gotoscorer:references=m2 needs gold edits: pass --m2 FILE.m2")
        if corpus.m2 is None or cfg.references == "text" or cfg.edits == NEUTRAL:
            if cfg.ref_id >= len(corpus.references):
                raise ConfigError(f"gotoscorer:ref_id={cfg.ref_id} but there are "
                                  f"{len(corpus.references)} reference files; ref_id counts "
                                  "from 0")
            return None
        gold = gold_of(corpus)
        if not any(cfg.ref_id in g for g in gold):
            ids = sorted({a for g in gold for a in g})
            raise ConfigError(f"gotoscorer:ref_id={cfg.ref_id} is not an annotator of "
                              f"{corpus.m2.path} (annotators: "
                              f"{', '.join(map(str, ids))}); choose one of them")
        return [[(e.start, e.end, e.correction) for e in g.get(cfg.ref_id, [])
                 if e.type not in SKIPPED_TYPES] for g in gold]

    def _compute(self, corpus: Corpus) -> GoToStatistics:
        cfg = self.config
        # Every input check before spaCy is loaded.
        m2_gold = self._m2_gold(corpus)
        loaded = read_weight_file(cfg.weight_file) if cfg.weight_file else None
        if loaded is not None and len(loaded[1]) != corpus.num_sentences:
            raise InputError(f"the weight file {cfg.weight_file} has "
                             f"{plural(len(loaded[1]), 'sentence')} but the corpus has "
                             f"{corpus.num_sentences}; use the weight file of this test set")
        refs = corpus.references[cfg.ref_id] if m2_gold is None else None
        named = [(("source line ", ""), corpus.sources)]
        named += [((f"hypothesis {n} line ", ""), lines) for n, lines in corpus.hypotheses.items()]
        if refs is not None:
            named.append(((f"reference {cfg.ref_id + 1} line ", ""), refs))
        if cfg.edits != NEUTRAL:  # the neutral extractor checks its own bound
            check_lengths(named, cfg.max_tokens, self.name)
        pairs = hypothesis_pairs(corpus)
        if refs is not None:
            pairs += list(zip(corpus.sources, refs, strict=True))
        extractor = (NeutralExtractor() if cfg.edits == NEUTRAL
                     else Extractor(cfg.model, disk=cfg.cache))
        with extractor:
            edits = extractor.extract(pairs, [])

        def usable(src: str, other: str) -> list[tuple[int, int, str]]:
            return _usable(pair_edits(edits, src, other))

        gold = (m2_gold if m2_gold is not None
                else [usable(s, r) for s, r in zip(corpus.sources, refs or (), strict=True)])
        hyps = {n: [usable(s, h) for s, h in zip(corpus.sources, lines, strict=True)]
                for n, lines in corpus.hypotheses.items()}
        return score_chunks(corpus.sources, gold, hyps, cfg.weights, cfg.scoring, loaded,
                            cfg.weight_file)


def _usable(edits: Sequence[ErrantEdit]) -> list[tuple[int, int, str]]:
    return [(s, e, c) for s, e, c, t in edits if t not in SKIPPED_TYPES]


def weight_label(weights: str, weight_file: str, names: Sequence[str]) -> str:
    """What defines the weights: ``none`` (unweighted), ``file:NAME`` (a weight
    file), else ``N:hash``, the number of systems scored together and the
    first 10 hex digits of the SHA-256 of their names joined by newlines."""
    if weights == "none":
        return "none"
    if weight_file:
        return f"file:{Path(weight_file).name}"
    digest = hashlib.sha256("\n".join(names).encode()).hexdigest()[:10]
    return f"{len(names)}:{digest}"


def write_weight_file(stats: GoToStatistics, path: str) -> None:
    """Write the counts behind ``stats``'s weights in the authors' weight-file
    format (GTS ``-gen_w_file``), for ``weight_file=`` on another system set."""
    if stats.weight_systems == "none":
        raise ConfigError("weights=none has no weights to write; score with weights=paper")
    n = stats.divisor
    rows = [" ".join(map(str, row)) for row in stats.n_correct]
    Path(path).write_text("\n".join([str(n), *rows]) + "\n", encoding="utf-8")


def read_weight_file(path: str) -> tuple[int, list[list[int]]]:
    """The authors' weight file: the number of systems N on the first line, then
    per sentence the count n of systems correct on each chunk (space-separated)."""
    try:
        open(path, "rb").close()
    except OSError as err:
        raise InputError(f"cannot read the gotoscorer weight file {path}: {err.strerror}; "
                         "give an existing file (made by GTS -gen_w_file)") from None
    # read as every input is (UTF-8, NUL bytes, the line limit: not /dev/zero forever;
    # CRLF line ends and a byte-order mark read, an empty file named as such)
    lines = read_lines(path, "gotoscorer weight",
                       "the number of systems, then a line of counts per sentence")
    while len(lines) > 1 and not lines[-1]:  # blank lines at the end
        lines.pop()
    try:
        n = int(lines[0])
        if n < 1:
            raise ValueError
    except ValueError:
        raise InputError(f"{path} line 1: expected the number of systems (an integer >= 1), "
                         f"got {lines[0][:40]!r}; is it a GoToScorer weight file?") from None
    rows = []
    for k, line in enumerate(lines[1:], start=2):
        try:
            row = [int(x) for x in line.split()]
        except ValueError:
            raise InputError(f"{path} line {k}: expected integers (systems correct per "
                             "chunk); is it a GoToScorer weight file?") from None
        if any(not 0 <= x <= n for x in row):
            raise InputError(f"{path} line {k}: counts must be between 0 and {n} (the first "
                             "line's number of systems)")
        rows.append(row)
    return n, rows


def score_chunks(sources: Sequence[str], gold: Sequence[Sequence[tuple[int, int, str]]],
                 hyps: dict[str, list[list[tuple[int, int, str]]]], weights: str,
                 scoring: str, loaded: tuple[int, list[list[int]]] | None = None,
                 weight_path: str = "") -> GoToStatistics:
    """Weighted counts of every system from gold and system edits per sentence.

    The core of the metric, free of ERRANT: ``gold[d]`` and ``hyps[name][d]``
    are (start, end, correction) edits on ``sources[d].split()``. The systems
    of ``hyps`` define the weights unless ``loaded`` (N, counts) is given.

    Only the gold chunks that are gold edits or touch a system edit are judged
    (:func:`_judge_touched`); every other chunk is an unchanged source token or
    insertion slot that the system left alone, so unmodified and correct under
    both rules (tests check this shortcut against judging every chunk).
    """
    names = list(hyps)
    H, D = len(names), len(sources)
    judge = JUDGES[scoring]
    if loaded is not None and len(loaded[1]) != D:
        raise InputError(f"the weight file {weight_path} has "
                         f"{plural(len(loaded[1]), 'sentence')} but the corpus has {D}; use the "
                         "weight file of this test set")
    counts = np.zeros((H, D, 4), dtype=np.int64)
    n_correct_all: list[list[int]] = []
    divisor = 1 if weights == "none" else (loaded[0] if loaded is not None else H)
    anywhere_weights = weights == "gec-metrics" and loaded is None
    for d in range(D):
        tokens = sources[d].split()
        g_chunks = chunks(tokens, gold[d])
        K = len(g_chunks)
        edited = np.fromiter((g.edited for g in g_chunks), dtype=bool, count=K)
        modified = np.zeros((H, K), dtype=bool)
        correct = np.ones((H, K), dtype=bool)
        anywhere = np.ones((H, K), dtype=bool) if anywhere_weights else correct
        spans = _Spans.of(g_chunks)
        memo: dict[tuple, list[tuple[int, Judged, bool]]] = {}
        for h, name in enumerate(names):
            key = tuple(hyps[name][d])
            if key not in memo:
                memo[key] = _judge_touched(tokens, g_chunks, spans, hyps[name][d], judge,
                                           anywhere_weights)
            for k, j, a in memo[key]:
                modified[h, k], correct[h, k] = j
                if anywhere_weights:
                    anywhere[h, k] = a
        if loaded is not None:
            n_correct = loaded[1][d]
            if len(n_correct) != K:
                raise InputError(f"{weight_path} line {d + 2}: "
                                 f"{plural(len(n_correct), 'chunk count')} but sentence {d + 1} "
                                 f"has {plural(K, 'chunk')}; the weight file was made with "
                                 "other gold edits")
            n_arr = np.asarray(n_correct, dtype=np.int64)
        else:
            n_arr = anywhere.sum(axis=0, dtype=np.int64)
            n_correct = n_arr.tolist()
        n_correct_all.append(n_correct)
        w = np.ones(K, dtype=np.int64) if weights == "none" else divisor - n_arr
        wrong = ~correct
        counts[:, d, 0] = (modified & correct) @ w
        counts[:, d, 1] = (modified & wrong) @ w
        counts[:, d, 2] = ((modified & wrong & edited) | (~modified & wrong)) @ w
        counts[:, d, 3] = (~modified & correct) @ w
    label = weight_label(weights, weight_path if loaded is not None else "", names)
    return GoToStatistics(names, counts, divisor, scoring, label, n_correct_all)


def _judge_touched(tokens: Sequence[str], g_chunks: Sequence[Chunk], spans: _Spans,
                   edits: Sequence[tuple[int, int, str]], judge: Any, anywhere: bool
                   ) -> list[tuple[int, Judged, bool]]:
    """(chunk index, judgement, correct-anywhere) of the gold chunks that are gold
    edits or whose closed span [start, end] meets a system edit's.

    Chunk starts and ends both never decrease along a sentence, so the chunks
    meeting [s, e] are those from the first ending at or after s to the last
    starting at or before e (two bisections per system edit).
    """
    touched = set(spans.edited)
    for s, e, _ in edits:
        touched.update(range(bisect_left(spans.ends, s), bisect_right(spans.starts, e)))
    if not touched:
        return []
    h_chunks = chunks(tokens, edits)
    starts = [h.start for h in h_chunks]
    return [(k, judge(g_chunks[k], h_chunks, starts),
             anywhere_correct(g_chunks[k], h_chunks) if anywhere else True)
            for k in sorted(touched)]


class _Spans(NamedTuple):
    """Chunk starts and ends of one sentence's gold chunks, and the gold edits' indices."""

    starts: list[int]
    ends: list[int]
    edited: list[int]

    @classmethod
    def of(cls, g_chunks: Sequence[Chunk]) -> _Spans:
        """The spans; with gold edits out of order or overlapping (an M2 file may
        list them so) every chunk counts as a gold edit, so all are judged."""
        starts, ends = [g.start for g in g_chunks], [g.end for g in g_chunks]
        ordered = all(starts[k] <= starts[k + 1] and ends[k] <= ends[k + 1]
                      for k in range(len(starts) - 1))
        return cls(starts, ends, [k for k, g in enumerate(g_chunks) if g.edited or not ordered])
