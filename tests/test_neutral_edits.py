"""The language-neutral edits (gecmetrics.edits.neutral) against a slow oracle.

The oracle below is written from the rules of docs/edits-neutral.md, not from
the module: the Damerau-Levenshtein cost matrix with rapidfuzz's own
``Indel.normalized_distance`` as the character cost and ``sorted`` windows for
transpositions (ERRANT 3.0.2's ``Alignment``, minus lemma and POS), the same
backtrace, then each merging rule by brute force (every sub-run's joined text
compared as a string). The compiled kernel and the Python twin must both equal
it: on fuzzed pairs and on CoNLL-2014 pairs (a sample here, all in the full tier).
Every neutral edit set, applied to the source, must give the target back.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from conftest import CONLL_M2, require_shared_data
from essay_cases import WORDS

from gecmetrics.edits import neutral

# --------------------------------------------------------------------------
# The oracle


def oracle_align(src: list[str], tgt: list[str]) -> list[tuple]:
    from rapidfuzz.distance import Indel

    n, m = len(src), len(tgt)
    cost = {(0, 0): 0.0}
    op = {}
    for i in range(1, n + 1):
        cost[i, 0], op[i, 0] = cost[i - 1, 0] + 1, "D"
    for j in range(1, m + 1):
        cost[0, j], op[0, j] = cost[0, j - 1] + 1, "I"
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            a, b = src[i - 1], tgt[j - 1]
            if a == b:
                cost[i, j], op[i, j] = cost[i - 1, j - 1], "M"
                continue
            sub = 0.0 if a.lower() == b.lower() else (
                (neutral.WORD_COST + 0.0) + Indel.normalized_distance(a, b))
            trans, k = float("inf"), 1
            while i - 1 - k >= 0 and j - 1 - k >= 0 and cost[i - k, j - k] != cost[i - k - 1,
                                                                                  j - k - 1]:
                if (sorted(t.lower() for t in src[i - 1 - k:i])
                        == sorted(t.lower() for t in tgt[j - 1 - k:j])):
                    trans = cost[i - k - 1, j - k - 1] + k
                    break
                k += 1
            costs = [trans, cost[i - 1, j - 1] + sub, cost[i, j - 1] + 1, cost[i - 1, j] + 1]
            best = costs.index(min(costs))
            cost[i, j] = costs[best]
            op[i, j] = [f"T{k + 1}", "S", "I", "D"][best]
    seq, i, j = [], n, m
    while i + j:
        o = op[i, j]
        di, dj = {"M": (1, 1), "S": (1, 1), "D": (1, 0), "I": (0, 1)}.get(
            o, (int(o[1:]), int(o[1:])) if o[0] == "T" else (0, 0))
        seq.append((o, i - di, i, j - dj, j))
        i, j = i - di, j - dj
    return seq[::-1]


def oracle_stretch(run, src, tgt):
    from rapidfuzz.distance import Indel

    def joined(a, b):
        return ("X", run[a][1], run[b - 1][2], run[a][3], run[b - 1][4])

    if len(run) <= 1:
        return list(run)
    if all(s[0] == "D" for s in run) or all(s[0] == "I" for s in run):
        return [joined(0, len(run))]
    for width in range(2, min(neutral.JOIN_STEPS, len(run)) + 1):
        for a in range(len(run) - width + 1):
            x = joined(a, a + width)
            left = "".join(src[x[1]:x[2]]).lower()
            right = "".join(tgt[x[3]:x[4]]).lower()
            if left and left == right:
                return (oracle_stretch(run[:a], src, tgt) + [x]
                        + oracle_stretch(run[a + width:], src, tgt))
    out, start = [], 0
    for t, s in enumerate(run):
        if s[0] == "S" and (src[s[1]].lower() == tgt[s[3]].lower()
                            or Indel.normalized_distance(src[s[1]], tgt[s[3]])
                            < neutral.SIMILAR):
            out += ([joined(start, t)] if start < t else []) + [s]
            start = t + 1
    return out + ([joined(start, len(run))] if start < len(run) else [])


def oracle_edits(src: list[str], tgt: list[str]) -> list[tuple]:
    seq, out, t = oracle_align(src, tgt), [], 0
    while t < len(seq):
        if seq[t][0] == "M":
            t += 1
        elif seq[t][0][0] == "T":
            out.append(("W", *seq[t][1:]))
            t += 1
        else:
            u = t
            while u < len(seq) and seq[u][0] in ("S", "I", "D"):
                u += 1
            for _, o1, o2, c1, c2 in oracle_stretch(seq[t:u], src, tgt):
                out.append(("M" if o1 == o2 else "U" if c1 == c2 else "R", o1, o2, c1, c2))
            t = u
    return [(o1, o2, " ".join(tgt[c1:c2]), kind) for kind, o1, o2, c1, c2 in out]


def _tuples(edits):
    return [(e.start, e.end, e.correction, e.type) for e in edits]


def _apply(src: list[str], edits) -> list[str]:
    out = list(src)
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        out[e.start:e.end] = e.correction.split()
    return out


def _check(src: list[str], tgt: list[str]) -> None:
    want = oracle_edits(src, tgt)
    assert neutral.align(src, tgt) == neutral.align(src, tgt, native=False) == oracle_align(
        src, tgt), (src, tgt)
    for native in (True, False):
        got = neutral.neutral_edits(src, tgt, native=native)
        assert _tuples(got) == want, (src, tgt, native)
        assert _apply(src, got) == tgt, (src, tgt)


def fuzzed(seed: int, count: int, longest: int) -> list[tuple[list[str], list[str]]]:
    rnd = random.Random(seed)
    pairs = [([], []), ([], ["a"]), (["a"], []), ("a b c".split(), "c b a".split()),
             ("I can not go".split(), "i cannot go".split())]
    while len(pairs) < count:
        src = [rnd.choice(WORDS) for _ in range(rnd.randint(1, longest))]
        tgt = list(src)
        for _ in range(rnd.randint(0, 4)):
            at = rnd.randint(0, len(tgt))
            kind = rnd.randrange(5)
            if kind == 0 and tgt:
                del tgt[min(at, len(tgt) - 1)]
            elif kind == 1:
                tgt.insert(at, rnd.choice(WORDS))
            elif kind == 2 and tgt:
                tgt[min(at, len(tgt) - 1)] = rnd.choice(WORDS)
            elif kind == 3 and len(tgt) > 1:
                a = rnd.randint(0, len(tgt) - 2)
                tgt[a:a + 2] = tgt[a:a + 2][::-1]
            else:
                tgt = [rnd.choice(WORDS) for _ in range(rnd.randint(0, longest))]
        pairs.append((src, tgt))
    return pairs


# --------------------------------------------------------------------------
# Tests


def test_worked_example_of_the_docs():
    src = "I has a apple , and i can not go to the the school .".split()
    tgt = "I have an apple and I cannot go to school .".split()
    assert _tuples(neutral.neutral_edits(src, tgt)) == [
        (1, 2, "have", "R"), (2, 3, "an", "R"), (4, 5, "", "U"), (6, 7, "I", "R"),
        (7, 9, "cannot", "R"), (11, 13, "", "U")]
    assert _tuples(neutral.neutral_edits("a b c d".split(), "a c b d".split())) == [
        (1, 3, "c b", "W")]


def test_fast_paths_equal_the_oracle_on_fuzzed_pairs():
    """Without the kernel built, the Python twin (the fallback) against the oracle."""
    for src, tgt in fuzzed(24, 80, 10):
        _check(src, tgt)


@pytest.mark.full
@pytest.mark.skipif(not neutral.compiled(), reason="compiled alignment kernel not built")
def test_fast_paths_equal_the_oracle_on_many_fuzzed_pairs():
    for src, tgt in fuzzed(25, 3000, 40):
        _check(src, tgt)


def _conll_pairs(every: int) -> list[tuple[list[str], list[str]]]:
    require_shared_data()
    from gecmetrics.m2_format import read_m2

    m2 = read_m2(CONLL_M2)
    return [(s.source.split(), s.reference(k).split()) for s in m2.sentences[::every]
            for k in m2.annotator_ids]


@pytest.mark.real_data
def test_fast_paths_equal_the_oracle_on_conll14_sample():
    for src, tgt in _conll_pairs(250):
        _check(src, tgt)


@pytest.mark.full
@pytest.mark.real_data
def test_fast_paths_equal_the_oracle_on_all_conll14_references():
    for src, tgt in _conll_pairs(1):
        _check(src, tgt)


def test_too_long_pair_is_one_line_input_error(monkeypatch):
    from gecmetrics.errors import InputError

    monkeypatch.setattr(neutral, "MAX_CELLS", 100)
    with pytest.raises(InputError, match="MAX_CELLS") as err:
        neutral.neutral_edits(["a"] * 10, ["b"] * 10)
    assert "\n" not in str(err.value)


def test_m2_block_round_trips_through_the_reader(tmp_path):
    from gecmetrics.m2_format import read_m2

    src = "I has a apple .".split()
    refs = ["I have an apple .".split(), list(src), "apples .".split()]
    path = tmp_path / "g.m2"
    path.write_text("\n".join(neutral.m2_block(src, refs)) + "\n\n")
    sent = read_m2(path).sentences[0]
    assert sent.annotators == [0, 1, 2]
    assert [sent.correct(k).split() for k in range(3)] == refs
    assert any(e.is_noop and e.annotator == 1 for e in sent.edits)


def test_span_agreement_counts_by_hand():
    ours = [(0, 1, "a"), (2, 3, "")]
    theirs = [(0, 1, "a", "R:DET"), (1, 2, "b", "R:NOUN")]
    got = neutral.span_agreement([(ours, theirs)])
    assert (got["tp"], got["fp"], got["fn"]) == (1, 1, 1)
    assert got["precision"] == got["recall"] == got["f1"] == 0.5
    assert got["by_type"] == {"R:DET": [1, 1], "R:NOUN": [0, 1]}


# --------------------------------------------------------------------------
# Agreement with ERRANT (docs/edits-neutral.md), recomputed on a sample


@pytest.mark.full
@pytest.mark.errant
@pytest.mark.real_data
def test_agreement_with_errant_on_a_conll14_sample():
    """The docs script's comparison on every 60th sentence equals a direct count
    of equal (start, end, correction) spans against errant's own annotator."""
    from conftest import require_extra

    require_extra("errant")
    data = require_shared_data()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs" / "generate"))
    import make_neutral_edits

    from gecmetrics.edits.extraction import load_annotator

    pairs = make_neutral_edits.conll_pairs(data, every=60)
    result, _ = make_neutral_edits.compare(pairs)
    annotator, nlp = load_annotator()
    from spacy.tokens import Doc

    same = ours = theirs = 0
    for src, ref in pairs:
        orig = nlp(Doc(nlp.vocab, src.split()))
        cor = nlp(Doc(nlp.vocab, ref.split()))
        errant = {(e.o_start, e.o_end, e.c_str) for e in annotator.annotate(orig, cor)}
        mine = {(a, b, c) for a, b, c, _ in oracle_edits(src.split(), ref.split())}
        same, ours, theirs = same + len(errant & mine), ours + len(mine), theirs + len(errant)
    assert (result["tp"], result["tp"] + result["fp"], result["tp"] + result["fn"]) == (
        same, ours, theirs)


# --------------------------------------------------------------------------
# Bounds: a 2,000-token essay rewritten throughout

# the essay: essay_cases.essay_pair (its ESSAY_TOKENS tokens), shared with the benches;
# the bounds: essay_cases.ESSAY_SECONDS and ESSAY_MEMORY_MB

ESSAY_SCRIPT = """
import sys, time
sys.path.insert(0, {tests!r})
from essay_cases import essay_pair
from gecmetrics.corpus import Corpus
from gecmetrics.edits import neutral
from gecmetrics.registry import get_metric
src, tgt = essay_pair()
step = sys.argv[1]
t = time.perf_counter()
if step == "edits":
    neutral.neutral_edits(src, tgt)
elif step == "m2":
    neutral.m2_block(src, [tgt])
else:
    corpus = Corpus([" ".join(src)], [[" ".join(tgt)]], {{"s": [" ".join(essay_pair(seed=8)[1])]}})
    get_metric("errant", edits="neutral").statistics(corpus)
print(time.perf_counter() - t)
"""


@pytest.mark.full
@pytest.mark.skipif(not neutral.compiled(), reason="compiled alignment kernel not built")
@pytest.mark.parametrize("step", ["edits", "m2", "errant:edits=neutral"])
def test_essay_within_time_and_memory(step):
    """A 2,000-token essay rewritten throughout: its neutral edits, its gold M2
    block (m2-from-text) and errant:edits=neutral's F on it, each in its own
    process, in under ESSAY_SECONDS and ESSAY_MEMORY_MB of peak resident memory."""
    from essay_cases import ESSAY_MEMORY_MB, ESSAY_SECONDS, run_bounded

    code = ESSAY_SCRIPT.format(tests=str(Path(__file__).resolve().parent))
    stdout, stderr, exit_code, peak_mb = run_bounded(["-c", code, step],
                                                     timeout=ESSAY_SECONDS * 3)
    assert exit_code == 0, stderr[-2000:]
    assert float(stdout) < ESSAY_SECONDS
    assert peak_mb < ESSAY_MEMORY_MB
