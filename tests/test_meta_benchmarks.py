"""Benchmarks: data folder lookup, loud failures, system sets and corpora on the real data."""

from __future__ import annotations

import hashlib
import json
import shutil
from importlib import resources

import numpy as np
import pytest
from meta_data import benchmark, shared_data

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.meta_eval.benchmarks import data_root, load_benchmark
from gecmetrics.meta_eval.benchmarks.seeda import subset_positions
from gecmetrics.meta_eval.sweep import parse_grid


def test_data_root_order(monkeypatch, tmp_path):
    monkeypatch.setenv("GECMETRICS_DATA", str(tmp_path / "env"))
    assert data_root(tmp_path / "given") == tmp_path / "given"
    assert data_root(None) == tmp_path / "env"
    monkeypatch.delenv("GECMETRICS_DATA")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert data_root(None) == tmp_path / "cache" / "gecmetrics"


def test_missing_folder_and_missing_file(tmp_path):
    with pytest.raises(InputError, match="--data-dir"):
        load_benchmark("conll14", tmp_path / "absent")
    (tmp_path / "GJG15").mkdir()
    with pytest.raises(InputError, match=r"missing file conll14st-test-data/.*--data-dir"):
        load_benchmark("conll14", tmp_path)
    with pytest.raises(ConfigError, match="unknown benchmark"):
        load_benchmark("gmeg", tmp_path)


def test_data_descriptions_match_shared_checksums():
    # the bytes themselves, not a SHA256SUMS file (a folder filled by
    # `gecmetrics download` has none)
    root = shared_data()
    for name in ("conll14", "seeda"):
        desc = json.loads(resources.files("gecmetrics.data").joinpath(f"{name}.json").read_text())
        assert desc["files"], name
        for entry in desc["files"]:
            digest = hashlib.sha256((root / entry["path"]).read_bytes()).hexdigest()
            assert digest == entry["sha256"], entry["path"]


def test_subset_positions():
    sources = ["a", "b", "c", "b"]
    assert subset_positions(["b", "c", "b"], sources, "x") == [1, 2, 3]
    with pytest.raises(InputError, match="x:2: .*not .*CoNLL-2014 source"):
        subset_positions(["a", "zzz"], sources, "x")


def test_subset_with_a_foreign_line_fails_loudly(tmp_path):
    desc = json.loads(resources.files("gecmetrics.data").joinpath("seeda.json").read_text())
    for entry in desc["files"]:  # a writable copy of exactly the files SEEDA needs
        target = tmp_path / entry["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shared_data() / entry["path"], target)
    path = tmp_path / "SEEDA/outputs/subset/INPUT.txt"
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[10] = "This sentence is not in CoNLL-2014 ."
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(InputError, match=r"INPUT.txt:11: this line is not"):
        load_benchmark("seeda-s", tmp_path, seeda_corpus="subset")


def test_conll14_corpus():
    b = benchmark("conll14")
    corpus = b.corpus
    assert corpus.num_sentences == 1312 and len(corpus.references) == 2
    assert len(corpus.system_names) == 13
    # INPUT is the M2 source (official_submissions/INPUT has trailing spaces).
    assert corpus.hypotheses["INPUT"] == corpus.sources
    assert corpus.m2 is not None and len(corpus.m2.sentences) == 1312
    assert b.systems() == corpus.system_names
    assert "INPUT" not in b.systems("base") and len(b.systems("base")) == 12
    assert set(b.human["ew"]) == set(b.human["ts"]) == set(corpus.system_names)


def test_seeda_subset_corpus_and_sets():
    b = benchmark("seeda-s", "subset")
    corpus = b.corpus
    assert corpus.num_sentences == 391 and len(corpus.system_names) == 15
    assert corpus.hypotheses["INPUT"] == corpus.sources
    assert len(corpus.m2.sentences) == 391
    # The subset's references are those of the same CoNLL-2014 sentences: the first
    # subset sentence is CoNLL-2014 sentence 11 (0-based; src-id 12 in SEEDA's XML).
    full = benchmark("conll14").corpus
    assert corpus.sources[0] == full.sources[11]
    assert [ref[0] for ref in corpus.references] == [ref[11] for ref in full.references]
    items = b.judgments.items
    assert {i.sentence for i in items} <= {full.sources.index(s) for s in corpus.sources}
    sizes = {name: len(b.systems(name)) for name in ("base", "+INPUT", "+fluency", "all")}
    assert sizes == {"base": 12, "+INPUT": 13, "+fluency": 14, "all": 15}
    assert set(b.systems("base")).isdisjoint({"INPUT", "REF-F", "GPT-3.5"})
    assert b.systems("+REF-F_GPT-3.5") == b.systems("+fluency")
    # seeda-s and seeda-e share one corpus, hence one set of metric statistics.
    assert benchmark("seeda-e", "subset").corpus is corpus


def test_seeda_all_corpus():
    b = benchmark("seeda-e", "all")
    assert b.corpus.num_sentences == 1312
    assert b.corpus.sources == benchmark("conll14").corpus.sources
    assert "corpus=all" in b.setting


def test_parse_grid():
    grid = parse_grid("0:5:0.01")
    assert len(grid) == 501 and grid[0] == 0.0 and grid[-1] == 5.0
    assert 1.67 in grid and 1.85 in grid
    assert np.array_equal(parse_grid("1:2:0.5"), [1.0, 1.5, 2.0])
    for bad in ("1:2", "2:1:0.1", "0:1:0", "a:b:c"):
        with pytest.raises(ConfigError):
            parse_grid(bad)
