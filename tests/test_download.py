"""`gecmetrics download` against a local HTTP server that serves the real data.

The server can corrupt a file, die in the middle of one (Content-Length larger
than the body, then close), answer 404, trickle the body a byte at a time, or
fall silent (before the headers, or after them), so every failure path is
exercised without a network. The stall tests need no real data (the bytes never
complete); the others skip without it (conftest).
"""

from __future__ import annotations

import hashlib
import http.server
import io
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from collections import Counter
from pathlib import Path

import pytest
from conftest import SHARED_DATA as SHARED

from gecmetrics import download as dl
from gecmetrics.errors import ConfigError, GecMetricsError, InputError

# the CLI in a fresh interpreter (`python -m gecmetrics.interface.cli` would import cli.py twice)
# -P: do not put the working directory (the repository root, holding the source
# folder gecmetrics/) before the installed package on sys.path.
GECMETRICS = [sys.executable, "-P", "-c", "from gecmetrics.interface.cli import run; run()"]

needs_shared = pytest.mark.real_data  # skips without the real data (conftest)

#: the commit each upstream repository is pinned to (docs/downloads.md)
PINS = {
    "grammatical/evaluation": "08cdad84ffae07dfa167e3e45d77a96e0e01a160",
    "tmu-nlp/SEEDA": "0c6c07f98dcfab016f1169b680997f1f29ea0705",
    "grammarly/GMEG": "83be7cd0a94f6986028bd60ca7fa2c8ba036ad3b",
    "pygongnlp/PT-M2": "67ef5755d7fbe5860f7988af58bc960c47846178",
    "cnap/gec-ranking": "50b5032a4ef2444b9381fb47a55b3bac0654a6d7",
    "keisks/reassess-gec": "054786a923b2635ce33240c580d18c908c9a49a9",
    "tmu-nlp/TMU-GFM-Dataset": "e22b35502e0fcdbf79bfe2a2bc1771c7ad301786",
    "gotutiyan/attack-gec-metrics": "59cf0b132f24265c5953bb4005e5a94d87ec3308",
    "robertostling/gec-evaluation": "5ac81800f2b1a112c135ef4944f2867bbe3c4e9f",
}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def shared_sums() -> dict[str, str]:
    """SHA-256 of the data files themselves (the record independent of the manifest;
    a folder filled by `gecmetrics download` has no SHA256SUMS)."""
    return {rel: sha256(SHARED / rel) for rel in dl.load_manifest()["files"]}


class Handler(http.server.BaseHTTPRequestHandler):
    """Serves SHARED, with per-path misbehaviour configured on the server object."""

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_GET(self):  # noqa: N802 (http.server API)
        server = self.server
        rel = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path).lstrip("/")
        with server.lock:
            server.requests[rel] += 1
        if server.delay:
            time.sleep(server.delay)
        if server.trickle:
            self._trickle(rel)
            return
        path = SHARED / rel
        if rel in server.missing or not path.is_file():
            self.send_error(404, "Not Found")
            return
        body = path.read_bytes()
        if rel in server.corrupt:
            body = body[:-1] + bytes([body[-1] ^ 0x01])  # same length, one bit flipped
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if rel in server.truncate:
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)  # the server "dies" mid-transfer
            return
        self.wfile.write(body)

    def _trickle(self, rel):
        """`server.trickle`: "body" sends the headers, then one byte of the body (of the
        declared size) every `server.trickle_every` seconds; "silent" sends nothing;
        "stop" sends the headers and then nothing. Until the client gives up."""
        size = dl.load_manifest()["files"][rel]["size"]
        head = (f"HTTP/1.1 200 OK\r\nContent-Length: {size}\r\n"
                "Content-Type: application/octet-stream\r\n\r\n").encode()
        mode = self.server.trickle
        if mode != "silent":
            self.wfile.write(head)
            self.wfile.flush()
        data = b"x" * size if mode == "body" else b""
        if not data:
            self.server.closing.wait()
        try:
            for i in range(len(data)):
                if self.server.closing.wait(self.server.trickle_every):
                    return
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
        except OSError:  # the client gave up
            pass
        finally:
            self.close_connection = True


@pytest.fixture
def server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.requests = Counter()
    srv.lock = threading.Lock()
    srv.corrupt, srv.truncate, srv.missing = set(), set(), set()
    srv.delay = 0.0
    srv.trickle, srv.trickle_every, srv.closing = None, 0.05, threading.Event()
    srv.url = f"http://127.0.0.1:{srv.server_address[1]}"
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield srv
    srv.closing.set()
    srv.shutdown()
    srv.server_close()


def leftovers(root: Path) -> list[Path]:
    """Temporary files of a transfer (pooch's names) anywhere under ``root``."""
    return [p for p in root.rglob("*") if dl.TEMPORARY.fullmatch(p.name)]


# -- the manifest ---------------------------------------------------------------


@needs_shared
def test_manifest_records_every_shared_file_with_its_checksum_and_size():
    manifest = dl.load_manifest()
    sums = shared_sums()
    for rel, info in manifest["files"].items():
        assert info["sha256"] == sums[rel], rel
        assert info["size"] == (SHARED / rel).stat().st_size, rel


@needs_shared
def test_manifest_agrees_with_the_mirror_checksum_lists():
    """Every manifest file is listed, with the same SHA-256, in the mirror's own
    records: SHA256SUMS, or SHA256SUMS.more for the later folders (gec-ranking,
    reassess-gec, TMU-GFM-Dataset)."""
    listed: dict[str, str] = {}
    for name in ("SHA256SUMS", "SHA256SUMS.more"):
        for line in (SHARED / name).read_text().splitlines():
            if line.strip():
                digest, rel = line.split(maxsplit=1)
                listed[rel.removeprefix("./")] = digest
    for rel, info in dl.load_manifest()["files"].items():
        assert listed.get(rel) == info["sha256"], rel


def test_every_address_is_pinned_to_a_commit():
    """raw.githubusercontent.com/OWNER/REPO/COMMIT/PATH, with the commit of the
    repository's pin: a branch name would let upstream move files under us (as
    SEEDA did with its judgments in May 2024)."""
    pattern = re.compile(r"https://raw\.githubusercontent\.com/([^/]+/[^/]+)/([0-9a-f]{40})/(.+)")
    used = set()
    for rel, info in dl.load_manifest()["files"].items():
        match = pattern.fullmatch(info["url"])
        assert match, (rel, info["url"])
        repo, commit, path = match.groups()
        assert PINS[repo] == commit, rel
        used.add(repo)
        if rel.startswith("SEEDA/"):
            assert path == rel.removeprefix("SEEDA/"), rel  # judgments now under data/
    assert used == set(PINS)


def test_every_file_belongs_to_a_benchmark_and_aliases_resolve():
    manifest = dl.load_manifest()
    listed = {p for b in manifest["benchmarks"].values() for p in b["files"]}
    assert listed == set(manifest["files"])
    assert dl.download_names() == ["conll14", "seeda", "gmeg", "tmu-gfm", "sv-gec", "attacks"]
    assert dl.resolve_benchmark("gec-evaluation") == "sv-gec"
    assert dl.resolve_benchmark("SEEDA-S") == "seeda"
    assert dl.resolve_benchmark("seeda-e") == "seeda"
    assert dl.resolve_benchmark("gmeg-wiki") == "gmeg"
    assert dl.resolve_benchmark("gjg15") == "conll14"
    assert dl.resolve_benchmark("attack-gec-metrics") == "attacks"
    # SEEDA's subset takes its references from the CoNLL-2014 M2 file
    assert "conll14st-test-data/noalt/official-2014.combined.m2" in {
        e.path for e in dl.benchmark_files("seeda")
    }
    with pytest.raises(ConfigError, match="unknown benchmark 'bea19'"):
        dl.resolve_benchmark("bea19")


# -- downloading -------------------------------------------------------------------


@needs_shared
@pytest.mark.parametrize("name, files", [
    ("sv-gec", "sv-gec"),
    pytest.param("seeda-s", "seeda", marks=pytest.mark.full),  # 637 files: a few seconds
])
def test_download_fetches_every_file_with_the_right_bytes(server, tmp_path, name, files):
    report = dl.download([name], tmp_path, mirror=server.url, quiet=True)
    sums = shared_sums()
    expected = {e.path for e in dl.benchmark_files(files)}
    assert set(report.fetched) == expected and report.present == []
    for rel in expected:
        assert sha256(tmp_path / rel) == sums[rel], rel
    assert leftovers(tmp_path) == []
    assert report.bytes_fetched == sum((SHARED / r).stat().st_size for r in expected)


@needs_shared
def test_second_run_skips_verified_files_and_refetches_a_corrupt_one(server, tmp_path):
    dl.download(["gmeg"], tmp_path, mirror=server.url, quiet=True)
    first = sum(server.requests.values())
    assert first == len(dl.benchmark_files("gmeg"))
    victim = tmp_path / "GMEG/data/test/wiki/ref0"
    victim.write_bytes(victim.read_bytes().replace(b"e", b"E", 1))  # same size, wrong bytes
    report = dl.download(["gmeg-fce"], tmp_path, mirror=server.url, quiet=True)
    assert report.fetched == report.replaced == ["GMEG/data/test/wiki/ref0"]
    assert len(report.present) == first - 1
    assert sum(server.requests.values()) == first + 1
    assert sha256(victim) == shared_sums()["GMEG/data/test/wiki/ref0"]


@pytest.mark.full
@needs_shared
def test_corrupted_file_is_not_kept_and_a_rerun_resumes(server, tmp_path):
    bad = "official_submissions/CAMB"
    server.corrupt.add(bad)
    with pytest.raises(dl.DownloadError) as info:
        dl.download(["conll14"], tmp_path, mirror=server.url, quiet=True)
    message = str(info.value)
    assert message.startswith(f"checksum mismatch for {bad} from {server.url}/{bad}")
    assert "nothing was kept" in message and "\n" not in message
    assert not (tmp_path / bad).exists()
    assert leftovers(tmp_path) == []
    # files finished before the failure are kept and verified
    assert (tmp_path / "official_submissions/AMU").is_file()
    server.corrupt.clear()
    before = Counter(server.requests)
    report = dl.download(["conll14"], tmp_path, mirror=server.url, quiet=True)
    assert bad in report.fetched and "official_submissions/AMU" in report.present
    assert server.requests["official_submissions/AMU"] == before["official_submissions/AMU"]
    assert dl.missing_files("conll14", tmp_path, verify=True) == []


@needs_shared
def test_server_dying_mid_transfer_leaves_nothing(server, tmp_path):
    bad = "GJG15/judgments.xml"
    server.truncate.add(bad)
    with pytest.raises(dl.DownloadError) as info:
        dl.download(["conll14"], tmp_path, mirror=server.url, quiet=True)
    message = str(info.value)
    assert bad in message and "nothing was kept" in message
    size = (SHARED / bad).stat().st_size
    # either urllib3 notices the short body or our byte count does
    assert f"of {size} bytes" in message or "failed (" in message
    assert not (tmp_path / bad).exists()
    assert leftovers(tmp_path) == []


@needs_shared
def test_404_names_the_url_and_keeps_nothing(server, tmp_path):
    bad = "attack-gec-metrics/experiments/attack_results/conll14-impara.txt"
    server.missing.add(bad)
    with pytest.raises(dl.DownloadError) as info:
        dl.download(["attacks"], tmp_path, mirror=server.url + "/", quiet=True)
    message = str(info.value)
    assert f"HTTP 404 Not Found from {server.url}/{bad}" in message
    assert not (tmp_path / bad).exists() and leftovers(tmp_path) == []


def test_unreachable_server_is_one_line(tmp_path):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(dl.DownloadError, match=r"^cannot reach http://127\.0\.0\.1:\d+/"):
        dl.download(["gmeg"], tmp_path, mirror=f"http://127.0.0.1:{port}", quiet=True,
                    timeout=5)
    assert leftovers(tmp_path) == []


# -- stalls, signals and what a failed run leaves ------------------------------------


def created_anything(base: Path) -> list[Path]:
    return sorted(base.rglob("*")) if base.exists() else []


@pytest.mark.full
@pytest.mark.parametrize("mode", ["body", "silent", "stop"])
def test_stalled_server_is_given_up_within_the_timeout_and_leaves_nothing(server, tmp_path,
                                                                         mode):
    # body: 20 bytes/s, which never trips a read timeout; silent: no headers;
    # stop: the headers, then nothing (requests' read timeout, before and in the body)
    server.trickle = mode
    root = tmp_path / "new" / "data"
    start = time.monotonic()
    with pytest.raises(dl.DownloadError) as info:
        dl.download(["gmeg"], root, mirror=server.url, quiet=True, stall_timeout=1.0,
                    timeout=30)
    elapsed = time.monotonic() - start
    assert 1.0 <= elapsed < 3.0
    message = str(info.value)
    first = dl.benchmark_files("gmeg")[0].path
    assert message.startswith(f"download of {first} from {server.url}/{first} stalled: "
                              "no progress for 1 s")
    assert "--stall-timeout" in message and "\n" not in message
    assert not (tmp_path / "new").exists()  # no data folder, no lock, no .part


@pytest.mark.full
def test_cli_stall_is_one_line_exit_2(server, tmp_path):
    server.trickle = "body"
    done = run_cli("gmeg", "-q", "--stall-timeout", "1", "--data-dir", str(tmp_path / "d"),
                   "--mirror", server.url)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: download of GMEG/")
    assert "stalled: no progress for 1 s" in lines[0]
    assert not (tmp_path / "d").exists()


def test_failed_run_removes_only_what_it_created(server, tmp_path):
    root = tmp_path / "data"
    (root / "GMEG" / "mine").mkdir(parents=True)  # the user's: must stay
    first = dl.benchmark_files("gmeg")[0].path
    server.missing.add(first)
    with pytest.raises(dl.DownloadError, match="HTTP 404"):
        dl.download(["gmeg"], root, mirror=server.url, quiet=True)
    assert created_anything(root) == [root / "GMEG", root / "GMEG" / "mine"]


def test_lock_file_is_gone_after_a_run_and_a_user_one_stays(tmp_path):
    root = tmp_path / "d"
    with dl.data_dir_lock(root):
        assert (root / dl.LOCK_NAME).is_file()
    assert not (root / dl.LOCK_NAME).exists()
    (root / dl.LOCK_NAME).write_text("")  # not made by this run: kept
    with dl.data_dir_lock(root):
        pass
    assert (root / dl.LOCK_NAME).is_file()


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
@pytest.mark.full  # over half a second: the fast tier stays under 90 s
def test_signal_mid_transfer_cleans_up_like_ctrl_c(server, tmp_path, sig, code):
    server.trickle = "body"
    root = tmp_path / "new" / "data"
    parent = (signal.getsignal(signal.SIGINT), signal.pthread_sigmask(signal.SIG_BLOCK, []))
    proc = subprocess.Popen([*GECMETRICS, "download", "gmeg", "-q", "--data-dir", str(root),
                             "--mirror", server.url], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_as_a_terminal_would)
    try:
        deadline = time.monotonic() + 60
        while not leftovers(tmp_path):  # wait until a transfer is under way
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == code, f"{err} (this test process's SIGINT handler, mask: {parent})"
    assert "Traceback" not in err
    assert not (tmp_path / "new").exists()  # no .part, no lock, no empty folders


def _as_a_terminal_would() -> None:
    """The child starts with Ctrl-C and SIGTERM at their defaults and unblocked, as from
    a shell, whatever this test process's own state (a disposition to ignore SIGINT is
    inherited by a child, and Python then keeps it)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


@needs_shared
def test_interrupt_during_transfer_removes_the_temporary_file(server, tmp_path):
    entry = next(e for e in dl.benchmark_files("conll14") if e.path == "GJG15/judgments.xml")

    class Interrupting:
        def update(self, n=1):
            if n > 0:
                raise KeyboardInterrupt

    dest = tmp_path / entry.path
    with pytest.raises(KeyboardInterrupt):
        dl.fetch_file(entry, tmp_path, dl.TransferOptions(mirror=server.url), Interrupting())
    assert server.requests[entry.path] == 1
    assert not dest.exists() and leftovers(tmp_path) == []


@needs_shared
def test_stale_temporary_file_of_a_killed_run_is_removed(server, tmp_path):
    stale = tmp_path / "GMEG/data/dev/fce/tmpab_cd123"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"half a file")
    mine = tmp_path / "GMEG/data/dev/fce/tmp-notes.txt"  # not a name pooch gives: kept
    mine.write_bytes(b"the user's")
    dl.download(["gmeg"], tmp_path, mirror=server.url, quiet=True)
    assert not stale.exists() and leftovers(tmp_path) == []
    assert mine.read_bytes() == b"the user's"


@pytest.mark.full
@needs_shared
def test_file_url_mirror_and_environment_variables(tmp_path, monkeypatch):
    monkeypatch.setenv("GECMETRICS_MIRROR", SHARED.as_uri())
    monkeypatch.setenv("GECMETRICS_DATA", str(tmp_path / "cache"))
    assert dl.resolve_data_dir(None) == tmp_path / "cache"
    report = dl.download(["conll14"], quiet=True)
    assert report.data_dir == tmp_path / "cache"
    assert dl.missing_files("conll14", verify=True) == []


def test_default_data_dir_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.delenv("GECMETRICS_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert dl.resolve_data_dir(None) == tmp_path / "xdg" / "gecmetrics"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert dl.resolve_data_dir(None) == tmp_path / "home" / ".cache" / "gecmetrics"
    assert dl.resolve_data_dir("~/x") == tmp_path / "home" / "x"


def test_mirror_must_be_a_url(tmp_path):
    with pytest.raises(ConfigError, match="not a URL"):
        dl.download(["gmeg"], tmp_path, mirror="some/dir", quiet=True)


# -- concurrency -------------------------------------------------------------------


@pytest.mark.full
@needs_shared
def test_two_concurrent_downloads_fetch_each_file_once(server, tmp_path):
    server.delay = 0.005  # make the two runs overlap
    errors, reports = [], []
    started = threading.Barrier(2)

    def run():
        started.wait()
        try:
            reports.append(dl.download(["seeda"], tmp_path, mirror=server.url, quiet=True))
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    files = {e.path for e in dl.benchmark_files("seeda")}
    # the lock serialises the runs: one fetches everything, the other verifies it
    assert sorted(len(r.fetched) for r in reports) == [0, len(files)]
    assert all(n == 1 for n in server.requests.values()) and set(server.requests) == files
    sums = shared_sums()
    assert all(sha256(tmp_path / rel) == sums[rel] for rel in files)


@pytest.mark.full
@needs_shared
def test_two_concurrent_processes_end_with_correct_files(server, tmp_path):
    server.delay = 0.005
    cmd = [*GECMETRICS, "download", "conll14", "--quiet",
           "--data-dir", str(tmp_path), "--mirror", server.url]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert dl.missing_files("conll14", tmp_path, verify=True) == []
    assert max(server.requests.values()) == 1
    assert leftovers(tmp_path) == []


# -- helpers for other commands ------------------------------------------------------


@needs_shared
def test_missing_files_and_ensure_benchmark_files(tmp_path):
    for name in ("conll14", "seeda-s", "seeda-e", "gmeg-fce", "gmeg-wiki"):
        assert dl.missing_files(name, SHARED) == []
        assert dl.ensure_benchmark_files(name, SHARED) == SHARED
    with pytest.raises(InputError) as info:
        dl.ensure_benchmark_files("seeda-e", tmp_path)
    message = str(info.value)
    first = dl.benchmark_files("seeda")[0].path
    assert f"missing {tmp_path / first} (and 636 more)" in message  # 37 + 600 EditEval files
    assert "run `gecmetrics download seeda` or pass --data-dir" in message


@needs_shared
def test_progress_bar_draws_only_on_a_terminal(server, tmp_path):
    class Stream(io.StringIO):
        def __init__(self, tty):
            super().__init__()
            self.tty = tty

        def isatty(self):
            return self.tty

    for tty, quiet in ((True, False), (False, False), (True, True)):
        stream, root = Stream(tty), tmp_path / f"{tty}-{quiet}"
        dl.download(["tmu-gfm"], root, mirror=server.url, quiet=quiet, progress_stream=stream)
        shown = stream.getvalue()
        if tty and not quiet:  # bytes of the run, the current file, erased at the end
            assert "download tmu-gfm" in shown and "TMU-GFM-Dataset/tmu-gfm-dataset.csv" in shown
            size = dl.benchmark_files("tmu-gfm")[0].size
            assert f"/{size / 1e6:.2f}M" in shown and "\n" not in shown
        else:
            assert shown == ""


def test_file_mirror_without_the_file_cannot_reach_it(tmp_path):
    mirror = (tmp_path / "empty").as_uri()
    with pytest.raises(dl.DownloadError, match=r"^cannot reach file://.*No such file"):
        dl.download(["tmu-gfm"], tmp_path / "d", mirror=mirror, quiet=True)
    assert not (tmp_path / "d").exists()


# -- the command line ------------------------------------------------------------------


def run_cli(*args, env=None):
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([*GECMETRICS, "download", *args],
                          capture_output=True, text=True, env=full_env, timeout=120)


@pytest.mark.full
@needs_shared
def test_cli_download_check_and_errors(server, tmp_path):
    done = run_cli("gmeg", "--data-dir", str(tmp_path), "--mirror", server.url)
    assert done.returncode == 0, done.stderr
    assert "gmeg: 60 downloaded" in done.stdout
    assert done.stderr == ""  # not a terminal: no progress bar
    listed = run_cli("--list", "--data-dir", str(tmp_path))
    assert listed.returncode == 0
    assert listed.stdout.splitlines()[1:] == [
        f"seeda\t637 files\t4.6 MB\t0 present in {tmp_path}",
        f"gmeg\t60 files\t5.9 MB\t60 present in {tmp_path}",
        f"tmu-gfm\t1 file\t1.3 MB\t0 present in {tmp_path}",
        f"sv-gec\t32 files\t1.1 MB\t0 present in {tmp_path}",
        f"attacks\t4 files\t0.5 MB\t0 present in {tmp_path}",
    ]
    check = run_cli("--check", "gmeg", "--data-dir", str(tmp_path))
    assert check.returncode == 0 and "60/60 files verified" in check.stdout
    check = run_cli("--check", "seeda", "--data-dir", str(tmp_path))
    assert check.returncode == 1 and "gecmetrics download seeda" in check.stderr
    server.missing.add("GJG15/judgments.xml")
    failed = run_cli("conll14", "-q", "--data-dir", str(tmp_path),
                     env={"GECMETRICS_MIRROR": server.url})
    assert failed.returncode == 2
    lines = failed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: download of GJG15/judgments.xml")
    unknown = run_cli("nosuch", "--data-dir", str(tmp_path))
    assert unknown.returncode == 2 and "unknown benchmark 'nosuch'" in unknown.stderr


def test_download_error_is_a_user_error():
    assert issubclass(dl.DownloadError, GecMetricsError)


# -- bad limits, read-only folders, full disks (issue 22) -------------------------------


@pytest.mark.parametrize("option, value", [("--timeout", "nan"), ("--timeout", "inf"),
                                           ("--stall-timeout", "nan"),
                                           ("--stall-timeout", "inf"),
                                           ("--timeout", "0.01")])
def test_time_limits_must_be_finite_seconds(tmp_path, option, value):
    """NaN was a ValueError traceback from the socket; infinity waited for ever."""
    from click.testing import CliRunner

    from gecmetrics.interface.cli import main

    root = tmp_path / "d"
    res = CliRunner().invoke(main, ["download", "gmeg", option, value, "--data-dir", str(root),
                                    "--mirror", "http://127.0.0.1:9"])
    assert res.exit_code == 2
    assert res.output.splitlines() == [
        f"error: {option} takes a finite number of seconds >= 0.1 (got {float(value)!r})"]
    assert not root.exists()  # checked before any folder was made
    with pytest.raises(ConfigError, match=option):
        dl.download(["gmeg"], root, mirror="http://127.0.0.1:9", quiet=True,
                    **{option[2:].replace("-", "_"): float(value)})
    assert not root.exists()


def test_read_only_data_folder_is_one_line(tmp_path, monkeypatch):
    """A folder where no file can be made (root ignores permissions, so the refusal
    is simulated where the first file is made: the lock)."""
    real_open = os.open

    def refuse(path, *args, **kwargs):
        if str(path).endswith(dl.LOCK_NAME):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(dl.DownloadError) as err:
        dl.download(["gmeg"], tmp_path, mirror="http://127.0.0.1:9", quiet=True)
    assert str(err.value) == (
        f"cannot write in {tmp_path} (Permission denied); nothing was kept; free space or "
        "fix its permissions, or download elsewhere with --data-dir DIR (or "
        "$GECMETRICS_DATA=DIR)")
    assert list(tmp_path.iterdir()) == []


def test_full_disk_during_a_transfer_is_one_line_and_keeps_nothing(tmp_path, monkeypatch):
    first = dl.benchmark_files("gmeg")[0]
    mirror = tmp_path / "mirror"
    (mirror / first.path).parent.mkdir(parents=True)
    (mirror / first.path).write_bytes(b"x" * 200_000)

    class Full:
        """A destination file that takes 64 KiB, then finds the disk full."""

        def __init__(self, path, mode="r", *args, **kwargs):
            self.file = open(path, mode, *args, **kwargs)  # noqa: SIM115
            self.name, self.mode = self.file.name, mode

        def write(self, data):
            if "w" in self.mode and self.file.tell() + len(data) > 65536:
                raise OSError(28, "No space left on device")
            return self.file.write(data)

        def read(self, *args):
            return self.file.read(*args)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

    monkeypatch.setattr(dl, "open", Full, raising=False)
    root = tmp_path / "data"
    with pytest.raises(dl.DownloadError) as err:
        dl.download(["gmeg"], root, mirror=mirror.as_uri(), quiet=True)
    folder = (root / first.path).parent
    assert str(err.value).startswith(f"cannot write in {folder} (No space left on device); "
                                     "nothing was kept;")
    assert "--data-dir DIR" in str(err.value) and "\n" not in str(err.value)
    assert not root.exists() or [p for p in root.rglob("*") if p.is_file()] == []
