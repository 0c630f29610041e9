"""The tokenizer registry (gecmetrics/tokenizers.py) and the ``normalize=`` option.

Independent routes: sacrebleu's own tokenizers (``13a``, ``intl``, ``char``) and
metrics (BLEU, chrF) on real CoNLL-2014 text and fuzzed Unicode lines; the
tokenizer packages called directly for ``ja`` (fugashi + UniDic-lite), ``ko``
(kiwipiepy) and ``zh`` (jieba); ChERRANT's ``split_char`` rule, restated below
from scorers/ChERRANT/modules/tokenizer.py (HillZhang1999/MuCGEC), for
``zh-char``; Python's ``unicodedata`` for the normal forms.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

from gecmetrics import extras, tokenizers
from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.ngrams import encode, intersections
from gecmetrics.registry import get_metric, metric_from_spec
from gecmetrics.tokenizers import registry

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU, CHRF  # noqa: E402
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a  # noqa: E402
from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International  # noqa: E402

DOCS = Path(__file__).resolve().parents[1] / "docs" / "tokenizers.md"
WORD_METRICS = ("green", "gleu")


def need(*modules: str) -> None:
    """Skip (fail under GECMETRICS_REQUIRE_DATA=1) when a module of an extra is missing."""
    from conftest import skip_or_fail

    for module in modules:
        if importlib.util.find_spec(module) is None:
            skip_or_fail(f"cannot import {module}: install the extra that brings it "
                         "(docs/tokenizers.md)")


def partition(texts: list[str], name: str) -> list[list[int]]:
    tokens, start = encode(texts, name)
    return [tokens[a:b].tolist() for a, b in zip(start[:-1], start[1:], strict=True)]


def same_partition(texts: list[str], name: str, oracle) -> None:
    """encode gives every text the oracle's tokens: same lengths, and two tokens share
    an id exactly when the oracle's tokens are equal."""
    fast = partition(texts, name)
    slow = [oracle(t) for t in texts]
    assert [len(x) for x in fast] == [len(x) for x in slow]
    pairs = set(zip((t for x in fast for t in x), (t for x in slow for t in x), strict=True))
    assert len({a for a, _ in pairs}) == len(pairs) == len({b for _, b in pairs})


# ----------------------------------------------------------------------------- registry

def test_every_registered_tokenizer_is_accepted_by_the_word_level_metrics(monkeypatch):
    """Declarations, not this machine's extras, are under test: every extra counts as
    installed (making a metric only looks its modules up)."""
    from gecmetrics import extras

    monkeypatch.setattr(extras, "_found", lambda module: True)
    assert list(tokenizers.REGISTRY) == list(registry.TABLE)
    for name, entry in tokenizers.REGISTRY.items():
        assert entry.description and (entry.split is None) != (entry.load is None), name
        assert entry.load is None or entry.extra is not None, name  # loaded: an extra
        for metric in WORD_METRICS:
            made = get_metric(metric, tokenize=name)
            assert made.required_extras() == tokenizers.required_extras(name)
            assert f"|tokenize:{name}|" in made.signature()


def test_the_docs_table_names_every_registered_tokenizer():
    """docs/tokenizers.md's table has a row for each tokenizer of the registry, and
    names no other."""
    page = DOCS.read_text(encoding="utf-8")
    table = page[page.index("| name | tokens |"):]
    rows = table[:table.index("\n\n")].splitlines()[2:]
    named = [name for row in rows for name in re.findall(r"`([^`]+)`", row.split("|")[1])]
    assert sorted(named) == sorted(tokenizers.REGISTRY)


def test_bleu_choices_come_from_the_registry():
    """BLEU offers each tokenizer under sacrebleu's name for it, 13a (its default) first."""
    offered = tokenizers.bleu_tokenizers()
    assert offered["none"] == "word" and offered["char"] == "char-nospace"
    assert all(tokenizers.REGISTRY[name].bleu is not False for name in offered.values())
    assert tokenizers.tokenize_choices("13a", bleu=True)[0] == "13a"
    assert "tokenize=" + "|".join(tokenizers.tokenize_choices("13a", bleu=True)) in \
        get_metric("bleu").description
    for name in offered:
        needed = tokenizers.required_extras(offered[name])
        if all(importlib.util.find_spec(m) for e in needed for m in extras.EXTRAS[e]):
            assert get_metric("bleu", tokenize=name).required_extras() == needed


def test_unknown_tokenizer_or_normal_form_is_one_line_listing_the_known_ones():
    for metric in WORD_METRICS:
        with pytest.raises(ConfigError) as err:
            get_metric(metric, tokenize="klingon")
        message = str(err.value)
        assert "\n" not in message and "unknown tokenize='klingon'" in message
        assert all(name in message for name in tokenizers.REGISTRY)
    for metric in (*WORD_METRICS, "bleu", "chrf"):
        with pytest.raises(ConfigError, match=r"normalize='nfx' is unknown; choose one of: "
                                              r"none, nfc, nfkc, nfd, nfkd"):
            get_metric(metric, normalize="nfx")
    with pytest.raises(ConfigError, match="bleu option tokenize must be one of: 13a, none, "
                                          "intl, char, ja, ko, zh, zh-char"):
        get_metric("bleu", tokenize="ja-mecab")


def test_cli_unknown_tokenizer_exits_2_before_reading_files(tmp_path):
    from click.testing import CliRunner

    from gecmetrics.interface.cli import main

    out = CliRunner().invoke(main, ["score", "-m", "green:tokenize=xx", "-s", "/no/such",
                                    "-c", "/no/such"])
    assert out.exit_code == 2
    assert out.output.startswith("error: unknown tokenize='xx'; choose one of: 13a, char")


def test_missing_extra_is_the_one_message_of_extras(monkeypatch):
    for name, module in (("zh", "jieba"), ("ko", "kiwipiepy"), ("ja", "fugashi"),
                         ("intl", "regex")):
        monkeypatch.setitem(sys.modules, module, None)
        for metric in (*WORD_METRICS, "bleu"):
            with pytest.raises(ConfigError) as err:
                get_metric(metric, tokenize=name)
            assert str(err.value) == (f"metric {metric!r} needs the {name} extra: pip install "
                                      f"\".[{name}]\" in the gecmetrics checkout (cannot import "
                                      f"{module})")


def test_signature_names_tokenize_always_and_normalize_only_when_set():
    # the defaults' signatures are those published before the option existed
    assert get_metric("green").signature().startswith("green|tokenize:word|n:4|beta:2.0|version:")
    assert "normalize" not in get_metric("chrf").signature()
    assert "normalize" not in get_metric("bleu").signature()
    for spec in ("green:normalize=nfc", "gleu:normalize=nfkc,tokenize=intl",
                 "bleu:normalize=nfc", "chrf:normalize=nfkc"):
        metric = metric_from_spec(spec)
        form = re.search(r"normalize=(\w+)", spec).group(1)  # type: ignore[union-attr]
        assert f"|normalize:{form}|" in metric.signature()
        assert f"normalize={form}" in metric.spec


# --------------------------------------------------------- sacrebleu's 13a and intl

#: Pieces of lines: ASCII punctuation and digits, Unicode punctuation and symbols of
#: several scripts, numbers that are not ASCII digits, combining marks, right-to-left
#: letters, zero-width characters, and every kind of whitespace.
UNICODE_PIECES = [
    "a", "b", "1", "2", ".", ",", "-", "'", "&", "&amp;", "(", ")", "$", "/", "@", " ", "  ",
    "\t", "\xa0", "\u2009", "\u3000", "\x85", "\x1c", "é", "e\u0301", "\u00b2", "\u0663",
    "\u06f1", "\u2019", "\u02bc", "\u0384", "\u0386", "\u03ac", "\u1f71", "«", "»", "„", "“",
    "—", "…", "،", "؟", "\u05d0", "\u05d1", "\u0627", "\u0644", "\u200d", "\u200b",
    "\u200f", "\u2060", "€", "¥", "±", "°", "™", "\U0001f600", "。", "、", "，", "！", "日",
    "本", "한", "국", "》", "\u2058", "\u0964", "\u0e01",
]
LINES = st.lists(st.sampled_from(UNICODE_PIECES), max_size=14).map("".join)


@settings(max_examples=examples(240), deadline=None)
@given(st.lists(LINES, min_size=1, max_size=5))
def test_intl_and_13a_equal_sacrebleu_on_fuzzed_unicode(lines):
    """Word by word (what encode does) and line by line, the tokens are sacrebleu's
    (as its BLEU applies them: to the right-stripped line, split on whitespace)."""
    intl, v13a = TokenizerV14International(), Tokenizer13a()
    for line in lines:
        assert tokenizers.intl_tokens(line) == intl(line.rstrip()).split(), repr(line)
        assert tokenizers.tokenizer("13a")(line) == v13a(line.rstrip()).split(), repr(line)
    same_partition(lines, "intl", lambda t: intl(t.rstrip()).split())


@pytest.mark.full
@pytest.mark.real_data
def test_intl_and_13a_equal_sacrebleu_on_every_conll14_line(conll):
    sources, references, hyps = conll
    lines = [*sources, *(r for ref in references for r in ref),
             *(h for hyp in hyps.values() for h in hyp)]
    intl, v13a = TokenizerV14International(), Tokenizer13a()
    same_partition(lines, "intl", lambda t: intl(t.rstrip()).split())
    same_partition(lines, "13a", lambda t: v13a(t.rstrip()).split())


@pytest.mark.full
@pytest.mark.real_data
def test_bleu_intl_and_char_equal_sacrebleu_on_conll14(conll):
    sources, references, hyps = conll
    corpus = Corpus(sources, references, {k: hyps[k] for k in ("AMU", "CAMB", "INPUT")})
    for name in ("intl", "char"):
        ours = get_metric("bleu", tokenize=name).statistics(corpus).corpus_scores(None)
        theirs = [BLEU(tokenize=name).corpus_score(corpus.hypotheses[k], references).score
                  for k in corpus.hypotheses]
        assert np.allclose(ours * 100, theirs, rtol=0, atol=1e-9), name


def test_bleu_intl_and_char_equal_sacrebleu_on_unicode_text():
    refs = [["Він сказав: «Так, 3,5 км!»", "Ό,τι θέλεις, φίλε μου…"],
            ["Він сказав «так» — 3.5 км.", "Ό,τι θέλεις φίλε μου."]]
    hyp = ["Він сказав: «так», 3,5 км!", "Ό,τι θέλεις, φίλε μου."]
    corpus = Corpus(["x", "y"], refs, {"h": hyp})
    for name in ("intl", "char", "13a"):
        ours = get_metric("bleu", tokenize=name).statistics(corpus).corpus_scores(None)[0]
        theirs = BLEU(tokenize=name).corpus_score(hyp, refs).score
        assert ours * 100 == pytest.approx(theirs, abs=1e-9), name


# ------------------------------------------------------------------- the optional ones

def cherrant_split_char(line: str) -> list[str]:
    """ChERRANT's character tokens (``Tokenizer(granularity="char")``, input not
    segmented, no BPE): ASCII spaces removed, characters joined by spaces, the
    missing-constituent placeholder glued back, split on the space."""
    line = "".join(line.split(" "))
    return " ".join(list(line)).replace("[ 缺 失 成 分 ]", "[缺失成分]").split(" ")


@settings(max_examples=examples(160), deadline=None)
@given(st.lists(st.sampled_from(["我", "们", " ", "[缺失成分]", "[", "]", "a", "，", "\u3000",
                                 "\t", "1"]), min_size=1, max_size=12).map("".join))
def test_zh_char_equals_cherrant(line):
    """Equal, except that a line of spaces only has no tokens here (ChERRANT's split
    gives one empty token, which would count as a word)."""
    expected = cherrant_split_char(line)
    assert tokenizers.zh_char_tokens(line) == ([] if expected == [""] else expected)


def test_ja_equals_fugashi_with_unidic_lite():
    need("fugashi", "unidic_lite")
    import fugashi
    import unidic_lite

    tagger = fugashi.Tagger(f'-d "{unidic_lite.DICDIR}"')
    for line in ("私は学生です。", "東京へ 行きました", "ｶﾀｶﾅ と ABC 123",
                 "私は\xa0学生\u3000です"):
        expected = [w.surface for w in tagger(line) if not w.surface.isspace()]
        assert tokenizers.tokenizer("ja")(line) == expected
    assert tokenizers.tokenizer("ja")("私は\xa0学生\u3000です") == ["私", "は", "学生", "です"]


@pytest.mark.full  # Kiwi's model loads in a few seconds
def test_ko_equals_kiwi_morphemes():
    need("kiwipiepy")
    import kiwipiepy

    kiwi = kiwipiepy.Kiwi()
    for line in ("나는 학교에 갔다.", "한국어 형태소 분석기"):
        assert tokenizers.tokenizer("ko")(line) == [t.form for t in kiwi.tokenize(line)]


@pytest.mark.full  # jieba builds its dictionary in about a second
def test_zh_equals_jieba_without_whitespace_tokens():
    need("jieba")
    import jieba

    for line in ("我爱北京天安门", "他 喜欢 吃 苹果。"):
        expected = [w for w in jieba.lcut(line) if w.strip()]
        assert tokenizers.tokenizer("zh")(line) == expected
    same_partition(["我爱北京", "我爱北京", "他 喜欢"], "zh", tokenizers.tokenizer("zh"))


# ------------------------------------------------------------- bad input, per tokenizer

#: What each built-in tokenizer does with the characters of the "Bad input" rows
#: (docs/tokenizers.md, "Awkward characters", says the same).
AWKWARD = {
    # NBSP (U+00A0) and the other Unicode spaces separate words (Python's str.split)
    "a\xa0b": {"word": ["a", "b"], "13a": ["a", "b"], "intl": ["a", "b"],
               "zh-char": ["a", "\xa0", "b"]},
    # a zero-width joiner or space is no whitespace: it stays inside its word
    "a\u200db c": {"word": ["a\u200db", "c"], "13a": ["a\u200db", "c"],
                   "intl": ["a\u200db", "c"], "zh-char": ["a", "\u200d", "b", "c"]},
    "a\u200bb": {"word": ["a\u200bb"], "13a": ["a\u200bb"], "intl": ["a\u200bb"]},
    # right-to-left text is tokenized in its logical (stored) order
    "שלום, עולם": {"word": ["שלום,", "עולם"], "13a": ["שלום", ",", "עולם"],
                   "intl": ["שלום", ",", "עולם"]},
    # mixed scripts: intl splits off Unicode punctuation, 13a only ASCII punctuation
    "Київ—Kyiv «так»": {"word": ["Київ—Kyiv", "«так»"], "13a": ["Київ—Kyiv", "«так»"],
                        "intl": ["Київ", "—", "Kyiv", "«", "так", "»"]},
}


def test_awkward_characters_per_tokenizer():
    for line, expected in AWKWARD.items():
        for name, tokens in expected.items():
            assert tokenizers.tokenizer(name)(line) == tokens, (name, line)


@pytest.mark.full  # loads Kiwi's model and jieba's dictionary: seconds
def test_awkward_characters_per_segmenter():
    need("fugashi", "unidic_lite", "kiwipiepy", "jieba")
    ja, ko, zh = (tokenizers.tokenizer(name) for name in ("ja", "ko", "zh"))
    assert ja("私は\xa0学生\u3000です") == ["私", "は", "学生", "です"]
    assert ko("학교에\xa0갔다") == ["학교", "에", "가", "었", "다"]
    assert zh("我爱\xa0北京\u3000天安门") == ["我", "爱", "北京", "天安门"]
    assert ja("私は\u200d学生") == ["私", "は", "\u200d", "学生"]
    assert zh("我爱\u200b北京") == ["我", "爱", "\u200b", "北京"]
    assert ja("שלום 私") == ["שלום", "私"] and ko("שלום 나는")[0] == "שלום"
    assert zh("שלום 我 abc") == ["ש", "ל", "ו", "ם", "我", "abc"]


# ------------------------------------------------------------------ normalisation

#: The worked example of docs/tokenizers.md: a reference typed with precomposed
#: letters (NFC) and a hypothesis whose accented letters are a base letter and a
#: combining mark (NFD), as some keyboards and PDF copies produce; Greek with the
#: tonos (U+03AD) against the same letter with the oxia (U+1F73), canonically equal;
#: the second hypothesis also lacks a word, which no normal form changes.
EXAMPLE_REFS = [["Éva a lu le café crème .", "Η μητέρα μου μένει στην Αθήνα ."]]
EXAMPLE_HYP = [unicodedata.normalize("NFD", "Éva a lu le café crème ."),
               "Η μητ\u1f73ρα μένει στην Αθήνα ."]
EXAMPLE_SRC = ["Eva a lu le cafe creme .", "Η μητερα μου μενει στην Αθηνα ."]


def example_corpus() -> Corpus:
    return Corpus(EXAMPLE_SRC, EXAMPLE_REFS, {"hyp": EXAMPLE_HYP})


def test_worked_example_equals_sacrebleu_on_normalised_text_and_the_docs():
    """BLEU and chrF with normalize=nfc equal sacrebleu's on texts normalised by
    unicodedata beforehand; without it, sacrebleu's on the raw texts; the page
    quotes these numbers."""
    nfc = [unicodedata.normalize("NFC", t) for t in EXAMPLE_HYP]
    nfc_refs = [[unicodedata.normalize("NFC", t) for t in ref] for ref in EXAMPLE_REFS]
    page = DOCS.read_text(encoding="utf-8")
    for form, hyp, refs in (("none", EXAMPLE_HYP, EXAMPLE_REFS), ("nfc", nfc, nfc_refs)):
        bleu = get_metric("bleu", normalize=form).statistics(example_corpus())
        chrf = get_metric("chrf", normalize=form).statistics(example_corpus())
        theirs_bleu = BLEU().corpus_score(hyp, refs).score
        theirs_chrf = CHRF().corpus_score(hyp, refs).score
        assert bleu.corpus_scores(None)[0] * 100 == pytest.approx(theirs_bleu, abs=1e-9)
        assert chrf.corpus_scores(2.0)[0] * 100 == pytest.approx(theirs_chrf, abs=1e-9)
        assert f"| {form} | {theirs_bleu:.2f} | {theirs_chrf:.2f} |" in page, form


def test_normal_forms_and_what_they_leave_alone():
    n = tokenizers.normalizer
    assert n("nfc")("e\u0301") == "é" and n("nfd")("é") == "e\u0301"
    assert n("nfc")("\u1f73") == "\u03ad"  # Greek oxia -> tonos (canonical)
    assert n("nfc")("\u0386") == "\u0386" and n("nfd")("\u0386") == "\u0391\u0301"
    assert n("nfkc")("ﬁ ２") == "fi 2" and n("nfc")("ﬁ ２") == "ﬁ ２"
    # Ukrainian apostrophes are three different characters in every normal form
    for form in tokenizers.NORMALIZATIONS:
        assert len({n(form)(c) for c in ("'", "\u2019", "\u02bc")}) == 3, form
    assert n("none")("e\u0301") == "e\u0301"


def test_normalization_note_when_nfc_would_change_matches(capsys):
    note = tokenizers.normalization_note(EXAMPLE_SRC, EXAMPLE_REFS, [EXAMPLE_HYP])
    assert note is not None and note.startswith("note: a hypothesis and its source or "
                                                "reference spell a word in different")
    assert "\n" not in note and "normalize=nfc" in note
    # every text in one form (NFD throughout, or NFC): nothing to say
    nfd = [unicodedata.normalize("NFD", t) for t in EXAMPLE_REFS[0]]
    assert tokenizers.normalization_note(EXAMPLE_SRC, [nfd], [EXAMPLE_HYP[:1] + nfd[1:]]) \
        is None
    assert tokenizers.normalization_note(EXAMPLE_SRC, EXAMPLE_REFS, [EXAMPLE_REFS[0]]) is None
    # written once per process, on stderr, when counted with normalize=none only
    from gecmetrics import ngrams

    ngrams._NOTED.clear()
    intersections(example_corpus(), "word", 2, "nfc")
    assert capsys.readouterr().err == ""
    intersections(example_corpus(), "word", 2)
    intersections(example_corpus(), "13a", 2)
    assert capsys.readouterr().err == note + "\n"


def test_normalize_changes_the_word_metrics_as_normalising_the_input_does():
    """Each metric with normalize=F on raw text equals it with normalize=none on the
    text normalised beforehand, and the note's case moves the score."""
    for form in ("nfc", "nfkc"):
        f = tokenizers.normalizer(form)
        pre = Corpus([f(t) for t in EXAMPLE_SRC], [[f(t) for t in EXAMPLE_REFS[0]]],
                     {"hyp": [f(t) for t in EXAMPLE_HYP]})
        for spec in ("green", "chrf:word_order=2", "green:tokenize=char"):
            with_option = metric_from_spec(f"{spec}{',' if ':' in spec else ':'}"
                                           f"normalize={form}")
            a = with_option.statistics(example_corpus())
            b = metric_from_spec(spec).statistics(pre)
            beta = with_option.default_beta
            assert a.corpus_scores(beta).tolist() == b.corpus_scores(beta).tolist(), spec
    raw = get_metric("green").statistics(example_corpus()).corpus_scores(2.0)[0]
    nfc = get_metric("green", normalize="nfc").statistics(example_corpus()).corpus_scores(2.0)[0]
    assert nfc > raw


@pytest.mark.full  # a CLI process: about a second
def test_cli_missing_tokenizer_extra_exits_2_before_reading_files():
    import subprocess

    code = ("import sys; sys.modules['jieba'] = None; "
            "sys.argv = ['gecmetrics', 'score', '-m', 'gleu:tokenize=zh', '-s', '/no/such', "
            "'-c', '/no/such']; from gecmetrics.interface.cli import run; run()")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 2
    assert run.stderr == ("error: metric 'gleu' needs the zh extra: pip install \".[zh]\" in "
                          "the gecmetrics checkout (cannot import jieba)\n")


@pytest.mark.full  # reads the UA-GEC test set from the ua-gec package: seconds
def test_ua_gec_apostrophes_and_normal_forms_as_the_docs_say():
    """docs/tokenizers.md's counts of UA-GEC's apostrophes and non-NFC texts."""
    need("ua_gec")
    from ua_gec import Corpus as UaGec

    docs = list(UaGec(partition="test"))
    texts = [d.source for d in docs] + [d.target for d in docs]
    counts = [sum(t.count(c) for t in texts) for c in ("'", "\u2019", "\u02bc")]
    not_nfc = sum(not unicodedata.is_normalized("NFC", t) for t in texts)
    assert (len(docs), *counts, not_nfc) == (332, 501, 491, 0, 3)
    assert tokenizers.normalization_note([d.source for d in docs], [[d.target for d in docs]],
                                         [[d.source for d in docs]]) is None
    page = DOCS.read_text(encoding="utf-8")
    assert "332 documents" in page and "501 `'` and 491 `’`" in page and "3 of its 664" in page
