"""Scoring in the MultiGEC-2025 way: GLEU and edit P/R/F0.5 per language and corpus.

MultiGEC-2025's scorer (spraakbanken/multigec-2025,
``scripts/local_eval/gleu_errant/gleu_errant_evaluation.py``) puts every
essay on one line tokenised by syntok, then runs, per subcorpus:

* Koyama's ``gleu -d 4 -f -n 4 -t word`` (PyPI ``gleu``): GLEU with words
  split on whitespace, n-grams up to 4, 500 sampling rounds drawn as the
  original GLEU+ tool draws them (``-f``): gecmetrics' ``gleu`` with its
  defaults (``tokenize=word, n=4, variant=official, mode=sampling,
  iterations=500, seed=official``);
* ``errant_parallel`` on source and hypothesis, and on source and each
  reference, then ``errant_compare`` (span-based correction F0.5, the best
  reference per essay): gecmetrics' ``errant:references=text``.

The organisers' reference files give an essay that lacks its second (third
...) reference a copy of its first one (``split_to_parfiles``,
``copy_ref1=True``): :func:`gecmetrics.essays.essay_corpus` does the same,
so an essay is scored against the references it has.

Only English gets edits from ERRANT here (MultiGEC's own ERRANT fork parses
other languages with spaCy-UDPipe models, which are not on the package
index); other languages get edits from the language-neutral extractor
(``errant:edits=neutral``, docs/edits-neutral.md), which needs no tagger but
is not MultiGEC's fork: their P/R/F0.5 are comparable among systems scored
here, not with MultiGEC's leaderboard (docs/multigec.md).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.essays import TOKENIZATIONS, essay_corpus
from gecmetrics.registry import metric_from_spec
from gecmetrics.validate import LANGUAGE_CODES

#: The GLEU of MultiGEC's scorer: Koyama's ``gleu -n 4 -f -t word`` (500 rounds).
GLEU_SPEC = "gleu:tokenize=word,n=4,variant=official,mode=sampling,iterations=500,seed=official"

#: The longest essay pair ERRANT aligns here, in tokens (``errant:max_tokens``):
#: its alignment takes time and memory in the product of the two lengths, about
#: 1 s and 100 MB for 1,000 x 1,000 tokens; MultiGEC's English essays (Write &
#: Improve) are a few hundred tokens long. A longer essay is an InputError naming
#: it, before spaCy is loaded; raise it with ``--max-tokens``.
ERRANT_MAX_TOKENS = 1000

#: The errant metric as MultiGEC's scorer runs errant (text references, F0.5).
ERRANT_SPEC = "errant:references=text,beta=0.5"

#: The language-neutral edits on both sides (any language, no spaCy).
NEUTRAL_SPEC = "errant:references=text,beta=0.5,edits=neutral"

#: MultiGEC-2025's languages (the ``xx`` of its file names), named in the message for a
#: ``--lang`` that is no ISO 639-1 code; any code is accepted (GLEU and the
#: language-neutral edits work on every language).
MULTIGEC_LANGUAGES = ("cs", "de", "el", "en", "et", "is", "it", "lv", "ru", "sl", "sv", "uk")

#: Where edit scores come from: ``auto`` (ERRANT for English, the language-neutral
#: edits elsewhere), ``errant`` (English only), ``neutral`` (every language),
#: ``none`` (GLEU only).
Edits = Literal["auto", "errant", "neutral", "none"]
EDITS: tuple[Edits, ...] = get_args(Edits)

#: MultiGEC's file names: ``{lang}-{corpus}-orig|refN|NAME-{split}.md``.
FILE_NAME = re.compile(
    r"(?P<lang>[a-z]{2})-(?P<corpus>[^-]+)-(?P<role>[^-]+)-(?P<split>[a-z]+)\.md")


@dataclass(frozen=True)
class CorpusFiles:
    """One subcorpus: its language, name, source, references and hypotheses."""

    lang: str
    corpus: str
    source: str
    references: tuple[str, ...]
    hypotheses: tuple[str, ...]


@dataclass(frozen=True)
class MultigecOptions:
    """What ``gecmetrics multigec`` scores, checked when made (before any file is read).

    Either ``data_dir`` (MultiGEC's ``orig``/``refN`` files of ``split``) with
    ``hyp_dir`` (the hypotheses, named ``{lang}-{corpus}-NAME-{split}.md``), or
    one corpus: ``source``, ``references``, ``hypotheses`` and ``lang``.
    """

    source: str | None = None
    references: Sequence[str] = ()
    hypotheses: Sequence[str] = ()
    lang: str | None = None
    data_dir: str | None = None
    hyp_dir: str | None = None
    split: str = "dev"
    tokenize: str = "syntok"
    edits: Edits = "auto"
    #: ERRANT's bound (:data:`ERRANT_MAX_TOKENS` when None); given, it needs a corpus
    #: that ERRANT aligns (English, with ``edits`` auto or errant).
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "references", tuple(self.references))
        object.__setattr__(self, "hypotheses", tuple(self.hypotheses))
        if self.tokenize not in TOKENIZATIONS:
            raise ConfigError(f"--tokenize {self.tokenize!r} is unknown; use one of: "
                              f"{', '.join(TOKENIZATIONS)}")
        if self.edits not in EDITS:
            raise ConfigError(f"--edits {self.edits!r} is unknown; use one of: "
                              f"{', '.join(EDITS)}")
        if self.max_tokens is not None and (
                isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int)
                or self.max_tokens < 1):
            raise ConfigError(f"--max-tokens must be an integer >= 1 (got {self.max_tokens!r})")
        by_dir = self.data_dir is not None or self.hyp_dir is not None
        by_files = self.source is not None or self.references or self.hypotheses
        if by_dir == bool(by_files):
            raise ConfigError("give either --data DIR with --hyp-dir DIR, or -s SOURCE -r REF... "
                              "-c HYP... --lang XX")
        if by_dir and (self.data_dir is None or self.hyp_dir is None):
            raise ConfigError("--data and --hyp-dir go together: the MultiGEC files of one split "
                              "and the hypotheses")
        if by_files:
            if self.source is None or not self.references or not self.hypotheses:
                raise ConfigError("one corpus needs -s SOURCE, -r REF... and -c HYP...")
            if self.lang not in LANGUAGE_CODES:
                raise ConfigError(f"--lang must be an ISO 639-1 code in lower case, such as "
                                  f"MultiGEC-2025's {', '.join(MULTIGEC_LANGUAGES)} (got "
                                  f"{self.lang!r})")
        if self.edits == "errant" and self.lang not in (None, "en"):
            raise ConfigError(edit_refusal(self.lang or ""))


def edit_refusal(lang: str) -> str:
    """Why there is no edit F for ``lang`` (one line)."""
    return (f"--edits errant is English only here (MultiGEC's ERRANT fork needs spaCy-UDPipe "
            f"models) but {lang!r} was asked for; use --edits auto or neutral (the "
            f"language-neutral edits) or none")


def max_tokens_refusal(edits: str) -> str:
    """Why ``--max-tokens`` applies to nothing here (one line)."""
    what = ("no edits are scored (--edits none)" if edits == "none" else
            "the edits are the language-neutral ones (no corpus here is English, or "
            "--edits neutral), which have their own bound (MAX_CELLS, docs/edits-neutral.md)")
    return (f"--max-tokens bounds ERRANT's alignment of English essays, but {what}; drop "
            "--max-tokens")


def find_corpora(data_dir: str, hyp_dir: str, split: str) -> list[CorpusFiles]:
    """The subcorpora of ``split`` in ``data_dir`` that have hypotheses in ``hyp_dir``."""
    def named(folder: str, what: str) -> list[tuple[str, re.Match[str]]]:
        try:
            names = sorted(os.listdir(folder))
        except OSError as err:
            raise ConfigError(f"{what} {folder} cannot be read ({err.strerror or err})") from None
        found = [(name, FILE_NAME.fullmatch(name.lower())) for name in names]
        return [(os.path.join(folder, name), m) for name, m in found
                if m is not None and m.group("split") == split]

    data = named(data_dir, "--data")
    hyps = named(hyp_dir, "--hyp-dir")
    out: list[CorpusFiles] = []
    for path, m in data:
        if m.group("role") != "orig":
            continue
        if m.group("lang") not in LANGUAGE_CODES:
            raise InputError(f"{path}: {m.group('lang')!r} is no ISO 639-1 language code; "
                             f"MultiGEC's files are named xx-corpus-orig-{split}.md with xx a "
                             f"language such as {', '.join(MULTIGEC_LANGUAGES)}")
        key = (m.group("lang"), m.group("corpus"))
        refs = sorted(((int(r.group("role")[3:]), p) for p, r in data
                       if (r.group("lang"), r.group("corpus")) == key
                       and re.fullmatch(r"ref\d+", r.group("role"))))
        if not refs:
            raise InputError(f"{path}: no reference file {key[0]}-{key[1]}-ref1-{split}.md "
                             f"beside it in --data")
        outputs = tuple(p for p, h in hyps if (h.group("lang"), h.group("corpus")) == key
                        and h.group("role") != "orig" and not re.fullmatch(r"ref\d+",
                                                                             h.group("role")))
        if outputs:
            out.append(CorpusFiles(key[0], key[1], path, tuple(p for _, p in refs), outputs))
    if not out:
        raise InputError(f"no hypothesis in --hyp-dir {hyp_dir} matches a corpus of --data "
                         f"{data_dir} for split {split!r} (names like "
                         f"xx-corpus-hypo1-{split}.md beside xx-corpus-orig-{split}.md)")
    return out


@dataclass(frozen=True)
class MultigecRow:
    """One hypothesis file of one subcorpus: GLEU and edit P/R/F0.5 (0-1; None: not scored)."""

    lang: str
    corpus: str
    hypothesis: str
    essays: int
    references: int
    gleu: float
    precision: float | None
    recall: float | None
    f05: float | None
    edits: str

    def to_json(self) -> dict[str, Any]:
        return {"language": self.lang, "corpus": self.corpus, "hypothesis": self.hypothesis,
                "essays": self.essays, "references": self.references, "gleu": self.gleu,
                "precision": self.precision, "recall": self.recall, "f0.5": self.f05,
                "edits": self.edits}


@dataclass(frozen=True)
class MultigecResults:
    """The rows, in language and corpus order, and the notes meant for stderr."""

    rows: tuple[MultigecRow, ...]
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> list[dict[str, Any]]:
        return [row.to_json() for row in self.rows]


def corpora_of(options: MultigecOptions) -> list[CorpusFiles]:
    """The subcorpora that ``options`` name."""
    if options.data_dir is not None and options.hyp_dir is not None:
        return find_corpora(options.data_dir, options.hyp_dir, options.split)
    assert options.source is not None and options.lang is not None
    name = os.path.basename(options.source)
    m = FILE_NAME.fullmatch(name.lower())
    corpus = m.group("corpus") if m else os.path.splitext(name)[0]
    return [CorpusFiles(options.lang, corpus, options.source, tuple(options.references),
                        tuple(options.hypotheses))]


def run(options: MultigecOptions) -> MultigecResults:
    """Score every subcorpus of ``options``; every file is read and checked first."""
    gleu = metric_from_spec(GLEU_SPEC)
    errant = None
    files = corpora_of(options)
    notes: list[str] = []  # none today; kept for the renderers' contract
    foreign = [f for f in files if f.lang != "en"]
    if options.edits == "errant" and foreign:
        raise ConfigError(edit_refusal(foreign[0].lang))
    wants_errant = options.edits == "errant" or (
        options.edits == "auto" and any(f.lang == "en" for f in files))
    if options.max_tokens is not None and not wants_errant:
        raise ConfigError(max_tokens_refusal(options.edits))
    if wants_errant:
        limit = ERRANT_MAX_TOKENS if options.max_tokens is None else options.max_tokens
        errant = metric_from_spec(f"{ERRANT_SPEC},max_tokens={limit}")
    neutral = metric_from_spec(NEUTRAL_SPEC) if options.edits in ("auto", "neutral") else None
    read = [(f, essay_corpus(f.source, f.references, f.hypotheses, options.tokenize))
            for f in sorted(files, key=lambda f: (f.lang, f.corpus))]
    rows: list[MultigecRow] = []
    for f, essays in read:
        corpus = essays.corpus
        gleu_scores = {r.hypothesis: float(r.score or 0.0) for r in gleu.evaluate(corpus)}
        edit_scores: dict[str, Any] = {}
        used = "none"
        edit_metric = errant if f.lang == "en" and errant is not None else neutral
        if edit_metric is not None:
            edit_scores = {r.hypothesis: r for r in edit_metric.evaluate(corpus)}
            used = "errant" if edit_metric is errant else "neutral"
        for hyp in corpus.hypotheses:
            e = edit_scores.get(hyp)
            rows.append(MultigecRow(
                f.lang, f.corpus, hyp, corpus.num_sentences, len(corpus.references),
                gleu_scores[hyp],
                None if e is None else e.precision, None if e is None else e.recall,
                None if e is None else e.score, used))
    return MultigecResults(tuple(rows), tuple(notes))
