"""Benchmark: memory bounds of GLEU sampling and ERRANT, before and after.

Each case runs in its own child process under an address-space limit
(``--cap``, default 4 GB), once with this checkout and once with a baseline
revision of gecmetrics (``--baseline REV``: exported with ``git archive`` and
installed into a temporary virtual environment), and the script prints wall
time and peak RSS (the child's ``ru_maxrss``) of both, with their ratios:

* GLEU, word level, sampling mode, on CoNLL-2014 (13 outputs: 12 teams and
  INPUT) for each ``--iterations``; the scores of both runs must be equal to
  the bit, and the table says so;
* ERRANT (``gecmetrics score -m errant``) on a generated 5 MB line and on a
  100,000-token line (the sources' second line).

A run that hits the limit is reported as "over cap" (MemoryError), one past
``--timeout`` as "timeout".

    python bench/bench_gleu_bounds.py --baseline d1984ac
    python bench/bench_gleu_bounds.py --baseline d1984ac --seed 1 --iterations 500 200000
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import harness

GLEU_CASE = textwrap.dedent("""
    import json, sys, time
    from gecmetrics.corpus import Corpus
    from gecmetrics.m2_format import read_m2
    from gecmetrics.metrics.gleu import Gleu
    m2_path, subs, iterations, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    teams = sys.argv[5].split(",")
    m2 = read_m2(m2_path)
    hyps = {t: open(f"{subs}/{t}", encoding="utf-8").read().splitlines() for t in teams}
    hyps["INPUT"] = list(m2.sources)
    corpus = Corpus(m2.sources, m2.references(), hyps)
    seed = seed if seed == "official" else int(seed)
    start = time.perf_counter()
    scores = Gleu(iterations=iterations, seed=seed).statistics(corpus).corpus()
    print(json.dumps({"seconds": time.perf_counter() - start,
                      "scores": [s.score.hex() for s in scores]}))
""")


CLI = "import sys; from gecmetrics.interface.cli import run; sys.exit(run())"


def build_baseline(rev: str, where: Path) -> str:
    """Install gecmetrics at ``rev`` into a virtual environment; its Python."""
    src = where / "src"
    src.mkdir()
    archive = subprocess.run(["git", "-C", str(harness.ROOT), "archive", rev], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps",
                    str(src)], check=True, cwd=where)
    return python


def run_capped(argv: list[str], cap: int, timeout: float, cwd: Path) -> dict:
    """Run ``argv`` under RLIMIT_AS = cap: wall seconds, peak RSS (MB), outcome.

    ``cwd`` must not be the repository root, whose ``gecmetrics/`` folder would
    shadow the baseline's installed package."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    child = harness.run_child(argv, cwd=cwd, limits=limit, timeout=timeout)
    stderr = child.stderr
    if child.code is None:
        outcome = "timeout"
    elif "MemoryError" in stderr or "Cannot allocate memory" in stderr or "bad_alloc" in stderr:
        outcome = "over cap"
    elif child.code == 0:
        outcome = "ok"
    else:
        last = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit {child.code}"
        outcome = f"exit {child.code}: {last[:90]}"
    return {"wall": child.seconds, "peak_mb": child.peak, "outcome": outcome,
            "stdout": child.stdout}


def long_line_files(where: Path) -> dict[str, list[str]]:
    """The ERRANT inputs: a 5 MB line and a 100,000-token line, each as source line 2."""
    cases = {}
    for name, line in (("5 MB line", " ".join(["word"] * 1_000_000)),
                       ("100k-token line", " ".join(["wrd"] * 100_000))):
        src = where / f"{name.replace(' ', '_')}.src"
        hyp = where / f"{name.replace(' ', '_')}.hyp"
        src.write_text("A short line .\n" + line + "\n")
        first, rest = line.split(" ", 1)  # one edit, so that ERRANT has to align the pair
        hyp.write_text("A short line .\n" + first + "s " + rest + "\n")
        cases[f"ERRANT, {name}"] = ["-c", CLI, "score", "-m", "errant", "-s", str(src),
                                    "-r", str(src), "-c", str(hyp)]
    return cases


def cell(res: dict | None) -> tuple[str, str]:
    if res is None:
        return "-", "-"
    if res["outcome"].startswith("exit 2"):  # gecmetrics' one-line error
        return f"{res['wall']:.2f} s (error, exit 2)", f"{res['peak_mb']:.0f} MB"
    if res["outcome"] != "ok":
        return f"{res['outcome']} ({res['wall']:.1f} s)", f"{res['peak_mb']:.0f} MB"
    return f"{res['wall']:.2f} s", f"{res['peak_mb']:.0f} MB"


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--baseline", help="git revision to compare with (omit: this code only)")
    parser.add_argument("--baseline-python",
                        help="a Python with the baseline gecmetrics installed (no build)")
    parser.add_argument("--cap", type=int, default=4_000_000_000, help="RLIMIT_AS per run")
    parser.add_argument("--iterations", type=int, nargs="*", default=[500, 5000, 50000, 200000])
    parser.add_argument("--seed", default="official")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--no-errant", action="store_true")
    args = parser.parse_args()
    data = harness.shared_data(args.data_dir)
    subs = data / harness.SUBMISSIONS
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        pythons = {"after": sys.executable}
        if args.baseline_python:
            pythons["before"] = args.baseline_python
        elif args.baseline:
            pythons["before"] = build_baseline(args.baseline, tmp_path)
        cases = {f"GLEU sampling, {n:,} iterations, seed {args.seed}":
                 ["-c", GLEU_CASE, str(data / harness.CONLL_M2), str(subs), str(n), args.seed,
                  ",".join(harness.TEAMS)]
                 for n in args.iterations}
        if not args.no_errant:
            cases.update(long_line_files(tmp_path))
        rows = []
        for name, argv in cases.items():
            results = {}
            for label, python in pythons.items():
                res = run_capped([python, *argv], args.cap, args.timeout, tmp_path)
                results[label] = res
                print(f"{name} [{label}]: {res['outcome']}, {res['wall']:.2f} s, "
                      f"{res['peak_mb']:.0f} MB", file=sys.stderr)
            rows.append((name, results))
    before = args.baseline or args.baseline_python or "-"
    print(f"\ncap {args.cap / 1e9:.1f} GB (RLIMIT_AS); before = {before}; "
          "peak = child's max RSS\n")
    print("| case | before: time | before: peak | after: time | after: peak | "
          "time ratio | memory ratio | same scores |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, results in rows:
        before, after = results.get("before"), results["after"]
        bt, bm = cell(before)
        at, am = cell(after)
        both_ok = before is not None and before["outcome"] == after["outcome"] == "ok"
        tr = f"{before['wall'] / after['wall']:.2f}x" if both_ok else "-"
        mr = f"{before['peak_mb'] / after['peak_mb']:.1f}x" if both_ok else "-"
        same = "-"
        if both_ok and name.startswith("GLEU"):
            same = "yes" if (json.loads(before["stdout"])["scores"]
                             == json.loads(after["stdout"])["scores"]) else "NO"
        print(f"| {name} | {bt} | {bm} | {at} | {am} | {tr} | {mr} | {same} |")


if __name__ == "__main__":
    main()
