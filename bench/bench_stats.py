"""Benchmark the statistics core's correlations (gecmetrics.stats.correlation).

Run from the repository root:  python bench/bench_stats.py
Prints, per case, the time (best of 3) and the peak memory (tracemalloc) of the
core, and the same for the baseline measured in the same run: scipy.stats
(pearsonr, spearmanr, kendalltau) called once per score vector. The core's values
must agree with the baseline's (checked, 1e-12); the ratio is baseline / core.

Cases follow the analyses that call the core: the three correlations of the 1000
bootstrap resamples of 13 systems; a 501-beta sweep; 5,010 one-vector Pearson
correlations (10 CV folds x 501 betas); the system-level table (one vector, three
correlations); and many systems (60), where Kendall's pair matrices grow.
"""

from __future__ import annotations

import time
import tracemalloc
import warnings
from collections.abc import Callable

import numpy as np
from scipy import stats

from gecmetrics.stats import correlation as corr

NAMES = ("pearson", "spearman", "kendall")
SCIPY = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}


def measure(function: Callable[[], object], repeats: int = 3) -> tuple[float, float, object]:
    """(best seconds, peak MiB of the first run, result)."""
    tracemalloc.start()
    result = function()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best, peak, result


def scipy_rows(rows: np.ndarray, human: np.ndarray, names=NAMES) -> dict[str, np.ndarray]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {n: np.array([SCIPY[n](row, human)[0] for row in rows]) for n in names}


def report(case: str, core: Callable[[], dict[str, np.ndarray]],
           baseline: Callable[[], dict[str, np.ndarray]]) -> None:
    t_core, m_core, got = measure(core)
    t_base, m_base, expected = measure(baseline, repeats=1)
    for name, values in expected.items():
        assert np.allclose(got[name], values, atol=1e-12, equal_nan=True), (case, name)
    print(f"{case:44s} core {t_core * 1e3:9.2f} ms {m_core:7.2f} MiB   "
          f"scipy {t_base * 1e3:9.1f} ms {m_base:7.2f} MiB   x{t_base / t_core:7.1f}")


def main() -> None:
    rng = np.random.default_rng(0)
    human13 = rng.random(13)
    boot = rng.random((1000, 13))
    sweep = np.round(rng.random((501, 13)), 2)  # some ties, as close betas give
    folds = [rng.random(13) for _ in range(5010)]
    human60 = rng.random(60)
    many = rng.random((1000, 60))

    report("bootstrap: 1000 resamples x 13 systems, r/rho/tau",
           lambda: {n: corr.correlation_rows(boot, human13, n) for n in NAMES},
           lambda: scipy_rows(boot, human13))
    report("sweep: 501 betas x 13 systems, r/rho/tau",
           lambda: {n: corr.correlation_rows(sweep, human13, n) for n in NAMES},
           lambda: scipy_rows(sweep, human13))
    report("CV beta: 5010 single vectors, r",
           lambda: {"pearson": np.array([corr.correlation_rows(v, human13, "pearson")[0]
                                         for v in folds])},
           lambda: scipy_rows(np.array(folds), human13, ("pearson",)))

    def table() -> dict[str, np.ndarray]:
        rows = [corr.correlate(v, human13) for v in folds[:500]]
        return {n: np.array([getattr(c, n) for c in rows]) for n in NAMES}

    report("table: 500 x correlate(one vector), r/rho/tau", table,
           lambda: scipy_rows(np.array(folds[:500]), human13))
    report("many systems: 1000 x 60 systems, r/rho/tau",
           lambda: {n: corr.correlation_rows(many, human60, n) for n in NAMES},
           lambda: scipy_rows(many, human60))


if __name__ == "__main__":
    main()
