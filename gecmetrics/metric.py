"""The metric interface: a Config dataclass, statistics computed once, scores.

A metric turns a :class:`~gecmetrics.corpus.Corpus` into :class:`Statistics`
(its sufficient statistics per system and sentence, kept unsummed), and the
statistics into scores at three levels:

* ``corpus``: statistics summed over sentences, then the formula;
* ``sentence``: the formula per sentence;
* ``mean``: the mean of the sentence scores.

Because the statistics are kept per sentence, a bootstrap resample is a
gather (``sentences=``) and a beta sweep is a loop over the cheap last step.

Two rules hold for every metric:

* **beta**: ``beta=None`` passed to any :class:`Statistics` method means the
  beta configured on the metric *instance* that made the statistics
  (:attr:`Statistics.default_beta`); metrics without a beta ignore ``beta``.
  So ``metric.statistics(c).corpus_scores(None)`` equals ``metric.evaluate(c)``.
* **cache key**: statistics are cached on the corpus under
  :meth:`Metric.cache_key`, derived from every config field except those
  marked ``counting=False`` (:data:`LAST_STEP`), which only enter the final
  formula and are bound to the statistics object instead. A new option is in
  the key unless it is marked, so it can never return stale statistics.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

import numpy as np

from . import extras
from .corpus import Corpus
from .errors import ConfigError, GecMetricsError
from .signature import metric_signature
from .tokenizers.lookup import tokenizer_language
from .validate import (  # noqa: F401 (LEVELS, Level, check_beta re-exported: metrics use them)
    LEVELS,
    Level,
    check_beta,
    check_betas,
    check_instance,
    check_mapping,
    check_sentences,
    check_text,
)

if TYPE_CHECKING:
    from .paired_result import PairedResult

R = TypeVar("R")

#: Field metadata of a config option that only enters the last step (the
#: formula from summed statistics), not the counting: such a field is left out
#: of :meth:`Metric.cache_key` and bound to the statistics object instead. Only
#: ``beta`` is such a field; :meth:`Statistics.bound` is what binds it.
LAST_STEP: Mapping[str, Any] = {"counting": False}
#: Field metadata for an option added after scores were published with signatures:
#: the signature names it only when it differs from its default, so every signature
#: made with the default options stays as it was (``normalize=`` of the n-gram
#: metrics: :func:`gecmetrics.signature.metric_signature`).
SIGNED_WHEN_SET: Mapping[str, Any] = {"signed_when_set": True}


class LazyDetails(Mapping[str, Any]):
    """A breakdown computed on first access, so sweeps over many betas stay cheap."""

    def __init__(self, build: Any, *args: Any) -> None:
        self._build, self._args = build, args
        self._data: Mapping[str, Any] | None = None

    def _get(self) -> Mapping[str, Any]:
        if self._data is None:
            self._data = self._build(*self._args)
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._get()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())

    def __repr__(self) -> str:
        return repr(dict(self._get()))


@dataclass(frozen=True)
class Score:
    """One system's score at corpus or mean level, all values in 0-1."""

    score: float
    precision: float | None = None
    recall: float | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SystemResult:
    """What ``score`` reports for one (metric, system, beta, level)."""

    metric: str
    spec: str
    hypothesis: str
    beta: float | None
    level: str
    score: float | None = None
    precision: float | None = None
    recall: float | None = None
    scores: list[float] | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    #: The comparison with the baseline when a paired test was asked for
    #: (``score --paired-bootstrap/--paired-ar``; :mod:`gecmetrics.paired`).
    paired: PairedResult | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON object of the CLI contract (0-1 floats at full precision)."""
        out: dict[str, Any] = {
            "metric": self.metric,
            "spec": self.spec,
            "hypothesis": self.hypothesis,
            "beta": self.beta,
            "level": self.level,
        }
        if self.level == "sentence":
            out["scores"] = list(self.scores or [])
        else:
            out["score"] = self.score
            out["precision"] = self.precision
            out["recall"] = self.recall
        if self.paired is not None:
            out.update(self.paired.to_json())
        return out


def _record(cls: type[R], **fields: Any) -> R:
    """An instance of the frozen dataclass ``cls`` with every field given, made without
    its ``__init__``, which sets each field through ``object.__setattr__`` (half the
    cost of a result; a 501-beta sweep of 13 systems and two metrics makes 13,026).
    tests/test_metric_contract.py keeps each use equal to the constructor."""
    made = object.__new__(cls)
    made.__dict__.update(fields)
    return made


def quick_score(score: float, precision: float | None, recall: float | None,
                details: Mapping[str, Any]) -> Score:
    """``Score(score, precision, recall, details)`` (:func:`_record`): for a metric that
    makes thousands at once (GREEN's beta sweep)."""
    return _record(Score, score=score, precision=precision, recall=recall, details=details)


def _corpus_result(metric: str, spec: str, hypothesis: str, beta: float | None, level: str,
                   score: Score) -> SystemResult:
    """``SystemResult(metric, spec, hypothesis, beta, level, score.score, score.precision,
    score.recall, details=score.details)`` (:func:`_record`)."""
    return _record(SystemResult, metric=metric, spec=spec, hypothesis=hypothesis, beta=beta,
                   level=level, score=score.score, precision=score.precision,
                   recall=score.recall, scores=None, details=score.details, paired=None)


def _checks_beta(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method(self, beta, sentences=None, ...)`` with ``beta`` and ``sentences`` checked
    (:func:`check_beta`, :func:`check_sentences`) before it runs."""
    @functools.wraps(method)
    def checked(self: Statistics, *args: Any, **kwargs: Any) -> Any:
        beta = args[0] if args else kwargs.get("beta")
        if beta is not None:
            check_beta(beta)
        sentences = args[1] if len(args) > 1 else kwargs.get("sentences")
        if sentences is not None:
            check_sentences(sentences, self.num_sentences)
        return method(self, *args, **kwargs)

    checked._checks_arguments = True  # type: ignore[attr-defined]
    return checked


def _checks_betas(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method(self, betas, ...)`` with every beta of ``betas`` checked."""
    @functools.wraps(method)
    def checked(self: Statistics, *args: Any, **kwargs: Any) -> Any:
        betas = args[0] if args else kwargs.get("betas")
        if isinstance(betas, Sequence) and not isinstance(betas, str):
            check_betas([b for b in betas if b is not None])  # None: the default beta
        else:
            check_betas(betas)  # a lone number or an iterator: refused, or checked
        return method(self, *args, **kwargs)

    checked._checks_arguments = True  # type: ignore[attr-defined]
    return checked


#: The public methods of :class:`Statistics` whose arguments are checked, by the
#: kind of check: ``(beta, sentences=None)`` or ``(betas)``.
_CHECKED_METHODS: Mapping[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "corpus": _checks_beta, "corpus_scores": _checks_beta, "mean": _checks_beta,
    "sentence": _checks_beta, "sentence_statistics": _checks_beta,
    "corpus_many": _checks_betas, "precompute": _checks_betas,
}


class Statistics(ABC):
    """Per-sentence sufficient statistics of every system, for one metric.

    Every method taking ``beta`` reads ``None`` as :attr:`default_beta`, the
    beta of the metric instance that made the object (see :meth:`bound`);
    statistics of metrics without a beta ignore ``beta`` altogether.

    These methods are the Python API of every metric, so their arguments are
    checked as the CLI checks its options, in every subclass (a metric's own
    methods are wrapped when its class is made, :meth:`__init_subclass__`): a
    beta that is not a finite number in [0, MAX_BETA] and ``sentences=`` that are
    not in-range integer indices raise :class:`ConfigError` instead of a NaN, a
    silent F at another beta or an OverflowError.
    """

    systems: tuple[str, ...]
    #: The beta that ``beta=None`` stands for. Subclasses set their metric's
    #: config default; :meth:`Metric.statistics` binds the instance's value.
    default_beta: float | None = None
    #: How many sentences the statistics cover, for the range check of
    #: ``sentences=``; set by :meth:`Metric.cached_statistics` (None: unknown,
    #: then only negative indices are refused before the gather).
    num_sentences: int | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, wrap in _CHECKED_METHODS.items():
            method = cls.__dict__.get(name)
            if callable(method) and not getattr(method, "_checks_arguments", False):
                setattr(cls, name, wrap(method))

    def resolve_beta(self, beta: float | None) -> float:
        """``beta``, or :attr:`default_beta` when ``None``: the one rule for every metric."""
        chosen = self.default_beta if beta is None else beta
        if chosen is None:
            raise ConfigError(f"{type(self).__name__} has no beta; give one explicitly")
        return float(chosen)

    def bound(self, beta: float | None) -> Statistics:
        """These statistics with ``beta=None`` meaning ``beta``.

        A shallow copy when ``beta`` differs: the arrays and the per-beta caches
        (all keyed by explicit betas) are shared, so metric instances differing
        only in beta share one computation.
        """
        if beta is None or beta == self.default_beta:
            return self
        out = copy.copy(self)
        out.default_beta = beta
        return out

    @abstractmethod
    def corpus(self, beta: float | None, sentences: np.ndarray | None = None) -> list[Score]:
        """Corpus-level score per system (optionally over a subset/resample of sentences)."""

    @abstractmethod
    def sentence(self, beta: float | None) -> np.ndarray:
        """Sentence-level scores, shape (systems, sentences)."""

    def corpus_many(self, betas: Sequence[float | None]) -> list[list[Score]]:
        """:meth:`corpus` for several betas; metrics may vectorise this."""
        return [self.corpus(beta) for beta in betas]

    def precompute(self, betas: Sequence[float | None]) -> None:  # noqa: B027 (optional hook)
        """Prepare many betas at once (a hook for sweeps; the default does nothing)."""

    def mean(self, beta: float | None, sentences: np.ndarray | None = None) -> np.ndarray:
        """Mean of sentence scores per system."""
        scores = self.sentence(beta)
        if sentences is not None:
            scores = scores[:, sentences]
        return scores.mean(axis=1)

    def corpus_scores(self, beta: float | None, sentences: np.ndarray | None = None) -> np.ndarray:
        """Just the corpus-level numbers, shape (systems,)."""
        return np.array([s.score for s in self.corpus(beta, sentences)])

    def sentence_statistics(self, beta: float | None
                            ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]] | None:
        """The corpus score as a formula of summed per-sentence statistics, or None.

        Returns ``(stats, formula)``: ``stats`` of shape (systems, sentences, ...)
        holds each sentence's sufficient statistics with every per-sentence choice
        (reference, annotator) fixed as on the full corpus, and ``formula`` turns
        sums over sentences, shape (..., systems, ...), into corpus scores
        (..., systems) equal to :meth:`corpus_scores`. Paired significance tests
        (:mod:`gecmetrics.paired`) need it to swap one sentence's statistics
        between two systems (approximate randomization) and use it to score
        thousands of resamples as one matrix product. ``None`` (the default):
        the corpus score is not such a formula (e.g. GLEU averaged over
        reference draws); bootstrap then falls back to :meth:`corpus_scores`.
        """
        return None


# The methods Statistics defines itself (the abstract ones are wrapped in each subclass).
for _name, _wrap in _CHECKED_METHODS.items():
    if not getattr(Statistics.__dict__[_name], "__isabstractmethod__", False):
        setattr(Statistics, _name, _wrap(Statistics.__dict__[_name]))



@dataclass(frozen=True)
class SentenceCounts:
    """Named integer arrays of per-sentence statistics; ``axes[name]`` is the
    axis of ``arrays[name]`` that runs over sentences."""

    arrays: Mapping[str, np.ndarray]
    axes: Mapping[str, int]

    @classmethod
    def concat(cls, parts: Sequence[SentenceCounts]) -> SentenceCounts:
        """The counts of consecutive chunks as one."""
        first = parts[0]
        if len(parts) == 1:
            return first
        arrays = {name: np.concatenate([p.arrays[name] for p in parts], axis=axis)
                  for name, axis in first.axes.items()}
        return cls(arrays, first.axes)

    @property
    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in self.arrays.values())


@dataclass(frozen=True)
class Counting:
    """How a metric's statistics are made a part of the sentences at a time.

    ``count`` turns a part's corpus into its per-sentence counts; ``join``
    turns the counts of consecutive parts, in order, into one (by default
    :meth:`SentenceCounts.concat`); ``statistics`` builds the metric's
    statistics from the system names and joined counts. ``needs_gold``: a
    part's corpus must carry its M2 gold edits (so files cannot be streamed
    by lines). ``not_additive``: why the corpus score is not a formula of the
    parts' sums of sentence statistics, each sentence with its own reference
    choice (None: it is, so parts can be reduced to sums);
    ``additive_variant``: the spec of an option of the metric whose
    statistics are additive, if one exists.
    """

    count: Callable[[Corpus], Any]
    statistics: Callable[[tuple[str, ...], Any], Statistics]
    join: Callable[[Sequence[Any]], Any] = SentenceCounts.concat
    needs_gold: bool = False
    not_additive: str | None = None
    additive_variant: str | None = None


@dataclass(frozen=True)
class MetricConfig:
    """Base of every metric's options. Subclasses add fields and checks."""

    def validate(self) -> None:
        """Raise :class:`ConfigError` for invalid values (called after init)."""

    def __post_init__(self) -> None:
        # The config's own checks speak first (their words name the metric); a value of
        # the wrong type that trips them, or that they let pass, is named here.
        try:
            self.validate()
        except GecMetricsError:
            raise
        except Exception:
            _check_field_types(self)
            raise
        _check_field_types(self)


@functools.cache
def _field_kinds(config_cls: type) -> dict[str, tuple[type, ...]]:
    """{field: the Python types its annotation allows}, for the fields whose annotation
    is made of str, int, float, bool, None and Literals of strings (the others: not
    checked here, their ``validate`` does)."""
    import numbers
    import os

    simple: dict[Any, tuple[type, ...]] = {
        str: (str, os.PathLike), int: (numbers.Real,), float: (numbers.Real,),
        bool: (bool, numbers.Real), type(None): (type(None),)}
    hints = typing.get_type_hints(config_cls)
    out = {}
    for f in dataclasses.fields(config_cls):
        hint = hints.get(f.name)
        parts = typing.get_args(hint) if typing.get_origin(hint) in (
            typing.Union, getattr(__import__("types"), "UnionType", None)) else (hint,)
        kinds: list[type] = []
        for part in parts:
            if typing.get_origin(part) is Literal:
                values = typing.get_args(part)
                if not all(isinstance(v, str) for v in values):
                    break
                kinds.append(str)
            elif part in simple:
                kinds.extend(simple[part])
            else:
                break
        else:
            out[f.name] = tuple(kinds)
    return out


def _check_field_types(config: MetricConfig) -> None:
    """Each option of a simple type holds a value of that type, so that a list or None
    in the wrong place is one line naming the option, not a TypeError from a check."""
    for name, kinds in _field_kinds(typing.cast(Any, type(config))).items():
        value = getattr(config, name)
        if not isinstance(value, kinds):
            words = {str: "a string", bool: "True or False"}
            allowed = ["True or False"] if bool in kinds else sorted(
                {words.get(k, "a number") for k in kinds
                 if k is not type(None) and k.__module__ != "os"})
            raise ConfigError(f"option {name} must be {' or '.join(allowed)}"
                              f"{' or None' if type(None) in kinds else ''} "
                              f"(got {type(value).__name__}: {value!r:.60})")


C = TypeVar("C", bound=MetricConfig)
S = TypeVar("S", bound=Statistics)


def counting_options(config: MetricConfig) -> tuple[Any, ...]:
    """The values of every field of ``config`` not marked :data:`LAST_STEP`, in order."""
    check_instance(config, "config", MetricConfig, "a metric's Config (metric.config)")
    return tuple(getattr(config, f.name) for f in dataclasses.fields(config)
                 if f.metadata.get("counting", True))


class Metric(ABC, Generic[C]):
    """Base class of all metrics. Subclasses set ``name``, ``Config``, ``description``."""

    name: ClassVar[str]
    description: ClassVar[str]
    Config: ClassVar[type[Any]] = MetricConfig
    has_beta: ClassVar[bool] = False
    #: True for a metric that reads only sources and hypotheses (SOME, IMPARA,
    #: Scribendi): it may run on benchmarks without references (tmu-gfm).
    reference_free: ClassVar[bool] = False
    #: True for a metric that scores an item against the references it has when
    #: items have a varying number of them (:attr:`Corpus.reference_counts`):
    #: GLEU draws one reference per item and ERRANT picks the best, so the copies
    #: of an item's first reference filling its missing places change nothing
    #: but the weight of that reference in GLEU's draws, exactly as in MultiGEC.
    #: Others would average over the copies: they are refused on such a corpus.
    partial_references: ClassVar[bool] = False
    #: The optional extras (:data:`gecmetrics.extras.EXTRAS`) the metric needs,
    #: e.g. ``("errant",)``: checked when the metric is made, so a missing one is
    #: one line before any file is read. Options that change the need:
    #: override :meth:`required_extras`.
    extras: ClassVar[tuple[str, ...]] = ()
    #: How the per-sentence counts of :meth:`counting` run over references: for each
    #: counts array, the axis that indexes the reference (an array without an entry
    #: depends on the hypothesis only). Declared by a metric whose every count of a
    #: (sentence, reference) pair depends on that pair alone, so the counts of K
    #: references fold into K single-reference rows (:func:`gecmetrics.mbr.fold_references`:
    #: MBR counts each candidate once and compares all pairs). None: not declared.
    reference_axes: ClassVar[Mapping[str, int] | None] = None
    config: C

    def __init__(self, config: C | None = None, **options: Any) -> None:
        if config is None:
            config = make_config(self.Config, options, self.name)
        elif options:
            config = dataclasses.replace(config, **options)
        self.config = config
        for extra in self.required_extras():
            extras.check(f"metric {self.name!r}", extra)

    def required_extras(self) -> tuple[str, ...]:
        """The extras this metric, with its options, needs (default: :attr:`extras`)."""
        return self.extras

    # -- identity -----------------------------------------------------------
    @property
    def display_name(self) -> str:
        return self.name

    @functools.cached_property
    def spec(self) -> str:
        """Canonical ``name:key=value,...`` of the non-default options."""
        defaults = self.Config()
        changed = [
            f"{f.name}={getattr(self.config, f.name)}"
            for f in dataclasses.fields(self.config)
            if getattr(self.config, f.name) != getattr(defaults, f.name)
        ]
        return self.name + (":" + ",".join(changed) if changed else "")

    def signature(self) -> str:
        """All options spelled out, for reproducibility (like sacrebleu's signature)."""
        return str(metric_signature(self))

    def gold_from_m2(self, corpus: Corpus) -> bool:
        """Whether this metric's scores on ``corpus`` come from the gold edits of its
        M2 file rather than from its text references (then a score's signature
        names the M2 file's annotators, even when ``-r`` gave text references for
        the other metrics). False by default: text references."""
        return False

    def language(self) -> str | None:
        """The one language this metric's tools are made for (ISO 639-1), or None where
        they work on any: ERRANT's edits (an ``edits`` option at ``errant``: ERRANT,
        CLEME, GoToScorer) are in its ``lang`` option (English when it has none), and a
        ``tokenize`` option may name a tokenizer made for one language (ja, ko, zh).
        Meta-evaluation notes a metric whose language is not its benchmark's."""
        config = self.config
        if getattr(config, "edits", None) == "errant":
            return str(getattr(config, "lang", "en"))
        tokenize = getattr(config, "tokenize", None)
        if isinstance(tokenize, str):
            return tokenizer_language(tokenize)
        return None

    def extra_signature(self, corpus: Corpus) -> dict[str, Any]:
        """Signature fields beyond the options: what this metric's scores on
        ``corpus`` also depend on (GoToScorer: the systems that define its
        weights). None by default."""
        return {}

    @property
    def default_beta(self) -> float | None:
        return getattr(self.config, "beta", None) if self.has_beta else None

    def paired_ar_problem(self) -> str | None:
        """Why ``--paired-ar`` cannot test this metric, or None when it can.

        Asked before any file is read; a metric whose statistics return None from
        :meth:`Statistics.sentence_statistics` overrides it with the reason.
        """
        return None

    def text_references_problem(self) -> str | None:
        """Why this metric, with these options, cannot score from text references alone
        (it reads gold edits from an M2 file), or None when texts suffice.

        Asked at construction by what only ever has texts (rewards, MBR selection), so
        that such a metric is refused there in one line rather than at its first batch.
        By default, a ``references=m2`` option asks for the M2 file's edits.
        """
        if getattr(self.config, "references", None) == "m2":
            return f"{self.spec} reads gold edits from an M2 file (references=m2)"
        return None

    def sentence_scores_problem(self) -> str | None:
        """Why this metric's sentence score is not a function of that sentence alone
        (source, references, hypothesis), or None when it is.

        Edit-level attribution (:mod:`gecmetrics.workflows.attribution`) scores many
        corrected versions of one sentence as rows of a new corpus; a metric whose
        sentence scores depend on the other systems or sentences scored with it
        overrides this with the reason, and attribution refuses it in one line.
        """
        return None

    def counting(self) -> Counting | None:
        """The optional capability of scoring by parts: how this metric's statistics
        are made from per-sentence counts of parts of the corpus, joined in order
        (:class:`~gecmetrics.chunked.Counting`); None (the default): only from a
        whole corpus.

        A metric that has it is counted by chunks when ``score`` reads files
        (bounded memory, ``--jobs`` processes) and can be scored on a Dask
        cluster (:mod:`gecmetrics.workflows.distributed`); its counting says whether its
        statistics are additive over parts.
        """
        return None

    # -- scoring ------------------------------------------------------------
    @abstractmethod
    def statistics(self, corpus: Corpus) -> Statistics:
        """Compute (or fetch from the corpus cache) this metric's statistics.

        Implementations go through :meth:`cached_statistics`, so that the key is
        derived and ``beta=None`` means this instance's beta.
        """

    def cache_key(self) -> tuple[Any, ...]:
        """The corpus-cache key of this metric's statistics, derived from the config.

        The metric's class and every config field that affects counting
        (:func:`counting_options`); fields marked :data:`LAST_STEP` (beta) are
        left out, since :meth:`cached_statistics` binds them to the result.
        """
        return (type(self), counting_options(self.config))

    def cached_statistics(self, corpus: Corpus, compute: Callable[[], S]) -> S:
        """``compute()`` once per corpus and :meth:`cache_key`, bound to this instance's beta
        and told the corpus' number of sentences (the range of ``sentences=``)."""
        check_partial_references(self, corpus)

        def made() -> S:
            stats = compute()
            stats.num_sentences = corpus.num_sentences
            return stats

        stats = corpus.cached(self.cache_key(), made)
        return typing.cast(S, stats.bound(self.default_beta)) if self.has_beta else stats

    def evaluate(
        self,
        corpus: Corpus,
        level: str = "corpus",
        betas: Iterable[float] | None = None,
    ) -> list[SystemResult]:
        """Score every system of ``corpus`` at ``level`` for each beta."""
        if level not in LEVELS:
            raise ConfigError(f"unknown level {level!r}; choose one of: {', '.join(LEVELS)}")
        return self.evaluate_statistics(self.statistics(corpus), level, betas)

    def evaluate_statistics(
        self,
        stats: Statistics,
        level: str = "corpus",
        betas: Iterable[float] | None = None,
    ) -> list[SystemResult]:
        """:meth:`evaluate` from statistics already made (e.g. counted chunk by chunk)."""
        if level not in LEVELS:
            raise ConfigError(f"unknown level {level!r}; choose one of: {', '.join(LEVELS)}")
        beta_list = self.resolve_betas(betas)
        stats.precompute(beta_list)
        results = []
        shown, spec = self.display_name, self.spec  # once: a sweep makes thousands of rows
        if level == "corpus":
            for beta, per_system in zip(beta_list, stats.corpus_many(beta_list), strict=True):
                results += [_corpus_result(shown, spec, name, beta, level, sc)
                            for name, sc in zip(stats.systems, per_system, strict=True)]
            return results
        for beta in beta_list:
            if level == "mean":
                means = stats.mean(beta)
                for name, value in zip(stats.systems, means, strict=True):
                    results.append(SystemResult(shown, spec, name, beta, level, float(value)))
            else:
                sent = stats.sentence(beta)
                for name, row in zip(stats.systems, sent, strict=True):
                    results.append(SystemResult(shown, spec, name, beta, level,
                                                scores=[float(v) for v in row]))
        return results

    def score(
        self,
        sources: Sequence[str],
        references: Sequence[Sequence[str]] | Sequence[str],
        hypotheses: Mapping[str, Sequence[str]] | Sequence[Sequence[str]] | Sequence[str],
        level: str = "corpus",
        betas: Iterable[float] | None = None,
    ) -> list[SystemResult]:
        """Convenience: build a corpus from lists and :meth:`evaluate` it."""
        return self.evaluate(Corpus.build(sources, references, hypotheses), level, betas)

    def resolve_betas(self, betas: Iterable[float] | None) -> list[float | None]:
        """The betas this metric is scored at, given the user's ``betas``.

        ``[None]`` for a metric without a beta (whatever was given: a table mixing
        metrics scores each at its own betas, though they are checked all the same:
        a NaN is a mistake whatever the metric); otherwise the given betas, each
        checked (:func:`check_betas`), or the metric's default when none (``None`` or
        empty) are given. Scoring and meta-evaluation both ask this one method.
        """
        out: list[float | None] = list(check_betas(betas)) if betas is not None else []
        if not self.has_beta:
            return [None]
        return out or [self.default_beta]


#: The built-in metrics with :attr:`Metric.partial_references` (a test keeps it
#: equal to the registry's classes), named by the refusal of the others.
PARTIAL_REFERENCE_METRICS: tuple[str, ...] = ("gleu", "errant")


def check_partial_references(metric: Metric[Any], corpus: Corpus) -> None:
    """Refuse ``metric`` on a corpus whose items have a varying number of references
    unless it can score them (one line, naming the metrics that can)."""
    check_instance(metric, "metric", Metric, "a Metric (e.g. get_metric(\"green\"))")
    check_instance(corpus, "corpus", Corpus, "a Corpus")
    if (corpus.partial_references and not metric.partial_references
            and not metric.reference_free):
        raise ConfigError(
            f"metric {metric.name!r} cannot score items with fewer references than others "
            f"(some items lack reference {min(corpus.reference_counts or (0,)) + 1} or later); "
            f"metrics that can: {', '.join(PARTIAL_REFERENCE_METRICS)}, or give every item "
            f"every reference")


def make_config(config_cls: type[C], options: Mapping[str, Any], metric: str) -> C:
    """Build ``config_cls`` from options, converting strings to the field types."""
    if not (isinstance(config_cls, type) and issubclass(config_cls, MetricConfig)):
        raise ConfigError(f"config_cls must be a MetricConfig class, e.g. GreenConfig "
                          f"(got {config_cls!r})")
    check_mapping(options, "options", "a mapping of option names to values")
    check_text(metric, "metric (its name)")
    fields = {f.name: f for f in dataclasses.fields(config_cls)}
    hints = typing.get_type_hints(config_cls)
    values: dict[str, Any] = {}
    for key, raw in options.items():
        if key not in fields:
            known = ", ".join(fields) or "(none)"
            raise ConfigError(f"unknown option {key!r} for metric {metric!r}; options: {known}")
        values[key] = _coerce(raw, hints[key], key, metric)
    return config_cls(**values)


def _coerce(raw: Any, hint: Any, key: str, metric: str) -> Any:
    if not isinstance(raw, str):
        return raw
    if typing.get_origin(hint) is Literal:
        return raw  # the config's validate() names the choices
    kinds = typing.get_args(hint) or (hint,)
    if type(None) in kinds and raw.lower() in ("none", "null"):
        return None
    for kind in kinds:
        if kind is bool:
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
        elif kind in (int, float):
            try:
                return kind(raw)
            except ValueError:
                continue
        elif kind is str or (typing.get_origin(kind) is Literal and raw in typing.get_args(kind)):
            return raw
    type_name = " or ".join(getattr(k, "__name__", str(k)) for k in kinds)
    raise ConfigError(f"option {key}={raw!r} of metric {metric!r} must be {type_name}")
