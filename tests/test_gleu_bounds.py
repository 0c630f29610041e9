"""GLEU sampling in bounded memory: rounds are drawn, scored and summed a block
at a time, and the scores are bit-identical to scoring all rounds at once.

The all-at-once route is written out here (``materialised``): the draws of
every round as one matrix, corpus GLEU per round, ``np.mean`` over rounds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from gleu_oracle import official_draws

from gecmetrics.corpus import Corpus
from gecmetrics.metrics.gleu import (
    PAIRWISE_LEAF,
    Gleu,
    GleuStatistics,
    RoundDraws,
    gleu_from_counts,
    official_rounds,
    pairwise_sum,
)
from gecmetrics.ngrams import intersections


@pytest.mark.parametrize("n", [1, 7, 8, 127, 128, 129, 255, 256, 257, 1000, 4099, 20_001])
@pytest.mark.parametrize("leaf", [1, 100, 300, 5000])
def test_pairwise_sum_is_numpys_sum_bit_for_bit(n, leaf):
    rng = np.random.default_rng(n)
    # Values of mixed magnitude, so that the order of additions shows in the last bits.
    values = rng.random((n, 3)) * 10.0 ** rng.integers(-8, 8, size=(n, 3))
    seen = []

    def leaf_sum(start, stop):
        seen.append((start, stop))
        return np.array([np.add.reduce(np.ascontiguousarray(values[start:stop, j]))
                         for j in range(3)])

    got = pairwise_sum(n, leaf, leaf_sum)
    expected = [np.add.reduce(np.ascontiguousarray(values[:, j])) for j in range(3)]
    assert [float(x).hex() for x in got] == [float(x).hex() for x in expected]
    # The leaves come in order, cover every value once, and are small.
    assert seen[0][0] == 0 and seen[-1][1] == n
    assert all(a[1] == b[0] for a, b in zip(seen, seen[1:], strict=False))
    assert max(stop - start for start, stop in seen) <= max(leaf, PAIRWISE_LEAF)


@pytest.mark.parametrize("seed", ["official", 0, 12345])
@pytest.mark.parametrize("num_refs", [2, 3, 5])
def test_draws_in_blocks_equal_draws_at_once(seed, num_refs):
    sentences = 37  # odd, so that blocks end in the middle of 64-bit words
    at_once = RoundDraws(seed, sentences, num_refs).take(60)
    stream = RoundDraws(seed, sentences, num_refs)
    blocks = [stream.take(c) for c in (1, 2, 7, 13, 1, 36)]
    assert np.array_equal(np.concatenate(blocks), at_once)
    if seed == "official":
        assert at_once.tolist() == official_draws(60, sentences, num_refs)
        assert np.array_equal(official_rounds(5, sentences, num_refs, start=11), at_once[11:16])


@pytest.mark.parametrize("num_refs", [1, 2, 3, 7, 10])
def test_official_draws_equal_the_python_loop(num_refs):
    """The vectorised draws are the Python 2 tool's: its loop, written out, for
    early rounds and for rounds whose seed i * 101 needs two 32-bit words."""
    import random

    for start in (0, 42_524_000):  # 42,524,000 * 101 > 2**32
        want = []
        for i in range(start, start + 4):
            rng = random.Random(i * 101)
            want.append([int(rng.random() * num_refs) for _ in range(1001)])
        assert official_rounds(4, 1001, num_refs, start=start).tolist() == want


def materialised(stats, idx):
    """Per system: all rounds' corpus GLEU computed at once, and np.mean/std/min/max."""
    H, _, K, N = stats.numer.shape
    rounds = stats.rounds()[:, idx]  # (iterations, D')
    h = np.arange(H)[:, None, None]
    picked = stats.numer[h, idx[None, None, :], rounds[None, :, :]]  # (H, R, D', N)
    numer = picked.sum(axis=2).transpose(1, 0, 2)  # (R, H, N)
    rlen = stats.rlen[idx[None, :], rounds].sum(axis=1)  # (R,)
    denom = stats.denom[:, idx].sum(axis=1)
    hlen = stats.hlen[:, idx].sum(axis=1)
    per_round = gleu_from_counts(numer, denom[None], rlen[:, None], hlen[None])[0]
    return [(np.ascontiguousarray(per_round[:, k])) for k in range(H)]


@pytest.fixture(scope="module")
def conll_corpus(conll):
    sources, refs, hyps = conll
    keep = ["AMU", "CAMB", "IPN", "PKU", "INPUT", "NULL"]
    return Corpus(sources, refs, {k: hyps[k] for k in keep})


@pytest.mark.full
@pytest.mark.parametrize("options", [dict(iterations=300), dict(iterations=257, seed=4),
                                     dict(iterations=200, variant="paper", tokenize="char",
                                          n=6)])
def test_blocks_give_bit_identical_scores_on_conll(conll_corpus, options):
    c = conll_corpus
    rng = np.random.default_rng(0)
    resample = rng.integers(0, c.num_sentences, c.num_sentences)
    corpus = Corpus(c.sources, c.references, c.hypotheses)
    metric = Gleu(**options)
    cfg = metric.config
    results = {}
    for block in (None, 1, 7, 129):
        # Fresh statistics (no cached draws or scores) on the shared n-gram counts.
        stats = GleuStatistics(tuple(corpus.hypotheses),
                               intersections(corpus, cfg.tokenize, cfg.n), cfg)
        stats.block_rounds = block
        full = stats.corpus()
        boot = stats.corpus_scores(None, resample)  # draws cached by the run above
        sentence = stats.sentence()
        results[block] = (
            [(s.score.hex(), s.details["min"].hex(), s.details["max"].hex()) for s in full],
            [x.hex() for x in boot],
            [float(x).hex() for x in sentence.ravel()],
            [float(np.mean(row)).hex() for row in sentence],  # the mean level
        )
        stds = [s.details["std"] for s in full]
        for k, rounds in enumerate(materialised(stats, np.arange(c.num_sentences))):
            assert full[k].score == float(np.mean(rounds))  # bit for bit
            assert (full[k].details["min"], full[k].details["max"]) == (rounds.min(),
                                                                        rounds.max())
            assert stds[k] == pytest.approx(float(np.std(rounds)), rel=1e-12, abs=1e-15)
        for k, rounds in enumerate(materialised(stats, resample)):
            assert boot[k] == float(np.mean(rounds))
    assert all(r == results[None] for r in results.values())
    mean_level = [r.score for r in metric.evaluate(corpus, "mean")]
    assert [x.hex() for x in mean_level] == results[None][3]


def test_bootstrap_without_cached_draws_equals_with(conll_corpus, monkeypatch):
    import gecmetrics.metrics.gleu as gleu_module

    idx = np.arange(0, conll_corpus.num_sentences, 3)
    c = conll_corpus
    cached = Gleu(iterations=150).statistics(Corpus(c.sources, c.references, c.hypotheses))
    cached.corpus()
    assert cached._draws is not None
    monkeypatch.setattr(gleu_module, "DRAWS_CACHE_BYTES", 0)
    fresh = Gleu(iterations=150).statistics(Corpus(c.sources, c.references, c.hypotheses))
    fresh.corpus()
    assert fresh._draws is None
    assert cached.corpus_scores(None, idx).tolist() == fresh.corpus_scores(None, idx).tolist()


# Scoring 20,000 rounds on CoNLL-2014 in a child process under an address-space
# limit. Drawing all rounds at once needed iterations x sentences x 8 bytes
# several times over (20k x 1,312 x 8 = 210 MB per copy, about 650 MB in all).
CHILD = textwrap.dedent("""
    import json, resource, sys
    from gecmetrics.corpus import Corpus
    from gecmetrics.m2_format import read_m2
    from gecmetrics.metrics.gleu import Gleu
    m2 = read_m2(sys.argv[1])
    corpus = Corpus(m2.sources, m2.references(), {"INPUT": m2.sources})
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    score = Gleu(iterations=int(sys.argv[2]), seed=1).statistics(corpus).corpus()[0].score
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"score": score, "grew_kib": after - before}))
""")


def _child(shared_data, iterations, limit_bytes):
    import resource

    m2 = shared_data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    return subprocess.run([sys.executable, "-c", CHILD, str(m2), str(iterations)], env=env,
                          preexec_fn=cap, capture_output=True, text=True, timeout=300)


@pytest.mark.full
def test_20k_iterations_run_under_a_small_memory_limit(shared_data):
    limit = 600 * 2**20
    small = _child(shared_data, 200, limit)
    assert small.returncode == 0, small.stderr
    big = _child(shared_data, 20_000, limit)
    assert big.returncode == 0, big.stderr[-500:]
    result = json.loads(big.stdout)
    assert 0 < result["score"] < 1
    # Scoring grew the process by the cached draws (20k x 1,312 bytes = 26 MB) and
    # a few blocks, not by hundreds of MB.
    assert result["grew_kib"] < 80 * 1024, result
