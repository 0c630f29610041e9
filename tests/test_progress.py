"""The one progress helper (gecmetrics.progress): a tqdm bar on a terminal, nothing elsewhere."""

from __future__ import annotations

import io
import subprocess
import sys

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
