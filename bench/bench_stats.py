"""Benchmark the statistics core's correlations (gecmetrics.stats.correlation).

Run from the repository root:  python bench/bench_stats.py
Prints, per case, the time (best of 3) and the peak memory (tracemalloc) of the
core, and the same (one run) for the baseline measured in the same run: scipy.stats
(pearsonr, spearmanr, kendalltau) called once per score vector. The core's values
must agree with the baseline's (checked, 1e-12); the ratio is baseline / core.

Cases follow the analyses that call the core: the three correlations of the 1000
bootstrap resamples of 13 systems; a 501-beta sweep; 5,010 one-vector Pearson
correlations (10 CV folds x 501 betas); the system-level table (one vector, three
correlations); and many systems (60), where Kendall's pair matrices grow.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import harness
import numpy as np
from scipy import stats

from gecmetrics.stats import correlation as corr

NAMES = ("pearson", "spearman", "kendall")
SCIPY = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}


def scipy_rows(rows: np.ndarray, human: np.ndarray, names=NAMES) -> dict[str, np.ndarray]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {n: np.array([SCIPY[n](row, human)[0] for row in rows]) for n in names}


def report(table: harness.Table, case: str, core: Callable[[], dict[str, np.ndarray]],
           baseline: Callable[[], dict[str, np.ndarray]]) -> None:
    ours = harness.measure(core, repeat=3, memory="rerun")
    base = harness.measure(baseline, memory="rerun")
    for name, values in base.value.items():
        assert np.allclose(ours.value[name], values, atol=1e-12, equal_nan=True), (case, name)
    table.baseline(f"{case}: scipy", base)
    table.row(f"{case}: core", ours)


def main() -> None:
    harness.parser(__doc__, data=None).parse_args()
    table = harness.Table(width=60)
    rng = np.random.default_rng(0)
    human13 = rng.random(13)
    boot = rng.random((1000, 13))
    sweep = np.round(rng.random((501, 13)), 2)  # some ties, as close betas give
    folds = [rng.random(13) for _ in range(5010)]
    human60 = rng.random(60)
    many = rng.random((1000, 60))

    report(table, "bootstrap: 1000 resamples x 13 systems, r/rho/tau",
           lambda: {n: corr.correlation_rows(boot, human13, n) for n in NAMES},
           lambda: scipy_rows(boot, human13))
    report(table, "sweep: 501 betas x 13 systems, r/rho/tau",
           lambda: {n: corr.correlation_rows(sweep, human13, n) for n in NAMES},
           lambda: scipy_rows(sweep, human13))
    report(table, "CV beta: 5010 single vectors, r",
           lambda: {"pearson": np.array([corr.correlation_rows(v, human13, "pearson")[0]
                                         for v in folds])},
           lambda: scipy_rows(np.array(folds), human13, ("pearson",)))

    def one_vector() -> dict[str, np.ndarray]:
        rows = [corr.correlate(v, human13) for v in folds[:500]]
        return {n: np.array([getattr(c, n) for c in rows]) for n in NAMES}

    report(table, "table: 500 x correlate(one vector), r/rho/tau", one_vector,
           lambda: scipy_rows(np.array(folds[:500]), human13))
    report(table, "many systems: 1000 x 60 systems, r/rho/tau",
           lambda: {n: corr.correlation_rows(many, human60, n) for n in NAMES},
           lambda: scipy_rows(many, human60))


if __name__ == "__main__":
    main()
