"""What a benchmark is: a corpus of named systems plus human scores for them.

A benchmark module reads its files from a data root laid out like the
upstream archives (see ``data/<name>.json``) and returns a
:class:`Benchmark`. Metrics score ``benchmark.corpus``; correlation code only
sees the human and metric score vectors of the chosen system set.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from gecmetrics import paths
from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.readers import parse_json

from ..human import RankingItem


@dataclass(frozen=True)
class Judgments:
    """Sentence-level human rankings: ranking items (1 = best) and what they are
    called in the rows' ``human`` field (``gjg15``; SEEDA: ``sent``/``edit``; GMEG:
    ``segment``, items made from its segment ratings)."""

    items: Sequence[RankingItem]
    kind: str


@dataclass(frozen=True)
class CriterionFacets:
    """The sentence-level facets of one human criterion of a benchmark rated on several
    criteria (sv-gec: grammaticality, fluency, meaning): each criterion ranks the
    outputs of a sentence differently, so the judgments follow ``--human``."""

    judgments: Judgments
    segment_scores: Mapping[str, Sequence[float | None]]


@dataclass(frozen=True)
class HumanCell:
    """One cell of a benchmark's table of human ratings per system and part of the data
    (sv-gec: the paper's Table 4, per CEFR level): ``criterion`` of ``system`` (shown
    as ``label``, the paper's name for it) on ``level``: the mean over ``n`` rated
    outputs, ``other`` outputs left out (rated off the scale), and ``counts`` of each
    rating, highest first (empty for a measure that is not a rating)."""

    criterion: str
    system: str
    label: str
    level: str
    mean: float
    n: int
    other: int
    counts: tuple[int, ...]


@dataclass(frozen=True)
class RatedOutput:
    """One rated output (a ratings benchmark's data row) of sentence ``sentence``,
    shared by ``systems``."""

    row: int  # 0-based data row
    sentence: int  # 0-based index of its source among the distinct sources
    systems: tuple[str, ...]
    ratings: dict[str, float]  # aspect -> mean of the annotators' ratings (NaN: none)
    source: str
    output: str


@dataclass(frozen=True)
class RatedOutputs:
    """A benchmark rated per output, not per system (TMU-GFM): its rows, and the
    pseudo-system of the corpus whose sentences are those outputs (so a score file
    gives ``{hypotheses: [one score per row]}``)."""

    rows: Sequence[RatedOutput]
    hypotheses: str


#: the CoNLL-2014 test set (1,312 sentences) as a :class:`SourceSet` name: the corpus of
#: ``conll14`` and of SEEDA (all of it, or the judged subset)
CONLL14_TEST = "conll14-test"


@dataclass(frozen=True)
class SourceSet:
    """The published test set whose sentences a corpus is made of: its name
    (``conll14-test``) and the 0-based position in it of each corpus sentence, in
    corpus order. Outputs made for the whole test set elsewhere (the adversarial
    outputs of ``--attacks``) are aligned to the corpus through it."""

    name: str
    positions: Sequence[int]


@dataclass
class Benchmark:
    """A meta-evaluation benchmark, ready to score.

    ``human`` maps a kind (``ew``, ``ts``; GMEG: ``rating``) to a score per system;
    ``default_human`` is the kind used when none is asked for;
    ``system_sets`` maps a set name to the systems it keeps (in corpus order).
    ``setting`` is a short human-readable line of how the corpus was built
    (e.g. ``corpus=subset (391 sentences)``); it is printed with every result.

    The optional facets say what else a benchmark offers, for the analyses that
    need it: ``judgments`` (sentence-level rankings), ``sentence_positions`` (the
    corpus column of each judged sentence index, when the corpus is a subset of
    the judged set; None: the same numbering), ``segment_scores`` (per system, a
    rating per sentence, None where missing), ``rated`` (ratings per output).
    ``source_set`` (:class:`SourceSet`): which published test set the corpus
    sentences are, and where each sits in it (None: not a known test set).
    ``corpus_label`` names the scored corpus in every row (default
    ``<name>-test``); ``reference_free``: the corpus's references are stand-ins
    (signatures say ``refs=0``). ``criteria``: per human kind, the sentence-level
    facets of that kind (a benchmark whose outputs were rated on several criteria);
    :meth:`for_human` picks one. ``human_table``: computes the mean human ratings per
    system and part of the data (``--human-table``), on demand (it may take a second).
    """

    name: str
    corpus: Corpus
    human: Mapping[str, Mapping[str, float]]
    system_sets: Mapping[str, Sequence[str]]
    default_set: str
    setting: str = ""
    default_human: str = "ew"
    corpus_label: str = ""
    judgments: Judgments | None = None
    sentence_positions: Sequence[int] | None = None
    segment_scores: Mapping[str, Sequence[float | None]] | None = None
    rated: RatedOutputs | None = None
    reference_free: bool = False
    criteria: Mapping[str, CriterionFacets] | None = None
    human_table: Callable[[], Sequence[HumanCell]] | None = None
    source_set: SourceSet | None = None

    def __post_init__(self) -> None:
        if not self.corpus_label:
            self.corpus_label = f"{self.name}-test"

    def for_human(self, kind: str | None) -> Benchmark:
        """This benchmark with the sentence-level facets of human kind ``kind`` (None:
        the default kind), for a benchmark rated on several criteria; itself otherwise
        (and for a kind it lacks, which :meth:`human_scores` refuses)."""
        facets = None if self.criteria is None else self.criteria.get(kind or self.default_human)
        if facets is None:
            return self
        return dataclasses.replace(self, judgments=facets.judgments,
                                   segment_scores=facets.segment_scores)

    def sentence_columns(self) -> dict[int, int]:
        """Judged sentence index (0-based) -> corpus column."""
        positions = self.sentence_positions
        if positions is None:
            positions = range(self.corpus.num_sentences)
        return {int(p): col for col, p in enumerate(positions)}

    def systems(self, system_set: str | None = None) -> list[str]:
        """The systems of ``system_set`` (default: the benchmark's default set)."""
        name = self.default_set if system_set is None else canonical_set(system_set)
        if name not in self.system_sets:
            raise ConfigError(
                f"benchmark {self.name} has no system set {system_set!r}; "
                f"choose one of: {', '.join(self.system_sets)}"
            )
        return list(self.system_sets[name])

    def set_name(self, system_set: str | None) -> str:
        return self.default_set if system_set is None else canonical_set(system_set)

    def human_scores(self, kind: str, systems: Sequence[str]) -> list[float]:
        if kind not in self.human:
            raise ConfigError(
                f"benchmark {self.name} has no human scores {kind!r}; "
                f"choose one of: {', '.join(self.human)}"
            )
        scores = self.human[kind]
        missing = [s for s in systems if s not in scores]
        if missing:
            raise InputError(f"benchmark {self.name}: no {kind} human score for {missing}")
        return [scores[s] for s in systems]


def rating_items(segment: Mapping[str, Sequence[float | None]], systems: Sequence[str],
                 user: str) -> list[RankingItem]:
    """One ranking item per sentence from per-sentence ratings: ``systems`` grouped by
    equal rating, the highest first (rank 1); a system with no rating (None) is left
    out of that sentence, and a sentence whose rated systems all tie makes no item."""
    items = []
    n = len(next(iter(segment.values()))) if segment else 0
    for sentence in range(n):
        rated: dict[str, float] = {}
        for s in systems:
            value = segment[s][sentence]
            if value is not None:
                rated[s] = value
        values = sorted(set(rated.values()), reverse=True)
        groups = tuple((rank, tuple(s for s in systems if rated.get(s) == value))
                       for rank, value in enumerate(values, start=1))
        if len(groups) > 1:
            items.append(RankingItem(sentence, user, groups))
    return items


class LazyHuman(Mapping[str, Mapping[str, float]]):
    """Human score kinds, some computed on first use: a kind that needs more files
    or seconds of work (TrueSkill runs) costs nothing unless it is asked for."""

    def __init__(self, ready: Mapping[str, Mapping[str, float]],
                 later: Mapping[str, Callable[[], Mapping[str, float]]]) -> None:
        self._ready = dict(ready)
        self._later = dict(later)

    def __getitem__(self, kind: str) -> Mapping[str, float]:
        if kind not in self._ready and kind in self._later:
            self._ready[kind] = self._later[kind]()
        return self._ready[kind]

    def __contains__(self, kind: object) -> bool:  # without computing it
        return kind in self._ready or kind in self._later

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self._ready, *self._later]))

    def __len__(self) -> int:
        return len(set(self._ready) | set(self._later))


def canonical_set(name: str) -> str:
    """The set's own name for an alias the benchmark descriptions declare ("+fluency" is
    this toolkit's name for SEEDA's "+REF-F_GPT-3.5"; "+source", GMEG's name for the
    uncorrected input, is "+INPUT")."""
    from .registry import set_aliases

    return set_aliases().get(name, name)


def description(name: str) -> dict[str, Any]:
    """The data description ``data/<name>.json`` shipped with the package."""
    text = resources.files("gecmetrics.data").joinpath(f"{name}.json").read_text("utf-8")
    return parse_json(text, f"gecmetrics/data/{name}.json", error=ConfigError)


def data_root(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """``--data-dir``, else ``$GECMETRICS_DATA``, else the user cache folder
    (:func:`gecmetrics.paths.data_dir` decides, for ``download`` too)."""
    return paths.data_dir(data_dir)


def require_files(root: Path, desc: Mapping[str, Any], benchmark: str) -> None:
    """Fail with one actionable line when a file the benchmark needs is missing.

    The line names the missing file, ``gecmetrics download <benchmark>`` (which
    fetches and checks it) and ``--data-dir``.
    """
    from gecmetrics.download import resolve_benchmark

    try:
        fetch = f"gecmetrics download {resolve_benchmark(benchmark)}"
    except ConfigError:  # a benchmark the downloader does not know
        fetch = "gecmetrics download"
    missing = [entry["path"] for entry in desc["files"] if not (root / entry["path"]).is_file()]
    if not missing:
        return
    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    where = f"data folder {root}" + ("" if root.is_dir() else " (not found)")
    raise InputError(
        f"benchmark {benchmark}: missing file {missing[0]}{more} in {where}; run `{fetch}` "
        f"(add --data-dir DIR to fetch elsewhere) or pass --data-dir DIR pointing to a "
        f"complete copy of the benchmark data (or set ${paths.ENV_DATA})"
    )
