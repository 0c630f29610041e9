"""Memory and speed of n-gram metrics on large corpora (the "Scale" issue).

Run from the repository root (with the project installed), capped and niced::

    prlimit --as=8000000000 nice -n 10 python bench/bench_scale.py [--quick] [--today]

It builds the corpora under /tmp (CoNLL-2014: source, the two annotators'
references and the 12 system outputs, repeated to 200,000 and 2,000,000
lines), runs every case as its own ``gecmetrics score`` process and reads
that process' peak resident memory from ``os.wait4``. Cases:

* ``four``: word GREEN + char GREEN + GLEU + chrF, 200,000 lines, 2 references,
  2 systems, corpus level; as one chunk and one process (the path of the
  unchunked design: the baseline measured in the same run), chunked with
  ``--jobs 1``, and chunked with ``--jobs 2``;
* ``green2`` / ``green6``: word GREEN with 2 and 6 systems (memory per system);
* ``stream``: sentence-level word GREEN, 2,000,000 lines, JSON and TSV written
  to a file as chunks finish.

``--today --exe OTHER/bin/gecmetrics`` runs the same commands without the
options this work added (``--jobs``, ``--chunk-size``) with the script of a
checkout from before it (the editable install of this one reads the working
tree, so measure the old code from its own copy). Every
run's scores are compared with the baseline's: they must be identical.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

import harness

TEAMS = list(harness.TEAMS)
BASELINE = "four, one chunk, --jobs 1 (baseline)"
WORK = Path("/tmp/gecmetrics_bench_scale")
FOUR = ["-m", "green", "-m", "green:tokenize=char", "-m", "gleu", "-m", "chrf"]


def write_repeated(path: Path, lines: list[str], total: int) -> None:
    """``lines`` repeated to ``total`` lines (written once; reused by later runs)."""
    if path.exists():
        return
    block = "\n".join(lines) + "\n"
    whole, rest = divmod(total, len(lines))
    tmp = path.with_suffix(".part")
    with open(tmp, "w", encoding="utf-8") as out:
        for _ in range(whole):
            out.write(block)
        if rest:
            out.write("\n".join(lines[:rest]) + "\n")
    tmp.rename(path)


def build(total: int, teams: list[str] = TEAMS) -> dict[str, Path]:
    """Source, ref0, ref1 and the 12 outputs, each ``total`` lines, under WORK/<total>.

    Written by a child process: ``ru_maxrss`` survives ``exec``, so this process
    stays small for the cases it forks to report their own peak.
    """
    folder = WORK / str(total)
    names = ["source", "ref0", "ref1", *teams]
    if not all((folder / name).exists() for name in names):
        import subprocess

        subprocess.run([sys.executable, __file__, "--build", str(total), *teams], check=True)
    return {name: folder / name for name in names}


def write_corpus(total: int, teams: list[str]) -> None:
    from gecmetrics.m2_format import read_m2
    from gecmetrics.readers import read_lines

    folder = WORK / str(total)
    folder.mkdir(parents=True, exist_ok=True)
    data = harness.shared_data()
    m2 = read_m2(data / harness.CONLL_M2)
    files = {"source": m2.sources}
    for k, ref in enumerate(m2.references()):
        files[f"ref{k}"] = ref
    for team in teams:
        files[team] = read_lines(data / harness.SUBMISSIONS / team)
    for name, lines in files.items():
        write_repeated(folder / name, lines, total)


def run(args: list[str], output: Path) -> harness.Child:
    """Run ``args`` writing stdout to ``output``; its wall and CPU seconds and peak RSS.

    CPU seconds are user + system of the process and of the workers it waited
    for (``os.wait4``); unlike wall time, load on a shared machine inflates
    them only a little."""
    child = harness.run_child(args, output)
    if child.code != 0:
        raise SystemExit(f"failed ({child.code}): {' '.join(args)}")
    return child


def digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:12]


def main() -> None:
    parser = harness.parser(__doc__, data=None)
    parser.add_argument("--quick", action="store_true",
                        help="skip the 2,000,000-line case and the single-metric cases")
    parser.add_argument("--today", action="store_true",
                        help="no --jobs/--chunk-size options (a checkout before this work)")
    parser.add_argument("--only", default="", help="comma-separated case names to run")
    parser.add_argument("--exe", default=str(Path(sys.executable).with_name("gecmetrics")),
                        help="the gecmetrics script to run (e.g. of a checkout before this work)")
    parser.add_argument("--build", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("teams", nargs="*", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.build:
        write_corpus(opts.build, opts.teams)
        return
    exe = opts.exe
    small = build(200_000)

    def score(files: dict[str, Path], specs: list[str], systems: list[str], *extra: str):
        return [exe, "score", *specs, "-s", str(files["source"]),
                "-r", str(files["ref0"]), str(files["ref1"]),
                "-c", *(str(files[s]) for s in systems), *extra]

    new = (lambda *a: list(a)) if not opts.today else (lambda *a: [])
    two, six = TEAMS[:2], TEAMS[:6]
    cases: dict[str, list[str]] = {
        BASELINE: score(
            small, FOUR, two, "--format", "json", *new("--chunk-size", "0", "--jobs", "1")),
        "four, chunked, --jobs 1": score(small, FOUR, two, "--format", "json",
                                         *new("--jobs", "1")),
        "four, chunked, --jobs 2": score(small, FOUR, two, "--format", "json",
                                         *new("--jobs", "2")),
    }
    if not opts.quick:
        for name, spec in (("word GREEN", "green"), ("char GREEN", "green:tokenize=char"),
                           ("GLEU", "gleu"), ("chrF", "chrf")):
            cases[f"{name}, --jobs 1"] = score(small, ["-m", spec], two, "--format", "json",
                                               *new("--jobs", "1"))
        cases["green2, --jobs 1"] = score(small, ["-m", "green"], two, "--format", "json",
                                          *new("--jobs", "1"))
        cases["green6, --jobs 1"] = score(small, ["-m", "green"], six, "--format", "json",
                                          *new("--jobs", "1"))
        big = build(2_000_000, ["AMU"])
        cases["stream 2M sentence word GREEN tsv, --jobs 1"] = score(
            big, ["-m", "green"], ["AMU"], "--level", "sentence", "--format", "tsv",
            *new("--jobs", "1"))
        cases["stream 2M sentence word GREEN tsv, --jobs 2"] = score(
            big, ["-m", "green"], ["AMU"], "--level", "sentence", "--format", "tsv",
            *new("--jobs", "2"))
    if opts.only:
        wanted = opts.only.split(",")
        cases = {k: v for k, v in cases.items() if any(w in k for w in wanted)}
    results: dict[str, tuple[harness.Child, str]] = {}
    table = harness.Table("output", width=48, cpu=True)
    for name, args in cases.items():
        out = WORK / ("out_" + hashlib.md5(name.encode()).hexdigest()[:8])
        child = run(args, out)
        sha = digest(out)
        results[name] = (child, sha)
        if name == BASELINE:
            table.baseline(name, child, sha)
        elif name.startswith("four") and BASELINE in results:
            base, base_sha = results[BASELINE]
            table.row(name, child, sha, f"memory x{base.peak / child.peak:.2f} less, "
                                        f"same output: {sha == base_sha}")
        else:
            table.alone(name, child, sha)
    print()
    one, two_jobs = results.get("four, chunked, --jobs 1"), results.get("four, chunked, --jobs 2")
    if one and two_jobs:
        print(f"--jobs 2 vs --jobs 1 (wall clock): x{one[0].seconds / two_jobs[0].seconds:.2f} "
              f"faster, same output: {one[1] == two_jobs[1]}")
    if "green2, --jobs 1" in results and "green6, --jobs 1" in results:
        per = (results["green6, --jobs 1"][0].peak - results["green2, --jobs 1"][0].peak) * 2**20
        print(f"word GREEN memory per additional system: {per / 4 / 200_000:.0f} B/sentence")
    sentence = [k for k in results if k.startswith("stream")]
    if len(sentence) == 2:
        same = results[sentence[0]][1] == results[sentence[1]][1]
        print(f"stream: same output with --jobs 1 and --jobs 2: {same}")
    print(f"cores: {os.cpu_count()}; load average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
