"""The one progress helper (gecmetrics.progress): a tqdm bar on a terminal, nothing elsewhere."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from gecmetrics import progress


class Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def draw(stream: Stream, total: int = 3, **kwargs) -> str:
    meter = progress.bar(total, "parsing", stream=stream, **kwargs)
    meter.set_postfix_str("a/b.txt")
    for _ in range(total):
        meter.update()
    meter.close()
    return stream.getvalue()


def test_drawn_only_on_a_terminal():
    shown = draw(Stream(True))
    assert "parsing" in shown and "3/3" in shown and shown.endswith("\n")
    assert draw(Stream(False)) == ""


def test_not_drawn_when_disabled_or_empty():
    assert draw(Stream(True), enabled=False) == ""
    assert draw(Stream(True), total=0) == ""


def test_leave_false_erases_the_bar_and_bytes_are_scaled():
    stream = Stream(True)
    meter = progress.bar(2_000_000, "download x", stream=stream, unit="B", leave=False)
    meter.update(1_000_000)
    meter.close()
    shown = stream.getvalue()
    assert "download x" in shown and "2.00M" in shown and "\n" not in shown
    assert shown.endswith("\r")


def test_default_stream_is_stderr_at_call_time(monkeypatch):
    stream = Stream(True)
    monkeypatch.setattr(sys, "stderr", stream)
    progress.bar(1, "late").close()
    assert "late" in stream.getvalue()


def test_tqdm_is_imported_only_to_draw():
    code = ("import sys; from gecmetrics import progress; "
            "progress.bar(5, 'x').update(); assert 'tqdm' not in sys.modules, 'imported'")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_a_note_is_one_plain_line_and_keeps_a_bar_whole():
    plain = Stream(False)
    progress.note("note: retry 1 of 5", stream=plain)
    assert plain.getvalue() == "note: retry 1 of 5\n"
    tty = Stream(True)
    meter = progress.bar(3, "asking", stream=tty)
    meter.update()
    progress.note("note: retry 1 of 5", stream=tty)
    meter.close()
    assert "note: retry 1 of 5\n" in tty.getvalue() and "asking" in tty.getvalue()


def test_the_cross_validation_draws_a_bar_on_a_terminal_only(monkeypatch):
    """--cv-beta runs k folds over a grid of up to 100,001 betas: a bar on a terminal,
    nothing in a pipe (and the same result either way)."""
    import numpy as np

    from gecmetrics.meta_eval.cv_folds import cv_beta

    rng = np.random.default_rng(0)
    human = np.array([3.0, 1.0, 2.0, 4.0])
    base = rng.random((4, 40))

    def score(beta, idx):
        return (base[:, idx] * (1 + beta * np.arange(4)[:, None])).mean(axis=1)

    results = []
    for tty in (True, False):
        stream = Stream(tty)
        monkeypatch.setattr(sys, "stderr", stream)
        results.append(cv_beta(score, human, np.linspace(0, 2, 51), 40, k=4, seed=1))
        shown = stream.getvalue()
        assert ("cross-validated beta (4 folds)" in shown) == tty and (shown == "") != tty
    assert results[0] == results[1]


@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_a_beta_sweep_draws_a_bar_on_a_terminal_only(shared_data, monkeypatch):
    from gecmetrics.meta_eval import meta_evaluate

    out = []
    for tty in (True, False):
        stream = Stream(tty)
        monkeypatch.setattr(sys, "stderr", stream)
        result = meta_evaluate(["seeda-s"], ["green"], grid="0:2:0.5",
                               data_dir=str(shared_data))
        out.append(result.to_json())
        assert ("sweep green on seeda-s" in stream.getvalue()) == tty
        assert (stream.getvalue() == "") != tty
    assert out[0] == out[1]
