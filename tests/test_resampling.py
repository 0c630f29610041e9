"""The random-number policy of gecmetrics.stats.resampling: the same seed and stream give the
same draws, and every draw is the one its caller made before the policy existed (stream 0:
``default_rng(seed)``; the clusters' systems: ``default_rng([seed, 1])``; TrueSkill's runs:
``random.Random(seed)``), so no number of the meta-evaluation or of ``score --paired-*``
changes."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from gecmetrics.stats import DEFAULT_SEED
from gecmetrics.stats.resampling import (
    SENTENCES,
    SYSTEMS,
    bootstrap_system_scores,
    draw_counts,
    generator,
    permutation,
    permutations,
    python_random,
    random_subsets,
    resample_counts,
    resample_indices,
    swap_masks,
    system_resamples,
)

SEEDS = [0, 7, DEFAULT_SEED, 2**40 + 3]


@pytest.mark.parametrize("seed", SEEDS)
def test_same_seed_and_stream_same_draws(seed):
    for stream in (SENTENCES, SYSTEMS, 5):
        a, b = generator(seed, stream), generator(seed, stream)
        assert np.array_equal(a.integers(0, 1000, 50), b.integers(0, 1000, 50))
        assert np.array_equal(a.random(20), b.random(20))
    assert python_random(seed).random() == python_random(seed).random()


@pytest.mark.parametrize("seed", SEEDS)
def test_the_two_numpy_schemes_are_reproduced(seed):
    # stream 0 is the plain seed, any other stream the [seed, stream] entropy
    assert np.array_equal(generator(seed).integers(0, 10**6, 100),
                          np.random.default_rng(seed).integers(0, 10**6, 100))
    assert np.array_equal(generator(seed, SYSTEMS).integers(0, 10**6, 100),
                          np.random.default_rng([seed, 1]).integers(0, 10**6, 100))
    # and they are different sequences
    assert not np.array_equal(generator(seed).integers(0, 10**6, 100),
                              generator(seed, SYSTEMS).integers(0, 10**6, 100))


@pytest.mark.parametrize("seed", [0, 1, 41])
def test_python_random_is_pythons_mersenne_twister(seed):
    ours, theirs = python_random(seed), random.Random(seed)
    population = ["a", "b", "c", "d"]
    for _ in range(20):
        assert ours.choices(population, [1, 2, 3, 4]) == theirs.choices(population, [1, 2, 3, 4])
        assert ours.choice(population) == theirs.choice(population)


def test_resample_indices_are_the_old_loop():
    rng = np.random.default_rng(DEFAULT_SEED)
    old = [rng.integers(0, 17, size=17) for _ in range(30)]
    new = list(resample_indices(17, 30, DEFAULT_SEED))
    assert len(new) == 30
    assert all(np.array_equal(a, b) for a, b in zip(old, new, strict=True))
    with pytest.raises(ValueError):
        next(resample_indices(0, 3, 1))
    with pytest.raises(ValueError):
        next(resample_indices(3, 0, 1))


def test_bootstrap_system_scores_use_those_resamples():
    per_sentence = np.arange(24, dtype=float).reshape(3, 8) ** 1.5
    got = bootstrap_system_scores(lambda idx: per_sentence[:, idx].sum(axis=1), 8, 12, 3)
    expected = np.vstack([per_sentence[:, idx].sum(axis=1)
                          for idx in resample_indices(8, 12, 3)])
    assert np.array_equal(got, expected)


def test_draw_counts_by_hand_and_against_bincount():
    counts = draw_counts(np.array([[0, 0, 2], [1, 1, 1], [2, 0, 1]]), 4)
    assert counts.tolist() == [[2, 0, 1, 0], [0, 3, 0, 0], [1, 1, 1, 0]]
    rng = np.random.default_rng(1)
    idx = rng.integers(0, 9, size=(6, 11))
    assert np.array_equal(draw_counts(idx, 9),
                          np.vstack([np.bincount(row, minlength=9) for row in idx]))


@pytest.mark.parametrize("block", [1, 7, 100])
def test_resample_counts_are_the_old_blocks(block):
    rng = np.random.default_rng(9)
    old = []
    done = 0
    while done < 23:
        size = min(block, 23 - done)
        draws = rng.integers(0, 13, size=(size, 13))
        old.append(np.vstack([np.bincount(row, minlength=13) for row in draws]))
        done += size
    new = list(resample_counts(13, 23, 9, block=block))
    assert len(new) == len(old)
    assert all(np.array_equal(a, b) for a, b in zip(old, new, strict=True))


def test_system_resamples_are_the_second_stream():
    assert np.array_equal(system_resamples(6, 40, 5),
                          np.random.default_rng([5, 1]).integers(0, 6, size=(40, 6)))


@pytest.mark.parametrize("sentences", [5, 64, 1 << 17])
def test_swap_masks_are_sacrebleus_draw(sentences):
    trials = 70
    blocks = list(swap_masks(trials, sentences, 3))
    masks = np.vstack(blocks)
    expected = np.random.default_rng(3).integers(2, size=(trials, sentences), dtype=bool)
    assert np.array_equal(masks, expected)
    assert all(len(b) % 32 == 0 for b in blocks[:-1])


def test_permutations_and_subsets_are_the_old_draws():
    assert np.array_equal(permutation(30, 4), np.random.default_rng(4).permutation(30))
    rng = np.random.default_rng(8)
    old = [rng.permutation(12) for _ in range(5)]
    assert all(np.array_equal(a, b)
               for a, b in zip(old, permutations(12, 5, 8), strict=True))
    keys = np.random.default_rng(2).random((50, 9))
    subsets = random_subsets(9, 4, 50, 2)
    assert np.array_equal(subsets, np.sort(np.argsort(keys, axis=1)[:, :4], axis=1))
    assert subsets.shape == (50, 4)
    assert all(len(set(row)) == 4 and list(row) == sorted(row) for row in subsets.tolist())
    assert {tuple(row) for row in subsets.tolist()} <= set(itertools.combinations(range(9), 4))
