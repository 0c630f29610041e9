"""The `gecmetrics` command line: the score contract, formats and error messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import green_oracle as oracle
import pytest
from click.testing import CliRunner

from gecmetrics.interface.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"


# The installed console script, next to this interpreter (what users run). Running
# `python -c` from the repository root instead would import the source folder
# `gecmetrics/` rather than the installed package.
SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, env=env)


@pytest.fixture
def files(tmp_path):
    src = ["a b c d", "x y z "]
    ref0 = ["a b c e", "x y z "]
    ref1 = ["a c d", "x w z "]
    hyp = ["a b c e", "x y "]
    paths = {}
    for name, lines in {"src": src, "ref0": ref0, "ref1": ref1, "hyp": hyp}.items():
        paths[name] = tmp_path / name
        paths[name].write_text("\n".join(lines) + "\n")
    # The same hypothesis with CRLF endings and no final newline.
    paths["crlf"] = tmp_path / "crlf"
    paths["crlf"].write_bytes(b"a b c e\r\nx y ")
    return paths, src, [ref0, ref1], hyp


def test_score_json_contract(files):
    paths, src, refs, hyp = files
    args = ["score", "-m", "green", "-m", "green:tokenize=char,n=3", "-b", "1", "-b", "2",
            "-s", str(paths["src"]), "-r", str(paths["ref0"]), str(paths["ref1"]),
            "-c", str(paths["hyp"]), str(paths["crlf"]), "--format", "json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert len(data) == 2 * 2 * 2  # metrics x betas x hypotheses
    first = data[0]
    assert set(first) == {"metric", "spec", "hypothesis", "beta", "level", "score",
                          "precision", "recall", "signature"}
    assert first["metric"] == "wordGREEN" and first["spec"] == "green"
    assert first["hypothesis"] == str(paths["hyp"]) and first["level"] == "corpus"
    for obj in data:
        tokenize, n = ("word", 4) if obj["spec"] == "green" else ("char", 3)
        p, r, f = oracle.corpus_green(src, refs, hyp, n, tokenize, obj["beta"])
        assert obj["score"] == pytest.approx(f, abs=1e-12)
        assert obj["precision"] == pytest.approx(p, abs=1e-12)
    # CRLF file scores exactly like the LF one
    by_key = {(o["spec"], o["beta"], o["hypothesis"]): o["score"] for o in data}
    for (spec, beta, hyp_path), value in by_key.items():
        if hyp_path == str(paths["crlf"]):
            assert value == by_key[(spec, beta, str(paths["hyp"]))]


def test_sentence_level_json_and_table_percent(files):
    paths, src, refs, hyp = files
    base = ["score", "-m", "green:n=2", "-s", str(paths["src"]), "-r", str(paths["ref0"]),
            "-r", str(paths["ref1"]), "-c", str(paths["hyp"])]
    out = CliRunner().invoke(main, [*base, "--level", "sentence", "--format", "json"])
    obj = json.loads(out.output)[0]
    assert obj["level"] == "sentence" and "score" not in obj
    assert obj["scores"] == pytest.approx(oracle.sentence_green(src, refs, hyp, 2, "word", 2.0))
    table = CliRunner().invoke(main, [*base, "-d", "3"])
    f = oracle.corpus_green(src, refs, hyp, 2, "word", 2.0)[2]
    assert f"{f * 100:.3f}" in table.output


@pytest.mark.parametrize("fmt,marker", [("tsv", "\t"), ("markdown", "|"), ("latex", "\\toprule")])
def test_other_formats(files, fmt, marker):
    paths, *_ = files
    out = CliRunner().invoke(main, ["score", "-s", str(paths["src"]), "-r", str(paths["ref0"]),
                                    "-c", str(paths["hyp"]), "--format", fmt])
    assert out.exit_code == 0 and marker in out.output


def test_verbose_breakdown(files):
    paths, *_ = files
    out = CliRunner().invoke(main, ["score", "-v", "-s", str(paths["src"]), "-r",
                                    str(paths["ref0"]), "-c", str(paths["hyp"])])
    assert out.exit_code == 0
    for region in ("TD", "TI", "TK", "OD", "OI", "UD", "UI"):
        assert region in out.output


def write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("case,needle", [
    ("mismatch", "has 1 line but source file"),
    ("empty", "is empty"),
    ("missing", "not found"),
    ("latin1", "not valid UTF-8"),
    ("metric", "unknown metric 'nope'"),
    ("option", "unknown option 'm' for metric 'green'"),
    ("n", "n must be an integer >= 1"),
    ("beta", "beta must be a finite number >= 0"),
    ("beta-text", "beta must be a number"),
])
@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_errors_are_one_line_exit_2(tmp_path, case, needle):
    src = write(tmp_path / "src", b"a b\nc d\n")
    ref = write(tmp_path / "ref", b"a b\nc e\n")
    hyp = write(tmp_path / "hyp", b"a b\nc d\n")
    args = {"mismatch": ["-c", write(tmp_path / "short", b"a b\n")],
            "empty": ["-c", write(tmp_path / "e", b"")],
            "missing": ["-c", str(tmp_path / "nothing")],
            "latin1": ["-c", write(tmp_path / "l1", b"a b\nc d\xe9\n")],
            "metric": ["-m", "nope", "-c", hyp],
            "option": ["-m", "green:m=3", "-c", hyp],
            "n": ["-m", "green:n=0", "-c", hyp],
            "beta": ["-b", "-1", "-c", hyp],
            "beta-text": ["-b", "two", "-c", hyp]}[case]
    proc = run_cli("score", "-s", src, "-r", ref, *args)
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_usage_error_is_one_line():
    proc = run_cli("score", "--level", "paragraph", "-s", "x")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "--level" in proc.stderr and "--help" in proc.stderr


def test_list_and_help():
    out = CliRunner().invoke(main, ["list"])
    assert out.exit_code == 0
    assert {line.split()[0] for line in out.output.splitlines()} >= {"green", "gleu", "chrf"}
    help_text = CliRunner().invoke(main, ["score", "--help"]).output
    for flag in ("--metric", "--source", "--reference", "--hypothesis", "--beta", "--level",
                 "--format", "--digits", "--verbose"):
        assert flag in help_text


def test_help_does_not_import_heavy_libraries():
    code = ("import sys; from gecmetrics.interface.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('numpy', 'pandas', 'scipy', 'matplotlib', 'torch', "
            "'transformers', 'dask', 'distributed', 'pyarrow', 'pooch', 'requests', 'tqdm') "
            "if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True)
    assert proc.stdout.strip().endswith("[]"), proc.stdout


@pytest.mark.parametrize("preset, expected", [(None, "4"), ("20", "20")])
def test_blas_threads_told_not_to_spin_before_numpy_loads(tmp_path, preset, expected):
    """run() sets OpenBLAS's spin (read once, when numpy loads its library) before a
    command imports numpy, and keeps a value the user set; and the collector's young
    generation threshold."""
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("a cat sat\n")
    code = ("import os, sys, builtins\n"
            "seen = []\n"
            "real_import = builtins.__import__\n"
            "def spy(name, *args, **kwargs):\n"
            "    if name.split('.')[0] == 'numpy' and not seen:\n"
            "        seen.append(os.environ.get('OPENBLAS_THREAD_TIMEOUT'))\n"
            "    return real_import(name, *args, **kwargs)\n"
            "builtins.__import__ = spy\n"
            "from gecmetrics.interface.console import main\n"
            f"sys.argv = ['gecmetrics', 'score', '-m', 'bleu', '-s', {str(hyp)!r}, "
            f"'-r', {str(hyp)!r}, '-c', {str(hyp)!r}]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "import gc\n"
            "print('numpy saw', seen, 'gc', gc.get_threshold()[0], file=sys.stderr)\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if preset is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = preset
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    from gecmetrics.interface.cli import GC_YOUNG_THRESHOLD

    assert f"numpy saw [{expected!r}] gc {GC_YOUNG_THRESHOLD}" in proc.stderr, proc.stderr


@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_m2_to_text(tmp_path, shared_data):
    from conftest import CONLL_M2

    out = tmp_path / "ref1.txt"
    runner = CliRunner()
    assert runner.invoke(main, ["m2-to-text", str(CONLL_M2), "--annotator", "1",
                                "-o", str(out)]).exit_code == 0
    lines = out.read_text().split("\n")[:-1]
    assert len(lines) == 1312
    src = runner.invoke(main, ["m2-to-text", str(CONLL_M2), "--source"]).output.split("\n")
    assert src[0] == "Keeping the Secret of Genetic Testing"
    bad = runner.invoke(main, ["m2-to-text", str(CONLL_M2), "--annotator", "2"])
    assert bad.exit_code == 2 and "out of range" in bad.output


PLUGIN = '''
from dataclasses import dataclass
import numpy as np
from gecmetrics.metric import Metric, MetricConfig, Score, Statistics

@dataclass(frozen=True)
class Config(MetricConfig):
    lowercase: bool = False

class ExactStats(Statistics):
    def __init__(self, systems, hits):
        self.systems, self.hits = systems, hits
    def corpus(self, beta, sentences=None):
        hits = self.hits if sentences is None else self.hits[:, sentences]
        return [Score(float(row.mean())) for row in hits]
    def sentence(self, beta):
        return self.hits.astype(float)

class ExactMatch(Metric):
    name = "exact"
    description = "share of hypotheses equal to some reference (test plug-in)"
    Config = Config
    def statistics(self, corpus):
        norm = (lambda s: s.lower()) if self.config.lowercase else (lambda s: s)
        hits = np.array([[any(norm(h) == norm(r[i]) for r in corpus.references)
                          for i, h in enumerate(hyp)] for hyp in corpus.hypotheses.values()])
        return ExactStats(tuple(corpus.hypotheses), hits)
'''


@pytest.mark.full
def test_entry_point_plugin(tmp_path, files):
    """A third-party metric registered in the entry-point group is found and scored."""
    site = tmp_path / "site"
    (site / "gecm_dummy_plugin").mkdir(parents=True)
    (site / "gecm_dummy_plugin" / "__init__.py").write_text(textwrap.dedent(PLUGIN))
    info = site / "gecm_dummy_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gecm-dummy-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[gecmetrics.metrics]\nexact = gecm_dummy_plugin:ExactMatch\n")
    env = dict(os.environ, PYTHONPATH=str(site))
    listed = run_cli("list", env=env)
    assert "exact" in listed.stdout and "test plug-in" in listed.stdout
    paths, *_ = files
    proc = run_cli("score", "-m", "exact", "-s", str(paths["src"]), "-r", str(paths["ref0"]),
                   "-c", str(paths["hyp"]), "--format", "json", env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)[0]["score"] == 0.5  # sentence 1 matches ref0, 2 does not


@pytest.mark.parametrize("args", [
    ["-b", "0.5", "-b0.25", "-b=1", "--beta=2", "--beta", "3", "-s", "-b", "-c", "x", "y"],
    ["-m", "green", "--metric=gleu", "-mchrf", "-r", "a", "-r", "b", "--m2", "g.m2", "-"],
    ["-b", "1", "-q"], ["--bet", "1"], ["--beta"], ["-b"], ["-bq", "--", "-b", "1"],
    ["--format=json", "--digits", "3", "-d3", "--level", "sentence", "extra"],
])
def test_score_parses_short_options_as_clicks_own_parser_does(args):
    """The score command matches short options without trying them as long ones
    first (GreedyCommand.make_parser): the same values, order and errors as click."""
    import click

    from gecmetrics.interface.commands.score import score

    def parsed(make_parser):
        ctx = click.Context(score, info_name="score")
        try:
            opts, largs, order = make_parser(ctx).parse_args(list(args))
        except click.UsageError as err:
            return type(err).__name__, err.format_message()
        return opts, largs, [p.name for p in order]

    assert parsed(score.make_parser) == parsed(lambda ctx: click.Command.make_parser(score, ctx))
