"""The corpus: sources, reference sets and named hypothesis sets.

A :class:`Corpus` is what every metric scores. It is checked once when made
(every line a string, equal lengths, at least one sentence and one reference)
and it carries a cache, so that work shared by several metrics (tokenisation,
n-gram intersection counts) is done once per corpus however many metrics,
systems and betas are scored.

Because of that cache a corpus is immutable: its texts are tuples, the
hypotheses a read-only mapping, and assigning an attribute raises. A changed
output or another system is a new corpus (``Corpus.build`` or the
constructor), which scores afresh; a mutable corpus would silently return the
statistics of what it held before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from .errors import InputError
from .formatting import short_repr
from .readers import check_same_length

T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class Corpus:
    """Aligned sources, references (one tuple per reference set) and hypotheses.

    ``hypotheses`` maps a system name (for files: the path as given) to its
    output; the constructor accepts any sequences and mapping and keeps
    read-only copies. ``m2`` optionally holds the parsed gold edits that the
    references were derived from, for edit-based metrics.

    ``reference_counts`` (None: every item has every reference) says, per item,
    how many references it really has, for corpora whose items have a varying
    number of references (MultiGEC's essays: a second reference for some essays
    only). Item ``i``'s references are then ``references[0..c-1][i]`` and every
    later set holds a copy of its first reference at ``i``, as MultiGEC's
    parallel files do (``copy_ref1``): a metric that draws or picks one
    reference per item (GLEU, ERRANT) thus scores it against the references it
    has, and a metric that cannot is refused (:attr:`Metric.partial_references`).
    """

    sources: Sequence[str]
    references: Sequence[Sequence[str]]
    hypotheses: Mapping[str, Sequence[str]]
    m2: Any = None
    reference_counts: Sequence[int] | None = field(default=None, kw_only=True)
    _cache: dict[Any, Any] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        # Read-only copies, so that nothing outside can change what the cache describes.
        set_field = object.__setattr__
        _check_line_lists(self.sources, self.references, self.hypotheses)
        set_field(self, "sources", tuple(self.sources))
        set_field(self, "references", tuple(tuple(ref) for ref in self.references))
        set_field(self, "hypotheses", MappingProxyType(
            {name: tuple(hyp) for name, hyp in self.hypotheses.items()}))
        if not self.references:
            raise InputError("no reference given; pass at least one reference set (-r/--m2)")
        if not self.hypotheses:
            raise InputError("hypotheses holds no system; give at least one system's output "
                             "(a mapping of names to lines, e.g. {\"mine\": lines})")
        if not self.sources:
            raise InputError("the corpus has no sentence; give at least one source line "
                             "(the scores of nothing would be a meaningless 0 or an error)")
        named = _named(self)
        for what, lines in named:
            _check_lines(what, lines)
        check_same_length(named)
        if self.reference_counts is not None:
            set_field(self, "reference_counts", _checked_counts(self))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the constructor's arguments (the read-only mapping cannot be pickled)."""
        if self.reference_counts is None:  # as before reference_counts existed
            return (type(self), (self.sources, self.references, dict(self.hypotheses), self.m2))
        return (_restore, (type(self), self.sources, self.references, dict(self.hypotheses),
                           self.m2, self.reference_counts))

    @classmethod
    def build(
        cls,
        sources: Sequence[str],
        references: Sequence[Sequence[str]] | Sequence[str],
        hypotheses: Mapping[str, Sequence[str]] | Sequence[Sequence[str]] | Sequence[str],
    ) -> Corpus:
        """Make a corpus from plain Python lists, accepting the common shapes.

        ``references`` may be one list of strings (a single reference set) or a
        list of such lists; ``hypotheses`` may be a single list, a list of lists
        (named ``sys0``, ``sys1``, ...) or a mapping of names to lists.
        """
        _check_line_list("sources", sources)
        refs = _as_list_of_lists(references, "references")
        if isinstance(hypotheses, Mapping):
            hyps = {str(name): list(lines) for name, lines in hypotheses.items()}
        else:
            hyp_lists = _as_list_of_lists(hypotheses, "hypotheses")
            hyps = {f"sys{i}": lines for i, lines in enumerate(hyp_lists)}
        return cls(list(sources), refs, hyps)

    @property
    def num_sentences(self) -> int:
        return len(self.sources)

    @property
    def system_names(self) -> list[str]:
        return list(self.hypotheses)

    @property
    def partial_references(self) -> bool:
        """Whether some item has fewer references than there are reference sets."""
        counts = self.reference_counts
        return counts is not None and min(counts) < len(self.references)

    def item_references(self, index: int) -> list[str]:
        """The references item ``index`` really has (its filled-in copies left out)."""
        counts = self.reference_counts
        count = len(self.references) if counts is None else counts[index]
        return [ref[index] for ref in self.references[:count]]

    def cached(self, key: Any, compute: Callable[[], T]) -> T:
        """Return ``compute()`` once per ``key`` for this corpus.

        The only way to the cache. ``key`` must name everything ``compute``
        depends on besides the corpus (metrics derive it from their config:
        :meth:`gecmetrics.metric.Metric.cache_key`).
        """
        cache = self._cache
        if key not in cache:
            cache[key] = compute()
        return cache[key]

    def lowercased(self) -> Corpus:
        """This corpus with every text lowercased (no M2 edits), made once and
        shared by the metrics with a lowercase option (chrF, BLEU)."""
        return self.cached(("lowercased",), lambda: Corpus(
            [s.lower() for s in self.sources],
            [[r.lower() for r in ref] for ref in self.references],
            {name: [h.lower() for h in hyp] for name, hyp in self.hypotheses.items()},
            reference_counts=self.reference_counts,
        ))

    def normalized(self, form: str, apply: Callable[[str], str]) -> Corpus:
        """This corpus with ``apply`` (Unicode normal form ``form``, the key it is
        kept under) applied to every text (no M2 edits), made once and shared by
        the metrics with the same ``normalize=`` option."""
        return self.cached(("normalized", form), lambda: Corpus(
            [apply(s) for s in self.sources],
            [[apply(r) for r in ref] for ref in self.references],
            {name: [apply(h) for h in hyp] for name, hyp in self.hypotheses.items()},
        ))


def _named(corpus: Corpus) -> list[tuple[str, Sequence[str]]]:
    """Every line list of ``corpus`` with the words that name it in messages."""
    named: list[tuple[str, Sequence[str]]] = [("the source", corpus.sources)]
    named += [(f"reference {k}", ref) for k, ref in enumerate(corpus.references)]
    named += [(f"hypothesis {name}", hyp) for name, hyp in corpus.hypotheses.items()]
    return named


def _restore(cls: type[Corpus], sources: Any, references: Any, hypotheses: Any, m2: Any,
             counts: Any) -> Corpus:
    """Unpickle a corpus with ``reference_counts`` (a keyword-only field)."""
    return cls(sources, references, hypotheses, m2, reference_counts=counts)


def _checked_counts(corpus: Corpus) -> tuple[int, ...]:
    """``reference_counts`` as a tuple, one count per item, each from 1 to the number of
    reference sets, and every filled-in place a copy of the item's first reference."""
    if isinstance(corpus.reference_counts, (str, bytes)) or not isinstance(
            corpus.reference_counts, Iterable):
        raise InputError(f"reference_counts must be a list of counts, one per item (got "
                         f"{type(corpus.reference_counts).__name__}: "
                         f"{short_repr(corpus.reference_counts)})")
    counts = tuple(corpus.reference_counts)
    sets = len(corpus.references)
    if len(counts) != corpus.num_sentences:
        raise InputError(f"reference_counts has {len(counts)} entries for "
                         f"{corpus.num_sentences} items; give one count per item")
    for i, count in enumerate(counts):
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= sets:
            raise InputError(f"reference_counts, item {i + 1}: expected an integer from 1 to "
                             f"{sets} (the number of reference sets), got {count!r}")
        first = corpus.references[0][i]
        if any(ref[i] != first for ref in corpus.references[count:]):
            raise InputError(f"reference_counts, item {i + 1}: the reference sets after its "
                             f"{count} must hold a copy of its first reference there")
    return counts


def _check_line_lists(sources: Any, references: Any, hypotheses: Any) -> None:
    """The shapes a library caller can get wrong, before they are copied into tuples:
    a lone string would become a tuple of characters, one line per character."""
    one = _check_line_list
    one("sources", sources)
    one("references", references)
    for k, ref in enumerate(references):
        one(f"reference {k}", ref)
    if not isinstance(hypotheses, Mapping):
        raise InputError(f"hypotheses must be a mapping of system names to lists of lines "
                         f"(got {type(hypotheses).__name__}); Corpus.build also takes lists")
    for name, hyp in hypotheses.items():
        if not isinstance(name, str):
            raise InputError(f"hypothesis names must be strings (got {name!r})")
        one(f"hypothesis {name}", hyp)


def _check_line_list(what: str, lines: Any) -> None:
    if isinstance(lines, (str, bytes)) or not isinstance(lines, Iterable):
        raise InputError(f"{what} must be a list of lines, one sentence each "
                         f"(got {type(lines).__name__}: {short_repr(lines)})")


def _check_lines(what: str, lines: Sequence[Any]) -> None:
    """Every line a str: an int or None would fail later, deep in a metric, with an
    AttributeError that names neither the text nor the line."""
    if all(isinstance(line, str) for line in lines):
        return
    number, line = next((i, line) for i, line in enumerate(lines, 1)
                        if not isinstance(line, str))
    raise InputError(f"{what}, line {number}: expected a string (one sentence), got "
                     f"{type(line).__name__} {short_repr(line)}")


def _as_list_of_lists(value: Sequence[Any], what: str) -> list[list[str]]:
    if isinstance(value, str):
        raise InputError(f"{what} must be a list of sentences, not a single string")
    _check_line_list(what, value)
    items = list(value)
    lists = [isinstance(item, Sequence) and not isinstance(item, (str, bytes)) for item in items]
    if items and not any(lists):
        return [items]  # one list of lines; Corpus names any line that is not a string
    if not all(lists):
        raise InputError(f"{what} must be a list of sentences or a list of such lists")
    return [list(item) for item in items]
