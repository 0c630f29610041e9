"""The edit layer's shared pieces: F-beta from counts (one scalar and one
element-wise form, same bits), what ``--breakdown`` asks of an edit metric
(its types, its FP without gold) instead of its class, the ERRANT pair keys,
the shared lowercased corpus, and the import rules the metrics follow."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from gecmetrics.breakdown import breakdowns
from gecmetrics.corpus import Corpus
from gecmetrics.edits.adapters import SentenceEditMetric
from gecmetrics.edits.extraction import Extractor, pair_edits, pair_key
from gecmetrics.edits.metric import TypeCounts
from gecmetrics.edits.span import SpanEdit
from gecmetrics.edits.statistics import EditStatistics
from gecmetrics.errors import ConfigError
from gecmetrics.fscore import f_beta, f_beta_of_totals, prf, prf_of_totals
from gecmetrics.m2_format import read_m2

ROOT = Path(__file__).resolve().parents[1]

# Betas with ``beta ** 2 != beta * beta`` (0.0397, 2.759) among ordinary ones.
BETAS = (0.5, 1.0, 2.0, 0.0397, 2.759, 0.2)


@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("empty", (1.0, 0.0))
def test_f_beta_has_the_bits_of_prf(beta, empty):
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 6, size=(3, 400))
    counts[:, :30] = 0  # every empty case
    counts[0, 30:60] = 0
    counts[2, 60:90] = 0
    tp, fp, fn = counts
    scalar = [prf(int(t), int(f), int(n), beta, empty)[2] for t, f, n in counts.T]
    assert f_beta(tp, fp, fn, beta, empty).tolist() == scalar


@pytest.mark.parametrize("beta", BETAS)
def test_f_beta_of_totals_has_the_bits_of_prf_of_totals(beta):
    rng = np.random.default_rng(4)
    c, e, g = rng.random((3, 300)) * rng.integers(0, 2, size=(3, 300))
    scalar = [prf_of_totals(float(x), float(y), float(z), beta)[2]
              for x, y, z in zip(c, e, g, strict=True)]
    assert f_beta_of_totals(c, e, g, beta).tolist() == scalar


def test_prf_empty_conventions():
    assert prf(0, 0, 0, 0.5) == (1.0, 1.0, 1.0)
    assert prf(0, 0, 0, 0.5, empty=0.0) == (0.0, 0.0, 0.0)
    assert prf(0, 2, 0, 0.5) == (0.0, 1.0, 0.0)
    p, r, f = prf(3, 1, 2, 1.0)
    assert (p, r) == (0.75, 0.6) and f == pytest.approx(2 * 0.75 * 0.6 / 1.35, abs=1e-15)


# --------------------------------------------------------------------------
# --breakdown asks the metric

GOLD = """S He go to school .
A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||1

S She like apple .
A 1 2|||R:VERB:SVA|||likes|||REQUIRED|||-NONE-|||0

"""


def _corpus(tmp_path: Path) -> Corpus:
    path = tmp_path / "gold.m2"
    path.write_text(GOLD, encoding="utf-8")
    m2 = read_m2(path)
    hyps = {"sys": ["He goes to school .", "She likes apples ."]}
    return Corpus(m2.sources, m2.references(), hyps, m2=m2)


class TokenDiff(SentenceEditMetric):
    """Edits: the single-token substitutions of the hypothesis, matched exactly."""

    name = "token-diff-test"
    description = "test"

    def sentence_counts(self, source: str, hypothesis: str,
                        gold: Mapping[int, Sequence[SpanEdit]]) -> dict[int, tuple[int, int, int]]:
        src, hyp = source.split(), hypothesis.split()
        mine = {(i, i + 1, h) for i, (s, h) in enumerate(zip(src, hyp, strict=True)) if s != h}
        out = {}
        for a, edits in gold.items():
            ref = {(e.start, e.end, e.correction) for e in edits}
            out[a] = (len(mine & ref), len(mine - ref), len(ref - mine))
        return out


class TypedTokenDiff(TokenDiff):
    """The same, saying how to count without gold and what its types are."""

    name = "typed-token-diff-test"

    def fp_without_gold(self, corpus: Corpus, sentences: list[int]) -> np.ndarray:
        return np.array([[sum(s != h for s, h in zip(corpus.sources[d].split(),
                                                     lines[d].split(), strict=True))
                          for d in sentences] for lines in corpus.hypotheses.values()])

    def type_counts(self, corpus: Corpus, stats: EditStatistics, beta: float
                    ) -> list[TypeCounts]:
        return [TypeCounts({"R:SUB": (int(t), int(f), int(n))})
                for t, f, n in stats.totals(beta).tolist()]


def test_breakdown_uses_what_the_metric_declares(tmp_path):
    corpus = _corpus(tmp_path)
    with pytest.raises(ConfigError, match="has no error types"):
        breakdowns(TokenDiff(), corpus, "cat3")
    # Annotator 1 has no A line in sentence 2: the metric must say how to count it.
    with pytest.raises(ConfigError, match="does not say how to count"):
        breakdowns(TokenDiff(), corpus, "annotator")
    [b] = breakdowns(TypedTokenDiff(), corpus, "annotator")
    rows = {r.group: (r.tp, r.fp, r.fn) for r in b.rows}
    # Sentence 1: "goes" matches annotator 0, is an FP against annotator 1's
    # "went"; sentence 2: "likes" matches annotator 0 and "apples" is an FP;
    # against annotator 1's empty gold both are FP.
    assert rows == {"0": (2, 1, 0), "1": (0, 3, 1)}
    [typed] = breakdowns(TypedTokenDiff(), corpus, "cat1")
    assert [(r.group, r.tp, r.fp, r.fn) for r in typed.rows] == [("R", 2, 1, 0)]
    assert typed.untyped_fp is None


# --------------------------------------------------------------------------
# ERRANT pair keys (no spaCy needed)


def test_pair_keys_and_edits():
    assert pair_key("a  b", "a b") is None
    assert pair_key("a b", "a c") == ("h", "a b", "a c")
    edits = {("h", "a b", "a c"): [(1, 2, "c", "R:NOUN")]}
    assert pair_edits(edits, "a b", " a  c ") == [(1, 2, "c", "R:NOUN")]
    assert pair_edits(edits, "a b", "a b") == []
    with Extractor(disk=False) as extractor:  # no disk cache: nothing to find or close
        assert extractor.edit_cache.path is None and extractor.computed == 0


def test_lowercased_corpus_is_made_once():
    corpus = Corpus(["A B"], [["A c"]], {"s": ["a B"]})
    low = corpus.lowercased()
    assert low is corpus.lowercased()
    assert (low.sources, low.references, dict(low.hypotheses)) == (
        ("a b",), (("a c",),), {"s": ("a b",)})


# --------------------------------------------------------------------------
# Import rules of the metrics and the edit layer


def _imports(path: Path) -> list[tuple[str, str]]:
    """(module as written, name) of every ``from X import name`` in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [("." * node.level + (node.module or ""), alias.name)
            for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            for alias in node.names]


def test_no_private_name_is_imported_across_metrics_and_edits():
    files = sorted((ROOT / "metrics").glob("*.py")) + sorted(
        (ROOT / "gecmetrics" / "edits").glob("*.py")) + [ROOT / "gecmetrics" / "breakdown.py"]
    bad = [(f.name, m, n) for f in files for m, n in _imports(f)
           if n.startswith("_") and m != "__future__"]
    assert bad == []


def test_core_edit_layer_imports_no_plugin():
    files = sorted((ROOT / "gecmetrics" / "edits").glob("*.py")) + [
        ROOT / "gecmetrics" / "breakdown.py", ROOT / "gecmetrics" / "fscore.py"]
    bad = [(f.name, m) for f in files for m, _ in _imports(f)
           if "metrics" in m.split(".") or "meta_eval" in m.split(".")]
    assert bad == []


def test_metrics_take_the_edit_layer_from_the_core():
    """No metric imports the errant metric's module for its extraction."""
    bad = [(f.name, m) for f in sorted((ROOT / "metrics").glob("*.py")) if f.name != "errant.py"
           for m, _ in _imports(f) if m in (".errant", "gecmetrics.metrics.errant")]
    assert bad == []
