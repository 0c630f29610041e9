"""Chunked counting, compact arrays, --jobs and streaming give today's numbers exactly.

The reference for every comparison is the one-chunk, one-process count (the
design before chunking, which the existing oracle and real-data tests pin);
chunked runs, process pools and the streamed CLI output must equal it bit
for bit, at corpus, mean and sentence level.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.interface.score_report import render_scores, write_sentence_stream
from gecmetrics.ngrams import compact_dtype, compute_intersections
from gecmetrics.parallel import chunk_bounds, execution
from gecmetrics.registry import metric_from_spec
from gecmetrics.scoring import ScoreOptions, score, stream_sentence_scores

SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))
SPECS = ["green", "green:tokenize=char,n=6", "gleu", "gleu:mode=max,variant=paper",
         "gleu:seed=7,iterations=50", "chrf", "chrf:word_order=2"]


def flatten(results):
    """Everything a result carries, details included, as plain data."""
    out = []
    for r in results:
        row = r.to_json()
        row["details"] = json.loads(json.dumps(dict(r.details), default=str))
        out.append(row)
    return out


def evaluate_all(corpus, level):
    out = []
    for spec in SPECS:
        metric = metric_from_spec(spec)
        betas = [0.5, 2.0] if metric.has_beta else None
        out += flatten(metric.evaluate(corpus, level, betas))
    return out


@pytest.fixture(scope="module")
def small_conll(conll):
    sources, refs, hyps = conll
    return Corpus(sources, refs, {name: hyps[name] for name in ("AMU", "CAMB", "INPUT")})


def fresh(corpus):
    return Corpus(corpus.sources, corpus.references, dict(corpus.hypotheses))


@pytest.mark.full
@pytest.mark.parametrize("level", ["corpus", "mean", "sentence"])
def test_chunked_and_pooled_equal_one_chunk(small_conll, level):
    with execution(jobs=1, chunk_size=0):
        whole = evaluate_all(fresh(small_conll), level)
    with execution(jobs=1, chunk_size=97):  # uneven: the last chunk is short
        assert evaluate_all(fresh(small_conll), level) == whole
    with execution(jobs=2, chunk_size=500):
        assert evaluate_all(fresh(small_conll), level) == whole


def test_chunked_intersections_equal_int64_python_kernel(small_conll):
    """The compact chunked arrays hold the values of the pure-Python kernel, one chunk."""
    c = small_conll
    with execution(jobs=1, chunk_size=0):
        ref = compute_intersections(c.sources[:200], [r[:200] for r in c.references],
                                    {k: v[:200] for k, v in c.hypotheses.items()}, "word", 4,
                                    backend="python")
    with execution(jobs=2, chunk_size=33):
        got = compute_intersections(c.sources[:200], [r[:200] for r in c.references],
                                    {k: v[:200] for k, v in c.hypotheses.items()}, "word", 4)
    for name in ("src_len", "ref_len", "hyp_len", "sr", "sc", "rc", "src", "sc_off_r"):
        a, b = getattr(ref, name), getattr(got, name)
        assert b.dtype == np.int16 and a.shape == b.shape and np.array_equal(a, b), name


def test_compact_dtype_widens_for_long_sentences():
    assert compact_dtype(8190) == np.int16  # 4 * 8190 < 32767
    assert compact_dtype(8192) == np.int32
    assert compact_dtype(2**29) == np.int64
    # A 9,000-token sentence: |S ∩ C| at order n is 9000 - n + 1 (all tokens equal).
    long = " ".join(["a"] * 9000)
    with execution(jobs=1, chunk_size=1):
        x = compute_intersections([long, "a"], [[long, "a"]], {"h": [long, "a"]}, "word", 2)
    assert x.sc.dtype == np.int32  # the int16 chunk of "a" joined to the int32 one
    assert x.sc[0].tolist() == [[9000, 8999], [1, 0]]
    assert x.src_len.tolist() == [[9000, 8999], [1, 0]]


def test_chunk_bounds():
    assert chunk_bounds(10, 0) == [(0, 10)]
    assert chunk_bounds(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert chunk_bounds(3, 4) == [(0, 3)]


def test_execution_checks_values():
    with pytest.raises(ConfigError, match="--jobs takes a number of processes from 1"):
        with execution(jobs=0):
            pass
    with pytest.raises(ConfigError, match="--chunk-size takes a number of sentences"):
        with execution(chunk_size=-1):
            pass


@pytest.fixture(scope="module")
def conll_files(conll, tmp_path_factory):
    """CoNLL-2014 as files, 3 systems, with a CRLF file and no final newline in one."""
    sources, refs, hyps = conll
    folder = tmp_path_factory.mktemp("conll")
    paths = {}
    for name, lines in {"src": sources, "ref0": refs[0], "ref1": refs[1],
                        "AMU": hyps["AMU"], "CAMB": hyps["CAMB"]}.items():
        paths[name] = folder / name
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    paths["CUUI"] = folder / "CUUI"
    paths["CUUI"].write_bytes("\r\n".join(hyps["CUUI"]).encode("utf-8"))
    return {k: str(v) for k, v in paths.items()}


def file_args(p):
    return dict(source=p["src"], references=[p["ref0"], p["ref1"]],
                hypotheses=[p["AMU"], p["CAMB"], p["CUUI"]])


def score_text(fmt, notes=None, warn=None, **options):
    """What ``gecmetrics score --format fmt`` prints for ``options`` (not streamed)."""
    text, lines = render_scores(score(ScoreOptions(**options), warn), fmt, 2)
    if notes is not None:
        notes.extend(lines)
    return text


def streamed(out, fmt, notes=None, warn=None, **options):
    """Write the streamed sentence scores of ``options`` to ``out``; False where the
    run cannot be streamed (nothing written)."""
    stream = stream_sentence_scores(ScoreOptions(**options), warn)
    if stream is None:
        return False
    lines = write_sentence_stream(out, stream, fmt, 2)
    if notes is not None:
        notes.extend(lines)
    return True


@pytest.mark.full
@pytest.mark.parametrize("level", ["corpus", "mean", "sentence"])
def test_files_read_by_chunks_equal_in_memory(conll_files, conll, level):
    """score() reads files by chunks; its results equal the in-memory corpus'."""
    sources, refs, hyps = conll
    corpus = Corpus(sources, refs, {conll_files[k]: hyps[k] for k in ("AMU", "CAMB", "CUUI")})
    with execution(jobs=1, chunk_size=0):
        expected = json.loads(_json_of(corpus, level))
    for jobs, size in ((1, 200), (2, 333)):
        with execution(jobs=jobs, chunk_size=size):
            got = json.loads(score_text("json", metrics=SPECS, betas=[0.5, 2.0], level=level,
                                        **file_args(conll_files)))
        assert [{k: v for k, v in o.items() if k != "signature"} for o in got] == expected


def _json_of(corpus, level):
    out = []
    for spec in SPECS:
        metric = metric_from_spec(spec)
        out += [r.to_json() for r in metric.evaluate(corpus, level, [0.5, 2.0])]
    return json.dumps(out)


@pytest.mark.full
@pytest.mark.parametrize("fmt", ["table", "tsv", "markdown", "latex", "json"])
def test_streamed_sentence_output_equals_the_rendered_results(conll_files, fmt):
    specs = ["green", "gleu", "chrf"]
    notes_a: list[str] = []
    with execution(jobs=1, chunk_size=0):
        text = score_text(fmt, notes_a, metrics=specs, level="sentence",
                          **file_args(conll_files))
    notes_b: list[str] = []
    out = io.StringIO()
    with execution(jobs=2, chunk_size=300):
        assert streamed(out, fmt, notes_b, metrics=specs, level="sentence",
                        **file_args(conll_files))
    assert out.getvalue() == text + "\n"
    assert notes_b == notes_a


def test_stream_declines_what_it_cannot_stream(conll_files):
    out = io.StringIO()
    args = file_args(conll_files)
    assert not streamed(out, "tsv", metrics=["m2"], level="sentence", **args)
    assert not streamed(out, "tsv", metrics=["green"], level="corpus", **args)
    assert out.getvalue() == ""


def test_streamed_bad_input_fails_before_work_with_read_lines_message(conll_files, tmp_path):
    bad = tmp_path / "bad"
    bad.write_bytes(b"ok\n" * 5 + b"caf\xe9\n")
    args = dict(file_args(conll_files), hypotheses=[str(bad)])
    with pytest.raises(InputError, match=r"is not valid UTF-8 \(byte 18, line 6\)"):
        score_text("json", metrics=["green"], **args)
    short = tmp_path / "short"
    short.write_text("a\nb\n")
    args = dict(file_args(conll_files), hypotheses=[str(short)])
    with pytest.raises(InputError, match=f"hypothesis file {short} has 2 lines but source "
                                         f"file .* has 1312; every file needs"):
        streamed(io.StringIO(), "tsv", metrics=["green"], level="sentence", **args)
    stray = tmp_path / "stray"
    stray.write_bytes(b"a\nb\rc\n")
    args = dict(file_args(conll_files), hypotheses=[str(stray)])
    with pytest.raises(InputError, match=r"carriage return \(\\r\) not followed by a newline "
                                         r"in line 2"):
        score_text("json", metrics=["green"], **args)


def test_streamed_shift_warning_names_the_absolute_line(conll_files, conll, tmp_path):
    sources, _, hyps = conll
    shifted = hyps["AMU"][:700] + hyps["AMU"][701:] + [""]  # line 701 dropped
    path = tmp_path / "shifted"
    path.write_text("\n".join(shifted) + "\n")
    args = dict(file_args(conll_files), hypotheses=[str(path)])
    warnings_seen: list[str] = []
    with execution(jobs=1, chunk_size=256):
        score_text("json", metrics=["green"], warn=warnings_seen.append, **args)
    with execution(jobs=1, chunk_size=0):
        whole: list[str] = []
        score_text("json", metrics=["green"], warn=whole.append, **args)
    assert len(warnings_seen) == 1 and warnings_seen == whole
    assert "from line 701" in warnings_seen[0]


@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_shift_checked_in_workers_warns_as_in_one_process(conll_files, conll, tmp_path):
    """The check runs where chunks are counted (--jobs workers, sentence
    streaming too); the parent warns once per file, in file order, with the
    absolute line, as the single-chunk run does."""
    _, _, hyps = conll
    path = tmp_path / "shifted"
    path.write_text("\n".join(hyps["AMU"][:900] + hyps["AMU"][901:] + [""]) + "\n")
    ref = tmp_path / "shifted_ref"
    ref_lines = Path(conll_files["ref1"]).read_text(encoding="utf8").split("\n")[:-1]
    ref.write_text("\n".join(["x"] + ref_lines[:-1]) + "\n")  # a line inserted at the top
    args = dict(file_args(conll_files), hypotheses=[conll_files["CAMB"], str(path)])
    args["references"] = [conll_files["ref0"], str(ref)]
    with execution(jobs=1, chunk_size=0):
        whole: list[str] = []
        want = score_text("json", metrics=["green"], warn=whole.append, **args)
    assert len(whole) == 2 and "from line 2:" in whole[0] and "from line 901" in whole[1]
    for jobs, chunk_size in ((2, 128), (2, 300), (1, 128)):
        with execution(jobs=jobs, chunk_size=chunk_size):
            seen: list[str] = []
            got = score_text("json", metrics=["green"], warn=seen.append, **args)
            assert seen == whole and got == want, (jobs, chunk_size)
            from_stream: list[str] = []
            out = io.StringIO()
            assert streamed(out, "tsv", warn=from_stream.append, metrics=["green"],
                            level="sentence", **args)
            assert from_stream == whole, (jobs, chunk_size)


@pytest.mark.full
def test_cli_jobs_and_chunk_size(conll_files):
    base = [SCRIPT, "score", "-m", "green", "-s", conll_files["src"], "-r", conll_files["ref0"],
            conll_files["ref1"], "-c", conll_files["AMU"], "--level", "sentence",
            "--format", "tsv"]
    one = subprocess.run(base + ["--jobs", "1", "--chunk-size", "0"], capture_output=True,
                         text=True)
    two = subprocess.run(base + ["-j", "2", "--chunk-size", "100"], capture_output=True,
                         text=True)
    assert one.returncode == 0 and two.returncode == 0, two.stderr
    assert one.stdout == two.stdout and len(one.stdout.splitlines()) == 1313
    for bad, message in ((["--jobs", "0"], "error: -j/--jobs takes a number of processes"),
                         (["--chunk-size", "-5"], "error: --chunk-size takes a number of")):
        out = subprocess.run(base + bad, capture_output=True, text=True)
        assert out.returncode == 2 and out.stdout == ""
        assert out.stderr.startswith(message) and len(out.stderr.splitlines()) == 1
