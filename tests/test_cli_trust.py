"""Every bad option value: one line `error: ...` on stderr, exit code 2, before any work.

Each case runs the installed console script (what users run) in a subprocess.
Meta-eval cases point --data-dir at a folder that does not exist: a validation
that happened after reading the data would report the missing data instead.
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gecmetrics.errors import ConfigError
from gecmetrics.formatting import fixed, percent, to_json
from gecmetrics.registry import parse_spec
from gecmetrics.validate import MAX_BETA, check_beta, parse_beta_grid

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))
SCORE = ["score", "-s", str(EXAMPLE / "source.txt"), "-r", str(EXAMPLE / "ref0.txt"),
         str(EXAMPLE / "ref1.txt"), "-c", str(EXAMPLE / "system_a.txt")]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def assert_one_error(proc: subprocess.CompletedProcess, *words: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def meta(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return run("meta-eval", *args, "--data-dir", str(tmp_path / "no-data"), cwd=tmp_path)


# -- score --------------------------------------------------------------------------

@pytest.mark.full
@pytest.mark.parametrize("args, words", [
    (["-b", "1e155"], ["at most 1e+100"]),
    (["-b", "1e300", "--format", "json"], ["at most 1e+100"]),
    (["-m", "m2", "-b", "1e155"], ["at most 1e+100"]),
    (["-m", "chrf:beta=1e200"], ["at most 1e+100"]),
    (["-b", "nan"], ["finite"]),
    (["-b", "inf"], ["finite"]),
    (["-m", "green:n=2,n=3"], ["'n'", "twice"]),
    (["-m", "gleu", "-b", "2"], ["-b/--beta", "gleu"]),
    (["-d", "3", "--format", "json"], ["-d/--digits"]),
    (["-v", "--level", "mean"], ["-v/--verbose"]),
    (["-v", "--format", "json"], ["-v/--verbose"]),
    (["-d", "-1"], ["--digits"]),
    (["-d", "100"], ["--digits"]),
    (["-m", ""], ["empty metric name"]),
    (["-m", "green:n="], ["must be int"]),
])
def test_score_rejects(args, words):
    assert_one_error(run(*SCORE, *args), *words)


def test_score_largest_beta_is_recall():
    """At the largest legal beta, F is recall (the limit of F_beta), never NaN."""
    proc = run(*SCORE, "-m", "green", "-m", "chrf", "-b", "1e100", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    for row in json.loads(proc.stdout):
        assert math.isclose(row["score"], row["recall"], rel_tol=1e-12), row


def test_beta_note_when_some_metrics_have_no_beta():
    proc = run(*SCORE, "-m", "gleu", "-m", "green", "-b", "1", "--format", "json")
    assert proc.returncode == 0
    assert proc.stderr.strip() == ("note: -b/--beta applies to green only, not to gleu")
    rows = json.loads(proc.stdout)
    assert {r["beta"] for r in rows} == {None, 1.0}


def test_beta_range_api():
    assert check_beta("0") == 0.0 and check_beta(MAX_BETA) == MAX_BETA
    for bad in ("1e101", "-0.1", "nan", "inf", "x", None):
        with pytest.raises(ConfigError):
            check_beta(bad)


def test_repeated_spec_key():
    assert parse_spec("green:n=2,tokenize=char") == ("green", {"n": "2", "tokenize": "char"})
    with pytest.raises(ConfigError, match="'n' is given twice"):
        parse_spec("green:n=2, n=2")


# -- grids -------------------------------------------------------------------------

def test_grid_limits():
    assert len(parse_beta_grid("0:5:0.00005")) == 100_001  # the documented maximum
    assert parse_beta_grid("2:2:1").tolist() == [2.0]
    for bad in ("nan:5:1", "0:inf:1", "0:1e308:1e307", "0:5:0.00001", "0:1:-1", "1:0:1",
                "-1:1:1", "0:1:0", "", "1:2"):
        with pytest.raises(ConfigError, match="--cv-grid"):
            parse_beta_grid(bad, "--cv-grid")


# -- meta-eval: everything before the data is read ------------------------------------

@pytest.mark.full
@pytest.mark.parametrize("args, words", [
    (["-b", "1e155"], ["at most"]),
    (["--sweep-beta", "nan:5:1"], ["--sweep-beta", "finite"]),
    (["--sweep-beta", "0:inf:1"], ["--sweep-beta", "finite"]),
    (["--sweep-beta", "0:1e308:1e307"], ["--sweep-beta", "at most"]),
    (["--sweep-beta", "0:5:0.00001"], ["--sweep-beta", "100001"]),
    (["--sweep-beta", "-1:5:1"], ["--sweep-beta", "0 <= START"]),
    (["--sweep-beta", ""], ["--sweep-beta"]),
    (["--cv-beta", "--cv-grid", "nan:1:1"], ["--cv-grid", "finite"]),
    (["--cv-beta", "--cv-grid", "0:1e308:1e307"], ["--cv-grid"]),
    (["--cv-beta", "0"], ["--cv-beta", "from 2 to 100"]),
    (["--cv-beta", "1"], ["--cv-beta", "from 2 to 100"]),
    (["--cv-beta", "100000"], ["--cv-beta", "from 2 to 100"]),
    (["--cv-beta", "-3"], ["--cv-beta", "from 2 to 100"]),
    (["--bootstrap", "-5"], ["--bootstrap takes a number of resamples", "100"]),
    (["--bootstrap=-5"], ["--bootstrap takes a number of resamples"]),
    (["--bootstrap", "1"], ["--bootstrap", "at least 100"]),
    (["--bootstrap", "10000000"], ["--bootstrap", "1000000"]),
    (["--bootstrap", "--seed", "-1"], ["--seed", "4294967295"]),
    (["--bootstrap", "--seed", str(2**32)], ["--seed", "4294967295"]),
    (["--seed", "5"], ["--seed needs --bootstrap"]),
    (["--window", "0"], ["--window must be between 2"]),
    (["--window", "1"], ["--window must be between 2"]),
    (["--window", "-2"], ["--window must be between 2"]),
    (["--window-plot", "w.png"], ["--window-plot needs --window"]),
    (["--cv-grid", "0:1:0.1"], ["--cv-grid needs --cv-beta"]),
    (["--ties", "neutral"], ["--ties needs --sentence-level"]),
    (["--split", "dev"], ["--split", "GMEG"]),
    (["--seeda-corpus", "all"], ["--seeda-corpus", "seeda-s"]),
    (["--human", "rating"], ["conll14 has no human scores 'rating'"]),
    (["--sentence-level", "--level", "mean"], ["--level", "--sentence-level"]),
    (["--plot", "missing/sweep.png"], ["--plot", "does not exist"]),
    (["--plot", "/proc/sweep.png"], ["--plot", "cannot write"]),
    (["--plot", "sweep.txt"], ["--plot", ".png"]),
    (["--plot", ""], ["--plot"]),
    (["--window", "--window-plot", "missing/w.png"], ["--window-plot", "does not exist"]),
    (["--window", "--window-plot", "w.jpg"], ["--window-plot", ".png"]),
    (["-m", "gleu", "--sweep-beta"], ["--sweep-beta/--plot", "gleu"]),
    (["-m", "green:n=2,n=3"], ["twice"]),
])
def test_meta_eval_rejects_before_reading(tmp_path, args, words):
    spec = [] if "-m" in args else ["-m", "green"]
    proc = meta(tmp_path, "conll14", *spec, *args)
    line = assert_one_error(proc, *words)
    assert "missing file" not in line  # the check came before the data
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing left behind


def test_split_note_when_some_benchmarks_ignore_it(tmp_path):
    proc = meta(tmp_path, "conll14", "gmeg-fce", "-m", "green", "--split", "dev")
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and len(lines) == 2
    assert lines[0] == "note: --split applies to gmeg-fce only, not to conll14"
    assert "missing file" in lines[1]  # then it went on to read the data


def test_window_larger_than_the_systems(shared_data, tmp_path):
    proc = run("meta-eval", "seeda-s", "-m", "green", "--window", "1000", "--data-dir",
               str(shared_data))
    assert_one_error(proc, "--window must be between 2", "(12 in seeda-s); got 1000")


def test_plot_failure_after_the_work_still_prints_results(shared_data, tmp_path,
                                                          monkeypatch, capsys):
    """If saving fails although the checks passed, the results come first."""
    from gecmetrics.errors import PartialOutputError
    from gecmetrics.meta_eval import figures
    from gecmetrics.meta_eval.api import run
    from gecmetrics.meta_eval.options import MetaEvalOptions
    from gecmetrics.meta_eval.render import render_evaluation

    def full_disk(sweeps, path, title=None):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(figures, "plot_sweeps", full_disk)
    with pytest.raises(PartialOutputError) as info:
        result = run(MetaEvalOptions(("seeda-s",), ("green",), grid="1:2:0.5",
                                     plot=str(tmp_path / "s.png"), data_dir=str(shared_data)))
        figures.save_figures(result, *render_evaluation(result, "json"))
    assert "No space left" in str(info.value)
    rows = json.loads(info.value.output)
    assert [r["beta"] for r in rows] == [1.0, 1.5, 2.0]
    assert list(tmp_path.iterdir()) == []


# -- m2-to-text ----------------------------------------------------------------------

@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_m2_to_text_output_folder_missing(shared_data, tmp_path):
    m2 = shared_data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"
    for args, words in ((["--source", "-o", str(tmp_path / "no" / "x.txt")], ["does not exist"]),
                        (["--source", "-o", str(tmp_path)], ["is a directory"]),
                        (["--source", "--strict"], ["--strict"]),
                        (["--annotator", "-1"], ["--annotator", ">= 0"])):
        assert_one_error(run("m2-to-text", str(m2), *args), *words)
    assert list(tmp_path.iterdir()) == []


# -- JSON and tables -----------------------------------------------------------------

def test_json_never_holds_nan():
    notes: list[str] = []
    text = to_json([{"a": float("nan"), "b": [1.0, float("inf")], "c": {"d": -math.inf}},
                    {"a": 0.5}], notes)
    assert json.loads(text) == [{"a": None, "b": [1.0, None], "c": {"d": None}}, {"a": 0.5}]
    assert "NaN" not in text and "Infinity" not in text
    assert notes == ["note: 3 undefined value(s) (NaN or infinite) written as null in the JSON"]
    assert to_json([{"a": 1.5}], notes) == '[\n{"a": 1.5}\n]' and len(notes) == 1


def test_tables_show_nan_as_dash():
    assert percent(float("nan")) == "-" and fixed(float("nan")) == "-"
    assert percent(0.58325) == "58.33" and fixed(-0.5, 1) == "-0.5"


# -- signals -------------------------------------------------------------------------

@pytest.mark.full
@pytest.mark.parametrize("sig, code, word", [(signal.SIGINT, 130, "interrupted"),
                                             (signal.SIGTERM, 143, "terminated")])
def test_signal_exit_codes(shared_data, sig, code, word):
    """A long run (a bootstrap of 1,000,000 resamples) stopped by a signal."""
    proc = subprocess.Popen([SCRIPT, "meta-eval", "seeda-s", "-m", "green", "--bootstrap",
                             "1000000", "--data-dir", str(shared_data)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Wait until run() has installed its SIGTERM handler (bit 15 of SigCgt, Linux), so
    # the signal lands in the work and not in the interpreter's start-up, then a bit more.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = Path(f"/proc/{proc.pid}/status").read_text()
        caught = int(next(line for line in status.splitlines()
                          if line.startswith("SigCgt:")).split()[1], 16)
        if caught >> (signal.SIGTERM - 1) & 1:
            break
        time.sleep(0.05)
    time.sleep(2)
    assert proc.poll() is None  # still working: a million resamples take minutes
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert "Traceback" not in err and word in err
    assert err.strip().splitlines() == [f"error: {word} " + ("(Ctrl-C)" if code == 130
                                                             else "(SIGTERM)")]
    assert out == ""


def test_a_signal_inside_an_extension_import_is_still_the_signal(monkeypatch, capsys):
    """Ctrl-C while a C extension initialises arrives as ImportError chained to the
    KeyboardInterrupt (seen with scipy under load): exit 130, one line, no traceback."""
    from gecmetrics.interface import cli

    def interrupted_import(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as err:
            raise ImportError("initialization failed") from err

    monkeypatch.setattr(cli.main, "main", interrupted_import)
    # run() and its exit path set signal handlers: keep them out of the pytest process
    # (an ignored SIGINT would be inherited by the subprocesses of later tests).
    monkeypatch.setattr(signal, "signal", lambda *args: None)
    with pytest.raises(SystemExit) as exit_info:
        cli.run()
    assert exit_info.value.code == 130
    assert capsys.readouterr().err.strip().splitlines() == ["error: interrupted (Ctrl-C)"]


def test_an_unrelated_exception_is_not_taken_for_a_signal(monkeypatch):
    from gecmetrics.interface import cli

    def broken(*args, **kwargs):
        raise ImportError("a real bug")

    monkeypatch.setattr(cli.main, "main", broken)
    monkeypatch.setattr(signal, "signal", lambda *args: None)
    with pytest.raises(ImportError, match="a real bug"):
        cli.run()
