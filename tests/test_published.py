"""data/published: every table loads, cites its source, and is installed as package data."""

from __future__ import annotations

import json
from importlib.resources import files

import pytest

from gecmetrics.errors import ConfigError
from gecmetrics.published import CITATION_KEYS, load, names


def test_every_table_has_a_full_citation_and_values():
    assert names() == ["conll2014-overview", "gjg15-table3b", "gleu-readme",
                       "green-paper-ja-table2", "green-paper-table2", "green-paper-table4",
                       "napoles16-gleu-without-tuning", "sakaguchi16-abstract",
                       "sakaguchi16-metric-scores"]
    for name in names():
        table = load(name)
        assert set(CITATION_KEYS) <= set(table.citation), name
        assert table.citation["authors"] and table.citation["title"] and table.values, name
        assert table.description.strip(), name


def test_files_are_package_data():
    folder = files("gecmetrics.data") / "published"
    raw = json.loads((folder / "gjg15-table3b.json").read_text(encoding="utf-8"))
    assert load("gjg15-table3b").values == raw["values"]


def test_cite_line():
    assert load("gjg15-table3b").cite() == (
        "Grundkiewicz et al. (2015). Human Evaluation of Grammatical Error Correction "
        "Systems. Proceedings of the 2015 Conference on Empirical Methods in Natural "
        "Language Processing (EMNLP), Table 3b. https://aclanthology.org/D15-1052")


def test_unknown_table_is_one_line_error():
    with pytest.raises(ConfigError, match="no published table 'nope'; known: conll2014"):
        load("nope")
