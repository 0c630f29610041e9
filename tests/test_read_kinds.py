"""Every file kind is read as every text input is (gecmetrics.readers.read_text).

The saved run of ``meta-eval --run``, the benchmarks' rating files (GMEG and
TMU-GFM CSV, sv-gec annotation JSON, the TrueSkill rankings of conll14's
``--human sakaguchi16-*``, SEEDA's edit judgments) were read with ``open()``: a byte-order
mark was refused (or misread as part of the first header), UTF-16 ended in a
traceback, a NUL byte was read as data. The bad-input sweep's file matrix
(tests/trust_cases.py, full tier) runs each through the command line; these
are the fast checks of the readers themselves.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import require_shared_data

from gecmetrics.errors import GecMetricsError, InputError
from gecmetrics.meta_eval.benchmarks.conll14 import sakaguchi16_scores
from gecmetrics.meta_eval.benchmarks.gmeg import read_corpus_scores
from gecmetrics.meta_eval.benchmarks.sv_gec import _read_json
from gecmetrics.meta_eval.benchmarks.tmu_gfm import read_rows
from gecmetrics.meta_eval.edit_judgments import FOLDER as EDIT_FOLDER
from gecmetrics.meta_eval.edit_judgments import read_edit_judgments
from gecmetrics.meta_eval.saved_run import MetaEvalRun
from gecmetrics.readers import open_text

BOM = b"\xef\xbb\xbf"

RUN = {"meta_eval_run": 1, "benchmarks": ["conll14"], "metrics": ["green"], "scores": [],
       "analyses": {}, "options": {}, "explicit": ["benchmarks", "metrics"],
       "format": "table"}

TMU_CSV = ("source,output,grammer,fluency,meaning,system\n"
           'A b .,A B .,"3,4","4,4","4,4",lstm\n')
TMU_COLUMNS = {"grammaticality": "grammer", "fluency": "fluency", "meaning": "meaning"}


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


def test_saved_run_with_bom_and_crlf_is_the_same_run(tmp_path: Path):
    text = json.dumps(RUN, indent=2) + "\n"
    clean = MetaEvalRun.load(str(_write(tmp_path, "clean.json", text.encode())))
    assert MetaEvalRun.load(str(_write(tmp_path, "bom.json", BOM + _crlf(text)))) == clean


@pytest.mark.parametrize(("data", "words"), [
    (json.dumps(RUN).encode("utf-16"), "UTF-16"),
    (b'{\n"meta\x00_eval_run": 1}\n', "NUL byte (byte 7, line 2)"),
    (b'{\n"meta_eval_run":\r 1}\n', "line 2"),
    (b"", "is empty"),
])
def test_saved_run_refused_with_where(tmp_path: Path, data: bytes, words: str):
    path = _write(tmp_path, "run.json", data)
    with pytest.raises(GecMetricsError) as err:
        MetaEvalRun.load(str(path))
    assert str(path) in str(err.value) and words in str(err.value)


def test_gmeg_ratings_with_bom_and_crlf(tmp_path: Path):
    text = "system,score\namu,71.5\nnus,70.25\n"
    expected = read_corpus_scores(_write(tmp_path, "clean.csv", text.encode()))
    assert expected == {"amu": 71.5, "nus": 70.25}
    assert read_corpus_scores(_write(tmp_path, "bom.csv", BOM + _crlf(text))) == expected


@pytest.mark.parametrize(("data", "words"), [
    ("system,score\namu,71.5\n".encode("utf-16"), "UTF-16"),
    (b"system,score\nam\x00u,71.5\n", "line 2"),
    (b"", "is empty"),
])
def test_gmeg_ratings_refused_with_where(tmp_path: Path, data: bytes, words: str):
    path = _write(tmp_path, "scores.csv", data)
    with pytest.raises(InputError) as err:
        read_corpus_scores(path)
    assert str(path) in str(err.value) and words in str(err.value)


def test_tmu_gfm_rows_with_bom_and_crlf(tmp_path: Path):
    clean = read_rows(_write(tmp_path, "clean.csv", TMU_CSV.encode()), TMU_COLUMNS)
    assert [row.ratings for row in clean] == [
        {"grammaticality": 3.5, "fluency": 4.0, "meaning": 4.0}]
    assert read_rows(_write(tmp_path, "bom.csv", BOM + _crlf(TMU_CSV)), TMU_COLUMNS) == clean


def test_tmu_gfm_rows_in_utf16_refused(tmp_path: Path):
    path = _write(tmp_path, "rows.csv", TMU_CSV.encode("utf-16"))
    with pytest.raises(InputError, match="UTF-16"):
        read_rows(path, TMU_COLUMNS)


def test_sv_gec_annotations_with_bom_and_crlf(tmp_path: Path):
    text = json.dumps({"data": [{"original": "a"}]}, indent=2) + "\n"
    assert _read_json(_write(tmp_path, "bom.json", BOM + _crlf(text))) == json.loads(text)


@pytest.mark.parametrize(("data", "words"), [
    (b'{\n"da\x00ta": []}\n', "NUL byte"),
    (b"", "is empty"),
])
def test_sv_gec_annotations_refused_with_where(tmp_path: Path, data: bytes, words: str):
    path = _write(tmp_path, "katarina.json", data)
    with pytest.raises(InputError) as err:
        _read_json(path)
    assert str(path) in str(err.value) and words in str(err.value)


def test_open_text_keeps_line_ends_for_the_parser(tmp_path: Path):
    path = _write(tmp_path, "a.csv", b'x,"1\r\n2"\r\n')
    with open_text(path, "test", "rows") as handle:
        assert handle.read() == 'x,"1\r\n2"\r\n'
    with pytest.raises(InputError, match="test file is empty"):
        open_text(_write(tmp_path, "e.csv", b""), "test", "rows")


def _copy(tree: str, to: Path) -> Path:
    """A copy of the evaluation data's ``tree`` under ``to`` (same relative path)."""
    data = require_shared_data()
    shutil.copytree(data / tree, to / tree)
    return to


def test_sakaguchi16_rankings_with_bom_and_crlf(tmp_path: Path):
    root = _copy("reassess-gec/trueskill_rankings/result", tmp_path)
    clean = sakaguchi16_scores(root, "sakaguchi16-expert")
    path = root / "reassess-gec/trueskill_rankings/result/AMU_0_mu_sigma.json"
    path.write_bytes(BOM + path.read_bytes().replace(b"\n", b"\r\n"))
    assert sakaguchi16_scores(root, "sakaguchi16-expert") == clean
    path.write_bytes(path.read_bytes().decode("utf-8-sig").encode("utf-16"))
    with pytest.raises(InputError, match=f"{path}.* is UTF-16"):
        sakaguchi16_scores(root, "sakaguchi16-expert")


def test_seeda_edit_judgments_with_bom_and_crlf(tmp_path: Path):
    root = _copy(str(EDIT_FOLDER), tmp_path)
    clean = read_edit_judgments(root)
    path = root / EDIT_FOLDER / "annotator1" / "0.txt"
    path.write_bytes(BOM + path.read_bytes().replace(b"\n", b"\r\n"))
    assert read_edit_judgments(root) == clean
    path.write_bytes(path.read_bytes().decode("utf-8-sig").encode("utf-16"))
    with pytest.raises(InputError, match=f"{path}.* is UTF-16"):
        read_edit_judgments(root)
