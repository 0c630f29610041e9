"""PT-M2 (metrics/ptm2.py, gecmetrics/neural/bertscore.py, metrics/ptm2_edits.py).

* the weighting and the three levels, by hand, with a stand-in BERTScore (no torch);
* the edit sequences against the M2 counts of the native scorer on CoNLL-2014;
* the whole metric against the authors' code (pygongnlp/PT-M2 67ef575) run with
  the same tiny random BERT on 60 CoNLL-2014 sentences of 3 systems
  (tests/data/ptm2_reference.json, recorded by tests/reference/ptm2_reference.py);
* a cached rerun makes no model call.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.fscore import prf_of_totals
from gecmetrics.m2_format import read_m2
from gecmetrics.metrics.m2_lattice import GoldEdit
from gecmetrics.metrics.ptm2 import PTM2, apply_edits
from gecmetrics.metrics.ptm2_edits import edit_sequences

FIXTURE = Path(__file__).parent / "data" / "ptm2_reference.json"

TOY_M2 = """S He go to school .
A 1 2|||Vt|||went|||REQUIRED|||-NONE-|||0
A 1 2|||SVA|||goes|||REQUIRED|||-NONE-|||1
A 4 4|||Mod|||today|||REQUIRED|||-NONE-|||1

S I like it .
A 2 3|||Pform|||them|||REQUIRED|||-NONE-|||0

"""


class FakeScorer:
    """BERTScore stand-in: 0.3 against a reference containing 'like', else the
    number of word types in common / 10."""

    def __init__(self) -> None:
        self.pairs: list[tuple[str, str]] = []

    def f_scores(self, pairs, progress_label=""):
        self.pairs.extend(pairs)
        return [0.3 if "like" in r.split() else len(set(c.split()) & set(r.split())) / 10
                for c, r in pairs]


def toy_corpus(tmp_path: Path) -> Corpus:
    path = tmp_path / "toy.m2"
    path.write_text(TOY_M2, encoding="utf8")
    m2 = read_m2(path)
    hyps = {"A": ["He went to school today .", "I like him ."],
            "B": ["He goes to school .", "I like it ."]}
    return Corpus(m2.sources, m2.references(), hyps, m2=m2)


@pytest.mark.neural
def test_weights_and_levels_by_hand(tmp_path):
    """Every number worked out by hand from the PT-M2 definitions.

    The M2 edit sequences (checked against PT-M2's own levenshtein.py): A s1
    against annotator 0: (1,2 go->went), (3,5 'school .'->'school today .');
    against 1: (1,4 'go to school'->'went to school'), (4,4 ->today). B s1:
    (0,3 'He go to'->'He goes to') / (1,2 go->goes). A s2: (1,4 'like it .'->
    'like him .'). Sentence 1: base F 0.4 against both references; an edit
    weighs |F(source + edit) - 0.4|, so went (ref 0), today (ref 1) and goes
    (ref 1) weigh 0.1 and the others 0. Sentence 2: F is 0.3 for every pair, so
    all weights are 0: nothing at the corpus level, 1/n each at the sentence level.

    A: s1 annotator 0 (c, e, g) = (0.1, 0.1, 0.1), F 1 (annotator 1: (0.1, 0.1,
    0.2), F 0.833); s2 (0, 0, 0) / sentence level n = 2: (0, 0.5, 0.5), F 0.
    B: s1 annotator 0 (0, 0, 0.1) F 0; annotator 1 (0.1, 0.1, 0.2), F 0.833;
    s2 (0, 0, 0) / sentence level n = 1: (0, 0, 1), F 0.
    """
    corpus = toy_corpus(tmp_path)
    stats = PTM2().statistics_with(corpus, FakeScorer())
    a, b = stats.corpus(0.5)
    assert (a.precision, a.recall, a.score) == pytest.approx((1.0, 1.0, 1.0))
    assert (b.precision, b.recall, b.score) == pytest.approx((1.0, 0.5, 1.25 * 0.5 / 0.75))
    assert stats.choice(0.5).tolist() == [[0, 0], [1, 0]]
    sent = stats.sentence(0.5)
    assert sent.ravel().tolist() == pytest.approx([1.0, 0.0, 1.25 * 0.5 / 0.75, 0.0])
    assert stats.mean(0.5).tolist() == pytest.approx([0.5, 1.25 * 0.5 / 0.75 / 2])
    # beta 1: B's corpus F = 2 * 1 * 0.5 / 1.5
    assert stats.corpus(1.0)[1].score == pytest.approx(2 / 3)


@pytest.mark.neural
def test_pairs_scored_once(tmp_path):
    """Every (candidate, reference) pair is asked for once, whatever the systems share."""
    scorer = FakeScorer()
    PTM2().statistics_with(toy_corpus(tmp_path), scorer)
    assert len(scorer.pairs) == len(set(scorer.pairs))
    assert ("He go to school .", "He went to school .") in scorer.pairs


def test_apply_edits_and_prf():
    src = "a b c".split()
    assert apply_edits([(0, 1, "a", "x y"), (2, 3, "c", "")], src) == "x y b"
    assert apply_edits([(1, 1, "", "z")], src) == "a z b c"
    assert prf_of_totals(0.0, 0.0, 0.0, 0.5) == (1.0, 1.0, 1.0)
    assert prf_of_totals(0.0, 0.2, 0.0, 0.5) == (0.0, 1.0, 0.0)
    assert prf_of_totals(0.0, 0.0, 0.0 + 0.1, 0.5)[2] == 0.0


@pytest.mark.neural
def test_errors_in_one_line(tmp_path):
    corpus = Corpus(["a b"], [["a b"]], {"s": ["a c"]})
    with pytest.raises(InputError, match="needs gold edits"):
        PTM2().statistics(corpus)
    with pytest.raises(ConfigError, match="layer"):
        PTM2(layer=-1)
    with pytest.raises(ConfigError, match="baseline"):
        PTM2(baseline=1.5)
    with pytest.raises(ConfigError, match="no default BERTScore layer.*layer=N"):
        PTM2(model=str(tmp_path)).bert_scorer()


@pytest.mark.full
@pytest.mark.real_data
def test_edit_sequences_count_as_native_m2(conll, shared_data):
    """The literal edit sequences give the native M2's (correct, proposed) on
    CoNLL-2014 (first 300 sentences of three systems)."""
    from gecmetrics.metrics.m2_lattice import build_lattice, sentence_counts_many
    from gecmetrics.metrics.ptm2 import _matched

    m2 = read_m2(shared_data / "conll14st-test-data/noalt/official-2014.combined.m2")
    _sources, _refs, hyps = conll
    checked = 0
    for name in ("AMU", "CAMB", "UFC"):
        for d in range(300):
            src, hyp = m2.sentences[d].source.split(), hyps[name][d].split()
            if src == hyp:
                continue
            golds = [[GoldEdit(e.start, e.end, " ".join(src[e.start:e.end]), e.corrections)
                      for e in edits] for edits in m2.sentences[d].official_gold().values()]
            native = sentence_counts_many(build_lattice(src, hyp), golds)
            ours = [(len(_matched(seq, g)), len(seq), len(g))
                    for seq, g in zip(edit_sequences(src, hyp, golds), golds, strict=True)]
            assert ours == native, (name, d)
            checked += 1
    assert checked > 400


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
    return Corpus(m2.sources, m2.references(), hyps, m2=m2)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from ptm2_tiny import tiny_bert  # type: ignore[import-not-found]

    ref = json.loads(FIXTURE.read_text(encoding="utf8"))
    return tiny_bert(str(tmp_path_factory.mktemp("ptm2_tiny")), ref["vocab"])


@pytest.mark.full
@pytest.mark.real_data
@pytest.mark.neural
def test_equals_authors_code_with_tiny_bert(shared_data, tiny_model, tmp_path):
    """Corpus P/R/F (--base m2), sentence F and their mean (--base sentm2) of
    PT-M2's own code, recorded with the same tiny BERT: equal to 1e-6 (they
    agree to 2e-8: the same float32 operations on the same padding)."""
    ref = json.loads(FIXTURE.read_text(encoding="utf8"))
    corpus = _fixture_corpus(ref, shared_data, tmp_path)
    metric = PTM2(model=tiny_model, layer=ref["layer"], baseline=ref["baseline_f"],
                  cache=False, device="cpu")
    stats = metric.statistics(corpus)
    beta = ref["beta"]
    scores = stats.corpus(beta)
    means = stats.mean(beta)
    sentences = stats.sentence(beta)
    for h, system in enumerate(ref["systems"]):
        want = ref["results"][system]
        got = scores[h]
        assert got.precision == pytest.approx(want["corpus"]["precision"], abs=1e-6)
        assert got.recall == pytest.approx(want["corpus"]["recall"], abs=1e-6)
        assert got.score == pytest.approx(want["corpus"]["f"], abs=1e-6)
        assert means[h] == pytest.approx(want["mean"], abs=1e-6)
        assert sentences[h].tolist() == pytest.approx(want["sentence"], abs=1e-6)
    # Rescaling does not change PT-M2 (every weight is divided by 1 - b).
    raw = PTM2(model=tiny_model, layer=ref["layer"], rescale=False, cache=False, device="cpu")
    assert raw.statistics(corpus).corpus_scores(beta).tolist() == pytest.approx(
        [ref["results"][s]["corpus"]["f"] for s in ref["systems"]], abs=1e-6)


@pytest.mark.full
@pytest.mark.real_data
@pytest.mark.neural
def test_cached_rerun_makes_no_model_call(shared_data, tiny_model, tmp_path):
    ref = json.loads(FIXTURE.read_text(encoding="utf8"))
    corpus = _fixture_corpus(dict(ref, sentences=ref["sentences"][:15]), shared_data, tmp_path)
    metric = PTM2(model=tiny_model, layer=ref["layer"], device="cpu")
    cache = tmp_path / "cache.sqlite"
    first = metric.bert_scorer()
    first.cache_path = cache
    counts1 = metric.weighted_counts(corpus, first)
    assert first.forward_passes > 0
    from gecmetrics.neural.batching import TOTALS

    again = metric.bert_scorer()
    again.cache_path = cache
    computed = TOTALS.computed
    counts2 = metric.weighted_counts(corpus, again)
    assert again.forward_passes == 0 and TOTALS.computed == computed
    assert again._loaded is None  # the model was not even loaded
    assert (counts1.corpus == counts2.corpus).all() and (counts1.sentence == counts2.sentence).all()


@pytest.mark.neural
def test_neutral_edits_are_m2_of_the_neutral_gold():
    """ptm2:edits=neutral on text references scores the gold M2 that m2:edits=neutral
    (and m2-from-text) derives from them: the same numbers as ptm2 given that M2 file;
    the option is in the signature only when set."""
    from gecmetrics.metrics.m2 import neutral_gold
    from gecmetrics.registry import get_metric

    sources = ["He go to school .", "I like it ."]
    refs = [["He went to school today .", "I like them ."], ["He goes to school .",
                                                             "I like it ."]]
    hyps = {"A": ["He went to school today .", "I like him ."],
            "B": ["He goes to school .", "I like it ."]}
    text = Corpus(sources, refs, hyps)
    gold = Corpus(sources, refs, hyps, m2=neutral_gold(sources, refs))
    neutral = get_metric("ptm2", edits="neutral").statistics_with(text, FakeScorer())
    given = PTM2().statistics_with(gold, FakeScorer())
    for beta in (0.5, 1.0):
        assert [(r.precision, r.recall, r.score) for r in neutral.corpus(beta)] == [
            (r.precision, r.recall, r.score) for r in given.corpus(beta)]
        assert neutral.sentence(beta).tolist() == given.sentence(beta).tolist()
    assert "edits" not in PTM2().signature()
    assert "|edits:neutral|" in get_metric("ptm2", edits="neutral").signature()
    with pytest.raises(ConfigError, match=r"ptm2 option edits must be m2 or neutral"):
        get_metric("ptm2", edits="errant")
    with pytest.raises(InputError, match=r"needs gold edits"):
        PTM2().statistics_with(text, FakeScorer())
