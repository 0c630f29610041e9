"""PT-M2 (Gong et al., EMNLP 2022): M2 with every edit weighted by BERTScore.

"Revisiting Grammatical Error Correction Evaluation and Beyond" scores the
same edits as the M2 scorer, but an edit counts for how much it moves the
source towards the reference in BERTScore instead of 1. This module computes
it as the authors' code does (pygongnlp/PT-M2, commit 67ef575, ``metrics.py``,
``m2score/levenshtein.py``, ``m2score/util.py``), reusing the native M2
lattice (:mod:`gecmetrics.metrics.m2_lattice`) for the edits:

For each sentence and annotator *a* (gold edits ``G_a``, reference ``R_a``:
the source with ``G_a`` applied, first alternatives):

1. the hypothesis edits ``E_a`` are M2's (the lattice path that matches the
   most of ``G_a``), the correct ones ``C_a`` those M2's ``matchSeq`` matches;
2. every edit ``e`` of ``E_a`` and ``G_a`` (a gold edit as (span, original,
   first correction)) weighs ``w(e) = |BS(S + e, R_a) - BS(S, R_a)|``, where
   ``S + e`` is the source with only ``e`` applied and ``BS`` is BERTScore F
   (:mod:`gecmetrics.neural.bertscore`; bert-base-uncased, layer 9, no idf,
   baseline-rescaled, as PT-M2 calls it);
3. the weighted counts are ``c = sum w(C_a)``, ``e = sum w(E_a)``,
   ``g = sum w(G_a)``.

Levels, as the reference's ``--base`` choices:

* ``corpus`` (``--base m2``): the annotator of each sentence maximises the
  running corpus F_beta of the weighted counts (M2's tie rules), then
  P = c/e, R = c/g (1 when the denominator is 0), F_beta;
* ``sentence`` / ``mean`` (``--base sentm2``, the configuration the authors
  recommend): F_beta per sentence with its best annotator, where a
  sentence whose edits all weigh 0 weighs each of them 1/n instead (n: the
  number of distinct edits of E_a and G_a); ``mean`` averages them.

The weighted counts are kept per (system, sentence, annotator), so betas,
resamples and subsets reuse them like M2's integer counts. See
docs/metrics/ptm2.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.edits.metric import gold_of
from gecmetrics.edits.neutral import NEUTRAL, M2Edits, check_edits_option
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.fscore import f_beta_of_totals, prf_of_totals
from gecmetrics.metric import LAST_STEP, SIGNED_WHEN_SET, Metric, Score, Statistics, check_beta
from gecmetrics.neural.bertscore import BASELINES_F, BertScorer, default_layer
from gecmetrics.neural.config import NeuralConfig
from gecmetrics.neural.models import ModelRef

from .m2 import neutral_gold
from .m2_lattice import (
    MAX_LATTICE_EDGES,
    GoldEdit,
    LatticeTooLarge,
    build_lattice,
)
from .ptm2_edits import edit_sequences

Edit = tuple[int, int, str, str]


@dataclass(frozen=True)
class BertScoreWeighting(NeuralConfig):
    """The options of an edit weighting by BERTScore, shared by PT-M2 and
    PT-ERRANT (:mod:`gecmetrics.metrics.pterrant`); ``device``, ``batch_size``,
    ``dtype``, ``cache``: :class:`NeuralConfig`'s."""

    #: The metric named in error messages.
    metric_name: ClassVar[str] = "ptm2"

    beta: float = field(default=0.5, metadata=LAST_STEP)
    model: str = "bert-base-uncased"
    revision: str | None = None
    #: BERTScore layer; None: bert_score's default for the model.
    layer: int | None = None
    #: Rescale BERTScore with bert_score's baseline of (model, layer) (PT-M2 does;
    #: the scores do not change, see the module docstring of bertscore).
    rescale: bool = True
    #: The baseline b of F; None: bert_score's for (model, layer), or no rescaling
    #: for a model it has none for.
    baseline: float | None = None

    def validate(self) -> None:
        super().validate()
        check_beta(self.beta)
        name = self.metric_name
        if self.layer is not None and (not isinstance(self.layer, int)
                                       or isinstance(self.layer, bool) or self.layer < 0):
            raise ConfigError(f"{name} option layer must be an integer >= 0 (got {self.layer!r})")
        if not isinstance(self.rescale, bool):
            raise ConfigError(f"{name} option rescale must be true or false")
        if not isinstance(self.model, str) or not self.model:
            raise ConfigError(f"{name} option model must be a hub id or a local folder")

        ModelRef(self.model, self.revision).check(f"{name} option model")
        if self.baseline is not None and not (isinstance(self.baseline, int | float)
                                              and 0 <= self.baseline < 1):
            raise ConfigError(f"{name} option baseline must be in [0, 1) (got {self.baseline!r})")


@dataclass(frozen=True)
class PTM2Config(BertScoreWeighting):
    """The BERTScore options (:class:`BertScoreWeighting`) and M2's edit extraction."""

    max_unchanged_words: int = 2
    ignore_whitespace_casing: bool = False
    max_lattice_edges: int = MAX_LATTICE_EDGES
    #: ``neutral``: the gold edits are the language-neutral edits of the text
    #: references (as ``m2:edits=neutral``), for a language with a BERT named by
    #: ``model``; in the signature only when set.
    edits: M2Edits = field(default="m2", metadata=SIGNED_WHEN_SET)

    def validate(self) -> None:
        super().validate()
        check_edits_option("ptm2", self.edits, "m2")
        for name in ("max_unchanged_words", "max_lattice_edges"):
            v = getattr(self, name)
            low = 0 if name == "max_unchanged_words" else 1
            if not isinstance(v, int) or isinstance(v, bool) or v < low:
                raise ConfigError(f"ptm2 option {name} must be an integer >= {low} (got {v!r})")
        if not isinstance(self.ignore_whitespace_casing, bool):
            raise ConfigError("ptm2 option ignore_whitespace_casing must be true or false")


def bert_scorer(cfg: BertScoreWeighting) -> Any:
    """The BERTScore of a configuration (the model is loaded on first use)."""
    layer = cfg.layer if cfg.layer is not None else default_layer(cfg.model)
    baseline = None
    if cfg.rescale:
        baseline = cfg.baseline if cfg.baseline is not None else BASELINES_F.get(
            (cfg.model, layer))
    return BertScorer(cfg.model, layer, revision=cfg.revision, baseline=baseline,
                      device=cfg.device, dtype=cfg.dtype, batch_size=cfg.batch_size,
                      cache=cfg.cache)


@dataclass
class WeightedCounts:
    """Weighted (correct, proposed, gold) per (system, sentence, annotator).

    ``corpus``: the weights of the corpus level, shape (H, D, A, 3);
    ``sentence``: those of the sentence level (all-zero weights replaced by
    1/n), same shape; ``present``: (D, A), whether the annotator annotated the
    sentence.
    """

    systems: tuple[str, ...]
    corpus: np.ndarray
    sentence: np.ndarray
    present: np.ndarray
    annotators: tuple[int, ...]


def choose(stats: np.ndarray, present: np.ndarray, beta: float, running: bool) -> list[int]:
    """PT-M2's annotator choice for one system (``stats``: (D, A, 3) weighted counts).

    The annotator maximising F_beta of the running totals plus this sentence
    (``running=False``: of this sentence alone); ties to the larger weighted
    correct, then the smaller ``proposed + beta^2 gold``, then the first.
    """
    b2 = beta * beta
    c_run = e_run = g_run = 0.0
    rows = stats.tolist()
    pres = present.tolist()
    out = []
    for d, row in enumerate(rows):
        best: tuple[float, float, float, float] | None = None
        chosen = -1
        for a, (c, e, g) in enumerate(row):
            if not pres[d][a]:
                continue
            lc = (c_run + c) if running else (0.0 + c)
            le = (e_run + e) if running else (0.0 + e)
            lg = (g_run + g) if running else (0.0 + g)
            f = prf_of_totals(lc, le, lg, beta)[2]
            if best is None or f > best[0] or (f == best[0] and lc > best[1]) or (
                    f == best[0] and lc == best[1] and best[2] + b2 * best[3] > le + b2 * lg):
                best = (f, lc, le, lg)
                chosen = a
        out.append(chosen)
        c, e, g = row[chosen]
        c_run += c
        e_run += e
        g_run += g
    return out


class WeightedEditStatistics(Statistics):
    """Scores from weighted edit counts (see the module docstring for the levels)."""

    default_beta = 0.5

    def __init__(self, counts: WeightedCounts) -> None:
        self.counts = counts
        self.systems = counts.systems
        self._choice: dict[tuple[float, bool], np.ndarray] = {}

    def choice(self, beta: float, running: bool = True) -> np.ndarray:
        """Chosen annotator index per (system, sentence), shape (H, D)."""
        key = (float(beta), running)
        if key not in self._choice:
            arr = self.counts.corpus if running else self.counts.sentence
            rows = [choose(arr[h], self.counts.present, key[0], running)
                    for h in range(len(self.systems))]
            self._choice[key] = np.array(rows, dtype=np.int64).reshape(len(self.systems), -1)
        return self._choice[key]

    def chosen(self, beta: float, running: bool = True) -> np.ndarray:
        """Weighted counts of the chosen annotators, shape (H, D, 3)."""
        arr = self.counts.corpus if running else self.counts.sentence
        ch = self.choice(beta, running)[:, :, None, None]
        return np.take_along_axis(arr, ch, axis=2)[:, :, 0, :]

    def corpus(self, beta: float | None, sentences: np.ndarray | None = None) -> list[Score]:
        beta = self.resolve_beta(beta)
        stats = self.chosen(beta)
        out = []
        for h in range(len(self.systems)):
            rows = stats[h] if sentences is None else stats[h][np.asarray(sentences, np.int64)]
            c = e = g = 0.0
            for rc, re_, rg in rows.tolist():  # summed in order, as the reference does
                c += rc
                e += re_
                g += rg
            p, r, f = prf_of_totals(c, e, g, beta)
            out.append(Score(f, p, r, {"weighted_correct": c, "weighted_proposed": e,
                                       "weighted_gold": g}))
        return out

    def sentence(self, beta: float | None) -> np.ndarray:
        beta = self.resolve_beta(beta)
        stats = self.chosen(beta, running=False)
        out = np.empty(stats.shape[:2], dtype=np.float64)
        for idx in np.ndindex(out.shape):
            c, e, g = stats[idx].tolist()
            out[idx] = prf_of_totals(c, e, g, beta)[2]
        return out

    def sentence_statistics(self, beta: float | None):
        """Weighted (c, e, g) of the corpus choice, (H, D, 3), and the F of their sums."""
        beta = self.resolve_beta(beta)

        def formula(sums: np.ndarray) -> np.ndarray:
            c, e, g = (sums[..., i].astype(np.float64) for i in range(3))
            return f_beta_of_totals(c, e, g, beta)

        return self.chosen(beta), formula


class PTM2(Metric[PTM2Config]):
    """PT-M2: M2 edits weighted by their BERTScore gain (Gong et al., EMNLP 2022)."""

    name: ClassVar[str] = "ptm2"
    extras: ClassVar[tuple[str, ...]] = ("neural",)
    description: ClassVar[str] = (
        "PT-M2: M2 edits weighted by BERTScore (Gong et al. 2022; needs --m2 and the neural "
        "extra); model (bert-base-uncased), layer, beta (0.5), device, batch_size, cache, "
        "edits (m2|neutral: gold edits from -r in any language, with a BERT for it); "
        "--level mean is the authors' recommended sentm2"
    )
    Config = PTM2Config
    config: PTM2Config
    has_beta: ClassVar[bool] = True

    @property
    def display_name(self) -> str:
        return "PT-M2"

    def text_references_problem(self) -> str | None:
        if self.config.edits == NEUTRAL:
            return None  # the gold edits come from the text references (gold_corpus)
        return f"{self.spec} reads gold edits from an M2 file (edits=neutral takes texts)"

    def bert_scorer(self) -> Any:
        """The BERTScore of this configuration (the model is loaded on first use)."""
        return bert_scorer(self.config)

    def statistics(self, corpus: Corpus) -> WeightedEditStatistics:
        self._check(corpus)
        return self.cached_statistics(
            corpus, lambda: WeightedEditStatistics(self.weighted_counts(corpus)))

    def statistics_with(self, corpus: Corpus, scorer: Any) -> WeightedEditStatistics:
        """:meth:`statistics` with another BERTScore (anything with ``f_scores(pairs)``),
        not kept in the corpus cache: for tests and for scorers made by hand."""
        self._check(corpus)
        return WeightedEditStatistics(self.weighted_counts(corpus, scorer)).bound(
            self.config.beta)  # type: ignore[return-value]

    def _check(self, corpus: Corpus) -> None:
        if self.config.edits == NEUTRAL:
            return  # the gold edits come from the text references (gold_corpus)
        if corpus.m2 is None:
            raise InputError(
                f"metric {self.name!r} needs gold edits: give the references as an M2 file "
                "(`gecmetrics score --m2 FILE.m2` instead of -r)")

    def weighted_counts(self, corpus: Corpus, scorer: Any = None) -> WeightedCounts:
        """Weighted counts of every (system, sentence, annotator); ``scorer``: a
        :class:`~gecmetrics.neural.bertscore.BertScorer` (default: :meth:`bert_scorer`)."""
        cfg = self.config
        if cfg.edits == NEUTRAL:  # the gold M2 of the text references, as m2:edits=neutral

            corpus = Corpus(corpus.sources, corpus.references, corpus.hypotheses,
                            m2=neutral_gold(corpus.sources, corpus.references))
        if scorer is None:
            scorer = self.bert_scorer()
        return ptm2_counts(corpus, scorer, cfg.max_unchanged_words,
                           cfg.ignore_whitespace_casing, cfg.max_lattice_edges)


def apply_edits(edits: Sequence[Edit], src: Sequence[str]) -> str:
    """PT-M2's ``get_ref``: ``edits`` (sorted by span) applied to the source tokens."""
    cnt = 0
    out = list(src)
    for start, end, original, correction in edits:
        if original == "":
            end = start
        s, e = start + cnt, end + cnt
        rep = correction.split()
        out = out[:s] + rep + out[e:] if correction else out[:s] + out[e:]
        cnt += len(rep) - len(original.split())
    return " ".join(out)


def _matched(seq: Sequence[Edit], gold: Sequence[GoldEdit]) -> list[Edit]:
    """The official ``matchSeq``'s list of correct edits (an edit once per gold it matches)."""
    out = []
    last = 0
    for edit in seq:
        start, end, original, correction = edit
        for i in range(last, len(gold)):
            g = gold[i]
            if (start == g.start and end == g.end and original == g.original
                    and correction in g.corrections):
                out.append(edit)
                last = i + 1
    return out


def ptm2_counts(corpus: Corpus, scorer: Any, max_unchanged_words: int = 2,
                ignore_whitespace_casing: bool = False,
                max_lattice_edges: int = MAX_LATTICE_EDGES) -> WeightedCounts:
    """Weighted counts of every (system, sentence, annotator) of ``corpus``.

    The M2 edit sequences of every distinct (sentence, hypothesis), then
    :func:`weigh`.
    """
    golds = gold_of(corpus)
    sentences = corpus.m2.sentences
    annotators = sorted({a for g in golds for a in g})
    col = {a: k for k, a in enumerate(annotators)}
    D, A = corpus.num_sentences, len(annotators)
    present = np.zeros((D, A), dtype=bool)

    src_tokens: list[list[str]] = []
    lattice_golds: list[dict[int, list[GoldEdit]]] = []
    gold_tuples: list[dict[int, list[Edit]]] = []
    for d, (sent, gold) in enumerate(zip(sentences, golds, strict=True)):
        tokens = sent.source.split()
        src_tokens.append(tokens)
        lg = {a: [GoldEdit(e.start, e.end, " ".join(tokens[e.start:e.end]), e.corrections)
                  for e in edits] for a, edits in gold.items()}
        lattice_golds.append(lg)
        gold_tuples.append({a: [(g.start, g.end, g.original,
                                 g.corrections[0] if g.corrections else "")
                                for g in edits] for a, edits in lg.items()})
        for a in gold:
            present[d, col[a]] = True

    found: dict[tuple[int, tuple[str, ...]], dict[int, tuple[list[Edit], list[Edit]]]] = {}
    for d in range(D):
        tokens = src_tokens[d]
        for name, lines in corpus.hypotheses.items():
            hyp = tuple(lines[d].split())
            key = (d, hyp)
            if key in found:
                continue
            per: dict[int, list[Edit]]
            if list(hyp) == tokens:
                per = {a: [] for a in lattice_golds[d]}
            else:
                try:  # the native lattice checks the budget before the literal one is built
                    build_lattice(tokens, list(hyp), max_unchanged_words,
                                  max_edges=max_lattice_edges)
                except LatticeTooLarge as exc:
                    raise LatticeTooLarge(f"ptm2: hypothesis {name}, line {d + 1}: {exc}") from None
                seqs = edit_sequences(tokens, list(hyp), list(lattice_golds[d].values()),
                                      max_unchanged_words)
                per = dict(zip(lattice_golds[d], seqs, strict=True))
                if ignore_whitespace_casing:
                    per = {a: [e for e in s if e[2].replace(" ", "").lower()
                               != e[3].replace(" ", "").lower()] for a, s in per.items()}
            # The reference sums the proposed weights along its edit sequence,
            # which runs from the end of the sentence to the start.
            found[key] = {a: (list(reversed(seq)), _matched(seq, lattice_golds[d][a]))
                          for a, seq in per.items()}
    return weigh(corpus.hypotheses, src_tokens, gold_tuples, found, annotators, present,
                 scorer, "PT-M2 BERTScore")


#: Per (sentence, hypothesis tokens), per annotator: the proposed edits in the
#: order their weights are summed, and the correct ones in theirs.
FoundEdits = dict[tuple[int, tuple[str, ...]], dict[int, tuple[list[Edit], list[Edit]]]]


def weigh(hypotheses: Mapping[str, Sequence[str]], src_tokens: Sequence[Sequence[str]],
          gold_tuples: Sequence[dict[int, list[Edit]]], found: FoundEdits,
          annotators: Sequence[int], present: np.ndarray, scorer: Any,
          label: str) -> WeightedCounts:
    """The weighted counts of edits already found (PT-M2's and PT-ERRANT's
    common part).

    ``gold_tuples[d][a]``: annotator a's edits of sentence d in the order
    they are summed; the annotator's reference is the source with all of
    them applied (the reference's ``get_ref``). Two passes: the BERTScore
    values of every distinct (source + one edit, reference) pair in one
    batched (and cached) call, then the weights and sums.
    """
    col = {a: k for k, a in enumerate(annotators)}
    H, D, A = len(hypotheses), len(src_tokens), len(annotators)
    refs = [{a: apply_edits(sorted(t, key=lambda x: (x[0], x[1])), src_tokens[d])
             for a, t in gold_tuples[d].items()} for d in range(D)]
    by_sentence: dict[int, list[dict[int, tuple[list[Edit], list[Edit]]]]] = {}
    for (d, _), per in found.items():
        by_sentence.setdefault(d, []).append(per)

    pair_index: dict[tuple[str, str], int] = {}
    pairs: list[tuple[str, str]] = []

    def need(cand: str, ref: str) -> None:
        if (cand, ref) not in pair_index:
            pair_index[(cand, ref)] = len(pairs)
            pairs.append((cand, ref))

    for d in range(D):
        tokens = src_tokens[d]
        src_text = " ".join(tokens)
        for a, ref in refs[d].items():
            need(src_text, ref)
            edits = set(gold_tuples[d][a])
            for per in by_sentence.get(d, ()):
                edits.update(per[a][0])
            for e in sorted(edits):
                need(apply_edits([e], tokens), ref)

    values = scorer.f_scores(pairs, progress_label=label)

    corpus_w = np.zeros((H, D, A, 3), dtype=np.float64)
    sent_w = np.zeros_like(corpus_w)
    for h, lines in enumerate(hypotheses.values()):
        for d, line in enumerate(lines):
            tokens = src_tokens[d]
            src_text = " ".join(tokens)
            per = found[(d, tuple(line.split()))]
            for a, (proposed, correct) in per.items():
                ref = refs[d][a]
                gold_t = gold_tuples[d][a]
                base = values[pair_index[(src_text, ref)]]
                union = sorted(set(proposed) | set(gold_t), key=lambda x: (x[0], x[1]))
                weight = {e: abs(values[pair_index[(apply_edits([e], tokens), ref)]] - base)
                          for e in union}
                k = col[a]
                corpus_w[h, d, k] = _sums(weight, correct, proposed, gold_t)
                if sum(weight.values()) == 0:
                    weight = {e: 1 / len(weight) for e in weight}
                    sent_w[h, d, k] = _sums(weight, correct, proposed, gold_t)
                else:
                    sent_w[h, d, k] = corpus_w[h, d, k]
    return WeightedCounts(tuple(hypotheses), corpus_w, sent_w, present, tuple(annotators))


def _sums(weight: dict[Edit, float], correct: list[Edit], proposed: list[Edit],
          gold: list[Edit]) -> tuple[float, float, float]:
    """Weighted (correct, proposed, gold), each summed in its given order."""
    return (sum(weight[c] for c in correct), sum(weight[e] for e in proposed),
            sum(weight[g] for g in gold))
