"""spaCy imported without torch for the CPU pipelines ERRANT runs
(:func:`gecmetrics.edits.pipeline.torch_left_out`): torch stays importable
afterwards, a pipeline that may need torch is left alone, and the parses are the
same as with torch imported.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SUBMISSIONS, require_extra, require_shared_data, skip_or_fail

from gecmetrics.edits import pipeline
from gecmetrics.edits.pipeline import runs_without_torch, torch_left_out


def _saved(folder: Path, components: dict[str, str], extra_config: str = "") -> str:
    """A pipeline folder as spaCy's ``to_disk`` writes it: {component: factory}."""
    folder.mkdir()
    (folder / "meta.json").write_text(json.dumps(
        {"lang": "en", "name": "mine", "version": "1.0.0", "pipeline": list(components)}),
        encoding="utf-8")
    (folder / "config.cfg").write_text("[nlp]\nlang = \"en\"\n\n" + "".join(
        f"[components.{name}]\nfactory = \"{factory}\"\n\n"
        for name, factory in components.items()) + extra_config, encoding="utf-8")
    return str(folder)


CPU = {"tok2vec": "tok2vec", "tagger": "tagger", "parser": "parser",
       "attribute_ruler": "attribute_ruler", "lemmatizer": "lemmatizer", "ner": "ner"}


def test_only_cpu_pipelines_are_judged_torch_free(tmp_path):
    assert runs_without_torch(_saved(tmp_path / "sm", CPU))
    assert not runs_without_torch(_saved(tmp_path / "trf", {**CPU, "transformer": "transformer"}))
    listener = '[components.tagger.model.tok2vec]\n@architectures = "spacy-transformers.' \
               'TransformerListener.v1"\n'
    assert not runs_without_torch(_saved(tmp_path / "listens", CPU, listener))
    assert not runs_without_torch(_saved(tmp_path / "custom", {**CPU, "mine": "my_factory"}))
    assert not runs_without_torch(str(tmp_path / "nothing here"))


def test_torch_is_hidden_only_inside_the_block_and_only_when_it_would_be_imported(
        tmp_path, monkeypatch):
    cpu = _saved(tmp_path / "sm", CPU)
    trf = _saved(tmp_path / "trf", {**CPU, "transformer": "transformer"})
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.delitem(sys.modules, "thinc", raising=False)
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: object() if name == "torch" else None)
    with torch_left_out(["not installed", cpu]):
        with pytest.raises(ImportError):
            import torch  # noqa: F401
    assert "torch" not in sys.modules  # importable again
    with torch_left_out([trf, cpu]):  # the first installed may need torch
        assert "torch" not in sys.modules
    marker = object()
    monkeypatch.setitem(sys.modules, "thinc", marker)  # thinc has decided already
    with torch_left_out([cpu]):
        assert "torch" not in sys.modules
    monkeypatch.delitem(sys.modules, "thinc")
    monkeypatch.setitem(sys.modules, "torch", marker)  # imported before: left as it is
    with torch_left_out([cpu]):
        assert sys.modules["torch"] is marker
    assert sys.modules["torch"] is marker


def test_an_error_inside_the_block_still_lets_torch_back(tmp_path, monkeypatch):
    cpu = _saved(tmp_path / "sm", CPU)
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.delitem(sys.modules, "thinc", raising=False)
    monkeypatch.setattr(pipeline.importlib.util, "find_spec",
                        lambda name, *a: object() if name == "torch" else None)
    with pytest.raises(RuntimeError), torch_left_out([cpu]):
        raise RuntimeError("a failed import")
    assert "torch" not in sys.modules


def _torch_and_errant() -> None:
    require_extra("errant")
    if importlib.util.find_spec("torch") is None:
        skip_or_fail("torch is not installed: nothing to leave out "
                     "(pip install -e .[neural] installs it)")


#: Run in a fresh interpreter: ERRANT's pipeline loaded, then what was imported, then
#: torch imported and used (argv[1] == "first": torch imported before ERRANT loads).
#: With files named after it, the token attributes of their parses, hashed.
_CHILD = """
import hashlib, sys
if sys.argv[1] == "first":
    import torch
from gecmetrics.edits.extraction import load_annotator
annotator, nlp = load_annotator()
print("torch" in sys.modules)
import torch
print(float(torch.ones(3).sum()))
from spacy.tokens import Doc
lines = [line for path in sys.argv[2:] for line in open(path, encoding="utf-8").read().splitlines()]
digest = hashlib.sha256()
for doc in nlp.pipe((Doc(nlp.vocab, line.split()) for line in lines if line.strip()),
                    batch_size=64):
    for t in doc:
        digest.update(f"{t.text} {t.tag_} {t.pos_} {t.lemma_} {t.dep_} {t.head.i} {t.morph}|"
                      .encode())
print(len(lines), digest.hexdigest())
"""


def _child(order: str, *files: Path) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", _CHILD, order, *map(str, files)],
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.split("\n")


@pytest.mark.full  # parses 3,900 CoNLL-2014 lines twice, in two processes
@pytest.mark.errant
def test_parses_are_the_same_with_and_without_torch():
    _torch_and_errant()
    require_shared_data()
    files = [SUBMISSIONS / name for name in ("INPUT", "AMU", "CAMB")]
    without, with_torch = _child("after", *files), _child("first", *files)
    assert without[0] == "False" and with_torch[0] == "True"  # left out, then imported
    assert without[1] == with_torch[1] == "3.0"  # and working
    assert without[2] == with_torch[2]
    assert without[2].startswith("3936 ")
