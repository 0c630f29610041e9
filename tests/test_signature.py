"""Score signatures: in every JSON object of `gecmetrics score`, under every table,
and different whenever something that changes the numbers changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gecmetrics import __version__
from gecmetrics.interface.cli import main
from gecmetrics.registry import metric_from_spec
from gecmetrics.signature import Signature, metric_signature, score_signature

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
SRC = str(EXAMPLE / "source.txt")
REFS = [str(EXAMPLE / "ref0.txt"), str(EXAMPLE / "ref1.txt")]
HYPS = [str(EXAMPLE / "system_a.txt"), str(EXAMPLE / "system_b.txt")]


def score(*args: str) -> CliRunner:
    result = CliRunner().invoke(main, ["score", *args])
    assert result.exit_code == 0, result.output
    return result


def rows(*args: str) -> list[dict]:
    return json.loads(score(*args, "--format", "json").output)


def test_signature_spelled_out_by_hand():
    (row, _) = rows("-m", "green", "-s", SRC, "-r", *REFS, "-c", *HYPS)
    assert row["signature"] == ("green|tokenize:word|n:4|beta:2.0|refs:2|refs_from:text|"
                                f"level:corpus|version:{__version__}")


@pytest.mark.parametrize("level", ["corpus", "sentence", "mean"])
@pytest.mark.parametrize("spec", ["green", "gleu", "chrf:word_order=2", "green:tokenize=char"])
@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_every_json_object_has_a_signature(spec, level):
    betas = ("-b", "1", "-b", "3") if metric_from_spec(spec).has_beta else ()  # -b on gleu: error
    out = rows("-m", spec, *betas, "-s", SRC, "-r", *REFS, "-c", *HYPS, "--level", level)
    assert out
    for row in out:
        sig = row["signature"]
        assert isinstance(sig, str) and sig.startswith(metric_from_spec(spec).name + "|")
        assert f"|level:{level}|" in sig and sig.endswith(f"|version:{__version__}")
        if row["beta"] is not None:
            assert f"|beta:{row['beta']}|" in sig


def test_references_from_m2_are_named(tmp_path):
    m2 = tmp_path / "gold.m2"
    m2.write_text("S a b c\nA 1 2|||R|||x|||REQUIRED|||-NONE-|||0\nA -1 -1|||noop|||-NONE-|||"
                  "REQUIRED|||-NONE-|||1\n\nS d e\nA 0 1|||R|||f|||REQUIRED|||-NONE-|||0\n\n",
                  encoding="utf-8")
    (tmp_path / "s.txt").write_text("a b c\nd e\n", encoding="utf-8")
    (tmp_path / "h.txt").write_text("a x c\nd e\n", encoding="utf-8")
    out = rows("-m", "m2", "-m", "green", "-s", str(tmp_path / "s.txt"), "--m2", str(m2),
               "-c", str(tmp_path / "h.txt"))
    assert [row["signature"] for row in out] == [
        "m2|beta:0.5|max_unchanged_words:2|ignore_whitespace_casing:False|"
        f"max_lattice_edges:30000000|refs:2|refs_from:m2-lenient|level:corpus|version:{__version__}",
        "green|tokenize:word|n:4|beta:2.0|refs:2|refs_from:m2-lenient|level:corpus|"
        f"version:{__version__}"]


@pytest.mark.parametrize("args", [
    ("-m", "green:n=3"),                   # an option
    ("-m", "green:tokenize=char"),         # tokenisation
    ("-b", "1.5"),                         # the beta used
    ("--level", "mean"),                   # the level
    ("-r", REFS[0]),                       # the number of references
])
def test_signature_changes_with_what_changes_the_numbers(args):
    base = {"-m": "green", "-r": REFS, "-b": None, "--level": "corpus"}
    changed = dict(base)
    changed[args[0]] = [args[1]] if args[0] == "-r" else args[1]

    def run(opts):
        argv = ["-m", opts["-m"], "-s", SRC, "-r", *opts["-r"], "-c", HYPS[0],
                "--level", opts["--level"]]
        if opts["-b"]:
            argv += ["-b", opts["-b"]]
        return rows(*argv)[0]["signature"]

    assert run(changed) != run(base)


def test_table_prints_each_distinct_signature_once():
    out = score("-m", "green", "-m", "green:tokenize=char,n=6", "-b", "1", "-b", "2",
                "-s", SRC, "-r", *REFS, "-c", *HYPS).output
    table, _, tail = out.partition("\nsignature: ")
    lines = ("signature: " + tail).strip().splitlines()
    expected = [str(score_signature(metric_from_spec(spec), 2, "text", "corpus", beta))
                for spec in ("green", "green:tokenize=char,n=6") for beta in (1.0, 2.0)]
    assert lines == [f"signature: {sig}" for sig in expected]
    assert len(set(lines)) == 4 and "data/example/system_b.txt" in table


def test_signature_lines_in_markdown_latex_and_tsv():
    args = ("-m", "chrf", "-s", SRC, "-r", *REFS, "-c", HYPS[0])
    sig = str(score_signature(metric_from_spec("chrf"), 2, "text", "corpus", 2.0))
    assert score(*args, "--format", "markdown").output.rstrip().endswith(f"`signature: {sig}`")
    assert score(*args, "--format", "latex").output.rstrip().endswith(f"% signature: {sig}")
    tsv = CliRunner().invoke(main, ["score", *args, "--format", "tsv"])
    assert "signature" not in tsv.stdout  # TSV stays a bare table for programs
    assert tsv.stderr.strip() == f"signature: {sig}"


def test_signature_dataclass():
    sig = Signature("x").extend(a=1, b="p|q").extend(a=2, c=None)
    assert sig.fields == (("a", "2"), ("b", "p/q"), ("c", "None"))
    assert sig["a"] == "2"
    assert str(sig) == f"x|a:2|b:p/q|c:None|version:{__version__}"
    green = metric_from_spec("green:n=3")
    assert green.signature() == str(metric_signature(green)) == (
        f"green|tokenize:word|n:3|beta:2.0|version:{__version__}")
    with pytest.raises(ValueError, match="refs_from"):
        score_signature(green, 1, "files", "corpus")


def test_each_json_row_has_the_signature_of_its_metric_and_beta():
    """Signatures are made once per (metric, level, beta) and shared by the rows of
    every system: each row still gets its own metric's and beta's."""
    got = rows("-m", "green", "-m", "chrf", "-b", "0.5", "-b", "1", "-b", "3", "-s", SRC,
               "-r", *REFS, "-c", *HYPS)
    assert len(got) == 2 * 3 * len(HYPS)
    for row in got:
        expected = score_signature(metric_from_spec(row["spec"]), 2, "text", "corpus",
                                   row["beta"])
        assert row["signature"] == str(expected)


def _keys(signature: str) -> list[str]:
    return [field.split(":", 1)[0] for field in signature.split("|")[1:]]


def test_fields_of_another_layer_never_repeat_nor_replace_a_key():
    sig = Signature("gleu").extend(seed="official", n=4)
    both = sig.extend_apart("meta", resamples=1000, seed=12345)
    assert str(both) == ("gleu|seed:official|n:4|resamples:1000|meta_seed:12345|"
                         f"version:{__version__}")
    assert str(Signature("green").extend_apart("meta", seed=1)) == \
        f"green|seed:1|version:{__version__}"  # no clash: the plain name


@pytest.mark.extra("errant")  # the attributed edits are ERRANT's (attribute's default)
@pytest.mark.parametrize("spec", ["gleu", "errant:edits=neutral"])
def test_attribution_signature_has_each_key_once(spec):
    """GLEU's seed and the attribution's seed, ERRANT's edits and the attributed edits:
    the attribution signature wrote both under one key (seed:official|...|seed:12345)."""
    out = CliRunner().invoke(main, ["attribute", "-m", spec, "-s", SRC, "-r", *REFS,
                                    "-c", HYPS[0], "--format", "json"])
    assert out.exit_code == 0, out.output
    sigs = {json.loads(line.rstrip(","))["signature"] for line in out.stdout.splitlines()[1:-1]}
    assert len(sigs) == 1
    sig = sigs.pop()
    keys = _keys(sig)
    assert len(keys) == len(set(keys)), sig
    assert sig.endswith(f"|version:{__version__}")
    metric = metric_signature(metric_from_spec(spec))
    assert sig.startswith(str(metric).rsplit("|version:", 1)[0] + "|attribution:shapley|")
    assert "|attribution_seed:12345|" in sig or "|attribution_edits:" in sig


@pytest.mark.parametrize("spec", ["green", "m2", "gleu", "bleu"])
def test_a_score_signature_from_the_metrics_own_part_is_the_same(spec):
    """score() signs a sweep's results from the metric's signature made once (``base``):
    the same line as a signature made from scratch, for every beta and level."""
    metric = metric_from_spec(spec)
    base = metric_signature(metric)
    for beta in (None, 0.5, 2.0):
        for level in ("corpus", "sentence"):
            assert score_signature(metric, 2, "text", level, beta, base=base) == \
                   score_signature(metric, 2, "text", level, beta)
    assert str(score_signature(metric, 2, "text", "corpus", base=Signature("given"))) == \
        f"given|refs:2|refs_from:text|level:corpus|version:{__version__}"  # base is used
