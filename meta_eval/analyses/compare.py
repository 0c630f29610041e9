"""Metric comparison (``--compare``): is one metric's correlation significantly higher?

For every pair of (metric, beta) configurations of different metrics on a
benchmark, at each level: Williams' test for the difference of their Pearson r
(the two correlations share the human scores), and a paired bootstrap over the
test sentences (the resamples of ``--bootstrap``, same seed, shared through the
run's score cache): the share of resamples in which the metric with the higher r
on all sentences does not have the higher r, with the 95% interval of the
difference. Both p-values are one-sided, in the observed direction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gecmetrics.errors import ConfigError
from gecmetrics.formatting import fixed, render

from ..analysis import Analysis, Context, refuse_aggregation, refuse_sweep
from ..flags import option
from ..rows import num, num_list

if TYPE_CHECKING:
    from gecmetrics.metric import Metric

    from ..correlation_analyses import ScoreCache
    from ..run_options import RunOptions
    from ..selection import Selection

NAME = "compare"


@dataclass(frozen=True)
class CompareSettings:
    compare: bool = option(
        False, "--compare", kind="flag",
        help="With two or more -m: for every pair of metrics, Williams' test and a "
             "paired bootstrap test of the difference of their Pearson r.")


@dataclass(frozen=True)
class Comparison:
    """Two metric configurations on one benchmark; p-values one-sided.

    ``williams_p``: Williams' test for the difference of the two Pearson r, which
    share the human scores; ``bootstrap_p``: share of paired resamples in which
    the metric with the higher r on all sentences does not have the higher r.
    """

    benchmark: str
    human: str
    systems: str
    corpus: str
    level: str
    n_systems: int
    metric_a: str
    spec_a: str
    beta_a: float | None
    metric_b: str
    spec_b: str
    beta_b: float | None
    pearson_a: float
    pearson_b: float
    pearson_ab: float
    williams_t: float
    williams_p: float
    bootstrap_p: float
    delta_ci: tuple[float, float]
    resamples: int
    seed: int
    signature: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis": NAME, "benchmark": self.benchmark, "human": self.human,
            "systems": self.systems, "corpus": self.corpus, "level": self.level,
            "n_systems": self.n_systems,
            "metric_a": self.metric_a, "spec_a": self.spec_a, "beta_a": self.beta_a,
            "metric_b": self.metric_b, "spec_b": self.spec_b, "beta_b": self.beta_b,
            "pearson_a": num(self.pearson_a), "pearson_b": num(self.pearson_b),
            "pearson_ab": num(self.pearson_ab), "williams_t": num(self.williams_t),
            "williams_p": num(self.williams_p), "bootstrap_p": num(self.bootstrap_p),
            "delta_ci": num_list(self.delta_ci), "bootstrap": self.resamples,
            "seed": self.seed, "one_sided": True,
        }
        if self.signature:
            out["signature"] = self.signature
        return out

    def frame_records(self, record: dict[str, Any]) -> list[dict[str, Any]]:
        """Its frame row: metric A fills ``metric``, ``spec``, ``beta`` and ``pearson``."""
        return [{**record, "metric": self.metric_a, "spec": self.spec_a,
                 "beta": self.beta_a, "pearson": num(self.pearson_a)}]


def compare_metrics(selection: Selection, metrics: Sequence[Metric],
                    betas: Sequence[float] | None = None, levels: Sequence[str] = ("corpus",),
                    n_resamples: int = 1000, seed: int = 12345,
                    cache: ScoreCache | None = None) -> list[Comparison]:
    """One :class:`Comparison` per pair of (metric, beta) configurations of different
    metrics (see the module's docstring)."""
    from gecmetrics.stats.significance import paired_bootstrap_test, williams_sig_diff

    from ..correlation_analyses import score_function
    from ..selection import row_signature, system_scores

    if len(metrics) < 2:
        raise ConfigError("--compare needs at least two metrics (-m ... -m ...)")
    n = selection.benchmark.corpus.num_sentences
    out = []
    for level in levels:
        configs = [(m, b) for m in metrics for b in m.resolve_betas(betas)]
        for i, (ma, ba) in enumerate(configs):
            for mb, bb in configs[i + 1:]:
                if ma.spec == mb.spec:
                    continue
                for metric, beta in ((ma, ba), (mb, bb)):
                    metric.statistics(selection.benchmark.corpus).precompute([beta])
                sa = system_scores(ma, selection, ba, level)
                sb = system_scores(mb, selection, bb, level)
                w = williams_sig_diff(sa, sb, selection.human)
                if cache is None:
                    cache = {}
                pb = paired_bootstrap_test(score_function(ma, selection, ba, level, cache),
                                           score_function(mb, selection, bb, level, cache),
                                           selection.human, n, n_resamples, seed, "pearson")
                signature = " vs ".join(
                    row_signature(m, selection, level, b, resamples=n_resamples, seed=pb.seed)
                    for m, b in ((ma, ba), (mb, bb)))
                out.append(Comparison(
                    selection.benchmark.name, selection.human_kind, selection.system_set,
                    selection.benchmark.corpus_label, level, len(selection.systems),
                    ma.display_name, ma.spec, ba, mb.display_name, mb.spec, bb,
                    w.r_a, w.r_b, w.r_ab, w.t, w.p, pb.p, pb.delta_ci, n_resamples, pb.seed,
                    signature))
    return out


def run(context: Context, settings: CompareSettings) -> list[Comparison]:
    """Every pair of metrics on every benchmark (system level)."""
    o = context.options
    cache = context.resampling.cache if context.resampling is not None else None
    out = []
    for sel in context.selections:
        out += compare_metrics(sel, context.metrics, context.betas, o.levels,
                               o.compare_resamples, o.seed_value, cache)
    return out


def check(settings: CompareSettings, options: RunOptions) -> None:
    if not settings.compare:
        return
    refuse_sweep("--compare", options)
    if options.sentence_level:
        raise ConfigError("--sentence-level cannot be combined with --compare")
    if len(options.metric_objects) < 2:
        raise ConfigError("--compare needs at least two metrics (-m A -m B)")
    refuse_aggregation("--compare", options)


def title(settings: CompareSettings, rows: Sequence[Comparison],
          options: RunOptions) -> str:
    return (f"Metric pairs: Williams' test on r and paired bootstrap "
            f"({options.compare_resamples} resamples, seed {options.seed_value}); "
            "one-sided p-values")


def table(rows: Sequence[Comparison], fmt: str) -> str:
    def beta(value: float | None) -> str:
        return "-" if value is None else f"{value:g}"

    def p(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    headers = ["benchmark", "level", "metric A", "β A", "metric B", "β B", "r A", "r B",
               "r(A,B)", "Williams p", "bootstrap p", "Δr 95% CI"]
    cells = [[c.benchmark, c.level, c.spec_a, beta(c.beta_a), c.spec_b, beta(c.beta_b),
              fixed(c.pearson_a, 3), fixed(c.pearson_b, 3), fixed(c.pearson_ab, 3),
              p(c.williams_p), p(c.bootstrap_p),
              f"[{fixed(c.delta_ci[0], 3)}, {fixed(c.delta_ci[1], 3)}]"] for c in rows]
    return render(headers, cells, fmt, ["left"] * 6 + ["right"] * 6)


COMPARE = Analysis(NAME, CompareSettings, lambda s: s.compare, run, title, table,
                   check=check, help_after="seed",
    row=Comparison,
    random=("--compare", lambda s: s.compare))
