"""M2's pairs scored by ``-j`` worker processes (issue 32): the counts, and the
error for a pair over a budget, are those of ``-j 1``, whichever worker scored
which pair."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gecmetrics import parallel
from gecmetrics.corpus import Corpus
from gecmetrics.m2_format import read_m2
from gecmetrics.metrics import m2 as m2_module
from gecmetrics.metrics.m2 import M2, m2_counts
from gecmetrics.metrics.m2_lattice import LatticeTooLarge


@pytest.fixture
def corpus(tmp_path) -> Corpus:
    """40 sentences, two annotators, three outputs (one the source, two sharing
    most lines): unchanged, shared and distinct pairs all occur."""
    rng = random.Random(7)
    words = [f"w{i}" for i in range(12)]
    blocks, sources = [], []
    outputs: dict[str, list[str]] = {"same": [], "a": [], "b": []}
    for d in range(40):
        src = rng.choices(words, k=rng.randint(3, 9))
        sources.append(" ".join(src))
        edits = [f"A {i} {i + 1}|||R:X|||{rng.choice(words)}|||REQUIRED|||-NONE-|||{a}"
                 for a in (0, 1) for i in rng.sample(range(len(src)), 1)]
        blocks.append("\n".join([f"S {' '.join(src)}", *edits]))
        hyp = list(src)
        hyp[rng.randrange(len(hyp))] = rng.choice(words)
        outputs["same"].append(" ".join(src))
        outputs["a"].append(" ".join(hyp))
        outputs["b"].append(" ".join(hyp) if d % 3 else " ".join([*src, "w0"]))
    path = tmp_path / "gold.m2"
    path.write_text("\n\n".join(blocks) + "\n")
    gold = read_m2(str(path))
    return Corpus(sources, gold.references(), outputs, m2=gold)


def counts_with(corpus: Corpus, jobs: int, **options) -> tuple[np.ndarray, ...]:
    with parallel.execution(jobs=jobs):
        got = m2_counts(corpus, **options)
    return got.tp, got.fp, got.fn, got.present


def test_workers_give_the_counts_of_one_process(corpus, monkeypatch):
    monkeypatch.setattr(m2_module, "M2_CHUNK_PAIRS", 3)  # many tasks, both workers busy
    one = counts_with(corpus, 1)
    two = counts_with(corpus, 2)
    for a, b in zip(one, two, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert one[0].sum() > 0 and one[1].sum() > 0  # real work was compared
    with parallel.execution(jobs=2):
        scores_two = [r.score for r in M2().evaluate(corpus)]
    with parallel.execution(jobs=1):
        assert [r.score for r in M2().evaluate(corpus)] == scores_two


@pytest.mark.parametrize("checked", [True, False], ids=["by-the-check", "while-scoring"])
def test_the_first_pair_over_a_budget_is_named_whatever_the_jobs(corpus, monkeypatch,
                                                                  checked):
    """A pair over a budget is reported for the first such pair in input order, as
    with ``-j 1``: found by the cheap check before any pair is scored, or (the
    check patched out, inherited by the forked workers) only while scoring."""
    monkeypatch.setattr(m2_module, "M2_CHUNK_PAIRS", 2)
    if not checked:
        monkeypatch.setattr(m2_module, "check_pair", lambda *args: None)
    messages = []
    for jobs in (1, 2):
        with pytest.raises(LatticeTooLarge) as caught:
            counts_with(corpus, jobs, max_lattice_edges=1)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith("m2: hypothesis a, line 1: ")


def test_the_check_comes_before_any_scoring(corpus, monkeypatch):
    """The last pair over a budget: no pair is scored (``-j 1``, where calls can be
    counted; the workers run the same two steps)."""
    monkeypatch.setattr(m2_module, "M2_CHUNK_PAIRS", 2)
    real = m2_module.check_pair
    last = corpus.hypotheses["b"][-1].split()

    def check(src, hyp, *args):
        if hyp == last:
            raise LatticeTooLarge("over")
        real(src, hyp, *args)

    scored = []
    monkeypatch.setattr(m2_module, "check_pair", check)
    monkeypatch.setattr(m2_module, "_sentence", lambda *args: scored.append(args))
    with pytest.raises(LatticeTooLarge, match="hypothesis b, line 40: over"):
        counts_with(corpus, 1)
    assert scored == []
