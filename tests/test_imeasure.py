"""I-measure: hand cases and CoNLL-2014 against the official ieval.py, kernel vs Python oracle.

Official numbers were produced with mfelice/imeasure (commit fc79fdf) under
Python 2.7.18: ``m2_to_ixml.py`` (NLTK 3.4.5) converts the M2 file, and
``ieval.py`` scores, with an output-only patch that prints the exact counts
of system and baseline per sentence (the tool prints rounded percentages).
Every command is in docs/metrics/imeasure.md.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import CONLL_M2, SUBMISSIONS, TEAMS

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.interface.cli import main
from gecmetrics.m2_format import M2File, read_m2
from gecmetrics.metrics import imeasure_align
from gecmetrics.metrics.imeasure import Imeasure, imeasure_counts, improvement, wacc
from gecmetrics.metrics.imeasure_gold import candidates, gold_errors, treebank_tokenize
from gecmetrics.readers import read_lines
from gecmetrics.registry import get_metric

HAND_M2 = """S This machines is designed for help people .
A 0 1|||Det|||These|||REQUIRED|||-NONE-|||0
A 2 3|||SVA|||are|||REQUIRED|||-NONE-|||0
A 5 6|||Vform|||helping|||REQUIRED|||-NONE-|||0
A 1 2|||Nn|||machine|||REQUIRED|||-NONE-|||1
A 4 5|||Prep|||to|||REQUIRED|||-NONE-|||1

S He go to school yesterday .
A 1 2|||Vt|||went|||REQUIRED|||-NONE-|||0
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1

S I like the apples very much .
A 2 3|||ArtOrDet||||||REQUIRED|||-NONE-|||0
A 2 3|||ArtOrDet||||||REQUIRED|||-NONE-|||1

S She is a engineer who work hard
A 2 3|||ArtOrDet|||an|||REQUIRED|||-NONE-|||0
A 5 6|||SVA|||works|||REQUIRED|||-NONE-|||0
A 7 7|||Mec|||.|||REQUIRED|||-NONE-|||0
A 5 6|||SVA|||works|||REQUIRED|||-NONE-|||1
A 6 7|||Wci|||hard.|||REQUIRED|||-NONE-|||1

S The weather is good today .

S We discussed about the problem and it 's solution .
A 2 3|||Prep||||||REQUIRED|||-NONE-|||0
A 7 8|||Mec|||its|||REQUIRED|||-NONE-|||0
A 7 9|||Mec|||its answer|||REQUIRED|||-NONE-|||1
"""
HAND_HYP = """These machines are designed to help people .
He goes to school yesterday .
I like apples very much .
She is an engineer who works hard .
The weather is nice today .
We discussed the problem and its solution .
"""
HAND_HYP2 = """This machine is designed to help people .
He went to school yesterday .
I like the apples very much .
She is a engineer who works hard .
The weather is good today .
We discussed about problem and it solution .
"""

# `python ieval_prec.py -ref:hand.xml -hyp:HYP -per-sent [-nomix] | grep EXACT`, hand.xml from
# `python m2_to_ixml.py -in:hand.m2 -out:hand.xml`. Per line: sentence, aspect (d: detection,
# c: correction), system TP TN FP FN FPN, baseline TP TN FP FN FPN, WAcc, WAcc_base, I.
HAND_OFFICIAL = """# hyp mix
1 d 3 5 0 0 0 0 5 0 3 0 1.0 0.625 1.0
1 c 3 5 0 0 0 0 5 0 3 0 1.0 0.625 1.0
2 d 1 5 0 0 0 0 5 0 1 0 1.0 0.8333333333333334 1.0
2 c 0 5 1 1 1 0 5 0 1 0 0.7692307692307693 0.8333333333333334 -0.07692307692307687
3 d 1 6 0 0 0 0 6 0 1 0 1.0 0.8571428571428571 1.0
3 c 1 6 0 0 0 0 6 0 1 0 1.0 0.8571428571428571 1.0
4 d 3 5 0 0 0 0 5 0 3 0 1.0 0.625 1.0
4 c 3 5 0 0 0 0 5 0 3 0 1.0 0.625 1.0
5 d 0 5 1 0 0 0 6 0 0 0 0.7142857142857143 1.0 -0.2857142857142857
5 c 0 5 1 0 0 0 6 0 0 0 0.7142857142857143 1.0 -0.2857142857142857
6 d 2 7 1 0 0 0 8 0 2 0 0.8461538461538461 0.8 0.23076923076923056
6 c 2 7 1 0 0 0 8 0 2 0 0.8461538461538461 0.8 0.23076923076923056
ALL d 10 33 2 0 0 0 35 0 10 0 0.9298245614035088 0.7777777777777778 0.6842105263157895
ALL c 9 33 3 1 1 0 35 0 10 0 0.9026548672566371 0.7777777777777778 0.561946902654867
# hyp -nomix
1 d 2 4 1 1 0 0 5 0 3 0 0.7272727272727273 0.625 0.27272727272727276
1 c 2 4 1 1 0 0 5 0 3 0 0.7272727272727273 0.625 0.27272727272727276
2 d 1 5 0 0 0 0 5 0 1 0 1.0 0.8333333333333334 1.0
2 c 0 5 1 1 1 0 5 0 1 0 0.7692307692307693 0.8333333333333334 -0.07692307692307687
3 d 1 6 0 0 0 0 6 0 1 0 1.0 0.8571428571428571 1.0
3 c 1 6 0 0 0 0 6 0 1 0 1.0 0.8571428571428571 1.0
4 d 3 5 0 0 0 0 5 0 3 0 1.0 0.625 1.0
4 c 3 5 0 0 0 0 5 0 3 0 1.0 0.625 1.0
5 d 0 5 1 0 0 0 6 0 0 0 0.7142857142857143 1.0 -0.2857142857142857
5 c 0 5 1 0 0 0 6 0 0 0 0.7142857142857143 1.0 -0.2857142857142857
6 d 2 7 1 0 0 0 8 0 2 0 0.8461538461538461 0.8 0.23076923076923056
6 c 2 7 1 0 0 0 8 0 2 0 0.8461538461538461 0.8 0.23076923076923056
ALL d 9 32 3 1 0 0 35 0 10 0 0.8771929824561403 0.7777777777777778 0.4473684210526313
ALL c 8 32 4 2 1 0 35 0 10 0 0.8495575221238938 0.7777777777777778 0.323008849557522
# hyp2 mix
1 d 2 6 0 0 0 0 6 0 2 0 1.0 0.75 1.0
1 c 2 6 0 0 0 0 6 0 2 0 1.0 0.75 1.0
2 d 1 5 0 0 0 0 5 0 1 0 1.0 0.8333333333333334 1.0
2 c 1 5 0 0 0 0 5 0 1 0 1.0 0.8333333333333334 1.0
3 d 0 6 0 1 0 0 6 0 1 0 0.8571428571428571 0.8571428571428571 0.0
3 c 0 6 0 1 0 0 6 0 1 0 0.8571428571428571 0.8571428571428571 0.0
4 d 2 6 0 0 0 0 6 0 2 0 1.0 0.75 1.0
4 c 2 6 0 0 0 0 6 0 2 0 1.0 0.75 1.0
5 d 0 6 0 0 0 0 6 0 0 0 1.0 1.0 1.0
5 c 0 6 0 0 0 0 6 0 0 0 1.0 1.0 1.0
6 d 1 8 1 0 0 0 9 0 1 0 0.8333333333333334 0.9 -0.07407407407407407
6 c 0 8 2 1 1 0 9 0 1 0 0.6956521739130435 0.9 -0.22705314009661837
ALL d 6 37 1 1 0 0 38 0 7 0 0.9423076923076923 0.8444444444444444 0.629120879120879
ALL c 5 37 2 2 1 0 38 0 7 0 0.912621359223301 0.8444444444444444 0.4382801664355065
# hyp2 -nomix
1 d 2 6 0 0 0 0 6 0 2 0 1.0 0.75 1.0
1 c 2 6 0 0 0 0 6 0 2 0 1.0 0.75 1.0
2 d 1 5 0 0 0 0 5 0 1 0 1.0 0.8333333333333334 1.0
2 c 1 5 0 0 0 0 5 0 1 0 1.0 0.8333333333333334 1.0
3 d 0 6 0 1 0 0 6 0 1 0 0.8571428571428571 0.8571428571428571 0.0
3 c 0 6 0 1 0 0 6 0 1 0 0.8571428571428571 0.8571428571428571 0.0
4 d 2 6 0 0 0 0 6 0 2 0 1.0 0.75 1.0
4 c 2 6 0 0 0 0 6 0 2 0 1.0 0.75 1.0
5 d 0 6 0 0 0 0 6 0 0 0 1.0 1.0 1.0
5 c 0 6 0 0 0 0 6 0 0 0 1.0 1.0 1.0
6 d 1 7 1 1 0 0 8 0 2 0 0.75 0.8 -0.0625
6 c 0 7 2 2 1 0 8 0 2 0 0.6086956521739131 0.8 -0.23913043478260865
ALL d 6 36 1 2 0 0 37 0 8 0 0.9230769230769231 0.8222222222222222 0.5673076923076927
ALL c 5 36 2 3 1 0 37 0 8 0 0.8932038834951457 0.8222222222222222 0.39927184466019455
"""

# nltk 3.4.5 (Python 2.7.18): json.dumps([[s, nltk.word_tokenize(s)] for s in strings])
# (one segment each: the punkt model cannot be downloaded here, so preserve_line=True).
NLTK_TOKENS = [
    ("known,the", ["known", ",", "the"]),
    ("This has brought on a common dilemma.",
     ["This", "has", "brought", "on", "a", "common", "dilemma", "."]),
    ("their friends ' recent activity is.",
     ["their", "friends", "'", "recent", "activity", "is", "."]),
    ("don't", ["do", "n't"]),
    ("\"quoted\" words", ["``", "quoted", "''", "words"]),
    ("I cannot go", ["I", "can", "not", "go"]),
    ("gonna wanna", ["gon", "na", "wan", "na"]),
    ("it's their's", ["it", "'s", "their", "'s"]),
    ("(brackets) [and] {braces}", ["(", "brackets", ")", "[", "and", "]", "{", "braces", "}"]),
    ("well--done", ["well", "--", "done"]),
    ("wait...", ["wait", "..."]),
    ("e.g. this", ["e.g.", "this"]),
    ("3,000 people", ["3,000", "people"]),
    ("time: now", ["time", ":", "now"]),
    ("$5 & 10% @home #tag", ["$", "5", "&", "10", "%", "@", "home", "#", "tag"]),
    ("why? yes!", ["why", "?", "yes", "!"]),
    ("'tis 'twas", ["'t", "is", "'t", "was"]),
    ("the students' books", ["the", "students", "'", "books"]),
    ("``already'' quoted", ["``", "already", "''", "quoted"]),
    ("U.S.", ["U.S", "."]),
]

OFFICIAL_JSON = Path(__file__).with_name("imeasure_official.json")


def _parse_official(text):
    """{(hyp, mode): {sid: {aspect: (sys counts, base counts, I)}}} of HAND_OFFICIAL."""
    out, key = {}, None
    for line in text.splitlines():
        if line.startswith("#"):
            key = tuple(line[2:].split())
            out[key] = {}
        elif line.strip():
            f = line.split()
            out[key].setdefault(f[0], {})[f[1]] = (
                [int(x) for x in f[2:7]], [int(x) for x in f[7:12]], float(f[14]))
    return out


def _hand_corpus(tmp_path, hyp_text):
    path = tmp_path / "hand.m2"
    path.write_text(HAND_M2, encoding="utf-8")
    m2 = read_m2(path)
    return Corpus(m2.sources, [m2.sources], {"hyp": hyp_text.splitlines()}, m2=m2)


@pytest.mark.parametrize("hyp", ["hyp", "hyp2"])
@pytest.mark.parametrize("mode", ["mix", "-nomix"])
def test_hand_cases_equal_the_official_tool(tmp_path, hyp, mode):
    official = _parse_official(HAND_OFFICIAL)[(hyp, mode)]
    corpus = _hand_corpus(tmp_path, HAND_HYP if hyp == "hyp" else HAND_HYP2)
    sys_c, base_c = imeasure_counts(corpus, mix=mode == "mix")
    for d in range(corpus.num_sentences):
        for a, aspect in enumerate("dc"):
            s, b, i = official[str(d + 1)][aspect]
            assert sys_c[0, d, a].tolist() == s and base_c[0, d, a].tolist() == b, (d, aspect)
    metric = Imeasure(mix=mode == "mix")
    sent = metric.evaluate(corpus, level="sentence")[0].scores
    assert sent == [official[str(d + 1)]["c"][2] for d in range(corpus.num_sentences)]
    total = metric.evaluate(corpus)[0]
    s, b, i = official["ALL"]["c"]
    assert total.score == i
    assert [total.details["correction"][k] for k in ("TP", "TN", "FP", "FN", "FPN")] == s
    assert total.details["detection"]["I"] == official["ALL"]["d"][2]


def test_formula_by_hand():
    # src "a b c", ref "a x c". Hypothesis "a x c": TP 1, TN 2: WAcc = (2*1 + 2) / (2*1 + 2) = 1.
    # Baseline (the source): TN 2, FN 1: WAcc = 2 / 3. I = (1 - 2/3) / (1 - 2/3) = 1.
    counts = imeasure_align.alignment_counts([0, 1, 2], [0, 3, 2], [0, 3, 2])
    assert counts == (1, 2, 0, 0, 1, 0, 0, 0)
    assert wacc((1, 2, 0, 0, 0), 2.0) == 1.0
    assert wacc((0, 2, 0, 1, 0), 2.0) == 2 / 3
    assert improvement(1.0, 2 / 3) == 1.0
    # Hypothesis "a y c": a detected error wrongly corrected: correction TP 0, FP 1, FN 1, FPN 1:
    # WAcc = 2 / (2*1 + 2 + 1 - 3*1/2) = 2 / 3.5; below the baseline: I = (2/3.5) / (2/3) - 1.
    counts = imeasure_align.alignment_counts([0, 1, 2], [0, 4, 2], [0, 3, 2])
    assert counts == (1, 2, 0, 0, 0, 1, 1, 1)
    assert wacc((0, 2, 1, 1, 1), 2.0) == 2 / 3.5
    assert improvement(2 / 3.5, 2 / 3) == pytest.approx(-1 / 7)
    # Equal WAcc: I is floor(WAcc), 1 for a perfect sentence left alone, else 0.
    assert improvement(1.0, 1.0) == 1.0 and improvement(0.5, 0.5) == 0.0


def test_treebank_tokenizer_equals_nltk():
    for text, tokens in NLTK_TOKENS:
        assert treebank_tokenize(text) == tokens, text


def test_alignment_kernel_equals_python_oracle():
    kernel = pytest.importorskip("gecmetrics.metrics._imeasure_kernel")
    rng = random.Random(7)
    for _ in range(3000):
        def seq(n):
            return [rng.randint(0, 4) for _ in range(rng.randint(0, n))]
        s = seq(9)
        h = seq(9) if rng.random() < 0.7 else list(s)
        r = seq(9) if rng.random() < 0.7 else list(rng.choice([s, h]))
        assert kernel.alignment_counts(s, h, r) == imeasure_align.alignment_counts(s, h, r)


def test_candidates_mix_and_nomix():
    # Two annotators: one corrects "a" -> "b" at 0, the other inserts "c" at 2.
    edits = [(0, 1, "X", "b", 0), (2, 2, "Y", "c", 1)]
    numann, errors = gold_errors(edits)
    assert numann == 2 and [req for req, _ in errors] == [False, False]
    mixed = candidates("a x", numann, errors, mix=True)
    assert sorted(" ".join(c) for c in mixed) == ["a x", "a x c", "b x", "b x c"]
    one_each = candidates("a x", numann, errors, mix=False)
    assert sorted(" ".join(c) for c in one_each) == ["a x c", "b x"]
    with pytest.raises(ConfigError, match="max_references=3"):
        candidates("a x", numann, errors, mix=True, max_references=3)


def test_options_and_errors(tmp_path):
    for bad in ("weight=0", "weight=nan", "max_references=0", "mix=maybe"):
        key, value = bad.split("=")
        with pytest.raises(ConfigError):
            get_metric("imeasure", **{key: value})
    corpus = Corpus(["a b"], [["a c"]], {"h": ["a c"]})
    with pytest.raises(Exception, match="needs gold edits"):
        Imeasure().evaluate(corpus)


def test_resample_is_a_gather(tmp_path):
    corpus = _hand_corpus(tmp_path, HAND_HYP)
    stats = Imeasure().statistics(corpus)
    idx = np.array([0, 2, 2, 5])
    sub = M2File("x", [corpus.m2.sentences[i] for i in idx])
    lines = HAND_HYP.splitlines()
    alone = Corpus(sub.sources, [sub.sources], {"hyp": [lines[i] for i in idx]}, m2=sub)
    assert stats.corpus(None, idx)[0].score == Imeasure().evaluate(alone)[0].score
    assert stats.mean(None)[0] == pytest.approx(np.mean(stats.sentence(None)[0]))


# -- CoNLL-2014 against the official tool ----------------------------------------------------


def _digest(ids, sys_c, base_c, h, positions):
    lines = []
    for sid, d in zip(ids, positions, strict=True):
        for a, aspect in enumerate("dc"):
            lines.append(" ".join([str(sid), aspect, *map(str, sys_c[h, d, a].tolist()),
                                   *map(str, base_c[h, d, a].tolist())]))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


@pytest.fixture(scope="module")
def conll14():
    m2 = read_m2(CONLL_M2)
    hyps = {name: read_lines(SUBMISSIONS / name) for name in [*TEAMS, "INPUT"]}
    return m2, hyps


@pytest.mark.full
@pytest.mark.real_data
@pytest.mark.parametrize("subset", ["nomix60", "mix4"])
def test_conll14_equals_the_official_tool(conll14, subset):
    m2, hyps = conll14
    rec = json.loads(OFFICIAL_JSON.read_text(encoding="utf-8"))[subset]
    ids = rec["sentences"]
    sub = M2File(m2.path, [m2.sentences[i - 1] for i in ids])
    names = sorted(rec["systems"])
    corpus = Corpus(sub.sources, [sub.sources],
                    {n: [hyps[n][i - 1] for i in ids] for n in names}, m2=sub)
    metric = Imeasure(mix=rec["mix"])
    sys_c, base_c = imeasure_counts(corpus, mix=rec["mix"], max_references=None)
    corpus_scores = metric.evaluate(corpus)
    for h, name in enumerate(names):
        want = rec["systems"][name]
        assert _digest(ids, sys_c, base_c, h, range(len(ids))) == want["sentences_sha256"], name
        for a, aspect in enumerate("dc"):
            assert sys_c[h, :, a].sum(axis=0).tolist() == want[aspect]["sys"], (name, aspect)
            assert base_c[h, :, a].sum(axis=0).tolist() == want[aspect]["base"], (name, aspect)
        assert corpus_scores[h].score == want["c"]["I"], name
        assert corpus_scores[h].details["detection"]["I"] == want["d"]["I"], name


@pytest.mark.real_data
def test_conll14_mix_over_budget_is_one_line_error(tmp_path):
    src = tmp_path / "src.txt"
    src.write_text("\n".join(read_m2(CONLL_M2).sources) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["score", "-m", "imeasure", "-s", str(src), "--m2",
                                       str(CONLL_M2), "-c", str(SUBMISSIONS / "AMU")])
    assert result.exit_code == 2
    assert "error: " in result.output and "mix=false" in result.output
    assert "Traceback" not in result.output
