"""Input checks: every bad file gives one clear error, nothing is silently changed."""

from __future__ import annotations

import pytest

from gecmetrics.corpus import Corpus
from gecmetrics.errors import InputError
from gecmetrics.readers import read_lines, split_lines


def test_split_lines_keeps_spaces_and_strips_only_terminators():
    assert split_lines("a b \r\nc\n") == ["a b ", "c"]
    assert split_lines("a\n\nb") == ["a", "", "b"]  # empty sentence kept, no final newline
    assert split_lines("x\ty \n") == ["x\ty "]
    assert split_lines("") == []


def test_crlf_and_lf_files_read_the_same(tmp_path):
    (tmp_path / "lf").write_bytes(b"one \ntwo\n")
    (tmp_path / "crlf").write_bytes(b"one \r\ntwo\r\n")
    assert read_lines(tmp_path / "lf") == read_lines(tmp_path / "crlf") == ["one ", "two"]


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="hypothesis file not found: .*nope"):
        read_lines(tmp_path / "nope", "hypothesis")


def test_empty_file(tmp_path):
    (tmp_path / "e").write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        read_lines(tmp_path / "e", "source")


def test_non_utf8_names_line(tmp_path):
    (tmp_path / "bad").write_bytes(b"fine\ncaf\xe9\n")
    with pytest.raises(InputError, match=r"not valid UTF-8 \(byte 8, line 2\)"):
        read_lines(tmp_path / "bad", "reference")


def test_directory_is_not_a_file(tmp_path):
    with pytest.raises(InputError, match="directory"):
        read_lines(tmp_path, "source")


def test_corpus_length_mismatch_names_the_list():
    with pytest.raises(InputError, match="hypothesis b has 1 line but the source has 2"):
        Corpus(["x", "y"], [["x", "y"]], {"a": ["x", "y"], "b": ["x"]})


def test_corpus_build_accepts_common_shapes():
    c = Corpus.build(["s"], ["r"], ["h"])
    assert c.references == (("r",),) and c.hypotheses == {"sys0": ("h",)}
    c = Corpus.build(["s"], [["r"], ["q"]], {"A": ["h"]})
    assert len(c.references) == 2 and c.system_names == ["A"]
