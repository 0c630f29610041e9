"""Bootstrap intervals (``--bootstrap N``): how far a correlation could move with other
test sentences.

A column analysis: each correlation row gets the 95% percentile intervals of r,
rho and tau over N resamples of the test sentences (:class:`Intervals`; JSON
``pearson_ci`` ... ``bootstrap`` and ``seed``), shown next to r and rho in the main
table. N is also the number of resamples of ``--compare``, ``--spa``,
``--clusters`` and ``--human-intervals`` (:attr:`..options.MetaEvalOptions.stat_resamples`),
and the sentence draws are shared with them through the run's score cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gecmetrics.errors import ConfigError
from gecmetrics.stats import DEFAULT_RESAMPLES
from gecmetrics.validate import check_resamples

from ..analysis import Analysis, Context, refuse_aggregation, refuse_sweep
from ..flags import count, option
from ..result_rows import Intervals, MetaResult  # defined with the rows

if TYPE_CHECKING:
    from gecmetrics.metric import Metric

    from ..correlation_analyses import ScoreCache
    from ..run_options import RunOptions
    from ..selection import Selection

NAME = "bootstrap"


@dataclass(frozen=True)
class BootstrapSettings:
    bootstrap: int | None = option(
        None, "--bootstrap", kind="int", alone=DEFAULT_RESAMPLES, metavar="N",
        help="Add 95% bootstrap confidence intervals of r, rho and tau: N resamples of "
             f"the test sentences (alone: {DEFAULT_RESAMPLES}; 100 to 1000000); also the "
             "resamples of --compare.")

    def __post_init__(self) -> None:  # True: the flag alone; the API may pass 1000.0
        object.__setattr__(self, "bootstrap",
                           count("--bootstrap", self.bootstrap, DEFAULT_RESAMPLES))


def add_bootstrap(results: Sequence[MetaResult], selections: Sequence[Selection],
                  metrics: Sequence[Metric], n_resamples: int = DEFAULT_RESAMPLES,
                  seed: int = 12345, cache: ScoreCache | None = None) -> list[MetaResult]:
    """Each row with its :class:`Intervals` (see the module's docstring)."""
    from gecmetrics.stats.intervals import bootstrap_ci

    from ..correlation_analyses import metric_for, score_function

    by_name = {sel.benchmark.name: sel for sel in selections}
    by_spec = metric_for(results, metrics)
    out = []
    for r in results:
        sel = by_name[r.benchmark]
        metric = by_spec[r.spec]
        metric.statistics(sel.benchmark.corpus).precompute([r.beta])
        ci = bootstrap_ci(score_function(metric, sel, r.beta, r.level, cache), sel.human,
                          sel.benchmark.corpus.num_sentences, n_resamples, seed)
        out.append(r.with_column(Intervals(
            ci.pearson_ci, ci.spearman_ci, ci.kendall_ci, ci.n_resamples, ci.seed)))
    return out


def columns(context: Context, settings: BootstrapSettings) -> list[MetaResult]:
    """The correlation rows with their intervals, signed again (the resamples and seed
    enter the signature)."""
    from ..correlation_analyses import sign

    assert settings.bootstrap is not None
    cache = context.resampling.cache if context.resampling is not None else None
    rows = add_bootstrap(context.rows, context.selections, context.metrics,
                         settings.bootstrap, context.options.seed_value, cache)
    return sign(rows, context.selections, context.metrics)


def run(context: Context, settings: BootstrapSettings) -> list[Any]:
    return []  # its values are columns of the correlation rows


def check(settings: BootstrapSettings, options: RunOptions) -> None:
    if settings.bootstrap is None:
        return
    refuse_sweep("--bootstrap", options)
    if options.sentence_level:
        raise ConfigError("--sentence-level cannot be combined with --bootstrap")
    refuse_aggregation("--bootstrap", options)
    check_resamples(settings.bootstrap)


BOOTSTRAP = Analysis(NAME, BootstrapSettings, lambda s: s.bootstrap is not None, run,
                     check=check, columns=columns, help_after="references",
    row=MetaResult,
    random=("--bootstrap", lambda s: s.bootstrap is not None),
    resamples=lambda s: s.bootstrap,
    column=Intervals)
