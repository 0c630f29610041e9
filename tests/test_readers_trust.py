"""Input trust: lone-CR line ends, standard input, and the shifted-output warning."""

from __future__ import annotations

import json
import math
import random
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from gecmetrics.alignment import Shift, find_shift, token_sets
from gecmetrics.errors import InputError
from gecmetrics.interface.cli import main
from gecmetrics.readers import read_lines
from gecmetrics.scoring import MisalignmentWarning, load_corpus

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
SRC, REF0, HYP_A, HYP_B = (str(EXAMPLE / f) for f in
                           ("source.txt", "ref0.txt", "system_a.txt", "system_b.txt"))
M2_TEXT = ("S He go home .\nA 1 2|||Vt|||goes|||REQUIRED|||-NONE-|||0\n\n"
           "S Fine .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n")


def invoke(*args: str, stdin: bytes | str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


# ---------------------------------------------------------------------------
# Lone CR line ends


def test_cr_line_ends_are_named_with_the_fix(tmp_path):
    path = tmp_path / "mac.txt"
    path.write_bytes(b"one\rtwo\rthree\r")
    with pytest.raises(InputError) as info:
        read_lines(path, "hypothesis")
    message = str(info.value)
    assert message.startswith(f"hypothesis file {path} has carriage-return (\\r) line ends")
    assert f"tr '\\r' '\\n' < {path}" in message and "dos2unix -c mac" in message


def test_stray_cr_names_its_line(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"one\r\ntwo\rthree\nfour\n")
    with pytest.raises(InputError, match=r"carriage return \(\\r\) not followed by a newline "
                                         r"in line 2"):
        read_lines(path, "reference")


def test_crlf_and_final_cr_are_fine(tmp_path):
    path = tmp_path / "ok.txt"
    path.write_bytes(b"one\r\ntwo\r")  # the last CR ends the last line
    assert read_lines(path) == ["one", "two"]


def test_score_with_a_cr_file_exits_2(tmp_path):
    hyp = tmp_path / "mac_hyp.txt"
    hyp.write_bytes("\r".join(read_lines(HYP_A)).encode() + b"\r")
    result = invoke("score", "-s", SRC, "-r", REF0, "-c", str(hyp))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: hypothesis file {hyp} has carriage-return")
    assert result.stderr.count("\n") == 1 and "lines but" not in result.stderr


def test_m2_with_cr_line_ends_exits_2(tmp_path):
    path = tmp_path / "gold.m2"
    path.write_bytes(M2_TEXT.replace("\n", "\r").encode())
    for args in (["m2-to-text", str(path), "--source"],
                 ["score", "-m", "m2", "-s", SRC, "--m2", str(path), "-c", HYP_A]):
        result = invoke(*args)
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.startswith(f"error: M2 file {path} has carriage-return (\\r) line")
        assert "dos2unix -c mac" in result.stderr and result.stderr.count("\n") == 1


# ---------------------------------------------------------------------------
# `-` reads standard input


def score_json(*args: str, stdin: bytes | None = None) -> list[dict]:
    result = invoke("score", "-m", "green", "--format", "json", *args, stdin=stdin)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def without_names(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "hypothesis"} for row in rows]


def test_source_from_stdin():
    from_file = score_json("-s", SRC, "-r", REF0, "-c", HYP_A)
    from_stdin = score_json("-s", "-", "-r", REF0, "-c", HYP_A,
                            stdin=Path(SRC).read_bytes())
    assert from_stdin == from_file


def test_one_hypothesis_from_stdin_among_files():
    from_file = score_json("-s", SRC, "-r", REF0, "-c", HYP_A, HYP_B)
    from_stdin = score_json("-s", SRC, "-r", REF0, "-c", HYP_A, "-", stdin=Path(HYP_B).read_bytes())
    assert [r["hypothesis"] for r in from_stdin] == [HYP_A, "-"]
    assert without_names(from_stdin) == without_names(from_file)
    assert from_stdin[1]["score"] != from_stdin[0]["score"]  # the stdin text really was B


def test_reference_from_stdin():
    assert score_json("-s", SRC, "-r", "-", "-c", HYP_A, stdin=Path(REF0).read_bytes()) == \
        score_json("-s", SRC, "-r", REF0, "-c", HYP_A)


def test_m2_to_text_from_stdin(tmp_path):
    path = tmp_path / "gold.m2"
    path.write_text(M2_TEXT)
    from_stdin = invoke("m2-to-text", "-", "--annotator", "0", stdin=M2_TEXT)
    assert from_stdin.exit_code == 0
    assert from_stdin.stdout == "He goes home .\nFine .\n"
    assert from_stdin.stdout == invoke("m2-to-text", str(path), "--annotator", "0").stdout


def test_m2_to_text_dash_output_is_stdout(tmp_path, monkeypatch):
    """``-o -`` writes to standard output, not to a file named ``-``."""
    path = tmp_path / "gold.m2"
    path.write_text(M2_TEXT)
    monkeypatch.chdir(tmp_path)
    result = invoke("m2-to-text", str(path), "--annotator", "0", "-o", "-")
    assert result.exit_code == 0
    assert result.stdout == "He goes home .\nFine .\n"
    assert not (tmp_path / "-").exists()


def test_m2_from_stdin_scores_like_the_file(tmp_path):
    path = tmp_path / "gold.m2"
    path.write_text(M2_TEXT)
    src, hyp = tmp_path / "src", tmp_path / "hyp"
    src.write_text("He go home .\nFine .\n")
    hyp.write_text("He goes home .\nFine .\n")
    args = ["-m", "m2", "-s", str(src), "-c", str(hyp)]
    rows = score_json(*args, "--m2", "-", stdin=M2_TEXT.encode())
    assert rows == score_json(*args, "--m2", str(path))
    assert rows[0]["score"] == 1.0  # the one gold edit, made


@pytest.mark.parametrize("args", [
    ["score", "-s", "-", "-r", REF0, "-c", "-"],
    ["score", "-s", SRC, "-r", "-", "-c", HYP_A, "-"],
    ["score", "-s", SRC, "-r", REF0, "-c", "-", "-"],
    ["score", "-m", "m2", "-s", SRC, "--m2", "-", "-c", "-"],
])
def test_at_most_one_stdin(args):
    result = invoke(*args, stdin=b"x\n")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: standard input (-) is given 2 times (")
    assert "at most one input as -" in result.stderr and result.stderr.count("\n") == 1


def test_empty_stdin_is_named():
    result = invoke("score", "-s", SRC, "-r", REF0, "-c", "-", stdin=b"")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == "error: hypothesis from standard input is empty " \
                            "(expected one sentence a line)\n"


# ---------------------------------------------------------------------------
# Shifted outputs


def real_outputs(shared_data: Path):
    """(name, source lines, output lines) for every real system output we have."""
    from conftest import CONLL_M2, SUBMISSIONS, TEAMS

    from gecmetrics.m2_format import read_m2

    conll_src = read_m2(CONLL_M2).sources
    for team in TEAMS:
        yield f"conll14/{team}", conll_src, read_lines(SUBMISSIONS / team)
    for part in ("all", "subset"):
        folder = shared_data / "SEEDA" / "outputs" / part
        src = read_lines(folder / "INPUT.txt")
        for path in sorted(folder.glob("*.txt")):
            yield f"seeda-{part}/{path.stem}", src, read_lines(path)
    for folder in sorted((shared_data / "GMEG" / "data").glob("*/*")):
        if (folder / "source").is_file():
            src = read_lines(folder / "source")
            for path in sorted(folder.iterdir()):
                if path.name not in ("source", "source+error") and path.is_file() \
                        and "." not in path.name:
                    yield f"gmeg/{folder.parent.name}/{folder.name}/{path.name}", src, \
                        read_lines(path)


@pytest.mark.full
def test_no_warning_on_any_real_output(shared_data):
    names = []
    for name, src, out in real_outputs(shared_data):
        assert len(out) == len(src), name
        assert find_shift(src, out) is None, name
        names.append(name)
    # 12 CoNLL teams, 15 + 15 SEEDA, GMEG: 2 splits x 2 domains x (6 systems + 4 refs)
    assert len(names) == 12 + 30 + 40


def test_fires_on_each_conll_team_with_a_line_dropped(conll):
    sources, _, hyps = conll
    sets = token_sets(sources)  # shared by all outputs, as load_corpus does
    for team, out in hyps.items():
        if team in ("INPUT", "NULL"):
            continue
        dropped = out[:3] + out[4:] + [""]  # line 4 lost, an empty line added at the end
        assert find_shift(sources, dropped, sets) == Shift(line=4, offset=1), team
        inserted = out[:9] + ["I think so ."] + out[9:-1]  # a line inserted before line 10
        assert find_shift(sources, inserted, sets) == Shift(line=11, offset=-1), team
    assert find_shift(sources, hyps["NULL"]) is None
    assert find_shift(sources, hyps["INPUT"]) is None


def test_short_and_repetitive_files_do_not_fire():
    same = ["Thank you ."] * 30
    assert find_shift(same, same[1:] + [""]) is None  # shifted, but identical
    assert find_shift(["a b", "c d", "e f"], ["c d", "e f", ""]) is None  # too short


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_cli_warns_once_and_still_scores(tmp_path, shared_data):
    from conftest import CONLL_M2, SUBMISSIONS

    amu = read_lines(SUBMISSIONS / "AMU")
    shifted = tmp_path / "AMU.shifted"
    shifted.write_text("\n".join(amu[:3] + amu[4:] + [""]) + "\n")
    args = ["score", "-m", "green", "--format", "json", "-s", str(SUBMISSIONS / "INPUT"),
            "--m2", str(CONLL_M2), "-c", str(SUBMISSIONS / "AMU"), str(shifted)]
    result = invoke(*args)
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert [r["hypothesis"] for r in rows] == [str(SUBMISSIONS / "AMU"), str(shifted)]
    assert rows[1]["score"] < rows[0]["score"] - 0.2  # scored as given: far lower
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"warning: hypothesis file {shifted} looks shifted by one "
                                    "line against the source from line 4:")


def test_api_warns_with_a_warning_class(tmp_path, conll):
    sources, _, hyps = conll
    src, hyp = tmp_path / "src", tmp_path / "hyp"
    src.write_text("\n".join(sources) + "\n")
    hyp.write_text("\n".join(hyps["CAMB"][:3] + hyps["CAMB"][4:] + [""]) + "\n")
    with pytest.warns(MisalignmentWarning, match=r"from line 4: .*next source line"):
        load_corpus(str(src), [str(src)], [str(hyp)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_corpus(str(src), [str(src)], [str(src)])  # aligned: silent
    seen: list[str] = []
    load_corpus(str(src), [str(hyp)], [str(src)], warn=seen.append)  # references checked too
    assert len(seen) == 1 and seen[0].startswith(f"reference file {hyp} looks shifted")


def _shift_oracle(sources, output):
    """find_shift's definition, every line compared: the first line of the earliest
    run of ceil(8/10 x window) lines, within a window of min(10, n - 1) lines, each
    closer (Jaccard of token sets, by more than 0.2) to the same neighbour."""
    n = len(sources)
    if n < 5 or len(output) != n:
        return None

    def jaccard(a, b):
        a, b = set(a.split()), set(b.split())
        return len(a & b) / len(a | b) if a | b else 0.0

    window = min(10, n - 1)
    need = math.ceil(8 * window / 10)
    best = None
    for offset in (1, -1):
        closer = [i for i in range(n) if output[i] != sources[i] and 0 <= i + offset < n
                  and jaccard(output[i], sources[i + offset])
                  > jaccard(output[i], sources[i]) + 0.2]
        runs = [closer[k] for k in range(len(closer) - need + 1)
                if closer[k + need - 1] - closer[k] < window]
        if runs and (best is None or runs[0] + 1 < best.line):
            best = Shift(runs[0] + 1, offset)
    return best


def random_files(rng: random.Random, cases: int):
    """(sources, output) pairs: files shifted, partly shifted and noisy."""
    words = [f"w{i}" for i in range(30)]
    for case in range(cases):
        n = rng.randint(5, 40)
        sources = [" ".join(rng.sample(words, rng.randint(1, 6))) for _ in range(n)]
        output = list(sources)
        for i in range(n):  # edits, some heavy
            if rng.random() < 0.5:
                toks = output[i].split()
                toks[rng.randrange(len(toks))] = rng.choice(words)
                output[i] = " ".join(toks)
        if case % 3:  # a stretch shifted by one line, either way, with gaps
            a = rng.randrange(n)
            b = rng.randint(a, n)
            offset = rng.choice((1, -1))
            for i in range(a, b):
                if 0 <= i + offset < n and rng.random() < 0.9:
                    output[i] = sources[i + offset]
        yield sources, output


def test_find_shift_equals_its_every_line_definition_on_random_files():
    """The even lines screen first (alignment.find_shift): the same answer as
    comparing every line, on files shifted, partly shifted and noisy."""
    fired = 0
    for sources, output in random_files(random.Random(7), 3000):
        expected = _shift_oracle(sources, output)
        fired += expected is not None
        assert find_shift(sources, output) == expected, (sources, output)
    assert 300 < fired < 2700  # both answers are exercised


@pytest.mark.parametrize("compiled", [True, False])
def test_find_shifts_equals_the_definition_for_several_outputs(compiled, monkeypatch):
    """find_shifts, with the kernel's overlap counts (every line) or without (the
    shared token sets): each output's answer is the definition's, including outputs
    with words of other widths, extra whitespace, empty lines and a wrong length."""
    from gecmetrics import alignment

    if compiled and alignment._compiled is None:
        pytest.skip("the compiled kernel is not built here (pip install -e .)")
    if not compiled:
        monkeypatch.setattr(alignment, "_compiled", None)
    rng = random.Random(11)
    fired = 0
    for sources, output in random_files(rng, 600):
        others = [output, list(sources), [f"  {line}\t" for line in output],
                  ["" if rng.random() < 0.3 else line + " é 日 😀" for line in output],
                  output[1:] + [""], output[:-1]]
        expected = [_shift_oracle(sources, other) for other in others]
        fired += sum(shift is not None for shift in expected)
        assert alignment.find_shifts(sources, others) == expected, (sources, others)
    assert fired > 300
    assert alignment.find_shifts(["a"] * 3, [["a"] * 3]) == [None]  # too short to tell
