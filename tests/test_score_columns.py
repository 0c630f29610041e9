"""Every metric spec of a `score` run keeps its own column in the tables.

Found when comparing BLEU tokenizations for the Sakaguchi et al. (2016) check:
`-m bleu -m bleu:tokenize=none` printed one BLEU column, the second spec's
numbers under the first one's name, because the label left out `tokenize=`
(which GREEN's and GLEU's display names carry, but BLEU's does not).
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from gecmetrics.interface.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, [
        "score", "-s", f"{EXAMPLE}/source.txt", "-r", f"{EXAMPLE}/ref0.txt",
        f"{EXAMPLE}/ref1.txt", "-c", f"{EXAMPLE}/system_a.txt", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_bleu_tokenizations_get_two_columns_with_their_own_numbers() -> None:
    table = _run("-m", "bleu", "-m", "bleu:tokenize=none", "--format", "tsv")
    header, row = table.splitlines()[:2]
    assert header.split("\t") == ["hypothesis", "BLEU", "BLEU(tokenize=none)"]
    rows = json.loads(_run("-m", "bleu", "-m", "bleu:tokenize=none", "--format", "json"))
    by_spec = {r["spec"]: r["score"] for r in rows}
    cells = row.split("\t")[1:]
    assert cells == [f"{100 * by_spec['bleu']:.2f}", f"{100 * by_spec['bleu:tokenize=none']:.2f}"]


def test_tokenize_stays_out_of_labels_whose_name_says_it() -> None:
    header = _run("-m", "green:tokenize=char", "-m", "gleu:tokenize=char",
                  "--format", "tsv").splitlines()[0].split("\t")
    assert "charGLEU" in header
    assert all("tokenize" not in h for h in header)
