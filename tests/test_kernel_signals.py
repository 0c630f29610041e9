"""Signals inside long computations and the external tokenizers' bound (issue 33).

* Ctrl-C and SIGTERM end a long compiled alignment at once: the kernels run
  Python's signal handlers every few thousand cells (the language-neutral
  alignment of ``score -m errant:edits=neutral`` and ``m2-from-text``);
* Kiwi (``tokenize=ko``) works on a long line in a helper thread, so a signal
  acts while it works; ``ja``, ``ko`` and ``zh`` take at most
  ``external.MAX_LINE_BYTES`` a line, checked for every line before any is
  tokenized, with a message naming the limit and how to raise it;
* ``neutral_edits`` refuses what is not a list of token strings with the
  library's InputError naming the argument.

The CLI cases run the console script in its own process group with Ctrl-C and
SIGTERM at their defaults (as from a terminal) and time the exit from the signal.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import require_extra

from gecmetrics.edits import neutral
from gecmetrics.errors import InputError
from gecmetrics.ngrams import compute_intersections
from gecmetrics.tokenizers import external

SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))
#: a signal ends a run within this many seconds (docs/trust.md)
SIGNAL_S = 1.5


def long_pair(tokens: int = 3000, seed: int = 33) -> tuple[list[str], list[str]]:
    """Two unrelated sentences of ``tokens`` words from a 500-word vocabulary: their
    alignment (every cell with a long transposition walk) takes tens of seconds."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(500)]
    return rng.choices(words, k=tokens), rng.choices(words, k=tokens)


def _as_a_terminal_would() -> None:
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def signalled_run(args: list[str], sig: int, delay: float, cwd: Path,
                  env: dict[str, str] | None = None) -> tuple[int, str, float]:
    """Run the console script, send ``sig`` to its process group after ``delay`` s:
    (exit code, stderr, seconds from the signal to the exit). Fails if the run
    ended before the signal (then it tested nothing)."""
    proc = subprocess.Popen([SCRIPT, *args], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_as_a_terminal_would, env=env)
    try:
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            pass
        assert proc.poll() is None, "the run ended before its signal: make it longer"
        os.killpg(proc.pid, sig)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=120)
        return proc.returncode, err, time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture
def pair_files(tmp_path: Path) -> Path:
    src, ref = long_pair()
    (tmp_path / "src.txt").write_text(" ".join(src) + "\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text(" ".join(ref) + "\n", encoding="utf-8")
    return tmp_path


# -- the compiled kernels ---------------------------------------------------------------

@pytest.mark.skipif(not neutral.compiled(), reason="the compiled alignment kernel is not built")
def test_ctrl_c_inside_the_alignment_kernel_acts_at_once():
    """Before: the kernel ran to its end (about 30 s for this pair) before the
    KeyboardInterrupt was raised."""
    arrays = neutral.kernel_arrays(*long_pair())
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sent: list[float] = []

    def interrupt() -> None:
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.3, interrupt)
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            neutral._align_compiled(*arrays, False)  # type: ignore[misc]
        waited = time.monotonic() - sent[0]
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert waited < SIGNAL_S


@pytest.mark.full  # a few seconds: the console script's start-up and the alignment
@pytest.mark.parametrize("sig, code, line", [
    (signal.SIGINT, 130, "error: interrupted (Ctrl-C)\n"),
    (signal.SIGTERM, 143, "error: terminated (SIGTERM)\n"),
])
@pytest.mark.parametrize("command", [
    ["m2-from-text", "-s", "src.txt", "-r", "ref.txt"],
    ["score", "-m", "errant:edits=neutral", "-s", "src.txt", "-r", "ref.txt", "-c", "src.txt"],
], ids=["m2-from-text", "score-errant-neutral"])
def test_signal_during_a_long_alignment_ends_the_run_at_once(pair_files, command, sig, code,
                                                             line):
    """Before: m2-from-text acted on the signal about 35 s later (and, started as a
    background job of a shell script, which ignores SIGINT, wrote its M2 and exited 0);
    score -m errant:edits=neutral 50 s later."""
    if command[0] == "score":
        require_extra("errant")
    returncode, err, waited = signalled_run(command, sig, 2.5, pair_files)
    assert (returncode, err) == (code, line)
    assert waited < SIGNAL_S


# -- external tokenizers ----------------------------------------------------------------

def test_a_line_over_the_bound_is_refused_before_any_is_tokenized(monkeypatch):
    """The pre-pass names the input and the line, the limit and the variable; it reads
    only the registry's spec, so no tokenizer is loaded (no extra is needed)."""
    monkeypatch.setenv(external.ENV_MAX_LINE_BYTES, "100")
    lines = ["\uc548\ub155", "\uac00" * 34]  # 102 bytes in UTF-8
    with pytest.raises(InputError) as caught:
        compute_intersections(lines[:1] * 2, [lines[:1] * 2], {"sys.txt": lines}, "ko", 4)
    message = str(caught.value)
    assert message.startswith("hypothesis 'sys.txt' line 2: a line of 102 bytes")
    assert "at most 100 bytes" in message
    assert f"{external.ENV_MAX_LINE_BYTES}=1024" in message


def test_words_are_not_bounded(monkeypatch):
    monkeypatch.setenv(external.ENV_MAX_LINE_BYTES, "100")
    line = "x " * 100
    result = compute_intersections([line], [[line]], {"a": [line]}, "word", 1)
    assert int(result.sc[0, 0, 0]) == 100


def test_the_bound_is_the_documented_one():
    assert external.MAX_LINE_BYTES == 32 << 10
    page = (Path(__file__).resolve().parents[1] / "docs" / "tokenizers.md").read_text("utf-8")
    assert "**32 KiB a line**" in page


def test_bounded_call_gives_the_same_tokens_and_errors():
    def split(line: str) -> list[str]:
        if line.startswith("!"):
            raise ValueError("boom")
        return line.split()

    call = external.bounded("test", split)
    long_line = "ab " * external.THREAD_CHARS
    assert call(long_line) == split(long_line)  # through the helper thread
    assert call("a b") == ["a", "b"]  # directly
    with pytest.raises(ValueError, match="boom"):
        call("!" + long_line)


def test_bounded_call_is_interrupted_while_the_library_works():
    """The helper thread's call releases the GIL (as Kiwi does); the waiting thread
    runs the handler within WAIT_S, even when the signal lands in another thread."""
    release = threading.Event()

    def slow(line: str) -> list[str]:
        release.wait(30)  # blocks without the GIL, like Kiwi's C++ code
        return []

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sent: list[float] = []

    def interrupt() -> None:
        sent.append(time.monotonic())
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    timer = threading.Timer(0.2, interrupt)
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            external.bounded("test", slow)("x" * external.THREAD_CHARS)
        waited = time.monotonic() - sent[0]
    finally:
        release.set()
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert waited < 0.5


@pytest.mark.extra("ko")
def test_kiwi_refuses_a_long_line_naming_the_limit():
    from gecmetrics.tokenizers import tokenizer

    line = "\uac00" * 20_000  # 60,000 bytes
    with pytest.raises(InputError, match="at most 32,768 bytes") as caught:
        tokenizer("ko")(line)
    assert external.ENV_MAX_LINE_BYTES in str(caught.value)


@pytest.mark.extra("ja")
@pytest.mark.extra("zh")
@pytest.mark.parametrize("name", ["ja", "zh"])
def test_mecab_and_jieba_share_the_bound(name):
    from gecmetrics.tokenizers import tokenizer

    with pytest.raises(InputError, match=f"tokenizer '{name}' takes: at most 32,768"):
        tokenizer(name)("\u6211" * 20_000)
    assert tokenizer(name)("\u6211" * 100)  # a short line is tokenized


@pytest.mark.full  # Kiwi loads its model (seconds) before the first line
@pytest.mark.extra("ko")
def test_ctrl_c_while_kiwi_works_ends_the_run_at_once(tmp_path):
    """Before: acted on when Kiwi finished the line (16 s later in the issue)."""
    syllables = "\ub098\ub294\uc5b4\uc81c\ud559\uad50\uc5d0\uac14\uc2b5\ub2c8\ub2e4"
    lines = "".join(f"{i} {syllables * 900}\n" for i in range(200))  # 30 KB each: minutes in all
    (tmp_path / "ko.txt").write_text(lines, encoding="utf-8")
    args = ["score", "-m", "green:tokenize=ko", "-s", "ko.txt", "-r", "ko.txt", "-c", "ko.txt"]
    # after Kiwi's model load, which holds the interpreter (up to 15 s on a busy machine)
    returncode, err, waited = signalled_run(args, signal.SIGINT, 25, tmp_path)
    assert (returncode, err) == (130, "error: interrupted (Ctrl-C)\n")
    assert waited < SIGNAL_S


# -- the Python API at the kernel's boundary ----------------------------------------------

@pytest.mark.parametrize("source, target, named", [
    (None, ["a"], "source must be a list of token strings, got NoneType"),
    (["a"], None, "target must be a list of token strings, got NoneType"),
    (["a", 1], ["a"], "source[1] must be a token string, got int 1"),
    (["a"], [1, 2], "target[0] must be a token string, got int 1"),
    ("She go .", ["She"], "source must be a list of token strings (split it"),
    (["a"], [b"a"], "target[0] must be a token string, got bytes"),
])
@pytest.mark.parametrize("native", [True, False], ids=["compiled", "python"])
def test_neutral_edits_names_the_bad_argument(source, target, named, native):
    with pytest.raises(InputError) as caught:
        neutral.neutral_edits(source, target, native=native)
    assert str(caught.value).startswith(named)


def test_m2_block_names_the_bad_reference():
    with pytest.raises(InputError, match=r"^references\[1\]\[0\] must be a token string"):
        neutral.m2_block(["a"], [["a"], [None]])
    with pytest.raises(InputError, match="^references must be a list of token lists"):
        neutral.m2_block(["a"], None)


def test_tuples_of_tokens_are_accepted():
    assert neutral.neutral_edits(("She", "go"), ("She", "goes")) == \
        neutral.neutral_edits(["She", "go"], ["She", "goes"])
