"""The random-number policy, and every random draw made under it.

One seeded generator per kind of draw, :func:`generator`: stream 0 is
``numpy.random.default_rng(seed)``, any other stream k is
``numpy.random.default_rng([seed, k])``, an independent sequence. Giving a new kind
of draw its own stream keeps the draws of the others (and so every published
number) as they were: the clusters' system resamples are stream :data:`SYSTEMS`, so
the sentence resamples of the same seed stay those of ``--bootstrap``. Procedures
defined by Python's ``random`` module (TrueSkill's match choices) draw from
:func:`python_random`. Nothing else in gecmetrics.stats or the meta-evaluation makes
a random number (the package docstring names the one exception, GLEU's reference
draws).

The draws:

* sentence (or item) resamples with replacement: :func:`resample_indices` one at a
  time, :func:`resample_counts` as blocks of draw counts, and
  :func:`bootstrap_system_scores` for a scoring function;
* :func:`draw_counts`, the one counter of how often each index was drawn (a
  resample as weights: a matrix product instead of a gather);
* system resamples (:func:`system_resamples`), swap masks of approximate
  randomisation (:func:`swap_masks`), permutations (:func:`permutation`,
  :func:`permutations`), random subsets (:func:`random_subsets`) and the random
  orders of a sentence's edits (:func:`edit_orders`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import numpy as np

from gecmetrics.validate import arguments, is_array, is_count, is_function

from . import DEFAULT_RESAMPLES, DEFAULT_SEED

#: Stream of the sentence and item resamples, folds, orders, subsets and swap masks.
SENTENCES = 0
#: Stream of the system resamples (significance clusters).
SYSTEMS = 1
#: Stream of the random orders of a sentence's edits (permutation-sampled Shapley
#: values, :mod:`gecmetrics.workflows.attribution`); each sentence has its own sequence.
EDIT_ORDERS = 2
#: Elements of one block of a resample-by-sentence matrix (32 MiB of float64).
BLOCK_ELEMENTS = 1 << 22
#: Resamples per block of :func:`resample_counts` (memory: block x items numbers).
COUNT_BLOCK = 100

SystemScores = Callable[[np.ndarray], np.ndarray]


@arguments(seed=is_count(), stream=is_count())
def generator(seed: int, stream: int = SENTENCES) -> np.random.Generator:
    """The generator of ``stream`` under ``seed``: ``default_rng(seed)`` for stream 0,
    ``default_rng([seed, stream])`` otherwise."""
    return np.random.default_rng(seed if stream == SENTENCES else [seed, stream])


@arguments(n=is_count(), samples=is_count(), seed=is_count(),
           key=is_array(1, 0, "whole numbers", convert=False))
def edit_orders(n: int, samples: int, seed: int, key: tuple[int, ...]) -> list[tuple[int, ...]]:
    """``samples`` random orders of ``range(n)``, drawn with replacement, for the
    sentence ``key`` (e.g. its system's and line's numbers): from
    ``default_rng([seed, EDIT_ORDERS, *key])``, so a sentence's orders do not
    depend on which other sentences were drawn for."""
    return list(iter_edit_orders(n, samples, seed, key))


@arguments(n=is_count(), samples=is_count(), seed=is_count(),
           key=is_array(1, 0, "whole numbers", convert=False))
def iter_edit_orders(n: int, samples: int, seed: int, key: tuple[int, ...]
                     ) -> Iterator[tuple[int, ...]]:
    """The orders of :func:`edit_orders`, one at a time: a caller that uses each
    order once (attribution's sampled Shapley values) holds one order, not all."""
    rng = np.random.default_rng([seed, EDIT_ORDERS, *key])
    for _ in range(samples):
        yield tuple(int(x) for x in rng.permutation(n))


@arguments(seed=is_count())
def python_random(seed: int) -> random.Random:
    """Python's Mersenne Twister seeded with ``seed``, for procedures defined by the
    ``random`` module's methods (``choice``, ``choices``)."""
    return random.Random(seed)


@arguments(n_sentences=is_count(), n_resamples=is_count(), seed=is_count())
def resample_indices(n_sentences: int, n_resamples: int, seed: int) -> Iterator[np.ndarray]:
    """The bootstrap resamples: ``n_resamples`` arrays of ``n_sentences`` indices drawn
    with replacement from ``range(n_sentences)``, one ``integers`` call each on
    :func:`generator` ``(seed)``.

    The same (n_sentences, n_resamples, seed) always gives the same sequence, so two
    metrics can be evaluated on identical resamples; it is also the stream of
    sacrebleu's ``rng.choice(D, (N, D))``.
    """
    if n_sentences < 1:
        raise ValueError("need at least one sentence to resample")
    if n_resamples < 1:
        raise ValueError("the number of resamples must be at least 1")
    rng = generator(seed)
    for _ in range(n_resamples):
        yield rng.integers(0, n_sentences, size=n_sentences)


@arguments(system_scores=is_function("a function of sentence indices"), n_sentences=is_count(),
           n_resamples=is_count(), seed=is_count())
def bootstrap_system_scores(
    system_scores: SystemScores, n_sentences: int, n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> np.ndarray:
    """Corpus scores of every system on every resample of :func:`resample_indices`,
    shape (n_resamples, n_systems)."""
    rows = [np.asarray(system_scores(idx), dtype=float)
            for idx in resample_indices(n_sentences, n_resamples, seed)]
    return np.vstack(rows)


@arguments(indices=is_array(2, 0, "whole numbers"), n=is_count())
def draw_counts(indices: np.ndarray, n: int) -> np.ndarray:
    """(B, n): how often each of ``range(n)`` was drawn in each row of ``indices`` (B, k)."""
    b = indices.shape[0]
    offset = indices + (np.arange(b) * n)[:, None]
    return np.bincount(offset.ravel(), minlength=b * n).reshape(b, n)


@arguments(n_items=is_count(1), n_resamples=is_count(), seed=is_count(), block=is_count(1))
def resample_counts(n_items: int, n_resamples: int, seed: int,
                    block: int = COUNT_BLOCK) -> Iterator[np.ndarray]:
    """Blocks of (resamples, n_items) draw counts: row b counts how often each item
    was drawn in resample b (n_items draws with replacement, one ``integers`` call
    per block on :func:`generator` ``(seed)``)."""
    if n_items < 1:
        raise ValueError("need at least one item to resample")
    rng = generator(seed)
    done = 0
    while done < n_resamples:
        size = min(block, n_resamples - done)
        yield draw_counts(rng.integers(0, n_items, size=(size, n_items)), n_items)
        done += size


@arguments(n_systems=is_count(), n_resamples=is_count(), seed=is_count())
def system_resamples(n_systems: int, n_resamples: int, seed: int) -> np.ndarray:
    """(B, S) indices of systems drawn with replacement, on stream :data:`SYSTEMS`."""
    rng = generator(seed, SYSTEMS)
    return rng.integers(0, n_systems, size=(n_resamples, n_systems))


@arguments(n_trials=is_count(), n_sentences=is_count(), seed=is_count())
def swap_masks(n_trials: int, n_sentences: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of approximate-randomisation masks (trials, sentences), True with
    probability 1/2: sacrebleu's ``rng.integers(2, size=(N, D), dtype=bool)``, drawn in
    blocks of a multiple of 32 rows (the same stream) of at most
    :data:`BLOCK_ELEMENTS` values."""
    rng = generator(seed)
    rows = max(32, (BLOCK_ELEMENTS // n_sentences) // 32 * 32)
    done = 0
    while done < n_trials:
        count = min(rows, n_trials - done)
        yield rng.integers(2, size=(count, n_sentences), dtype=bool)
        done += count


@arguments(n=is_count(), seed=is_count())
def permutation(n: int, seed: int) -> np.ndarray:
    """A random order of ``range(n)`` (the shuffle of cross-validation folds)."""
    return generator(seed).permutation(n)


@arguments(n=is_count(), count=is_count(), seed=is_count())
def permutations(n: int, count: int, seed: int) -> list[np.ndarray]:
    """``count`` random orders of ``range(n)``, drawn one after another from one
    generator."""
    rng = generator(seed)
    return [rng.permutation(n) for _ in range(count)]


@arguments(n=is_count(), k=is_count(), count=is_count(), seed=is_count())
def random_subsets(n: int, k: int, count: int, seed: int) -> np.ndarray:
    """``count`` random subsets of k of ``range(n)``, each without repeats and drawn
    independently of the others, as rows of sorted indices (count, k): the k smallest
    of n uniform keys per row."""
    keys = generator(seed).random((count, n))
    return np.sort(np.argsort(keys, axis=1)[:, :k], axis=1)
