"""Print what google-research/mt-metrics-eval's stats code gives on the inputs of
tests/test_pair_stats.py (the recorded MME_* numbers there).

Not a test and not a dependency: run it by hand with a checkout of the repository
(commit 68a481aea1a787392d55af8f76ac8ef40c5f4664; never the PyPI package of that
name, an impostor), from a scratch environment with numpy:

    MME=/path/to/mt-metrics-eval python tests/mme_compare.py
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.environ.get("MME", "mt-metrics-eval"))
from mt_metrics_eval import pce  # noqa: E402
from mt_metrics_eval import tau_optimization as to  # noqa: E402

# 1. tie calibration: acc23 with optimised epsilon
cases = {"hand": ([0.50, 0.48, 0.30, 0.29], [3, 3, 1, 2])}
for seed in range(5):
    rng = np.random.default_rng(100 + seed)
    m = np.round(rng.normal(size=12), 1)
    h = rng.integers(0, 4, size=12).astype(float)
    cases[f"rng{100+seed}"] = (m.tolist(), h.tolist())
for name, (m, h) in cases.items():
    r = to.tau_optimization(np.array(m), np.array(h), to.TauSufficientStats.acc_23)
    print("TAU", name, repr(float(r.best_tau)), repr(float(r.best_threshold)))
# 2. permutation p-values (Thompson's compute_pairwise_p_values) on synthetic segment scores
rng = np.random.default_rng(0)
seg = rng.uniform(0, 1, size=(4, 300)) + np.array([[0.0], [0.02], [0.05], [0.2]])
p = pce.compute_pairwise_p_values(seg, num_permutations=1000, seed=4)
iu = np.triu_indices(4, 1)
print("PERM", [round(float(x), 3) for x in p[iu]])
ph = np.array([0.01, 0.02, 0.4, 0.3, 0.2, 0.9])
P = np.full((4, 4), np.nan)
P[iu] = ph
print("PCE", repr(float(pce.compute_one_minus_pce(P, p))))
