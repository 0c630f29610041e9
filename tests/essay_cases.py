"""The 2,000-token essay rewritten throughout: one builder for the essay-level bounds
(tests/test_essay_bounds.py, tests/test_neutral_edits.py) and the essay benches
(bench/bench_essays.py, bench/bench_neutral_edits.py), so that the tests bound and the
benches time the same essay.

A source of ``n`` tokens (numbered words: few repeated n-grams, as in real prose) and
rewrites that change about every other word: seed 7 is the first reference, seed 8 the
system output, seeds 9, 10, ... further references.
"""

from __future__ import annotations

import random

WORDS = ("the", "The", "a", "an", "cat", "cats", "Cat", "dog", "is", "are", "was", "be",
         "eat", "eats", "ate", "to", "of", "in", "on", "can", "not", "cannot", "-", ",", ".",
         "I", "i", "naïve", "😀", "x", "new", "New", "york", "newyork", "über", "мова", "мови")

#: the essay length the issue bounds (tokens)
ESSAY_TOKENS = 2000
#: the seed of the system output's rewrite
HYPOTHESIS_SEED = 8


def essay_pair(n: int = ESSAY_TOKENS, seed: int = 7) -> tuple[list[str], list[str]]:
    """A source of ``n`` tokens and a rewrite that changes about every other word
    (the source is the same for every seed, the rewrite is the seed's)."""
    rnd = random.Random(0)
    src = [rnd.choice(WORDS) + str(rnd.randrange(50)) for _ in range(n)]
    rnd = random.Random(seed)
    tgt = [w if rnd.random() < 0.5 else rnd.choice(WORDS) for w in src]
    return src, tgt


def essay_case(references: int = 1, n: int = ESSAY_TOKENS
               ) -> tuple[list[str], list[list[str]], list[str]]:
    """(source tokens, the references' tokens (seeds 7, 9, 10, ...), the output's tokens
    (seed 8)); every rewrite keeps the source's length, token for token."""
    src, first = essay_pair(n)
    refs = [first] + [essay_pair(n, seed)[1] for seed in range(9, 8 + references)]
    return src, refs, essay_pair(n, HYPOTHESIS_SEED)[1]


#: The bounds the issue sets for one metric on one essay.
ESSAY_SECONDS = 10
ESSAY_MEMORY_MB = 500
#: Address space given to the child: numpy and the BLAS threads map far more than
#: they touch (a 500 MB cap on address space hangs some BLAS builds at start), so the
#: memory bound is checked on the peak resident size instead.
CHILD_ADDRESS_SPACE = (ESSAY_MEMORY_MB + 1500) << 20


def run_bounded(args: list[str], timeout: float = 120) -> tuple[str, str, int, float]:
    """Run ``python args...`` forked from tests/trust_measure.py (a small process,
    so the peak resident memory is the child's own, not that of the test process
    it would otherwise inherit through exec): (stdout, stderr, exit code, peak MB)."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    measure = Path(__file__).with_name("trust_measure.py")
    with tempfile.TemporaryDirectory() as folder:
        result = Path(folder) / "result"
        proc = subprocess.run([sys.executable, "-I", "-S", str(measure), str(result),
                               str(CHILD_ADDRESS_SPACE), sys.executable, *args],
                              capture_output=True, text=True, timeout=timeout,
                              cwd=folder)  # not the checkout: import the installed package
        code, peak_kb = result.read_text().split()
    return proc.stdout, proc.stderr, int(code), int(peak_kb) / 1024
