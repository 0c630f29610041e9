"""Paired significance: is a system better than the baseline on this test set?

``gecmetrics score --paired-bootstrap N`` / ``--paired-ar N`` compare every
hypothesis file with the first one (the baseline) under every metric of the
run, with sacrebleu's resamples and statistics (so that GEC and MT numbers read alike):

* **paired bootstrap** (Koehn 2004): N resamples of the test sentences with
  replacement, the same for all systems (:func:`gecmetrics.stats.resampling.resample_indices`,
  which is the stream of sacrebleu's ``rng.choice(D, (N, D))``). With
  d_b = |score_b(system) - score_b(baseline)| and the observed difference
  d = |score(system) - score(baseline)|, the p-value is
  ``(#{b : d_b - mean(d) >= d} + 1) / (N + 1)`` (the resampled differences are
  shifted to mean 0, the null hypothesis).
* **approximate randomization** (Riezler & Maxwell 2005): N trials, each
  swapping every sentence's statistics between the two systems with
  probability 1/2 (one mask of ``rng.integers(2, size=(N, D), dtype=bool)``,
  sacrebleu's draw, for all compared systems:
  :func:`gecmetrics.stats.resampling.swap_masks`); p = ``(#{t : |A_t - B_t| >= d} + 1)
  / (N + 1)``. The +1 counts the observed assignment, so p is never 0 and a
  test at level alpha rejects falsely at most with probability alpha.

Both count the resamples *at least as extreme* as the observed difference (Koehn
2004; Riezler & Maxwell 2005), where sacrebleu counts strictly greater ones: with
the strict count two identical outputs (every resampled difference 0) got the
smallest p, 1/(N + 1), and a significance mark. Here an observed difference of 0
has p = 1. Only ties with d change, so the p-values otherwise equal sacrebleu's.

``delta`` is score(system) - score(baseline) (0-1) and ``delta_ci`` the 95%
percentile interval of the resampled differences (for AR, from a paired
bootstrap with :data:`AR_CI_RESAMPLES` resamples under the same seed).

Resampling is done on the cached per-sentence statistics
(:meth:`~gecmetrics.metric.Statistics.sentence_statistics`): a block of
resamples is one matrix product of sentence counts with the statistics, and
an AR trial is a masked sum (:mod:`gecmetrics.stats.significance`). Metrics
without that view are bootstrapped through
:meth:`~gecmetrics.metric.Statistics.corpus_scores` gathers. See docs/paired.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import ConfigError
from .metric import Statistics
from .paired_result import CONFIDENCE, PairedResult, PairedTestName
from .stats import DEFAULT_SEED
from .stats.intervals import percentile_interval
from .stats.resampling import BLOCK_ELEMENTS, draw_counts, resample_indices
from .stats.significance import ar_p_value, ar_scores, bootstrap_p_value, weighted_scores
from .validate import check_paired

#: Resamples of the bootstrap that gives the 95% interval of an AR comparison
#: (sacrebleu's default ``--paired-ar-confidence-n``).
AR_CI_RESAMPLES = 1000


@dataclass(frozen=True)
class PairedOptions:
    """Which paired test to run, with how many resamples/trials and which seed."""

    test: PairedTestName
    samples: int
    seed: int = DEFAULT_SEED

    def __post_init__(self) -> None:
        option = "--paired-bootstrap" if self.test == "bs" else "--paired-ar"
        if self.test not in ("bs", "ar"):
            raise ConfigError(f"unknown paired test {self.test!r}; use 'bs' or 'ar'")
        check_paired(self.samples, self.seed, option)

    def signature_fields(self) -> dict[str, Any]:
        """The fields a paired result adds to its signature (sacrebleu's names)."""
        fields: dict[str, Any] = {self.test: self.samples, "paired_seed": self.seed}
        if self.test == "ar":
            fields["bs"] = AR_CI_RESAMPLES
        return fields


# -- resampled scores ----------------------------------------------------------------


def bootstrap_scores(stats: Statistics, level: str, beta: float | None, samples: int,
                     seed: int) -> np.ndarray:
    """Scores of every system on ``samples`` sentence resamples: (samples, H).

    The resamples are those of
    :func:`~gecmetrics.stats.resampling.resample_indices` (same seed, same
    indices). Corpus level with :meth:`Statistics.sentence_statistics`: a block of
    resamples becomes a matrix of sentence counts times the statistics; otherwise
    one :meth:`Statistics.corpus_scores` (or :meth:`Statistics.mean`) gather each.
    """
    view = _view(stats, level, beta)
    if view is None:  # corpus level only: the mean level always has a view
        return np.vstack([np.asarray(stats.corpus_scores(beta, idx), dtype=np.float64)
                          for idx in resample_indices(_num_sentences(stats, beta), samples,
                                                      seed)])
    per, formula = view
    D = per.shape[1]
    rows = max(1, BLOCK_ELEMENTS // D)
    out = []
    draws = resample_indices(D, samples, seed)
    done = 0
    while done < samples:
        count = min(rows, samples - done)
        idx = np.vstack([next(draws) for _ in range(count)])
        weights = draw_counts(idx, D).astype(np.float64)
        out.append(weighted_scores(per, formula, weights))
        done += count
    return np.vstack(out)


def _num_sentences(stats: Statistics, beta: float | None) -> int:
    return int(np.asarray(stats.sentence(beta)).shape[1])


def _view(stats: Statistics, level: str, beta: float | None
          ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]] | None:
    """Per-sentence statistics and formula at ``level`` (mean: the sentence scores)."""
    if level == "mean":
        sent = np.asarray(stats.sentence(beta), dtype=np.float64)
        D = sent.shape[1]
        return sent[..., None], lambda sums: sums[..., 0] / D
    return stats.sentence_statistics(beta)


def compare_with_baseline(stats: Statistics, scores: Sequence[float], level: str,
                          beta: float | None, options: PairedOptions,
                          baseline: int = 0) -> list[PairedResult]:
    """One :class:`PairedResult` per system of ``stats`` (the baseline's with nulls).

    ``scores`` are the systems' reported scores at ``level`` (the observed
    differences are theirs).
    """
    return compare_with_baselines(stats, scores, level, beta, options, (baseline,))[0]


def compare_with_baselines(stats: Statistics, scores: Sequence[float], level: str,
                           beta: float | None, options: PairedOptions,
                           baselines: Sequence[int]) -> list[list[PairedResult]]:
    """:func:`compare_with_baseline` for each of ``baselines``, with the bootstrap
    resamples drawn and scored once for all of them (the same resamples each would
    draw: one seed), so every system can be a baseline for the cost of one (the HTML
    report lets its reader choose). AR trials swap with the baseline, so they are
    run per baseline."""
    systems = stats.systems
    if len(systems) < 2:
        raise ConfigError("a paired test needs at least 2 hypothesis files: the first is the "
                          "baseline, the others are compared with it")
    ci_samples = options.samples if options.test == "bs" else AR_CI_RESAMPLES
    boot = bootstrap_scores(stats, level, beta, ci_samples, options.seed)
    view = _view(stats, level, beta) if options.test == "ar" else None
    if options.test == "ar" and view is None:
        raise ConfigError(f"--paired-ar cannot swap sentences between systems of "
                          f"{type(stats).__name__}: its corpus score is not a formula of "
                          "summed sentence statistics; use --paired-bootstrap")
    out = []
    for baseline in baselines:
        observed = np.asarray(scores, dtype=np.float64) - scores[baseline]
        trials = (ar_scores(view[0], view[1], baseline, options.samples, options.seed)
                  if view is not None else None)
        row = []
        for h, name in enumerate(systems):
            if h == baseline:
                row.append(PairedResult(options.test, systems[baseline], name, None, None,
                                        None, options.samples, options.seed))
                continue
            if trials is None:
                p = bootstrap_p_value(boot[:, h], boot[:, baseline], observed[h])
            else:
                p = ar_p_value(trials[:, h], observed[h])
            row.append(PairedResult(
                options.test, systems[baseline], name, float(observed[h]),
                percentile_interval(boot[:, h] - boot[:, baseline], CONFIDENCE), p,
                options.samples, options.seed))
        out.append(row)
    return out
