"""`gecmetrics meta-eval` end to end: the JSON contract, tables, sweeps, plots, errors."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from meta_data import shared_data

from gecmetrics.interface.cli import main

KEYS = {"benchmark", "human", "systems", "metric", "spec", "beta", "level", "n_systems",
        "pearson", "spearman", "kendall"}


def run(*args: str, data: bool = True):
    extra = ["--data-dir", str(shared_data())] if data else []
    return CliRunner().invoke(main, ["meta-eval", *args, *extra])


@pytest.mark.full
def test_json_contract():
    res = run("conll14", "seeda-e", "-m", "green", "-m", "green:tokenize=char,n=6",
              "--seeda-corpus", "all", "--format", "json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert len(rows) == 4
    for row in rows:
        assert KEYS <= set(row)
        assert row["beta"] == 2.0 and row["level"] == "corpus" and row["human"] == "ew"
    first = rows[0]
    assert (first["benchmark"], first["metric"], first["spec"]) == ("conll14", "wordGREEN",
                                                                    "green")
    assert first["systems"] == "all" and first["n_systems"] == 13
    assert round(first["pearson"], 3) == 0.741 and round(first["spearman"], 3) == 0.698
    seeda = rows[2]
    assert seeda["systems"] == "base" and seeda["n_systems"] == 12
    assert seeda["corpus"] == "all"


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_table_marks_best_and_prints_setting():
    res = run("conll14", "seeda-s", "-m", "green", "-m", "green:tokenize=char,n=6",
              "--level", "corpus", "--level", "mean")
    assert res.exit_code == 0, res.output
    out = res.output
    assert "conll14: human=ew, systems=all (13)" in out
    assert "seeda-s: human=ew, systems=base (12), corpus=subset (391 sentences" in out
    assert "conll14 r" in out and "seeda-s ρ" in out
    assert "0.835*" in out  # wordGREEN mean, best conll14 r (GREEN paper Table 2)
    assert "0.852*" in out  # charGREEN mean, best conll14 rho


def test_betas_ts_and_system_sets():
    res = run("seeda-s", "-m", "green", "-b", "1", "-b", "2", "--human", "ts",
              "--systems", "+INPUT", "--format", "json")
    rows = json.loads(res.stdout)
    assert [r["beta"] for r in rows] == [1.0, 2.0]
    assert all(r["human"] == "ts" and r["n_systems"] == 13 and r["systems"] == "+INPUT"
               for r in rows)


@pytest.mark.full
def test_sweep_and_plot(tmp_path):
    png = tmp_path / "sweep.png"
    res = run("conll14", "-m", "green", "--sweep-beta", "1.6:1.7:0.01", "--plot", str(png))
    assert res.exit_code == 0, res.output
    assert "β*(r)" in res.output and "1.67" in res.output and "0.790" in res.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = tmp_path / "sweep.svg"
    res = run("conll14", "-m", "green", "--sweep-beta", "1.6:1.7:0.05", "--plot", str(svg),
              "--format", "json")
    rows = json.loads(res.stdout)
    assert [r["beta"] for r in rows] == [1.6, 1.65, 1.7]
    assert b"<svg" in svg.read_bytes()[:500]


@pytest.mark.parametrize(("args", "message"), [
    (("conll14", "-m", "green", "--systems", "+fluency"), "no system set '+fluency'"),
    (("conll14", "-m", "nosuch"), "unknown metric"),
    (("conll14", "-m", "green", "-b", "1", "--sweep-beta", "0:1:0.5"), "not both"),
    (("conll14", "-m", "green", "--plot", "x.gif"), "--plot file must end"),
])
def test_errors_are_one_line(args, message):
    res = run(*args)
    assert res.exit_code == 2
    assert message in res.output and res.output.count("\n") == 1


def test_missing_data_names_data_dir(tmp_path):
    res = CliRunner().invoke(main, ["meta-eval", "seeda-s", "-m", "green",
                                    "--data-dir", str(tmp_path)])
    assert res.exit_code == 2
    assert "missing file" in res.output and "--data-dir" in res.output
    assert "gecmetrics download seeda" in res.output and res.output.count("\n") == 1
