"""The disk cache of ERRANT's edits (gecmetrics.edits.edit_cache): a rerun does no
linguistic work and gives the same numbers; a damaged cache costs time, never
a wrong number.

"No linguistic work" is checked by making every way into spaCy and ERRANT
fail (``load_annotator``, ``Annotator.annotate``, ``errant_align.annotate``,
``Annotator.import_edit``)
during the rerun. The first run's numbers are themselves checked against
``errant_compare`` in tests/test_errant_conll14.py; here the oracle of a rerun
is a run without any cache (``errant:cache=false``).
"""

from __future__ import annotations

import sqlite3

import pytest
from conftest import CONLL_M2, SUBMISSIONS

import gecmetrics.edits.extraction as extraction
from gecmetrics import paths
from gecmetrics.corpus import Corpus
from gecmetrics.edits import edit_cache, errant_align
from gecmetrics.m2_format import read_m2
from gecmetrics.metrics.errant import Errant

pytestmark = pytest.mark.errant  # skips without the errant extra (conftest)

SOURCES = ["He go to school every days .", "This is fine .", "She have a apple ."]
REFS = [["He goes to school every day .", "This is fine .", "She has an apple ."]]
HYPS = {"good": REFS[0], "half": ["He goes to school every days .", "This is fine !",
                                  "She have an apple ."], "input": SOURCES}


def _numbers(results) -> dict:
    return {r.hypothesis: (r.score, r.precision, r.recall, r.details["TP"], r.details["FP"],
                           r.details["FN"], dict(r.details.get("per_type", {})))
            for r in results}


def _db(tmp_path):
    files = list((tmp_path / "edits").glob("*.sqlite"))
    assert len(files) == 1
    return files[0]


def test_rerun_does_no_linguistic_work_same_numbers(tmp_path, monkeypatch, no_errant_later):
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path))
    corpus = Corpus(SOURCES, REFS, HYPS)
    first = Errant()
    before = _numbers(first.evaluate(corpus))
    # distinct pairs with different tokens: 2 reference pairs + 3 of "half"
    assert first.extractor.computed == 5 and first.extractor.edit_cache.stored == 5
    fresh = _numbers(Errant(cache=False).evaluate(Corpus(SOURCES, REFS, HYPS)))
    assert before == fresh
    assert paths.edit_cache_dir() == tmp_path / "edits"
    name = _db(tmp_path).name
    assert "3.8.0" in name and "errant-3.0.2" in name and f"_f{edit_cache.FORMAT}" in name

    no_errant_later()
    again = Errant()
    assert _numbers(again.evaluate(Corpus(SOURCES, REFS, HYPS))) == before
    assert again.parse_cache is None and again.extractor.computed == 0
    assert again.extractor.edit_cache.hits == 5


def _refuse(*args, **kwargs):
    raise AssertionError("ERRANT or spaCy was used on a rerun")


def test_cache_false_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path))
    metric = Errant(cache=False)
    assert metric.spec == "errant:cache=False"
    metric.evaluate(Corpus(SOURCES, REFS, HYPS))
    assert not any(tmp_path.rglob("*.sqlite")) and not any(tmp_path.rglob("*.parses"))


def test_damaged_rows_are_recomputed_with_a_warning(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path))
    before = _numbers(Errant().evaluate(Corpus(SOURCES, REFS, HYPS)))
    db = _db(tmp_path)
    with sqlite3.connect(db) as conn:  # a wrong value under its old check
        conn.execute("UPDATE edits SET v = '[[0,1,\"X\",\"R:OTHER\"]]'")
        n = conn.execute("SELECT count(*) FROM edits").fetchone()[0]
    capfd.readouterr()
    metric = Errant()
    assert _numbers(metric.evaluate(Corpus(SOURCES, REFS, HYPS))) == before
    assert metric.extractor.computed == n and metric.extractor.edit_cache.hits == 0
    assert "damaged rows in the ERRANT edit cache" in capfd.readouterr().err
    again = Errant()  # rewritten: the next run reads them
    assert _numbers(again.evaluate(Corpus(SOURCES, REFS, HYPS))) == before
    assert again.extractor.computed == 0


def test_file_that_is_not_a_database_is_ignored_with_a_warning(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path))
    before = _numbers(Errant().evaluate(Corpus(SOURCES, REFS, HYPS)))
    db = _db(tmp_path)
    db.write_bytes(b"this is not an SQLite file" * 100)
    capfd.readouterr()
    metric = Errant()
    assert _numbers(metric.evaluate(Corpus(SOURCES, REFS, HYPS))) == before
    err = capfd.readouterr().err
    assert "cannot be used" in err and "delete the file" in err and err.count("\n") == 1
    assert metric.extractor.computed == 5


def test_other_tools_do_not_share_rows(tmp_path, monkeypatch):
    """The file name carries the tool identity: another format version (or
    spaCy, errant, pipeline version) starts an empty cache."""
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path))
    Errant().evaluate(Corpus(SOURCES, REFS, HYPS))
    monkeypatch.setattr(edit_cache, "FORMAT", edit_cache.FORMAT + 1)
    metric = Errant()
    metric.evaluate(Corpus(SOURCES, REFS, HYPS))
    assert metric.extractor.computed == 5
    assert len(list((tmp_path / "edits").glob("*.sqlite"))) == 2


@pytest.mark.full
@pytest.mark.real_data
def test_conll14_rerun_with_m2_gold_is_identical_without_errant(tmp_path, monkeypatch,
                                                               no_errant_later):
    """150 CoNLL-2014 sentences, 4 outputs, gold edits from the M2 file
    (re-annotated by ERRANT): the rerun reads every edit, gold ones included."""
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path))
    m2 = read_m2(CONLL_M2)
    n = 150
    sub = read_m2(_subset_m2(tmp_path, n))
    hyps = {s: (SUBMISSIONS / s).read_text(encoding="utf-8").split("\n")[:n]
            for s in ("AMU", "CAMB", "IPN", "INPUT")}
    corpus = Corpus(m2.sources[:n], [r[:n] for r in m2.references()], hyps, m2=sub)
    before = _numbers(Errant(mode="cs").evaluate(corpus))
    detection = _numbers(Errant(mode="dt").evaluate(Corpus(
        m2.sources[:n], [r[:n] for r in m2.references()], hyps, m2=sub)))
    no_errant_later()
    again = Errant()
    assert _numbers(again.evaluate(Corpus(m2.sources[:n], [r[:n] for r in m2.references()],
                                          hyps, m2=sub))) == before
    assert again.extractor.computed == 0 and again.parse_cache is None
    assert _numbers(Errant(mode="dt").evaluate(Corpus(
        m2.sources[:n], [r[:n] for r in m2.references()], hyps, m2=sub))) == detection


def _subset_m2(tmp_path, n):
    blocks = CONLL_M2.read_text(encoding="utf-8").strip().split("\n\n")[:n]
    path = tmp_path / "sub.m2"
    path.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    return path


@pytest.fixture
def no_errant_later(monkeypatch):
    """A function that, once called, makes any use of spaCy or ERRANT fail."""
    def arm():
        from errant.annotator import Annotator

        monkeypatch.setattr(extraction, "load_annotator", _refuse)
        monkeypatch.setattr(Annotator, "annotate", _refuse)
        monkeypatch.setattr(errant_align, "annotate", _refuse)  # the compiled alignment's route
        monkeypatch.setattr(Annotator, "import_edit", _refuse)
    return arm


def test_sharing_edits_reads_the_cache_once_within_its_block(tmp_path, monkeypatch):
    """Inside extraction.sharing_edits (what `report` runs in), a second Extractor asking
    for pairs the first returned reads nothing from the edit cache; outside a block,
    nothing is kept from one extraction to the next."""
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path))
    pairs = list(zip(SOURCES, HYPS["half"], strict=True))
    with extraction.Extractor() as first:
        expected = first.extract(pairs, [])
    asked: list[int] = []
    real = edit_cache.EditCache.get_many

    def counting(self, keys):
        keys = list(keys)
        asked.append(len(keys))
        return real(self, keys)

    monkeypatch.setattr(edit_cache.EditCache, "get_many", counting)
    with extraction.sharing_edits():
        with extraction.Extractor() as one:
            assert one.extract(pairs, []) == expected
        assert asked == [3]  # read from the cache once
        with extraction.Extractor() as two:
            assert two.extract(pairs[1:], []) == {k: v for k, v in expected.items()
                                                  if k != extraction.pair_key(*pairs[0])}
        assert asked == [3]  # from memory
        with extraction.Extractor() as three:  # a new pair too: only it is looked up
            new = ("This is fine .", "This is good .")
            got = three.extract([*pairs, new], [])
            assert list(got) == [*expected, extraction.pair_key(*new)]
        assert asked == [3, 1] and three.computed == 1
    with extraction.Extractor() as after:
        assert after.extract(pairs, []) == expected
    assert asked == [3, 1, 3]  # the block is over: read again
