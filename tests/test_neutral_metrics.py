"""``edits=neutral`` on the edit metrics and ``gecmetrics m2-from-text``.

* m2:edits=neutral on text references equals m2 on the M2 file that
  ``m2-from-text`` writes from the same references (two routes: in memory, and
  through the file, its reader and the official M2 path);
* errant:edits=neutral against a hand count on a Ukrainian example;
* with edits=neutral no metric needs spaCy or errant (their import is made to fail);
* the default options keep every signature as it was (no ``edits`` field);
* bad options and bad files: one-line errors, exit 2.
"""

from __future__ import annotations

import builtins

import pytest
from click.testing import CliRunner

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.interface.cli import main
from gecmetrics.registry import metric_from_spec

# Ukrainian: a learner sentence, two corrections, two systems
SRC = ["я має дві книга .", "він пішов до школи ."]
REF0 = ["я маю дві книги .", "він пішов до школи ."]
REF1 = ["у мене дві книги .", "він пішов у школу ."]
SYS = {"a": ["я маю дві книга .", "він пішов до школи ."],
       "b": ["я маю дві книги .", "він пішов у школу ."]}


def _files(tmp_path, **texts):
    for name, lines in texts.items():
        (tmp_path / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return {name: str(tmp_path / name) for name in texts}


def _f(metric, corpus, system):
    return {r.hypothesis: r.score for r in metric.evaluate(corpus, "corpus", None)}[system]


def test_m2_neutral_equals_m2_on_the_file_m2_from_text_writes(tmp_path):
    from gecmetrics.m2_format import read_m2

    paths = _files(tmp_path, src=SRC, ref0=REF0, ref1=REF1)
    out = CliRunner().invoke(main, ["m2-from-text", "-s", paths["src"], "-r", paths["ref0"],
                                    "-r", paths["ref1"], "--lang", "uk", "-o",
                                    str(tmp_path / "gold.m2")])
    assert out.exit_code == 0, out.output
    m2 = read_m2(tmp_path / "gold.m2")
    assert [[s.correct(k) for s in m2.sentences] for k in (0, 1)] == [REF0, REF1]
    from_file = Corpus(SRC, m2.references(), SYS, m2=m2)
    from_text = Corpus(SRC, [REF0, REF1], SYS)
    for name in SYS:
        assert (_f(metric_from_spec("m2:edits=neutral"), from_text, name)
                == _f(metric_from_spec("m2"), from_file, name))


def test_errant_neutral_by_hand():
    """System a: edit 1-2 має->маю. Reference 0's edits: 1-2 маю, 3-4 книги (a: TP 1,
    FP 0, FN 1); reference 1's: 0-2 'у мене' (one edit: both substitutions are
    dissimilar, rule 4), 3-4 книги, and on sentence 2 'до школи' -> 'у школу'
    (a: TP 0, FP 1, FN 3). ERRANT's choice per sentence: sentence 1 reference 0
    (F 0.5 > 0), sentence 2 (a makes no edit) reference 0 (no FN), so a has
    P = 1, R = 1/2, F0.5 = 1.25 * 0.5 / (0.25 + 0.5) = 5/6."""
    corpus = Corpus(SRC, [REF0, REF1], SYS)
    metric = metric_from_spec("errant:edits=neutral")
    [res] = [r for r in metric.evaluate(corpus, "corpus", None) if r.hypothesis == "a"]
    assert (res.precision, res.recall) == (1.0, 0.5)
    assert res.score == pytest.approx(5 / 6)


@pytest.mark.parametrize("spec", ["errant:edits=neutral", "cleme:edits=neutral",
                                  "cleme2:edits=neutral", "gotoscorer:edits=neutral"])
def test_neutral_needs_no_spacy_nor_errant(monkeypatch, spec):
    real = builtins.__import__

    def refuse(name, *args, **kwargs):
        if name.split(".")[0] in ("spacy", "errant"):
            raise ImportError(f"no module {name} (blocked by the test)")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    for mod in [m for m in list(__import__("sys").modules) if m.split(".")[0] in ("spacy",
                                                                                   "errant")]:
        monkeypatch.delitem(__import__("sys").modules, mod)
    results = metric_from_spec(spec).evaluate(Corpus(SRC, [REF0, REF1], SYS), "corpus", None)
    assert len(results) == 2 and all(0 <= r.score <= 1 for r in results)


@pytest.mark.parametrize("name", ["m2", *(pytest.param(name, marks=pytest.mark.errant)
                                          for name in ("errant", "cleme", "cleme2", "gotoscorer"))])
def test_default_signature_has_no_edits_field_and_neutral_is_signed(name):
    assert "edits:" not in metric_from_spec(name).signature()
    assert "|edits:neutral|" in metric_from_spec(f"{name}:edits=neutral").signature()


@pytest.mark.parametrize("spec, words", [
    ("m2:edits=errant", "must be m2 or neutral"),
    ("errant:edits=spacy", "must be errant or neutral"),
    ("errant:edits=neutral,references=m2", "references=m2"),
    ("cleme:edits=neutral,model=en_core_web_sm", "drop model="),
    ("gotoscorer:edits=neutral,references=m2", "references=m2"),
])
def test_mixing_that_makes_no_sense_is_one_line(spec, words):
    with pytest.raises(ConfigError, match=words) as err:
        metric_from_spec(spec)
    assert "\n" not in str(err.value)


# --------------------------------------------------------------------------
# m2-from-text on bad input


@pytest.mark.parametrize("extra, texts, words", [
    (["--lang", "english"], {}, "unknown --lang 'english'"),
    (["--tokenize", "nope"], {}, "unknown tokenize='nope'"),
    (["--tokenize", "char"], {}, "token with spaces"),
    ([], {"ref0": REF0[:1]}, "ref0 has 1 line but"),
    ([], {"src": ["я має", "  "], "ref0": REF0}, "line 2 is empty"),
    # '|' that an edit line cannot carry: '|||' splits fields, '||' alternatives, and a
    # correction ending in '|' joins the '|||' after it (read back as another correction)
    ([], {"src": ["a b c", "ok"], "ref0": ["a x|||y c", "ok"]}, "ref0 line 1: the "
     "correction 'x|||y' holds '||'"),
    ([], {"src": ["a b c", "ok"], "ref0": ["a b c", "ok x||y"]}, "line 2: the correction "
     "'x||y' holds '||'"),
    ([], {"src": ["a b c", "ok"], "ref0": ["a b c |", "ok"]}, "the correction '|' ends "
     "with '|'"),
    (["--tokenize", "13a"], {"src": ["a b c", "ok"], "ref0": ["a b c|||", "ok"]},
     "the correction '| | |' ends with '|'"),
    # MultiGEC essay files are no sentence files: their headers were written as sentences
    ([], {"src": ["### essay_id = 1", "a b c"], "ref0": ["### essay_id = 1", "a x c"]},
     "src holds MultiGEC essays (line 1 is"),
    ([], {"ref0": ["ok", "### essay_id = 7 "]}, "ref0 holds MultiGEC essays (line 2 is an "
     "'### essay_id = ID' header) where one sentence a line is expected; score essays with "
     "`gecmetrics multigec`"),
])
def test_m2_from_text_bad_input_is_one_line_exit_2(tmp_path, extra, texts, words):
    paths = _files(tmp_path, **{"src": SRC, "ref0": REF0, **texts})
    out = CliRunner().invoke(main, ["m2-from-text", "-s", paths["src"], "-r", paths["ref0"],
                                    *extra])
    assert out.exit_code == 2, out.output
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], lines


def test_m2_from_text_takes_several_references_after_one_flag(tmp_path):
    """``-r A B`` as in score (it was refused): the same M2 as ``-r A -r B``."""
    paths = _files(tmp_path, src=SRC, ref0=REF0, ref1=[SRC[0], REF0[1]])
    greedy = CliRunner().invoke(main, ["m2-from-text", "-s", paths["src"], "-r", paths["ref0"],
                                       paths["ref1"]])
    repeated = CliRunner().invoke(main, ["m2-from-text", "-s", paths["src"], "-r",
                                         paths["ref0"], "-r", paths["ref1"]])
    assert greedy.exit_code == 0, greedy.output
    assert greedy.output == repeated.output and "|||1\n" in greedy.output


@pytest.mark.parametrize("tokenize", [[], ["--tokenize", "13a"]])
def test_m2_from_text_pipes_it_can_carry_read_back(tmp_path, tokenize):
    """'|' at the start of a correction, inside one, or '||' in an unchanged token is
    written and read back as the same reference."""
    from gecmetrics.m2_format import read_m2

    refs = ["a |x c", "|y ok", "a||b stays"]
    paths = _files(tmp_path, src=["a b c", "ok", "a||b stays"], ref0=refs)
    out = CliRunner().invoke(main, ["m2-from-text", "-s", paths["src"], "-r", paths["ref0"],
                                    "-o", str(tmp_path / "out.m2"), *tokenize])
    assert out.exit_code == 0, out.output
    read = read_m2(str(tmp_path / "out.m2")).references()[0]
    if not tokenize:
        assert read == refs
    else:
        assert read == ["a | x c", "| y ok", "a | | b stays"]


def test_m2_edit_line_with_a_pipe_before_its_separator_is_refused(tmp_path):
    """``x|`` + ``|||REQUIRED`` splits as ``x`` and ``|REQUIRED``: refused, not read as x."""
    from gecmetrics.errors import InputError
    from gecmetrics.m2_format import read_m2

    path = tmp_path / "gold.m2"
    path.write_text("S a b\nA 1 1|||M|||x||||REQUIRED|||-NONE-|||0\n\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"gold.m2:2: .*field 4 \(REQUIRED\) is '\|REQUIRED'"):
        read_m2(str(path))


def test_m2_from_text_empty_reference_deletes_and_tokenize_13a(tmp_path):
    paths = _files(tmp_path, src=["Hello , world .", "ok"], ref0=["Hello, world!", ""])
    out = CliRunner().invoke(main, ["m2-from-text", "-s", paths["src"], "-r", paths["ref0"],
                                    "--tokenize", "13a"])
    assert out.exit_code == 0, out.output
    assert out.output == ("S Hello , world .\nA 3 4|||R|||!|||REQUIRED|||-NONE-|||0\n\n"
                          "S ok\nA 0 1|||U||||||REQUIRED|||-NONE-|||0\n\n")
