"""Which systems and human scores of a benchmark are correlated, and their
metric scores.

System scores come from a metric's cached statistics: ``corpus`` level is the
metric's corpus score, ``mean`` level the mean of its sentence scores. Betas
only matter for metrics that have one; for the others ``beta`` is ``None``.

Each meta-evaluation row carries a signature (:func:`row_signature`): the
metric's own signature (:mod:`gecmetrics.signature`) extended with what the
meta-evaluation adds (references and how they were read, level, benchmark,
system set, corpus, human scores, and seed and resamples where the analysis
draws at random). It lives here, beside the selection it describes, so the
modules that make rows need not import :mod:`.results` (which re-exports it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gecmetrics.errors import ConfigError
from gecmetrics.metric import Metric
from gecmetrics.signature import metric_signature
from gecmetrics.stats.correlation import correlate

from .benchmarks import Benchmark, registry
from .levels import LEVELS as SYSTEM_LEVELS
from .result_rows import MetaResult


@dataclass(frozen=True)
class Selection:
    """Which systems and which human scores of a benchmark are correlated."""

    benchmark: Benchmark
    system_set: str
    systems: list[str]
    human_kind: str
    human: np.ndarray

    @classmethod
    def make(cls, benchmark: Benchmark, system_set: str | None = None,
             human: str | None = None) -> Selection:
        """``human=None``: the benchmark's own default (``ew``; GMEG: ``rating``); a
        kind the benchmark lacks is refused by :meth:`Benchmark.human_scores`."""
        human = human or benchmark.default_human
        benchmark = benchmark.for_human(human)  # its sentence-level facets of that kind
        systems = benchmark.systems(system_set)
        return cls(benchmark, benchmark.set_name(system_set), systems, human,
                   np.array(benchmark.human_scores(human, systems)))

    def indices(self, names: Sequence[str]) -> np.ndarray:
        position = {name: i for i, name in enumerate(names)}
        return np.array([position[s] for s in self.systems])

    def describe(self) -> str:
        b = self.benchmark
        return (f"{b.name}: human={self.human_kind}, systems={self.system_set} "
                f"({len(self.systems)}), {b.setting}")


def system_scores(metric: Metric, selection: Selection, beta: float | None,
                  level: str) -> np.ndarray:
    """The metric's score of each selected system, in the selection's order."""
    if level not in SYSTEM_LEVELS:
        raise ConfigError(f"unknown system level {level!r}; choose one of: "
                          f"{', '.join(SYSTEM_LEVELS)}")
    stats = metric.statistics(selection.benchmark.corpus)
    idx = selection.indices(stats.systems)
    scores = stats.corpus_scores(beta) if level == "corpus" else stats.mean(beta)
    return np.asarray(scores, dtype=float)[idx]


def benchmark_language(selection: Selection) -> str | None:
    """The language of the selection's benchmark, from its description (None: unknown)."""
    found = registry.specs().get(selection.benchmark.name)
    return None if found is None else found.language


def language_mismatch(metric: Metric, selection: Selection) -> str | None:
    """The metric's language (:meth:`Metric.language`) where it is not the language of
    the selection's benchmark; None where they agree or either is not known."""
    mine, theirs = metric.language(), benchmark_language(selection)
    return mine if mine is not None and theirs is not None and mine != theirs else None


def language_note(metric: Metric, selection: Selection) -> str | None:
    """The one stderr line for a metric made for another language than the benchmark's
    (None: none needed). A note, not an error: its correlation is still a number one may
    want (how far English tools carry), but it is not the metric at its best."""
    mine = language_mismatch(metric, selection)
    if mine is None:
        return None
    theirs = benchmark_language(selection)
    return (f"note: {metric.display_name} ({metric.spec}) uses tools made for '{mine}' but "
            f"{selection.benchmark.name} is in '{theirs}': its rows there are marked "
            f"metric_lang:{mine} in their signatures; name the benchmark's language where "
            "the metric has the option (errant:lang=..., a tokenize=...), or use "
            "edits=neutral")


def undefined_note(result: MetaResult, selection: Selection) -> str | None:
    """The one stderr line for a row whose correlations are undefined (NaN: null in
    JSON, - in tables), saying which scores are constant; None for a defined row."""
    if not any(np.isnan(v) for v in (result.pearson, result.spearman, result.kendall)):
        return None
    where = (f"{result.metric} ({result.spec}) on {result.benchmark}, level {result.level}"
             + (f", β={result.beta:g}" if isinstance(result.beta, float) else ""))
    human = np.asarray(selection.human, dtype=float)
    if human.size and human.max() == human.min():
        why = f"the human scores ({selection.human_kind}) of its systems are all equal"
    else:
        why = "every system has the same score"
    return (f"note: {where}: no correlation ({why}), written as null in JSON and - in "
            "tables")


def refs_from(selection: Selection) -> str:
    """How the benchmark's references were obtained: from its M2 file (the lenient
    reading, :meth:`gecmetrics.m2_format.M2File.references`) or as text files."""
    return "text" if selection.benchmark.corpus.m2 is None else "m2-lenient"


def row_signature(metric: Metric, selection: Selection, level: str,
                  beta: float | str | None = None, human: str | None = None,
                  **analysis: Any) -> str:
    """The signature of one meta-evaluation row.

    ``beta``: the beta used (a sweep gives its grid text); ``human``: the human
    scores when they are not the selection's system-level kind (sentence-level
    judgments); ``analysis``: fields of the analysis (resamples, seed, window ...).
    """
    sig = metric_signature(metric, selection.benchmark.corpus)
    if beta is not None:
        sig = sig.extend(beta=beta if isinstance(beta, str) else float(beta))
    corpus = selection.benchmark.corpus
    mismatch = language_mismatch(metric, selection)
    if mismatch is not None:
        analysis = {**analysis, "metric_lang": mismatch}
    return str(sig.extend_apart(
        "meta",
        refs=0 if selection.benchmark.reference_free else len(corpus.references),
        refs_from=refs_from(selection), level=level,
        benchmark=selection.benchmark.name, systems=selection.system_set,
        corpus=selection.benchmark.corpus_label, human=human or selection.human_kind, **analysis))


def correlate_selection(selection: Selection, metrics: Sequence[Metric],
                  betas: Sequence[float] | None = None,
                  levels: Sequence[str] = ("corpus",)) -> list[MetaResult]:
    """Correlations of every metric (at each beta and level) with the human scores."""
    out = []
    for metric in metrics:
        for level in levels:
            for beta in metric.resolve_betas(betas):
                scores = system_scores(metric, selection, beta, level)
                corr = correlate(scores, selection.human)
                out.append(MetaResult(
                    selection.benchmark.name, selection.human_kind, selection.system_set,
                    selection.benchmark.corpus_label, metric.display_name, metric.spec,
                    beta, level, corr.n, corr.pearson, corr.spearman, corr.kendall,
                ))
    return out
