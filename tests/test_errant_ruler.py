"""The attribute ruler answered from memory (gecmetrics/edits/ruler.py) gives the
plain pipeline's annotations, and so ERRANT's edits and types, on every sentence
of the published data.

Every distinct sentence of CoNLL-2014 (the source, both annotators' corrections,
the 12 team outputs) and of SEEDA (its 15 outputs on the full test set) is
parsed twice, once by the plain ``nlp.pipe`` and once through
:func:`gecmetrics.edits.ruler.pipe`, in the same process order; every token
attribute ERRANT reads (text, lower case, fine tag, part of speech, lemma,
dependency label, head) and the morphology the lemmatizer reads must be equal,
and ERRANT's edits of every (source, output) pair must be equal too.
"""

from __future__ import annotations

import pytest
from conftest import SHARED_DATA, require_extra, require_shared_data

from gecmetrics.edits.extraction import auto_edits, load_annotator, pair_key
from gecmetrics.edits.parse_cache import sentence_key
from gecmetrics.m2_format import read_m2
from gecmetrics.readers import read_lines

CONLL_M2 = SHARED_DATA / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"
SUBMISSIONS = SHARED_DATA / "official_submissions"
SEEDA = SHARED_DATA / "SEEDA" / "outputs" / "all"
TEAMS = ("AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC",
         "UMC")


def _pairs() -> tuple[list[str], list[tuple[str, str]]]:
    """The distinct sentences to parse and the (source, other) pairs with different tokens."""
    m2 = read_m2(CONLL_M2)
    sources = list(m2.sources)
    others = [line for ref in m2.references() for line in ref]
    pairs = [(s, r) for ref in m2.references() for s, r in zip(sources, ref, strict=True)]
    for team in TEAMS:
        lines = read_lines(SUBMISSIONS / team, "hypothesis")
        pairs += list(zip(sources, lines, strict=True))
    seeda_input = read_lines(SEEDA / "INPUT.txt", "source")
    for path in sorted(SEEDA.glob("*.txt")):
        lines = read_lines(path, "hypothesis")
        pairs += list(zip(seeda_input, lines, strict=True))
    pairs = [p for p in dict.fromkeys(pairs) if pair_key(*p) is not None]
    texts = dict.fromkeys(sentence_key(t) for t in sources + others)
    texts.update(dict.fromkeys(sentence_key(t) for p in pairs for t in p))
    return list(texts), pairs


@pytest.mark.full  # parses about 15,000 sentences twice: minutes
@pytest.mark.errant
def test_memo_ruler_gives_the_pipelines_annotations_and_edits_on_all_published_outputs():
    require_extra("errant")
    require_shared_data()
    from spacy.attrs import DEP, HEAD, LEMMA, LOWER, MORPH, ORTH, POS, TAG
    from spacy.tokens import Doc

    from gecmetrics.edits import ruler

    annotator, nlp = load_annotator()
    texts, pairs = _pairs()
    assert len(texts) > 10_000 and len(pairs) > 10_000  # the data was read
    words = [t.split() for t in texts]
    plain = list(nlp.pipe((Doc(nlp.vocab, words=w) for w in words), batch_size=64))
    memo = ruler.memo_of(nlp)
    assert memo.enabled
    fast = list(ruler.pipe(nlp, (Doc(nlp.vocab, words=w) for w in words), 64))
    assert memo.hits > memo.misses  # most documents were answered from memory
    attrs = [ORTH, LOWER, TAG, POS, MORPH, LEMMA, DEP, HEAD]
    differ = [t for t, a, b in zip(texts, plain, fast, strict=True)
              if a.to_array(attrs).tolist() != b.to_array(attrs).tolist()]
    assert not differ, differ[:3]
    by_plain = dict(zip(texts, plain, strict=True))
    by_fast = dict(zip(texts, fast, strict=True))
    for src, other in pairs:
        a, b = sentence_key(src), sentence_key(other)
        assert auto_edits(annotator, by_plain[a], by_plain[b]) == \
            auto_edits(annotator, by_fast[a], by_fast[b]), (src, other)


@pytest.mark.full  # imports spaCy
def test_a_ruler_with_longer_patterns_is_never_answered_from_memory():
    from types import SimpleNamespace

    require_extra("errant")
    from gecmetrics.edits.ruler import MemoRuler

    covered = [{"patterns": [[{"TAG": "NN"}]], "attrs": {"POS": "NOUN"}, "index": 0},
               {"patterns": [[{"LOWER": "gon"}, {"LOWER": {"REGEX": "^na$"}}]],
                "attrs": {"LEMMA": "go"}, "index": 0}]
    assert MemoRuler(SimpleNamespace(patterns=covered)).enabled
    for extra in ([[{"LOWER": "a"}, {"LOWER": "b"}, {"LOWER": "c"}]],  # three tokens
                  [[{"LOWER": "a", "OP": "+"}]],  # an operator
                  [[{"SHAPE": "Xxx"}]],  # an attribute not covered
                  [[{"LENGTH": {">=": 3}}]]):
        rules = [*covered, {"patterns": extra, "attrs": {"POS": "X"}, "index": 0}]
        assert not MemoRuler(SimpleNamespace(patterns=rules)).enabled


@pytest.mark.errant
def test_a_full_store_of_contexts_starts_again_with_the_same_annotations(monkeypatch):
    """The store of token contexts is bounded (ruler.CONTEXTS_KEPT): emptied when full,
    the annotations stay the plain pipeline's."""
    require_extra("errant")
    from spacy.attrs import LEMMA, MORPH, POS
    from spacy.tokens import Doc

    from gecmetrics.edits import ruler

    monkeypatch.setattr(ruler, "CONTEXTS_KEPT", 5)
    nlp = load_annotator()[1]
    memo = ruler.MemoRuler(nlp.get_pipe("attribute_ruler"))
    monkeypatch.setattr(ruler, "memo_of", lambda _: memo)
    texts = ["I gon na go .", "She has a cat and two dogs .", "They 're going to win !",
             "Genetic risk refers more to your chance of inheriting a disorder ."] * 2
    words = [t.split() for t in texts]
    plain = list(nlp.pipe(Doc(nlp.vocab, words=w) for w in words))
    fast = list(ruler.pipe(nlp, (Doc(nlp.vocab, words=w) for w in words), 2))
    assert memo.hits > 0 and len(memo._contexts) <= 5
    assert [d.to_array([POS, MORPH, LEMMA]).tolist() for d in fast] == \
           [d.to_array([POS, MORPH, LEMMA]).tolist() for d in plain]


@pytest.mark.errant
def test_lemmas_from_memory_are_the_lemmatizers_own(monkeypatch):
    """The rule lemmatizer answered from memory (edits/lemmas.py) gives the plain
    pipeline's lemmas, also when its bounded memory (LEMMAS_KEPT) starts again; a
    lemmatizer of another kind is never answered from memory."""
    require_extra("errant")
    from types import SimpleNamespace

    from spacy.attrs import LEMMA
    from spacy.tokens import Doc

    from gecmetrics.edits import lemmas

    monkeypatch.setattr(lemmas, "LEMMAS_KEPT", 6)
    nlp = load_annotator()[1]
    lemmatizer = nlp.get_pipe("lemmatizer")
    assert lemmas.covered(lemmatizer)
    assert not lemmas.covered(SimpleNamespace(mode="rule"))  # another class
    memo = lemmas.MemoLemmatizer(lemmatizer)
    texts = ["The cats were running faster .", "She has a cat and two dogs .",
             "They 're going to win the best prizes !", "Better ones were found ."] * 2
    words = [t.split() for t in texts]
    plain = list(nlp.pipe(Doc(nlp.vocab, words=w) for w in words))
    with nlp.select_pipes(disable=["lemmatizer"]):
        unlemmatized = list(nlp.pipe(Doc(nlp.vocab, words=w) for w in words))
    assert any(t.lemma == 0 for d in unlemmatized for t in d)  # work left to do
    fast = [memo(d) for d in unlemmatized]
    assert len(memo._memory) <= 6
    assert [d.to_array([LEMMA]).tolist() for d in fast] == \
           [d.to_array([LEMMA]).tolist() for d in plain]
