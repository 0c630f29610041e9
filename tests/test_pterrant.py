"""PT-ERRANT (metrics/pterrant.py): PT-M2's BERTScore weighting on ERRANT's edits.

* the weighting, the matching and the levels by hand, with a stand-in
  BERTScore and edits given by hand (no spaCy, no torch);
* the whole metric (ERRANT's edits by the adapter, the tiny BERT) against the
  authors' code (pygongnlp/PT-M2 67ef575, ``--base errant`` / ``senterrant``)
  on 60 CoNLL-2014 sentences of 3 systems (tests/data/pterrant_reference.json,
  recorded by tests/reference/pterrant_reference.py);
* a cached rerun makes no model call and no ERRANT work.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecmetrics.corpus import Corpus
from gecmetrics.edits.extraction import pair_key
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.m2_format import read_m2
from gecmetrics.metrics.pterrant import PTErrant, as_edits, match_seq, pterrant_counts
from gecmetrics.metrics.ptm2 import WeightedEditStatistics

FIXTURE = Path(__file__).parent / "data" / "pterrant_reference.json"


class TypesInCommon:
    """BERTScore stand-in: the number of word types the two texts share, / 10."""

    def __init__(self) -> None:
        self.pairs: list[tuple[str, str]] = []

    def f_scores(self, pairs, progress_label=""):
        self.pairs.extend(pairs)
        return [len(set(c.split()) & set(r.split())) / 10 for c, r in pairs]


SRC = "He go to school ."
REFS = [["He went to school ."], ["He goes to school today ."]]
HYPS = {"A": ["He went to school today ."], "B": [SRC]}
#: ERRANT's edits of the toy pairs, (start, end, correction, type), as the
#: Extractor returns them (the test needs no spaCy).
EDITS = {
    pair_key(SRC, REFS[0][0]): [(1, 2, "went", "R:VERB:TENSE")],
    pair_key(SRC, REFS[1][0]): [(1, 2, "goes", "R:VERB:SVA"), (4, 4, "today", "M:ADV")],
    pair_key(SRC, HYPS["A"][0]): [(1, 2, "went", "R:VERB:TENSE"), (4, 4, "today", "M:ADV")],
}


def test_weights_and_levels_by_hand():
    """Base F of the source: 0.4 against both references (He, to, school, .).

    Reference 0: 'went' makes the source the reference (F 0.5): weight 0.1;
    'today' leaves 4 types in common: weight 0. A proposes went, today;
    correct: went. (c, e, g) = (0.1, 0.1, 0.1): P = R = F = 1.
    Reference 1: went 0, today 0.1, goes 0.1; correct: today.
    (0.1, 0.1, 0.2): P 1, R 0.5, F0.5 = 1.25 * 0.5 / 0.75 = 0.8333. Reference 0
    is chosen. B proposes nothing: (0, 0, 0.1) against 0, F0.5 of P 1, R 0 is 0;
    (0, 0, 0.2) against 1, also 0; ties go to the first.
    """
    corpus = Corpus([SRC], REFS, HYPS)
    scorer = TypesInCommon()
    counts = pterrant_counts(corpus, EDITS, scorer)
    assert counts.corpus[0, 0].ravel().tolist() == pytest.approx([0.1, 0.1, 0.1, 0.1, 0.1, 0.2])
    assert counts.corpus[1, 0].ravel().tolist() == pytest.approx([0, 0, 0.1, 0, 0, 0.2])
    stats = WeightedEditStatistics(counts)
    a, b = stats.corpus(0.5)
    assert (a.precision, a.recall, a.score) == pytest.approx((1.0, 1.0, 1.0))
    assert (b.precision, b.recall, b.score) == pytest.approx((1.0, 0.0, 0.0))
    assert stats.choice(0.5).tolist() == [[0], [0]]
    assert stats.sentence(0.5).ravel().tolist() == pytest.approx([1.0, 0.0])
    # Every distinct (source + one edit, reference) pair was asked for once.
    assert len(scorer.pairs) == len(set(scorer.pairs)) == 2 + 2 + 3


def test_all_zero_weights_at_the_sentence_level():
    """When every edit weighs 0, the sentence level weighs each 1/n (the
    authors' ``sent_level``); the corpus level keeps the zeros."""

    class Flat:
        def f_scores(self, pairs, progress_label=""):
            return [0.3] * len(pairs)

    corpus = Corpus([SRC], [REFS[1]], {"A": HYPS["A"]})
    counts = pterrant_counts(corpus, EDITS, Flat())
    assert counts.corpus[0, 0, 0].tolist() == [0, 0, 0]
    # union {goes, today, went}: 1/3 each; correct today, proposed went+today, gold goes+today
    assert counts.sentence[0, 0, 0].tolist() == pytest.approx([1 / 3, 2 / 3, 2 / 3])


def test_match_seq_scans_onwards_like_the_authors():
    """``matchSeq`` looks for each proposed edit only after the last gold edit
    matched: out of order, the second match is not found."""
    late, early = (3, 3, "", "a"), (1, 2, "x", "y")
    assert match_seq([early, late], [early, late]) == [early, late]
    assert match_seq([late, early], [early, late]) == [late]


def test_as_edits_drops_unk_and_repeats():
    tokens = "a b c".split()
    got = as_edits([(0, 1, "x", "R:NOUN"), (1, 1, "", "UNK"), (0, 1, "x", "R:NOUN")], tokens)
    assert got == [(0, 1, "a", "x")]


def test_errors_in_one_line():
    with pytest.raises(ConfigError, match="pterrant option layer"):
        PTErrant(layer=-1)
    with pytest.raises(ConfigError, match="pterrant option max_tokens"):
        PTErrant(max_tokens=0)
    with pytest.raises(ConfigError, match="pterrant option spacy"):
        PTErrant(spacy=3)


@pytest.mark.errant
@pytest.mark.neural
def test_too_long_sentence_fails_before_any_model(monkeypatch):
    import gecmetrics.metrics.pterrant as mod

    def no_model(cfg):
        raise AssertionError("the BERT model was asked for")

    monkeypatch.setattr(mod, "bert_scorer", no_model)
    corpus = Corpus(["a " * 30], [["a " * 30]], {"s": ["b " * 30]})
    with pytest.raises(InputError, match="max_tokens"):
        PTErrant(max_tokens=10).weighted_counts(corpus, TypesInCommon())


def _fixture_corpus(ref: dict, shared_data: Path, tmp_path: Path) -> Corpus:
    import sys

    sys.path.insert(0, str(Path(__file__).parent / "reference"))
    from ptm2_reference import CONLL, subset_m2  # type: ignore[import-not-found]

    path = tmp_path / "sub.m2"
    path.write_text(subset_m2(str(shared_data / CONLL), ref["sentences"]), encoding="utf8")
    m2 = read_m2(path)
    hyps = {}
    for system in ref["systems"]:
        lines = (shared_data / "official_submissions" / system).read_text(
            encoding="utf8").split("\n")
        hyps[system] = [" ".join(lines[i].split()) for i in ref["sentences"]]
    # The references as text, as the reference's errant_parallel step read them.
    return Corpus(m2.sources, m2.references(), hyps)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from ptm2_tiny import tiny_bert  # type: ignore[import-not-found]

    vocab = json.loads((Path(__file__).parent / "data" / "ptm2_reference.json").read_text(
        encoding="utf8"))["vocab"]
    return tiny_bert(str(tmp_path_factory.mktemp("pterrant_tiny")), vocab)


@pytest.mark.full
@pytest.mark.real_data
@pytest.mark.errant
@pytest.mark.neural
def test_equals_authors_code_with_tiny_bert(shared_data, tiny_model, tmp_path):
    """Corpus P/R/F (--base errant), sentence F and their mean (--base
    senterrant) of the authors' code, recorded with the same tiny BERT and
    errant_parallel's edits: equal to 1e-6 (measured: 1.4e-8 at most)."""
    ref = json.loads(FIXTURE.read_text(encoding="utf8"))
    corpus = _fixture_corpus(ref, shared_data, tmp_path)
    metric = PTErrant(model=tiny_model, layer=ref["layer"], baseline=ref["baseline_f"],
                      cache=False, device="cpu")
    stats = metric.statistics(corpus)
    beta = ref["beta"]
    scores, means, sentences = stats.corpus(beta), stats.mean(beta), stats.sentence(beta)
    for h, system in enumerate(ref["systems"]):
        want = ref["results"][system]
        got = scores[h]
        assert got.precision == pytest.approx(want["corpus"]["precision"], abs=1e-6)
        assert got.recall == pytest.approx(want["corpus"]["recall"], abs=1e-6)
        assert got.score == pytest.approx(want["corpus"]["f"], abs=1e-6)
        assert means[h] == pytest.approx(want["mean"], abs=1e-6)
        assert sentences[h].tolist() == pytest.approx(want["sentence"], abs=1e-6)


@pytest.mark.full
@pytest.mark.real_data
@pytest.mark.errant
@pytest.mark.neural
def test_cached_rerun_makes_no_model_call(shared_data, tiny_model, tmp_path, monkeypatch):
    """Second run: BERTScore values from the output cache, ERRANT's edits from
    the edit cache: no forward pass, and spaCy is not even loaded."""
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path / "cache"))
    ref = json.loads(FIXTURE.read_text(encoding="utf8"))
    corpus = _fixture_corpus(dict(ref, sentences=ref["sentences"][:15]), shared_data, tmp_path)
    from gecmetrics.metrics.ptm2 import bert_scorer

    metric = PTErrant(model=tiny_model, layer=ref["layer"], device="cpu")
    first = bert_scorer(metric.config)
    first.cache_path = tmp_path / "bs.sqlite"
    counts1 = metric.weighted_counts(corpus, first)
    assert first.forward_passes > 0

    import gecmetrics.edits.extraction as extraction

    def no_spacy(model="", lang="en"):
        raise AssertionError("spaCy was loaded on a cached rerun")

    monkeypatch.setattr(extraction, "load_annotator", no_spacy)
    again = bert_scorer(metric.config)
    again.cache_path = tmp_path / "bs.sqlite"
    counts2 = metric.weighted_counts(corpus, again)
    assert again.forward_passes == 0 and again._loaded is None
    assert (counts1.corpus == counts2.corpus).all() and (counts1.sentence == counts2.sentence).all()
