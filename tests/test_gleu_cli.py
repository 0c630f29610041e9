"""`gecmetrics score` with GLEU and chrF specs: JSON contract, options, beta handling."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gecmetrics.corpus import Corpus
from gecmetrics.interface.cli import main
from gecmetrics.metrics.chrf import Chrf
from gecmetrics.metrics.gleu import Gleu
from gecmetrics.readers import read_lines

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
FILES = ["-s", str(EXAMPLE / "source.txt"), "-r", str(EXAMPLE / "ref0.txt"),
         str(EXAMPLE / "ref1.txt"), "-c", str(EXAMPLE / "system_a.txt"),
         str(EXAMPLE / "system_b.txt")]


def run(*args: str) -> list[dict]:
    result = CliRunner().invoke(main, ["score", *args, *FILES, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # notes (e.g. -b ignored by gleu) go to stderr


def example_corpus() -> Corpus:
    return Corpus(read_lines(EXAMPLE / "source.txt"),
                  [read_lines(EXAMPLE / "ref0.txt"), read_lines(EXAMPLE / "ref1.txt")],
                  {str(EXAMPLE / n): read_lines(EXAMPLE / n)
                   for n in ("system_a.txt", "system_b.txt")})


@pytest.mark.parametrize("spec, metric, name, options", [
    ("gleu", Gleu, "wordGLEU", {}),
    ("gleu:variant=paper", Gleu, "wordGLEU", {"variant": "paper"}),
    ("gleu:mode=max", Gleu, "wordGLEU", {"mode": "max"}),
    ("gleu:tokenize=char,n=6", Gleu, "charGLEU", {"tokenize": "char", "n": 6}),
    ("chrf", Chrf, "chrF", {}),
    ("chrf:word_order=2", Chrf, "chrF++", {"word_order": 2}),
])
def test_cli_json_matches_the_api(spec, metric, name, options):
    rows = run("-m", spec)
    expected = metric(**options).evaluate(example_corpus())
    assert [row["metric"] for row in rows] == [name, name]
    assert [{k: v for k, v in row.items() if k != "signature"} for row in rows] == [
        r.to_json() for r in expected]
    assert set(rows[0]) == {"metric", "spec", "hypothesis", "beta", "level", "score",
                            "precision", "recall", "signature"}
    assert rows[0]["spec"] == spec
    assert all(0.0 <= row["score"] <= 1.0 for row in rows)


def test_beta_applies_to_chrf_only():
    rows = run("-m", "gleu", "-m", "chrf", "-b", "1", "-b", "3")
    gleu = [r for r in rows if r["metric"] == "wordGLEU"]
    chrf = [r for r in rows if r["metric"] == "chrF"]
    assert [r["beta"] for r in gleu] == [None, None]
    assert [r["beta"] for r in chrf] == [1.0, 1.0, 3.0, 3.0]
    assert gleu == run("-m", "gleu")


@pytest.mark.parametrize("level", ["sentence", "mean"])
def test_levels(level):
    rows = run("-m", "gleu", "-m", "chrf:word_order=2", "--level", level)
    assert len(rows) == 4
    if level == "sentence":
        assert all(len(r["scores"]) == 3 for r in rows)


def test_table_output_and_list():
    result = CliRunner().invoke(main, ["score", "-m", "gleu", "-m", "chrf", *FILES])
    assert result.exit_code == 0, result.output
    assert "wordGLEU" in result.output and "chrF" in result.output
    listing = CliRunner().invoke(main, ["list"])
    assert "gleu" in listing.output and "chrf" in listing.output
