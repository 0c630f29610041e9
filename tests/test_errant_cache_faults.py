"""ERRANT given a spaCy pipeline that lacks a component it reads, or a cache folder
that cannot be written (read-only, full), and the parse cache key of whitespace
variants.

A pipeline without a tagger, parser, lemmatizer or part-of-speech component is
refused with one ``error:`` line before anything is parsed (its edits and types
would be silently wrong). An unwritable cache is one warning: the run prints
exactly what a run with a working cache prints, and leaves no partial entry.
"""

from __future__ import annotations

import errno
import json
import os
import random
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import require_extra

from gecmetrics import sqlite_store
from gecmetrics.corpus import Corpus
from gecmetrics.edits import parse_cache as parse_cache_module
from gecmetrics.edits.extraction import load_annotator
from gecmetrics.edits.parse_cache import ParseCache
from gecmetrics.edits.pipeline import check_pipeline, check_pipeline_files
from gecmetrics.errors import ConfigError

SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))

_WORDS = ("the a cat dog house run runs ran big small red blue go goes went and but old "
          "new young man woman child tree car road city walk walked sees saw").split()
_rng = random.Random(32)
#: 150 sentences, different enough that their parses and edits fill a few pages.
SOURCES = [" ".join(_rng.choice(_WORDS) for _ in range(14)) + " ." for _ in range(150)]
HYPOTHESIS = [s.replace(" a ", " the ", 1).replace(" runs ", " run ") for s in SOURCES]
REFERENCE = [s.replace(" a ", " the ").replace(" go ", " goes ") for s in SOURCES]


def _fake_pipeline(components: dict[str, tuple[str, list[str]]]) -> SimpleNamespace:
    """A stand-in for a loaded spaCy pipeline: {name: (factory, assigns)}."""
    return SimpleNamespace(
        pipe_names=list(components),
        get_pipe_meta=lambda name: SimpleNamespace(factory=components[name][0],
                                         assigns=components[name][1]))


FULL = {"tok2vec": ("tok2vec", ["doc.tensor"]), "tagger": ("tagger", ["token.tag"]),
        "parser": ("parser", ["token.dep", "token.head"]),
        "attribute_ruler": ("attribute_ruler", []),
        "lemmatizer": ("lemmatizer", ["token.lemma"])}


def test_check_pipeline_names_each_missing_component():
    check_pipeline(_fake_pipeline(FULL), "full")  # en_core_web_sm's components: accepted
    for left_out, words in (("parser", ("token.dep", "parser")),
                            ("attribute_ruler", ("token.pos", "attribute_ruler")),
                            ("lemmatizer", ("token.lemma", "lemmatizer")),
                            ("tagger", ("token.tag", "tagger"))):
        fewer = {k: v for k, v in FULL.items() if k != left_out}
        with pytest.raises(ConfigError) as err:
            check_pipeline(_fake_pipeline(fewer), "mine")
        message = str(err.value)
        assert "'mine'" in message and "errant:model=" in message
        assert all(w in message for w in words), message
        assert "\n" not in message
    # Another language needs no fine tags or parse (operation-only types).
    check_pipeline(_fake_pipeline({"morphologizer": ("morphologizer", ["token.pos"]),
                                   "lemmatizer": ("lemmatizer", ["token.lemma"])}), "de", "de")
    with pytest.raises(ConfigError, match="token.pos"):
        check_pipeline(_fake_pipeline({"lemmatizer": ("lemmatizer", ["token.lemma"])}),
                       "de", "de")


def _saved_pipeline(folder: Path, pipeline: list[str], disabled: list[str]) -> Path:
    """A pipeline folder as spaCy's ``to_disk`` writes its meta.json and config.cfg."""
    folder.mkdir()
    (folder / "meta.json").write_text(json.dumps(
        {"lang": "en", "name": "mine", "version": "1.0.0", "pipeline": pipeline,
         "disabled": disabled}), encoding="utf-8")
    (folder / "config.cfg").write_text("[nlp]\nlang = \"en\"\n\n" + "".join(
        f"[components.{c}]\nfactory = \"{FULL[c][0] if c in FULL else c}\"\n\n"
        for c in pipeline), encoding="utf-8")
    return folder


def test_pipeline_files_are_checked_before_spacy_loads(tmp_path):
    names = list(FULL)
    check_pipeline_files(str(_saved_pipeline(tmp_path / "full", [*names, "ner"], [])))
    no_parser = _saved_pipeline(tmp_path / "no_parser", names, ["parser"])
    with pytest.raises(ConfigError, match=r"cleme:model=.*no_parser.*token\.dep.*parser"):
        check_pipeline_files(str(no_parser), option="cleme:model")
    with pytest.raises(ConfigError, match="no components"):
        check_pipeline_files("blank:en")
    # A component of a factory spaCy does not ship: judged only once loaded.
    check_pipeline_files(str(_saved_pipeline(tmp_path / "custom", ["my_tagger"], [])))
    check_pipeline_files("")  # the default pipelines


def test_unwritable_cache_warns_once(monkeypatch, capsys):
    monkeypatch.setattr(sqlite_store, "_unwritable_warned", False)
    sqlite_store.warn_unwritable("/x", OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    sqlite_store.warn_unwritable("/y", OSError(errno.EACCES, os.strerror(errno.EACCES)))
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gecmetrics: warning: cannot write the cache")
    assert "/x" in err and os.strerror(errno.ENOSPC) in err


def _write(folder: Path) -> dict[str, Path]:
    files = {"source": SOURCES, "reference": REFERENCE, "hypothesis": HYPOTHESIS}
    out = {}
    for name, lines in files.items():
        out[name] = folder / f"{name}.txt"
        out[name].write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return out


def _score(files: dict[str, Path], cache: Path, *extra: str, limit: int | None = None
           ) -> subprocess.CompletedProcess[str]:
    def preexec() -> None:
        if limit is not None:  # Python ignores SIGXFSZ: a write past the limit is EFBIG
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [SCRIPT, "score", "-m", "errant", *extra, "-s", str(files["source"]), "-r",
         str(files["reference"]), "-c", str(files["hypothesis"]), "--format", "json"],
        env=dict(os.environ, GECMETRICS_CACHE=str(cache)), preexec_fn=preexec,
        capture_output=True, text=True, timeout=300)


def _check_cache_whole(cache: Path) -> None:
    """No temporary file left; every shard whole, each of its DocBins too; every SQLite
    file intact."""
    from spacy.tokens import DocBin

    from gecmetrics.edits.parse_cache import _read_shard

    assert not list(cache.rglob(".tmp-*")), "a temporary shard was left behind"
    for shard in cache.rglob("*.parses"):
        for keys, data in _read_shard(shard.read_bytes()):  # raises on a partial shard
            assert len(DocBin().from_bytes(data)) == len(keys)
    for db in cache.rglob("*.sqlite"):
        with sqlite3.connect(db) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


@pytest.mark.full  # several CLI runs, each loading spaCy
@pytest.mark.errant
def test_pipeline_without_a_component_is_one_line_before_parsing(tmp_path):
    require_extra("errant")
    import spacy

    files = _write(tmp_path)
    blank = _score(files, tmp_path / "c1", "-m", "errant:model=blank:en")
    assert blank.returncode == 2 and blank.stdout == ""
    lines = blank.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), blank.stderr
    assert all(w in lines[0] for w in ("'blank:en'", "tagger", "parser", "lemmatizer"))
    assert not list((tmp_path / "c1").rglob("*.parses"))  # refused before errant ran
    with pytest.raises(ConfigError, match="'blank:en'"):  # the check of a loaded pipeline
        load_annotator("blank:en")
    # An installed pipeline saved with its parser disabled, named by path.
    nlp = spacy.load(_installed_model(), disable=["parser"])
    nlp.to_disk(tmp_path / "no_parser")
    no_parser = subprocess.run(
        [SCRIPT, "score", "-m", f"errant:model={tmp_path / 'no_parser'}", "-s",
         str(files["source"]), "-r", str(files["reference"]), "-c", str(files["hypothesis"])],
        env=dict(os.environ, GECMETRICS_CACHE=str(tmp_path / "c2")),
        capture_output=True, text=True, timeout=300)
    assert no_parser.returncode == 2, no_parser.stderr
    lines = no_parser.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "token.dep" in lines[0] and "parser" in lines[0] and "no_parser" in lines[0]


def _installed_model() -> str:
    from gecmetrics.edits.extraction import MODEL_CANDIDATES

    for name in MODEL_CANDIDATES:
        try:
            __import__(name)
            return name
        except ImportError:
            continue
    pytest.skip("no English spaCy pipeline installed")


@pytest.mark.full  # CLI runs, each loading spaCy
@pytest.mark.errant
def test_full_disk_is_one_warning_same_output_nothing_partial(tmp_path):
    require_extra("errant")
    files = _write(tmp_path)
    good = _score(files, tmp_path / "good")
    assert good.returncode == 0 and good.stderr == "", good.stderr
    # A file-size limit as a full disk (about 18 KB of parses, 20 KB of edits here):
    # nothing fits; SQLite's empty file fits but not the edits, and the shard stops
    # half-way; the shard fits but not the edits.
    for limit in (1, 10_000, 19_000):
        cache = tmp_path / f"full-{limit}"
        run = _score(files, cache, limit=limit)
        assert run.returncode == 0 and run.stdout == good.stdout, run.stderr
        lines = run.stderr.splitlines()
        assert len(lines) == 1 and "cannot write the cache" in lines[0], run.stderr
        _check_cache_whole(cache)
        again = _score(files, cache)  # the next run, with space, is right and complete
        assert again.returncode == 0 and again.stdout == good.stdout and again.stderr == ""
        _check_cache_whole(cache)


@pytest.mark.full  # parses with spaCy
@pytest.mark.errant
def test_read_only_cache_reads_what_is_there_and_writes_nothing(tmp_path, monkeypatch,
                                                                capsys):
    """As root a folder's mode does not stop writes, so a read-only cache is made by
    opening SQLite read-only and refusing the shard's temporary file."""
    require_extra("errant")
    from gecmetrics.metrics.errant import Errant

    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path / "cache"))
    half = len(SOURCES) // 2

    def corpus(n: int) -> Corpus:
        return Corpus(SOURCES[:n], [REFERENCE[:n]], {"hyp": HYPOTHESIS[:n]})

    Errant().evaluate(corpus(half))  # fills the cache with the first half
    before = {p: p.read_bytes() for p in (tmp_path / "cache").rglob("*") if p.is_file()}
    expected = Errant(cache=False).evaluate(corpus(len(SOURCES)))
    capsys.readouterr()

    connect = sqlite3.connect

    def read_only(path: object, *args: object, **kwargs: object) -> sqlite3.Connection:
        return connect(f"file:{path}?mode=ro", *args, uri=True, **kwargs)

    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(sqlite_store.sqlite3, "connect", read_only)
    monkeypatch.setattr(parse_cache_module.tempfile, "mkstemp", refuse)
    monkeypatch.setattr(sqlite_store, "_unwritable_warned", False)
    metric = Errant()
    got = metric.evaluate(corpus(len(SOURCES)))
    assert [r.score for r in got] == [r.score for r in expected]
    assert metric.extractor.edit_cache.hits > 0  # what was there was read
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "cannot write the cache" in err[0], err
    after = {p: p.read_bytes() for p in (tmp_path / "cache").rglob("*") if p.is_file()}
    assert after == before


@pytest.mark.full  # parses with spaCy
@pytest.mark.errant
def test_parse_shard_cut_short_by_a_full_disk_leaves_nothing(tmp_path, monkeypatch, capsys):
    require_extra("errant")
    nlp = load_annotator()[1]
    real = os.fdopen

    class Full:
        def __init__(self, fd: int, mode: str) -> None:
            self.file = real(fd, mode)

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.file.close()

        def write(self, data: bytes) -> int:
            self.file.write(data[:len(data) // 2])
            self.file.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(parse_cache_module.os, "fdopen", Full)
    monkeypatch.setattr(sqlite_store, "_unwritable_warned", False)
    cache = ParseCache(nlp, tmp_path, progress=False)
    cache.parse_all(SOURCES[:5])
    assert cache.parsed == 5 and cache.get(SOURCES[0])[0].text == SOURCES[0].split()[0]
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]  # no shard, no temp file
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and os.strerror(errno.ENOSPC) in err


@pytest.mark.full  # parses with spaCy
@pytest.mark.errant
def test_whitespace_variants_share_one_parse_and_one_edit_entry(tmp_path, monkeypatch):
    """ERRANT's tools split each line on whitespace (``Doc(vocab, text.split())``):
    tabs, runs of spaces, no-break spaces and ends of line give the same tokens, so
    they must neither be parsed again nor extracted again."""
    require_extra("errant")
    from gecmetrics.metrics.errant import Errant

    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path / "cache"))
    sources = SOURCES[:4]
    plain = [s[:-1] + "!" for s in sources]
    variants = {"tabs": [p.replace(" ", "\t") for p in plain],
                "runs": ["  " + p.replace(" ", "   ") + " " for p in plain],
                "nbsp": [p.replace(" ", "\u00a0") for p in plain]}
    first = Errant()
    first.evaluate(Corpus(sources, [plain], {"plain": plain}))
    parsed = first.parse_cache.parsed
    assert parsed == 2 * len(sources)
    assert all(t.split() == p.split()
               for v in variants.values() for t, p in zip(v, plain, strict=True))
    again = Errant()
    scores = again.evaluate(Corpus([" " + s + "\t" for s in sources], [plain], variants))
    assert again.extractor.computed == 0 and again.parse_cache is None
    assert len({r.score for r in scores}) == 1
