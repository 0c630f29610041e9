"""ERRANT's parsing and alignment in the ``-j`` worker processes (issue 23).

* the tasks: the pairs of one source in one task, about ``ALIGN_CHUNK_PAIRS`` pairs a
  task, every pair once, in order (fast tier, no spaCy);
* on real data (CoNLL-2014, three systems and the M2 gold): the edits of every pair with
  ``-j 2`` equal those of ``-j 1`` (the serial path is the oracle), with empty caches
  and with the parses cached; the parse cache written once, by the parent, and
  readable afterwards (a rerun parses nothing); the edit cache too;
* Ctrl-C and SIGTERM while ERRANT's workers parse: one line, exit 130 / 143, no
  traceback, no process left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import CONLL_M2, SUBMISSIONS
from test_signals import CLI, alive, children

from gecmetrics import parallel
from gecmetrics.edits import extraction
from gecmetrics.edits.extraction import (
    ALIGN_CHUNK_PAIRS,
    Extractor,
    hypothesis_pairs,
    m2_corrections,
    pair_key,
    reference_items,
)

SYSTEMS = ("AMU", "CAMB", "CUUI")
#: sentences of CoNLL-2014 used (a few thousand pairs: several tasks per worker)
SENTENCES = 400


def test_tasks_keep_a_source_together_and_the_order():
    keys = [("h", f"s{d % 50}", f"o{d}") for d in range(1000)]
    chunks = extraction._chunks(keys)
    flat = [k for chunk in chunks for k in chunk]
    assert sorted(flat) == sorted(keys) and len(flat) == len(keys)
    sources_seen = [k[1] for k in flat]
    for chunk in chunks[:-1]:
        assert len(chunk) >= ALIGN_CHUNK_PAIRS
    for a, b in zip(chunks, chunks[1:], strict=False):  # no source split over two tasks
        assert not {k[1] for k in a} & {k[1] for k in b}
    # sources in order of first appearance, pairs of a source in input order
    assert list(dict.fromkeys(sources_seen)) == [f"s{d}" for d in range(50)]
    assert [k for k in flat if k[1] == "s7"] == [k for k in keys if k[1] == "s7"]
    few = keys[:ALIGN_CHUNK_PAIRS - 1]  # one task: no worker is started for it
    assert [sorted(c) for c in extraction._chunks(few)] == [sorted(few)]


def _corpus():
    from gecmetrics.corpus import Corpus
    from gecmetrics.m2_format import M2File, read_m2
    from gecmetrics.readers import read_lines

    m2 = read_m2(CONLL_M2)
    m2 = M2File(m2.path, m2.sentences[:SENTENCES])
    hyps = {s: read_lines(SUBMISSIONS / s, "hypothesis")[:SENTENCES] for s in SYSTEMS}
    return Corpus(m2.sources, m2.references(), hyps, m2=m2)


def _extract(corpus, jobs: int) -> tuple[dict, Extractor]:
    gold = m2_corrections(corpus)
    _, gold_items = reference_items(corpus, gold)
    before = dict(parallel._pools)
    with parallel.execution(jobs=jobs), Extractor() as extractor:
        edits = extractor.extract(hypothesis_pairs(corpus), gold_items)
    if jobs > 1:  # the workers did the work
        assert set(parallel._pools) - set(before) or jobs in before
    return edits, extractor


@pytest.mark.full
@pytest.mark.errant
@pytest.mark.real_data
def test_jobs_2_equals_jobs_1_and_caches_are_written_once(shared_data, tmp_path, monkeypatch):
    if parallel.default_jobs() < 2:
        pytest.skip("one core: -j 2 makes no pool")
    corpus = _corpus()
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path / "one"))
    serial, one = _extract(corpus, 1)
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path / "two"))
    workers, two = _extract(corpus, 2)
    # the same edits of every pair, in the same order of keys
    assert list(workers) == list(serial) and workers == serial
    assert len(serial) > 4 * ALIGN_CHUNK_PAIRS
    assert two.computed == one.computed == len(serial)
    assert two.parse_cache.parsed == one.parse_cache.parsed > 0
    # the parent wrote one shard and one edit file; both are read back by a rerun
    shards = list((tmp_path / "two").rglob("*.parses"))
    assert len(shards) == 1 and not list((tmp_path / "two").rglob(".tmp-*"))
    again, reread = _extract(corpus, 2)
    assert again == serial and reread.computed == 0 and reread.parse_cache is None
    # parses cached, edits not: nothing parsed, every pair aligned by the workers again
    for db in (tmp_path / "two" / "edits").glob("*.sqlite"):
        db.unlink()
    cached, third = _extract(corpus, 2)
    assert cached == serial and third.parse_cache.parsed == 0
    assert third.computed == len(serial)
    assert len(list((tmp_path / "two").rglob("*.parses"))) == 1
    # and -j 1 reads the shard the workers' parses were written to
    for db in (tmp_path / "two" / "edits").glob("*.sqlite"):
        db.unlink()
    from_shard, fourth = _extract(corpus, 1)
    assert from_shard == serial and fourth.parse_cache.parsed == 0
    # every parse cached, the default -j on idle cores: aligned in this process (sending
    # the parses to workers costs what aligning them does)
    for db in (tmp_path / "two" / "edits").glob("*.sqlite"):
        db.unlink()
    monkeypatch.setattr(parallel, "machine_free_cores", lambda: 2.0)
    monkeypatch.setattr(Extractor, "_extract_in_workers",
                        lambda *args: pytest.fail("workers started for cached parses"))
    gold_items = reference_items(corpus, m2_corrections(corpus))[1]
    with Extractor() as extractor:
        assert extractor.extract(hypothesis_pairs(corpus), gold_items) == serial
    assert extractor.computed == len(serial) and extractor.parse_cache.parsed == 0
    assert pair_key("a  b", "a b") is None  # same tokens: no pair to extract


@pytest.mark.full
@pytest.mark.errant
@pytest.mark.real_data
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig, code, line", [
    (signal.SIGINT, 130, "error: interrupted (Ctrl-C)"),
    (signal.SIGTERM, 143, "error: terminated (SIGTERM)"),
])
def test_signal_while_errant_workers_parse(shared_data, tmp_path, sig, code, line):
    if parallel.default_jobs() < 2:
        pytest.skip("one core: -j 2 makes no pool")
    from gecmetrics.m2_format import read_m2

    src = tmp_path / "src.txt"
    src.write_text("".join(s + "\n" for s in read_m2(CONLL_M2).sources), encoding="utf-8")
    env = dict(os.environ, GECMETRICS_CACHE=str(tmp_path / "cache"))
    proc = subprocess.Popen(
        [*CLI, "score", "-m", "errant", "-s", str(src), "--m2", str(CONLL_M2), "-c",
         *(str(SUBMISSIONS / s) for s in SYSTEMS), "-j", "2"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True, env=env)
    try:
        deadline = time.monotonic() + 120
        while len(children(proc.pid)) < 2:  # spaCy loaded, the two workers started
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no worker started"
            time.sleep(0.05)
        time.sleep(1.0)
        assert proc.poll() is None  # 3 systems x 1,312 sentences take tens of seconds
        os.killpg(proc.pid, sig)  # what a terminal's Ctrl-C or `timeout` does
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == code, err
    assert err.splitlines() == [line], err
    assert "Traceback" not in err and out == ""
    deadline = time.monotonic() + 10
    while alive(proc.pid) and time.monotonic() < deadline:  # the workers die with it
        time.sleep(0.05)
    assert not alive(proc.pid)


def test_transient_heap_changes_only_a_bounded_heap(monkeypatch):
    """ERRANT's tasks take large blocks from the heap, and give the bound back after."""
    calls: list[int] = []
    monkeypatch.setattr(parallel, "_mmap_threshold", calls.append)
    monkeypatch.setattr(parallel, "_heap_bounded", False)
    with parallel.transient_heap():
        pass
    assert calls == []  # a process that never bounded its heap keeps glibc's own
    monkeypatch.setattr(parallel, "_heap_bounded", True)
    with pytest.raises(KeyError), parallel.transient_heap():
        raise KeyError
    assert calls == [parallel.TRANSIENT_MMAP_THRESHOLD, parallel.BOUNDED_MMAP_THRESHOLD]
