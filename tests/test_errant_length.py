"""The ERRANT family's sentence-length bound (MAX_TOKENS) and its progress bar.

ERRANT's alignment time grows with source tokens x other tokens (about 140 s
for one 1,000 x 1,000 pair rewritten throughout): the default ``max_tokens``
(300) refuses such a pair before spaCy is loaded, with one line naming the
file, the line and the option value that would take it; every pair of the
published data stays under it; a pair at the limit runs in seconds; and the
alignment draws a progress bar on a terminal.
"""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gecmetrics.corpus import Corpus
from gecmetrics.edits.extraction import MAX_TOKENS, check_lengths, m2_corrections, parsed_texts
from gecmetrics.m2_format import read_m2
from gecmetrics.readers import read_lines

SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))


def _pair(tmp_path: Path, n: int) -> tuple[Path, Path]:
    """One sentence of ``n`` tokens and a hypothesis rewritten throughout (no
    word in common: errant 3.0.2's slowest case, never aligned here)."""
    src = tmp_path / "src.txt"
    src.write_text(" ".join(f"w{i}" for i in range(n)) + "\n")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text(" ".join(f"v{i}" for i in range(n)) + "\n")
    return src, hyp


@pytest.mark.parametrize("metrics", [
    ["errant"], ["errant", "cleme"],
    # the same check through the other ERRANT-based metrics: a CLI start each
    *(pytest.param(m, marks=pytest.mark.full) for m in (["cleme"], ["cleme2"], ["gotoscorer"])),
    pytest.param(["pterrant"], marks=[pytest.mark.full, pytest.mark.extra("neural")]),
])
@pytest.mark.errant
@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_cli_refuses_a_1000_token_pair_in_seconds_with_one_line(tmp_path, metrics):
    src, hyp = _pair(tmp_path, 1000)
    args = [a for m in metrics for a in ("-m", m)]
    start = time.monotonic()
    run = subprocess.run([SCRIPT, "score", *args, "-s", str(src), "-r", str(src),
                          "-c", str(hyp)], capture_output=True, text=True, timeout=60)
    took = time.monotonic() - start
    assert run.returncode == 2, run.stderr
    assert run.stderr == (
        f"error: ERRANT cannot align hypothesis {hyp} line 1 (1,000 tokens) with source line "
        f"1 (1,000 tokens): more than {metrics[0]}"
        f":max_tokens={MAX_TOKENS} allows (two sentences of {MAX_TOKENS} tokens, or a longer "
        "one against a shorter one); aligning this pair needs about 40 MB of memory and time "
        "in proportion; split the sentence, or raise the limit with "
        f"-m {metrics[0]}:max_tokens=1000 if time and memory allow\n")
    assert took < 30, took  # spaCy is never loaded (the run itself took 8 min 39 s before)


def _conll_texts(data: Path) -> list[tuple[str, Corpus]]:
    """The CoNLL-2014 test set with every system output and alternative reference of
    the shared data (official submissions, SEEDA, reassess-gec, the attack outputs)."""
    m2 = read_m2(data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2")
    n = len(m2.sentences)
    files = sorted((data / "official_submissions").iterdir())
    files += sorted((data / "SEEDA" / "outputs" / "all").glob("*.txt"))
    files += sorted((data / "reassess-gec" / "annotations").glob("*/*_*/*"))
    files += sorted((data / "attack-gec-metrics" / "experiments" / "attack_results")
                    .glob("conll14-*.txt"))
    hyps = {str(p): lines for p in files if len(lines := read_lines(p, "hypothesis")) == n}
    assert len(hyps) >= 40, sorted(hyps)
    return [("conll14", Corpus(m2.sources, m2.references(), hyps, m2=m2))]


def _gmeg_texts(data: Path) -> list[tuple[str, Corpus]]:
    out = []
    for folder in sorted((data / "GMEG" / "data").glob("*/*")):
        if not folder.is_dir():
            continue
        refs = [read_lines(folder / f"ref{k}", "reference") for k in range(4)]
        hyps = {str(p): read_lines(p, "hypothesis") for p in sorted(folder.iterdir())
                if p.name not in ("source", "ref0", "ref1", "ref2", "ref3")}
        out.append((str(folder), Corpus(read_lines(folder / "source", "source"), refs, hyps)))
    assert len(out) == 4
    return out


def test_every_pair_of_the_published_data_is_under_the_default(shared_data):
    """With the M2 file's corrections and with text references alike, no pair of
    CoNLL-2014, SEEDA, reassess-gec, the attack outputs or GMEG is refused: the
    published numbers of ERRANT, CLEME and GoToScorer stay numbers."""
    for _name, corpus in _conll_texts(shared_data) + _gmeg_texts(shared_data):
        gold = m2_corrections(corpus) if corpus.m2 is not None else None
        check_lengths(parsed_texts(corpus, gold), MAX_TOKENS)
        check_lengths(parsed_texts(corpus, None), MAX_TOKENS)


@pytest.mark.full
@pytest.mark.errant  # skips without the errant extra (conftest)
def test_a_pair_rewritten_throughout_at_the_limit_runs_in_bounded_time(tmp_path, shared_data):
    """Two stretches of CoNLL-2014 text of MAX_TOKENS tokens each: about 5 s of
    alignment (bench/bench_errant_length.py), 10 s with spaCy's start."""
    m2 = read_m2(shared_data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2")
    words = [t for s in m2.sources for t in s.split()]
    src = tmp_path / "src.txt"
    src.write_text(" ".join(words[:MAX_TOKENS]) + "\n")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text(" ".join(words[5000:5000 + MAX_TOKENS]) + "\n")
    run = subprocess.run([SCRIPT, "score", "-m", "errant:cache=false", "-s", str(src),
                          "-r", str(src), "-c", str(hyp)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.full
@pytest.mark.errant
def test_alignment_draws_a_progress_bar_on_a_terminal(tmp_path, monkeypatch):
    from gecmetrics.metrics.errant import Errant

    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path))
    corpus = Corpus(["He go to school .", "It are fine ."],
                    [["He goes to school .", "It is fine ."]],
                    {"s": ["He goes to school .", "It are fine !"]})
    err = _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    Errant(cache=False).evaluate(corpus)
    shown = err.getvalue()
    # 2 reference pairs and 2 hypothesis pairs, one of them the same as a reference's
    assert "parsing" in shown and "aligning 3 pairs with ERRANT" in shown and "3/3" in shown
