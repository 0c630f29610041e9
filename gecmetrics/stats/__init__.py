"""Every statistic of gecmetrics, as pure functions over arrays: nothing here reads a
file, a benchmark, a metric or an option.

Modules:

* :mod:`.correlation`: Pearson, Spearman and Kendall tau-b, of one score vector or of
  every row of a 2-D array (bootstrap resamples, beta grids, folds, subsets).
* :mod:`.resampling`: the random-number policy below, and every draw made under it:
  sentence resamples, their draw counts, system resamples, swap masks, permutations,
  random subsets.
* :mod:`.significance`: tests of a difference: Williams' test and the paired bootstrap
  of two correlations, the one-sided paired-bootstrap p-value, and sacrebleu's paired
  bootstrap and approximate randomisation on per-sentence statistics
  (``score --paired-bootstrap/--paired-ar``).
* :mod:`.intervals`: percentile bootstrap intervals of correlations, and of human
  scores with their rank ranges and clusters.
* :mod:`.pairwise_accuracy`: pairwise accuracy, tie-calibrated accuracy (acc_eq) and the
  ROC AUC of a score separating two classes.
* :mod:`.spa`: soft pairwise accuracy from pair p-values.
* :mod:`.clusters`: WMT-style significance clusters of metrics.

The meta-evaluation (``gecmetrics.meta_eval``) and ``gecmetrics.paired`` call these;
this package imports neither.

Random numbers: one policy, in :mod:`.resampling`. Every draw is made from
:func:`.resampling.generator` (``numpy.random.default_rng(seed)`` on stream 0,
``default_rng([seed, stream])`` on another stream, so a second kind of draw under the
same seed does not change the first), or, where a procedure is defined by Python's
``random`` module (TrueSkill's per-run match choices), from
:func:`.resampling.python_random`. The same seed and stream give the same draws on
every run. The seed is :data:`DEFAULT_SEED` unless the user gives one, and is
recorded in every result that used it.

The one exception is GLEU's resampling of references (``gecmetrics.metrics.gleu``:
the original script's Mersenne Twister seeded per round, or its own integer seed):
those draws are part of that metric's definition, so they stay with the metric.
"""

#: The seed of every resampling when none is given (sacrebleu's SACREBLEU_SEED too).
DEFAULT_SEED = 12345
#: Bootstrap resamples when none are given.
DEFAULT_RESAMPLES = 1000
