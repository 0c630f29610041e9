"""The compiled ERRANT alignment (gecmetrics.edits.errant_align) equals errant 3.0.2's own.

errant itself is the oracle: ``errant_align.annotate(..., native=False)`` and
``align_seq(..., native=False)`` run errant's ``Alignment`` and merger
unchanged, and every pair here is run both ways. Compared: the alignment
sequence (with ``lev`` False and True) and the typed edits (spans, strings,
types) of every merging strategy errant has (``rules``, the one the metrics
use, and ``all-split``, ``all-merge``, ``all-equal``).

* fast tier: a small fuzzed sample (repeated tokens, case changes,
  transpositions, rewritten stretches, empty sides), and the character cost
  against rapidfuzz's ``Indel.normalized_distance`` bit for bit;
* full tier: a larger fuzzed sample with long and rewritten-throughout pairs,
  and every sentence pair of CoNLL-2014 (13 systems and both annotators'
  references against the sources); of SEEDA's 15 outputs and GMEG's systems and
  references, every 20th distinct pair (errant's own path, the oracle, takes
  about 25 minutes for all of them on one core: set GECMETRICS_ALL_PAIRS=1 to
  compare every pair, as was done when the kernel was written).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from conftest import require_extra, require_shared_data

from gecmetrics.edits import errant_align

needs_kernel = pytest.mark.skipif(not errant_align.compiled(),
                                  reason="compiled alignment kernel not built")
pytestmark = [pytest.mark.errant, needs_kernel]

MERGINGS = ("rules", "all-split", "all-merge", "all-equal")

#: SEEDA and GMEG: every SAMPLE-th distinct pair (1 with GECMETRICS_ALL_PAIRS=1)
SAMPLE = 1 if os.environ.get("GECMETRICS_ALL_PAIRS") == "1" else 20

#: words the fuzzer draws from: few, so that tokens repeat and windows transpose;
#: case pairs, possessives, hyphens, punctuation, accented and non-BMP text
WORDS = ("the", "The", "a", "A", "cat", "cats", "Cat", "dog", "dogs", "'s", "is", "are", "was",
         "be", "been", "eat", "eats", "eating", "ate", "to", "of", "in", "on", "at", "look",
         "watch", "friend", "friends", "sub", "-", "way", "subway", "I", "i", ",", ".", "!", "?",
         "we", "We", "very", "quickly", "quick", "big", "bigger", "café", "naïve", "😀", "x",
         "123", "New", "York", "new", "york", "and", "or", "not", "n't", "do", "does", "did")


@pytest.fixture(scope="module")
def annotator():
    require_extra("errant")
    from gecmetrics.edits.extraction import load_annotator

    return load_annotator()


def _edits(edits) -> list[tuple]:
    return [(e.o_start, e.o_end, e.c_start, e.c_end, e.o_str, e.c_str, e.type) for e in edits]


def _check(annotator, orig, cor, mergings=MERGINGS, lev=(False, True)) -> None:
    """Both paths on one parsed pair: equal alignments and equal typed edits."""
    ann = annotator[0]
    for flag in lev:
        assert (errant_align.align_seq(orig, cor, flag)
                == errant_align.align_seq(orig, cor, flag, native=False)), (orig, cor, flag)
    for merging in mergings:
        assert (_edits(errant_align.annotate(ann, orig, cor, merging=merging))
                == _edits(errant_align.annotate(ann, orig, cor, merging=merging, native=False))
                ), (orig, cor, merging)


def _mutate(rnd: random.Random, tokens: list[str]) -> list[str]:
    """A corrupted copy: deletions, insertions, substitutions, case changes,
    reversed or shuffled windows (transpositions), duplicated stretches."""
    out = list(tokens)
    for _ in range(rnd.randint(0, max(1, len(out) // 3))):
        kind = rnd.randrange(7)
        at = rnd.randint(0, len(out))
        if kind == 0 and out:
            del out[min(at, len(out) - 1)]
        elif kind == 1:
            out.insert(at, rnd.choice(WORDS))
        elif kind == 2 and out:
            out[min(at, len(out) - 1)] = rnd.choice(WORDS)
        elif kind == 3 and out:
            k = min(at, len(out) - 1)
            out[k] = out[k].swapcase() if rnd.random() < 0.5 else out[k].upper()
        elif kind in (4, 5) and len(out) > 1:
            size = rnd.randint(2, min(5, len(out)))
            start = rnd.randint(0, len(out) - size)
            window = out[start:start + size]
            if kind == 4:
                window.reverse()
            else:
                rnd.shuffle(window)
            out[start:start + size] = window
        elif kind == 6 and out:
            start = rnd.randint(0, len(out) - 1)
            out[start:start] = out[start:start + rnd.randint(1, 4)]
    return out


def fuzzed_pairs(seed: int, count: int, longest: int) -> list[tuple[str, str]]:
    """``count`` (source, other) pairs of up to ``longest`` tokens: mostly mutated
    copies, some rewritten throughout, some with an empty side, some equal."""
    rnd = random.Random(seed)
    pairs = [("", ""), ("", "the cat"), ("the cat", ""), ("a b c", "c b a"),
             ("The cat sat", "the cat sat"), ("x x x x", "x x x x x")]
    while len(pairs) < count:
        n = rnd.randint(1, longest)
        src = [rnd.choice(WORDS) for _ in range(n)]
        roll = rnd.random()
        if roll < 0.15:
            other = [rnd.choice(WORDS) for _ in range(rnd.randint(1, longest))]
        elif roll < 0.2:
            other = []
        elif roll < 0.25:
            other = list(src)
        else:
            other = _mutate(rnd, src)
        pairs.append((" ".join(src), " ".join(other)))
    return pairs


def _parse_all(nlp, texts):
    from spacy.tokens import Doc

    docs = nlp.pipe([Doc(nlp.vocab, t.split()) for t in texts])
    return dict(zip(texts, docs, strict=True))


def _run_pairs(annotator, pairs, mergings=MERGINGS, lev=(False, True)) -> int:
    texts = list(dict.fromkeys(t for pair in pairs for t in pair))
    docs = _parse_all(annotator[1], texts)
    for src, other in pairs:
        _check(annotator, docs[src], docs[other], mergings, lev)
    return len(pairs)


def test_char_cost_is_rapidfuzz_indel_normalized_distance_bit_for_bit():
    require_extra("errant")
    from rapidfuzz.distance import Indel

    from gecmetrics.edits._align_kernel import char_cost

    rnd = random.Random(7)
    alphabet = "abcAB-'é😀中"
    texts = ["", "a", *WORDS] + ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12)))
                                for _ in range(200)]
    for _ in range(3000):
        a, b = rnd.choice(texts), rnd.choice(texts)
        assert char_cost(a, b).hex() == float(Indel.normalized_distance(a, b)).hex(), (a, b)


@pytest.mark.parametrize("stretch", [errant_align.LONG_STRETCH, 2])
def test_fuzzed_pairs_small_sample(annotator, monkeypatch, stretch):
    """``stretch`` 2: every stretch of changes of 2 steps or more goes through
    the rewritten merger (errant_align._process_long)."""
    monkeypatch.setattr(errant_align, "LONG_STRETCH", stretch)
    assert _run_pairs(annotator, fuzzed_pairs(1, 40, 25)) == 40


def test_fallback_without_the_kernel_is_errant(annotator, monkeypatch):
    """No kernel built: align_seq and annotate run errant's own Alignment."""
    from errant.alignment import Alignment

    docs = _parse_all(annotator[1], ["a b c d", "b a c e"])
    orig, cor = docs["a b c d"], docs["b a c e"]
    native = errant_align.align_seq(orig, cor)
    monkeypatch.setattr(errant_align, "_align_compiled", None)
    assert not errant_align.compiled()
    assert isinstance(errant_align.alignment(orig, cor), Alignment)
    assert errant_align.align_seq(orig, cor) == native == Alignment(orig, cor).align_seq
    assert native[0][0] == "T2"


@pytest.mark.full
@pytest.mark.parametrize("stretch", [errant_align.LONG_STRETCH, 2])
def test_fuzzed_pairs_larger_sample(annotator, monkeypatch, stretch):
    monkeypatch.setattr(errant_align, "LONG_STRETCH", stretch)
    assert _run_pairs(annotator, fuzzed_pairs(2, 400, 80)) == 400


@pytest.mark.full
def test_fuzzed_long_rewritten_pairs(annotator):
    """Long pairs, rewritten throughout or heavily corrupted (errant: seconds each)."""
    rnd = random.Random(3)
    pairs = []
    for n in (150, 200, 300):
        src = [rnd.choice(WORDS) for _ in range(n)]
        pairs.append((" ".join(src), " ".join(rnd.choice(WORDS) for _ in range(n))))
        pairs.append((" ".join(src), " ".join(_mutate(rnd, _mutate(rnd, src)))))
    # no word in common: the transposition search walks back the whole diagonal
    pairs.append((" ".join(f"w{i}" for i in range(40)), " ".join(f"v{i}" for i in range(40))))
    assert _run_pairs(annotator, pairs, mergings=("rules",), lev=(False,)) == len(pairs)


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


def _real_pairs(sources: list[str], systems: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(source, other) of every line whose tokens differ (errant aligns only those)."""
    pairs = []
    for lines in systems.values():
        for src, other in zip(sources, lines, strict=False):
            if src.split() != other.split():
                pairs.append((" ".join(src.split()), " ".join(other.split())))
    return list(dict.fromkeys(pairs))


@pytest.mark.full
@pytest.mark.real_data
def test_every_conll14_pair_systems_and_references(annotator, conll):
    sources, references, hyps = conll
    systems = {k: v for k, v in hyps.items() if k != "NULL"}
    systems.update({f"ref{k}": ref for k, ref in enumerate(references)})
    assert len(systems) == 15  # 12 teams, INPUT and the two annotators
    pairs = _real_pairs(sources, systems)
    assert pairs and _run_pairs(annotator, pairs, mergings=("rules",), lev=(False,)) == len(pairs)


@pytest.mark.full
@pytest.mark.real_data
def test_every_seeda_pair(annotator):
    folder = require_shared_data() / "SEEDA" / "outputs" / "all"
    sources = _lines(folder / "INPUT.txt")
    systems = {p.stem: _lines(p) for p in sorted(folder.glob("*.txt")) if p.stem != "INPUT"}
    assert len(systems) == 14  # with INPUT, SEEDA's 15 outputs (references included)
    pairs = _real_pairs(sources, systems)[::SAMPLE]
    assert pairs and _run_pairs(annotator, pairs, mergings=("rules",), lev=(False,)) == len(pairs)


@pytest.mark.full
@pytest.mark.real_data
@pytest.mark.parametrize("domain", ["fce", "wiki"])  # GMEG-yahoo has scores, no outputs
def test_every_gmeg_pair(annotator, domain):
    pairs = []
    for split in ("dev", "test"):
        folder = require_shared_data() / "GMEG" / "data" / split / domain
        if not folder.is_dir():
            continue
        sources = _lines(folder / "source")
        systems = {p.name: _lines(p) for p in sorted(folder.iterdir())
                   if p.name not in ("source", "source+error")}
        pairs += _real_pairs(sources, systems)
    assert pairs, f"no GMEG {domain} data"
    sample = list(dict.fromkeys(pairs))[::SAMPLE]
    assert _run_pairs(annotator, sample, mergings=("rules",), lev=(False,)) == len(sample)
