"""Metric rewards for reinforcement learning: one float per (source, completion, references).

A :class:`Reward` is made once from metric specs (``"gleu"``, ``"errant"``,
``"chrf:n=6"``, ...) and optional weights, and checked then: an unknown metric,
a bad option, or a metric whose sentence score depends on the other sentences
scored with it (:meth:`~gecmetrics.metric.Metric.sentence_scores_problem`) is one
:class:`~gecmetrics.errors.ConfigError` at construction, never a surprise in step
1,000 of a training run.

Exactness: a batch is scored as a :class:`~gecmetrics.corpus.Corpus` whose rows
are its distinct (source, references) pairs and whose systems are the completions
of each (the j-th distinct completion of a source is system j), through the metric's
own statistics, so a reward is
``gecmetrics score --level sentence`` of that triple to the last bit (a metric
whose sentence score is a function of its sentence alone gives the same number
whatever the other rows and systems are; that is what construction checks). A weighted sum
adds ``weight * score`` in the order the metrics were given.

Reuse: every scored triple's per-metric scores are kept in a bounded
least-recently-used table (:attr:`RewardOptions.cache_size` entries, default
100,000: a few tens of MB), so a completion that comes back (the source itself,
the same correction sampled twice in a group, a later step) costs a dictionary
look-up. A source's and its references' work (n-grams, parses, reference edits) is
done once for all the completions of its group in a batch, since they are the systems
of one corpus row, and, for ERRANT-based metrics,
across calls by ERRANT's parse and edit caches (:mod:`gecmetrics.edits`).

Degenerate completions (:func:`degenerate_reason`) are never scored: they get
:attr:`RewardOptions.degenerate_reward` and a flag in :attr:`RewardResult.degenerate`,
so a trainer never sees an exception or waits on a pathological alignment.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..corpus import Corpus
from ..errors import ConfigError, InputError
from ..formatting import short_repr
from ..metric import Metric
from ..parallel import execution
from ..registry import metric_from_spec
from ..validate import check_jobs

#: Why a completion was not scored (the values of :attr:`RewardResult.reasons`).
EMPTY, NOT_TEXT, TOO_LONG, REPEATED, SURROGATE = (
    "empty", "not text", "too long", "repeated token", "invalid unicode")

#: A source shorter than this many characters is taken as this long by the length cap,
#: so that a correction of a one-word source is never called too long.
MIN_CAP_CHARS = 16


@dataclass(frozen=True)
class RewardOptions:
    """How a :class:`Reward` treats its inputs; checked when made.

    ``degenerate_reward``: the reward of a completion that is not scored (see
    :func:`degenerate_reason`). ``max_length_ratio``: a completion longer than this
    many times its source's length in characters (at least :data:`MIN_CAP_CHARS`) is
    degenerate. ``max_repeat``: a completion with one whitespace token repeated more
    than this many times in a row (and more often in a row than in its source) is
    degenerate. ``cache_size``: how many scored triples are remembered (0: none).
    ``jobs``: the processes a batch is counted in (:mod:`gecmetrics.parallel`); 1 by
    default, since a trainer owns its processes and a batch is small.
    """

    degenerate_reward: float = 0.0
    max_length_ratio: float = 10.0
    max_repeat: int = 8
    cache_size: int = 100_000
    jobs: int = 1

    def __post_init__(self) -> None:
        dr = self.degenerate_reward
        if isinstance(dr, bool) or not isinstance(dr, (int, float)) or not math.isfinite(dr):
            raise ConfigError(f"degenerate_reward must be a finite number (got {dr!r})")
        ratio = self.max_length_ratio
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not (
                math.isfinite(ratio) and ratio >= 1):
            raise ConfigError(f"max_length_ratio must be a number >= 1 (got {ratio!r})")
        for name in ("max_repeat", "cache_size"):
            value = getattr(self, name)
            low = 1 if name == "max_repeat" else 0
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"{name} must be an integer >= {low} (got {value!r})")
        check_jobs(self.jobs)


@dataclass(frozen=True)
class RewardResult:
    """The rewards of a batch, in its order, and why any completion was not scored.

    ``degenerate[i]`` is True where completion ``i`` got the degenerate reward;
    ``reasons[i]`` says why (None where it was scored); ``scores[spec][i]`` is each
    metric's own sentence score (None where degenerate).
    """

    rewards: tuple[float, ...]
    degenerate: tuple[bool, ...]
    reasons: tuple[str | None, ...]
    scores: Mapping[str, tuple[float | None, ...]] = field(default_factory=dict)


def _longest_run(tokens: Sequence[str]) -> int:
    best = run = 0
    previous = None
    for token in tokens:
        run = run + 1 if token == previous else 1
        previous = token
        best = max(best, run)
    return best


def degenerate_reason(source: str, completion: Any, options: RewardOptions) -> str | None:
    """Why ``completion`` is not scored, or None when it is.

    In order: not a string (a chat message without content, None); longer than
    ``max_length_ratio`` times the source (at least :data:`MIN_CAP_CHARS`: the cap
    bounds the time any metric spends on a completion); holding a lone surrogate code
    point (text that no UTF-8 file can hold, from a tokenizer's broken bytes); empty
    or only whitespace; one whitespace token repeated more than ``max_repeat`` times
    in a row where the source has no such run.
    """
    if not isinstance(completion, str):
        return NOT_TEXT
    if len(completion) > options.max_length_ratio * max(len(source), MIN_CAP_CHARS):
        return TOO_LONG
    if not completion.isascii():
        try:
            completion.encode("utf-8")
        except UnicodeEncodeError:
            return SURROGATE
    if not completion.strip():
        return EMPTY
    tokens = completion.split()
    if len(tokens) - len(set(tokens)) < options.max_repeat:
        return None  # a run of more than max_repeat copies needs max_repeat repeats
    run = _longest_run(tokens)
    if run > options.max_repeat and run > _longest_run(source.split()):
        return REPEATED
    return None


def _metric(spec: Any) -> Metric:
    if isinstance(spec, Metric):
        metric = spec
    elif isinstance(spec, str):
        metric = metric_from_spec(spec)
    else:
        raise ConfigError(f"a reward's metric must be a spec such as 'gleu' or a Metric "
                          f"(got {type(spec).__name__}: {short_repr(spec)})")
    problem = metric.text_references_problem()
    if problem is not None:
        raise ConfigError(f"metric {metric.spec!r} cannot be a reward: {problem}, and a "
                          "reward's references are texts; use errant, or m2:edits=neutral")
    problem = metric.sentence_scores_problem()
    if problem is not None:
        raise ConfigError(f"metric {metric.spec!r} cannot be a reward: {problem}")
    return metric


def _references(value: Any, row: int) -> tuple[str, ...]:
    """One row's references: a string, or a non-empty list of strings."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence) and value and all(isinstance(r, str) for r in value):
        return tuple(value)
    raise InputError(f"references, row {row + 1}: expected a reference string or a non-empty "
                     f"list of them, got {type(value).__name__} {short_repr(value)}; give "
                     "every row its references")


class Reward:
    """A reward made from one metric spec or several with weights.

    ``Reward("gleu")``, ``Reward(["errant", "gleu"], weights=[0.5, 0.5])``. Scoring:
    :meth:`score` (a list of floats), :meth:`evaluate` (a :class:`RewardResult`);
    trainer adapters: :class:`gecmetrics.reward.trl.TrlReward` and
    :func:`gecmetrics.reward.verl.compute_score`.
    """

    def __init__(self, metrics: str | Metric | Sequence[str | Metric],
                 weights: Sequence[float] | None = None,
                 options: RewardOptions | None = None) -> None:
        specs = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
        if not specs:
            raise ConfigError("a reward needs at least one metric spec, e.g. 'gleu'")
        self.metrics: tuple[Metric, ...] = tuple(_metric(s) for s in specs)
        keys = [m.spec for m in self.metrics]
        if len(set(keys)) != len(keys):
            raise ConfigError(f"a metric is given twice in the reward ({', '.join(keys)}); "
                              "give each once, with its weight")
        if weights is None:
            weights = [1.0] * len(specs)
        weights = list(weights)
        if len(weights) != len(specs) or not all(
                not isinstance(w, bool) and isinstance(w, (int, float)) and math.isfinite(w)
                for w in weights):
            raise ConfigError(f"weights must be {len(specs)} finite numbers, one per metric "
                              f"(got {short_repr(weights)})")
        self.weights: tuple[float, ...] = tuple(float(w) for w in weights)
        self.options = options if options is not None else RewardOptions()
        if not isinstance(self.options, RewardOptions):
            raise ConfigError(f"options must be RewardOptions (got {type(self.options).__name__})")
        self.reference_free = all(m.reference_free for m in self.metrics)
        self._cache: OrderedDict[tuple[Any, ...], tuple[float, ...]] = OrderedDict()

    @property
    def signature(self) -> str:
        """Each metric's signature with its weight, joined by `` + ``."""
        return " + ".join(f"{w:g}*{m.signature()}" for w, m in zip(self.weights, self.metrics,
                                                                    strict=True))

    @property
    def name(self) -> str:
        """A short name for logs: the metric specs joined by ``+``."""
        return "+".join(m.spec for m in self.metrics)

    # -- scoring ------------------------------------------------------------
    def score(self, sources: Sequence[str], hypotheses: Sequence[Any],
              references: Sequence[Any] | None = None) -> list[float]:
        """One reward per hypothesis (see :meth:`evaluate`)."""
        return list(self.evaluate(sources, hypotheses, references).rewards)

    def evaluate(self, sources: Sequence[str], hypotheses: Sequence[Any],
                 references: Sequence[Any] | None = None) -> RewardResult:
        """Rewards of ``hypotheses[i]`` for ``sources[i]`` against ``references[i]``
        (a string or a list of strings; None for reference-free metrics)."""
        n = len(hypotheses)
        if len(sources) != n:
            raise InputError(f"{n} completions for {len(sources)} sources; give one source "
                             "per completion (repeat it for each completion of a group)")
        for i, src in enumerate(sources):
            if not isinstance(src, str):
                raise InputError(f"sources, row {i + 1}: expected a string, got "
                                 f"{type(src).__name__} {short_repr(src)}")
        if references is None:
            if not self.reference_free:
                raise InputError(f"metric {self.metrics[0].spec!r} needs references; give "
                                 "one reference (or a list) per completion")
            refs: list[tuple[str, ...]] = [()] * n
        else:
            if len(references) != n:
                raise InputError(f"{len(references)} references for {n} completions; give "
                                 "one reference (or a list of them) per completion")
            made: dict[int, tuple[str, ...]] = {}  # a group's rows often share one list
            refs = []
            for i, r in enumerate(references):
                ref = made.get(id(r)) if not isinstance(r, str) else None
                if ref is None:
                    ref = made[id(r)] = _references(r, i)
                refs.append(ref)
        # a completion already scored (in the cache) or seen in this batch is checked once
        checked: dict[tuple[Any, ...], str | None] = {}
        reasons: list[str | None] = []
        keys: list[tuple[Any, ...] | None] = []
        for s, r, h in zip(sources, refs, hypotheses, strict=True):
            if not isinstance(h, str):
                reasons.append(NOT_TEXT)
                keys.append(None)
                continue
            key = (s, r, h)
            if key in checked:
                why = checked[key]
            else:
                why = None if key in self._cache else degenerate_reason(s, h, self.options)
                checked[key] = why
            reasons.append(why)
            keys.append(key if why is None else None)
        known = self._values([k for k in keys if k is not None])
        per_metric = [None if k is None else known[k] for k in keys]
        rewards = []
        for values in per_metric:
            total = float(self.options.degenerate_reward)
            if values is not None:
                total = 0.0  # 0.0 + 1.0 * v is v: a lone metric's reward is its score
                for w, v in zip(self.weights, values, strict=True):
                    total += w * v
            rewards.append(total)
        scores = {m.spec: tuple(None if v is None else v[j] for v in per_metric)
                  for j, m in enumerate(self.metrics)}
        return RewardResult(tuple(rewards), tuple(why is not None for why in reasons),
                            tuple(reasons), MappingProxyType(scores))

    def _values(self, keys: list[tuple[Any, ...]]) -> dict[tuple[Any, ...], tuple[float, ...]]:
        """Per-metric scores of each distinct triple: from the cache, else scored now, one
        corpus per number of references (a corpus has one reference count for all rows)."""
        cache = self._cache
        out: dict[tuple[Any, ...], tuple[float, ...]] = {}
        todo: dict[int, list[tuple[Any, ...]]] = {}
        for key in dict.fromkeys(keys):
            if key in cache:
                cache.move_to_end(key)
                out[key] = cache[key]
            else:
                todo.setdefault(len(key[1]), []).append(key)
        for count, rows in todo.items():
            # one corpus row per (source, references) and one system per completion slot:
            # a source's and its references' n-grams (parses, edits) are counted once for
            # its whole group, and a short group's empty slots repeat its first completion,
            # which metrics count once per row (equal hypotheses of a sentence are shared)
            groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
            for src, refs, hyp in rows:
                groups.setdefault((src, refs), []).append(hyp)
            heads = list(groups)
            sources = [head[0] for head in heads]
            # a reference-free metric is scored on a corpus whose reference is the source
            # (a corpus needs one); it never reads it
            ref_sets = ([[head[1][j] for head in heads] for j in range(count)] if count
                        else [sources])
            width = max(len(hyps) for hyps in groups.values())
            slots = {f"c{j}": [hyps[j] if j < len(hyps) else hyps[0] for hyps in groups.values()]
                     for j in range(width)}
            corpus = Corpus(sources, ref_sets, slots)
            with execution(jobs=self.options.jobs):
                tables = [m.statistics(corpus).sentence(None).tolist() for m in self.metrics]
            for g, (head, hyps) in enumerate(groups.items()):
                for j, hyp in enumerate(hyps):
                    key = (head[0], head[1], hyp)
                    out[key] = tuple(float(table[j][g]) for table in tables)
                    cache[key] = out[key]
        while len(cache) > self.options.cache_size:
            cache.popitem(last=False)
        return out
