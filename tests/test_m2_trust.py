"""M2 at the edges (issue 22): every extreme input ends in the right answer or one
line with exit code 2, in bounded time and memory, and Ctrl-C/SIGTERM act at once.

The long-sentence cases run the CLI in a subprocess under a wall-clock timeout and
an address-space limit (``RLIMIT_AS``), so that a regression fails the test instead
of exhausting the machine.
"""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gecmetrics.corpus import Corpus
from gecmetrics.errors import InputError
from gecmetrics.interface.cli import main
from gecmetrics.m2_format import read_m2
from gecmetrics.metrics.m2 import M2
from gecmetrics.metrics.m2_lattice import (
    HAVE_KERNEL,
    MAX_ALIGNMENT_CELLS,
    LatticeTooLarge,
    alignment_budget,
    check_pair,
)
from gecmetrics.scoring import ScoreOptions, load_corpus, score

ROOT = Path(__file__).resolve().parents[1]
LIMIT_AS = 1536 * 1024 * 1024  # 1.5 GB of address space for a CLI run
NOOP = "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{}"


def write_m2(path: Path, blocks: list[tuple[str, list[str]]]) -> Path:
    path.write_text("".join(f"S {src}\n" + "".join(a + "\n" for a in edits) + "\n"
                            for src, edits in blocks))
    return path


def write_set(tmp_path: Path, name: str, src: list[str], hyp: list[str],
              edits: list[str]) -> list[str]:
    """source, M2 and hypothesis files of one sentence; the CLI arguments that score it."""
    (tmp_path / f"{name}.src").write_text(" ".join(src) + "\n")
    (tmp_path / f"{name}.hyp").write_text(" ".join(hyp) + "\n")
    write_m2(tmp_path / f"{name}.m2", [(" ".join(src), edits)])
    return ["-s", str(tmp_path / f"{name}.src"), "--m2", str(tmp_path / f"{name}.m2"),
            "-c", str(tmp_path / f"{name}.hyp")]


def run_cli(args: list[str], timeout: float = 60) -> tuple[subprocess.CompletedProcess, float]:
    """The CLI in a subprocess, its address space capped at :data:`LIMIT_AS`."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "gecmetrics.interface.cli", "score", *args],
                          capture_output=True, text=True, timeout=timeout, env=env,
                          preexec_fn=cap)
    return done, time.monotonic() - start


def long_pairs(n: int) -> dict[str, tuple[list[str], list[str], list[str]]]:
    """A sentence of ``n`` tokens, mostly unchanged, and rewritten throughout."""
    rng = random.Random(n)
    vocab = [f"w{i}" for i in range(500)]
    src = [rng.choice(vocab) for _ in range(n)]
    same = list(src)
    for k in range(0, n, 500):
        same[k] = "CHANGED"
    rewritten = [rng.choice(vocab) for _ in range(n)]
    return {
        "same": (src, same, [f"A {k} {k + 1}|||R:X|||CHANGED|||REQUIRED|||-NONE-|||0"
                             for k in range(0, n, 1000)]),
        "rewritten": (src, rewritten, [f"A {k} {k + 1}|||R:X|||{rewritten[k]}|||REQUIRED|||"
                                       "-NONE-|||0" for k in range(0, n, 100)]),
    }


# ---------------------------------------------------------------------------
# Row 1: annotator ids are labels, not a range to allocate
# ---------------------------------------------------------------------------

HUGE = 99999999999999999999


@pytest.fixture
def far_ids(tmp_path):
    m2 = write_m2(tmp_path / "ids.m2", [
        ("He go to school .", ["A 1 2|||R:VERB|||goes|||REQUIRED|||-NONE-|||5000"]),
        ("She like it .", ["A 1 2|||R:VERB|||likes|||REQUIRED|||-NONE-|||0"]),
        ("It is good .", [NOOP.format(HUGE)]),
    ])
    (tmp_path / "src.txt").write_text("He go to school .\nShe like it .\nIt is good .\n")
    (tmp_path / "hyp.txt").write_text("He goes to school .\nShe likes it .\nIt is good .\n")
    return m2


def test_far_annotator_ids_are_three_annotators(far_ids, tmp_path):
    m2 = read_m2(far_ids)
    assert m2.annotator_ids == [0, 5000, HUGE] and m2.num_annotators == 3
    refs = m2.references()
    assert len(refs) == 3  # one per id in the file, not 10^20
    # lenient reading: a sentence without the annotator takes the lowest id present
    assert refs[1] == ["He goes to school .", "She likes it .", "It is good ."]
    corpus = load_corpus(str(tmp_path / "src.txt"), [], [str(tmp_path / "hyp.txt")],
                         str(far_ids))
    assert len(corpus.references) == 3


def test_far_annotator_ids_score_and_keep_their_ids(far_ids, tmp_path):
    runner = CliRunner()
    args = ["score", "-m", "m2", "-s", str(tmp_path / "src.txt"), "--m2", str(far_ids),
            "-c", str(tmp_path / "hyp.txt"), "--breakdown", "annotator"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    groups = [line.split()[0] for line in result.output.splitlines() if line.strip()]
    assert "5000" in groups and str(HUGE) in groups and "0" in groups
    for k, expected in [(5000, "He goes to school ."), (HUGE, "He goes to school ."),
                        (0, "He goes to school .")]:
        text = runner.invoke(main, ["m2-to-text", str(far_ids), "--annotator", str(k)])
        assert text.exit_code == 0 and text.output.splitlines()[0] == expected
    absent = runner.invoke(main, ["m2-to-text", str(far_ids), "--annotator", "1"])
    assert absent.exit_code == 2
    assert "out of range" in absent.output and f"0, 5000, {HUGE}" in absent.output


def test_far_annotator_ids_in_bounded_memory(far_ids, tmp_path):
    done, _ = run_cli(["-m", "m2", "-m", "gleu", "-s", str(tmp_path / "src.txt"),
                       "--m2", str(far_ids), "-c", str(tmp_path / "hyp.txt")], timeout=60)
    assert done.returncode == 0, done.stderr
    assert "refs:3|" in done.stdout


# ---------------------------------------------------------------------------
# Row 2: a 10,000-token sentence, bounded before the work; signals act in the kernel
# ---------------------------------------------------------------------------

def test_alignment_budget_grows_with_the_edge_budget():
    assert alignment_budget(1) == MAX_ALIGNMENT_CELLS
    assert alignment_budget(30_000_000) == MAX_ALIGNMENT_CELLS
    assert alignment_budget(300_000_000) == 10 * MAX_ALIGNMENT_CELLS


def test_precheck_refuses_a_long_rewritten_pair_before_aligning(monkeypatch):
    from gecmetrics.metrics import m2_lattice

    src, hyp, _ = long_pairs(3000)["rewritten"]

    def no_alignment(*args, **kwargs):
        raise AssertionError("the pair was aligned")

    monkeypatch.setattr(m2_lattice, "_band_rows", no_alignment)
    with pytest.raises(LatticeTooLarge, match="needs a distance table of .* cells, over the "
                                              "budget of 5,000,000; raise the m2 option "
                                              "max_lattice_edges"):
        check_pair(src, hyp)
    same_src, same, _ = long_pairs(3000)["same"]
    check_pair(same_src, same)  # a long near-identical sentence passes


@pytest.mark.parametrize("compiled", [False, True])
def test_band_is_refused_before_it_is_allocated(monkeypatch, compiled):
    """A pair the pre-check cannot prove over budget (two letters at random) stops in
    the doubling, before the band over the budget is computed (by the Python code or
    the kernel's ``band_rows``)."""
    from gecmetrics.metrics import m2_lattice

    if compiled and not m2_lattice.HAVE_KERNEL:
        pytest.skip("the compiled M2 kernel is not built")
    name = "_kernel_band_rows" if compiled else "_band_rows"

    monkeypatch.setattr(m2_lattice, "MAX_ALIGNMENT_CELLS", 60_000)  # 1,000 tokens: fast
    rng = random.Random(7)
    src = [rng.choice("ab") for _ in range(1000)]
    hyp = [rng.choice("ab") for _ in range(1000)]
    m2_lattice.check_pair(src, hyp)  # not provable from the shared tokens
    widths = []
    real = getattr(m2_lattice, name)

    def spy(src, hyp, sub_cost, klo, khi):
        widths.append((len(src) + 1) * (khi - klo + 1))
        return real(src, hyp, sub_cost, klo, khi)

    monkeypatch.setattr(m2_lattice, name, spy)
    with pytest.raises(LatticeTooLarge, match="distance table"):
        m2_lattice.build_lattice(src, hyp, compiled=compiled)
    assert widths and max(widths) <= 60_000


def test_precheck_of_the_corpus_comes_before_any_scoring(tmp_path, monkeypatch):
    """The too-long pair is line 2: line 1 is never scored."""
    from gecmetrics.metrics import m2 as m2_metric

    src, hyp, _ = long_pairs(3000)["rewritten"]
    corpus = Corpus(["a b c", " ".join(src)], [["a b d", " ".join(src)]],
                    {"sys": ["a b d", " ".join(hyp)]},
                    m2=read_m2(write_m2(tmp_path / "g.m2", [
                        ("a b c", ["A 2 3|||R|||d|||REQUIRED|||-NONE-|||0"]),
                        (" ".join(src), [NOOP.format(0)])])))

    def no_scoring(*args, **kwargs):
        raise AssertionError("a sentence was scored before the check")

    monkeypatch.setattr(m2_metric, "_sentence", no_scoring)
    with pytest.raises(LatticeTooLarge, match="^m2: hypothesis sys, line 2: aligning this "
                                              "sentence pair"):
        m2_metric.m2_counts(corpus)


@pytest.mark.full
@pytest.mark.parametrize("n", [3000, 10000])
@pytest.mark.parametrize("kind", ["same", "rewritten"])
def test_long_sentence_cli_bounded(tmp_path, n, kind):
    src, hyp, edits = long_pairs(n)[kind]
    args = write_set(tmp_path, f"{kind}{n}", src, hyp, edits)
    done, seconds = run_cli(["-m", "m2", *args], timeout=60)
    assert seconds < 60
    assert "Traceback" not in done.stderr
    if kind == "same":
        # the right answer: n / 500 separate one-token changes proposed, every other one
        # gold (n / 1000 gold edits): P = 1/2, R = 1, F0.5 = 1.25 x 0.5 / (0.25 x 0.5 + 1)
        assert done.returncode == 0, done.stderr
        row = done.stdout.splitlines()[2].split()
        assert [float(x) for x in row[-3:]] == [50.0, 100.0, round(100 * 0.625 / 1.125, 2)]
    else:
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1
        assert done.stderr.startswith(f"error: m2: hypothesis {tmp_path}/{kind}{n}.hyp, line 1:")
        assert "max_lattice_edges" in done.stderr


@pytest.mark.full
@pytest.mark.skipif(not HAVE_KERNEL, reason="the compiled M2 kernel is not built")
def test_sigterm_acts_inside_the_m2_kernel(tmp_path):
    """A lattice of billions of edges (one token in common) with the budget raised: the
    kernel's count runs for minutes, and SIGTERM must still stop it at once."""
    n = 300
    src = [f"s{i}" for i in range(n)]
    hyp = [f"h{i}" for i in range(n)]
    hyp[150] = "s150"
    args = write_set(tmp_path, "one", src, hyp, [f"A {k} {k + 1}|||R|||{hyp[k]}|||REQUIRED|||"
                                                 "-NONE-|||0" for k in range(0, n, 20)])
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "gecmetrics.interface.cli", "score", "-m",
                             "m2:max_lattice_edges=1000000000000", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(3)  # imports, reading, the base lattice: then the kernel's count
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGTERM)
    start = time.monotonic()
    out, err = proc.communicate(timeout=10)
    assert time.monotonic() - start < 3
    assert proc.returncode == 143
    assert err == "error: terminated (SIGTERM)\n"


# ---------------------------------------------------------------------------
# Row 3: overlapping edits of one annotator
# ---------------------------------------------------------------------------

@pytest.fixture
def overlapping(tmp_path):
    return write_m2(tmp_path / "ov.m2", [
        ("He go to school yesterday .", [
            "A 1 2|||R:VERB|||went|||REQUIRED|||-NONE-|||0",
            "A 1 3|||R:OTHER|||went to|||REQUIRED|||-NONE-|||0",
            "A 1 2|||R:VERB|||goes|||REQUIRED|||-NONE-|||1",
        ]),
        ("She like it .", ["A 1 2|||R:VERB|||likes|||REQUIRED|||-NONE-|||0",
                           "A 2 2|||M:ADV|||really|||REQUIRED|||-NONE-|||0",
                           "A 2 2|||M:ADV|||much|||REQUIRED|||-NONE-|||0"]),
    ])


def test_overlapping_edits_are_found():
    from gecmetrics.m2_format import Edit, M2Sentence

    def edits(*spans):
        return tuple(Edit(s, e, "R", "x", 0, k + 1) for k, (s, e) in enumerate(spans))

    src = "a b c d e"
    assert M2Sentence(src, edits((0, 1), (1, 2), (2, 2), (2, 2), (4, 5))).overlap(0) is None
    assert M2Sentence(src, edits((0, 3), (2, 2))).overlap(0) is not None  # inside a span
    assert M2Sentence(src, edits((0, 3), (3, 3), (0, 0))).overlap(0) is None  # at its ends
    assert M2Sentence(src, edits((1, 3), (2, 4))).overlap(0) is not None
    assert M2Sentence(src, edits((1, 3), (1, 3))).overlap(0) is not None


def test_m2_to_text_refuses_overlapping_edits(overlapping):
    runner = CliRunner()
    bad = runner.invoke(main, ["m2-to-text", str(overlapping), "--annotator", "0"])
    assert bad.exit_code == 2
    line = bad.output.strip()
    assert "\n" not in line
    assert line == (f"error: {overlapping}:3: annotator 0's edit 1 3 overlaps its edit 1 2 "
                    "(line 2); the corrected text cannot apply both: merge them into one edit "
                    "(or give them to different annotators); the M2 scorer itself matches "
                    "each gold edit alone")
    # annotator 1 has no overlap; its second sentence (no line of its own) is annotator
    # 0's under the lenient reading: two insertions at one position, in file order
    ok = runner.invoke(main, ["m2-to-text", str(overlapping), "--annotator", "1"])
    assert ok.exit_code == 0
    assert ok.output == "He goes to school yesterday .\nShe likes really much it .\n"


def test_overlapping_edits_still_score_with_m2_and_warn_for_text(overlapping, tmp_path):
    (tmp_path / "src.txt").write_text("He go to school yesterday .\nShe like it .\n")
    (tmp_path / "hyp.txt").write_text("He went to school yesterday .\nShe likes it .\n")
    warnings: list[str] = []
    corpus = load_corpus(str(tmp_path / "src.txt"), [], [str(tmp_path / "hyp.txt")],
                         str(overlapping), warn=warnings.append)
    assert len(warnings) == 1 and "overlaps its edit 1 2 (line 2)" in warnings[0]
    assert "give -r for the text metrics" in warnings[0]
    assert 0 < M2().statistics(corpus).corpus(None)[0].score <= 1  # M2 scores it


def test_conll14_has_no_overlapping_edits(shared_data):
    from conftest import CONLL_M2

    assert read_m2(CONLL_M2).first_overlap() is None


# ---------------------------------------------------------------------------
# Row 4: -r and --m2 together: the M2 metric's signature names the M2 file
# ---------------------------------------------------------------------------

def test_signature_of_m2_with_text_references_too(tmp_path):
    m2 = write_m2(tmp_path / "g.m2", [
        ("He go to school .", ["A 1 2|||R:VERB|||goes|||REQUIRED|||-NONE-|||0",
                               "A 1 2|||R:VERB|||went|||REQUIRED|||-NONE-|||1"])])
    (tmp_path / "src.txt").write_text("He go to school .\n")
    (tmp_path / "ref.txt").write_text("He goes to school .\n")
    (tmp_path / "hyp.txt").write_text("He goes to school .\n")
    files = dict(source=str(tmp_path / "src.txt"), hypotheses=[str(tmp_path / "hyp.txt")],
                 m2=str(m2))
    both = score(ScoreOptions(metrics=["m2", "gleu"], references=[str(tmp_path / "ref.txt")],
                                    **files))
    alone = score(ScoreOptions(metrics=["m2"], **files))
    m2_sig, gleu_sig = both.signatures
    assert m2_sig == alone.signatures[0]  # the same scores, the same signature
    assert "|refs:2|refs_from:m2-lenient|" in m2_sig
    assert "|refs:1|refs_from:text|" in gleu_sig
    assert both.results[0].score == alone.results[0].score


# ---------------------------------------------------------------------------
# Row 5: an empty M2 file
# ---------------------------------------------------------------------------

def test_empty_m2_file_message(tmp_path):
    empty = tmp_path / "empty.m2"
    empty.write_text("")
    with pytest.raises(InputError) as err:
        read_m2(empty)
    assert str(err.value) == (f"M2 file is empty: {empty} (expected M2 blocks: an 'S' line "
                              "(the tokenised source), its 'A' lines (edits), a blank line; "
                              "see docs/metrics/m2.md)")
    empty.write_text("\n\n")
    with pytest.raises(InputError, match="no 'S ' line found, only blank lines; expected M2 "
                                         "blocks"):
        read_m2(empty)
    result = CliRunner().invoke(main, ["m2-to-text", "-", "--source"], input="")
    assert result.exit_code == 2
    assert "M2 from standard input is empty (expected M2 blocks" in result.output


# ---------------------------------------------------------------------------
# The I-measure's alignment table: cubic in the sentence, bounded before it is made
# ---------------------------------------------------------------------------

def test_imeasure_long_sentence_is_one_line_before_any_alignment(tmp_path, monkeypatch):
    from gecmetrics.metrics import imeasure
    from gecmetrics.metrics.imeasure_align import MAX_ALIGNMENT_CELLS as IM_CELLS
    from gecmetrics.metrics.imeasure_align import alignment_cells

    n = 500  # source, hypothesis and reference all differ: 501^3 cells
    src = [f"s{i}" for i in range(n)]
    hyp = [f"h{i}" for i in range(n)]
    assert alignment_cells(src, hyp, ["x"] * n) == 501 ** 3 > IM_CELLS
    assert alignment_cells(src, src, hyp) == 501 ** 2  # the baseline: pairwise

    def no_alignment(*args):
        raise AssertionError("aligned before the check")

    monkeypatch.setattr(imeasure, "_fast_counts", no_alignment)
    monkeypatch.setattr(imeasure, "_python_counts", no_alignment)
    args = write_set(tmp_path, "im", src, hyp, [f"A 0 {n}|||R|||{' '.join(['x'] * n)}|||"
                                               "REQUIRED|||-NONE-|||0"])
    result = CliRunner().invoke(main, ["score", "-m", "imeasure", *args])
    assert result.exit_code == 2
    assert result.output.startswith(
        f"error: imeasure: sentence 1 of {tmp_path}/im.m2 (500 source, 500 hypothesis, 500 "
        "reference tokens) needs an alignment table of 125,751,501 cells, over the budget of "
        "100,000,000")
    assert result.output.count("\n") == 1
