"""Time and peak memory of the M2 lattice on the inputs that used to exhaust memory or time.

Run from the repository root:  python bench/bench_m2_bounds.py [--quick]

Cases: one sentence of N distinct tokens rewritten into N other distinct tokens
(N = 100, 200, 300, 1000: the lattice is the full (N+1) x (N+1) grid, about
(N(N+1)/2)^2 edges), with two annotators (a gold substitution every 7 tokens and
an insertion every 11; none); the same at 1,000 tokens with one annotator whose
143 gold edits are all substitutions (``subs:1000``, the case that used to run
past 100 s); N tokens rewritten except K kept at evenly spaced positions
(``shared1:300``, ``shared3:300``, ``shared1:1000``: the general path, over the
budget); one near-identical 10,000-token sentence (two tokens
changed), and the 13 CoNLL-2014 outputs scored by the whole command
(``gecmetrics score -m m2 --m2 ... -c <13 outputs>``, from process start to
exit; ../shared/data or $GECMETRICS_SHARED_DATA).

Every case runs in its own subprocess, for three implementations, in the same run:

- ``new``: this checkout (pairs with no common token on the implicit grid);
- ``main``: the code at the start of this work (commit c8daf87: the implicit grid
  up to 800 x 800 tokens, ties scanned vertex by vertex; other pairs counted
  against the 3 x 10^7 edge budget), its m2_lattice.py and compiled kernel taken
  from git and built by pyximport;
- ``old``: the code before bounded memory (tests/m2_lattice_old.py with the
  compiled kernel of commit d1984ac, or its pure-Python path if that fails).

``main`` and ``old`` run under an address-space cap (RLIMIT_AS, 4 GB) and a
CPU-time limit (RLIMIT_CPU); "over cap" means it was stopped. Peak memory is
the child's own ru_maxrss (os.wait4), so a killed run is measured too; CPU is
the child's user + system time, the better measure on a shared machine.
``old`` runs the 100-token, near-identical and CoNLL-2014 cases only (on 200 and
300 tokens it is stopped by the cap, see docs/metrics/m2.md). ``--quick`` leaves
out the 1,000-token cases and runs ``old`` on 100 tokens only.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import harness

OLD_COMMIT = "d1984ac"
MAIN_COMMIT = "c8daf87"
CAP_BYTES = 4_000_000_000
TIME_LIMIT_S = 120


# ---------------------------------------------------------------- child side

def _old_module():
    """tests/m2_lattice_old.py with the old compiled kernel when it can be built here."""
    sys.path.insert(0, str(harness.ROOT / "tests"))
    import m2_lattice_old as old

    build = Path(os.environ.get("TMPDIR", "/tmp")) / f"gecm_old_m2_kernel_{OLD_COMMIT}"
    build.mkdir(exist_ok=True)
    pyx = build / "_m2_kernel_old.pyx"
    try:
        if not pyx.exists():
            text = subprocess.run(["git", "-C", str(harness.ROOT), "show",
                                   f"{OLD_COMMIT}:metrics/_m2_kernel.pyx"],
                                  check=True, capture_output=True, text=True).stdout
            pyx.write_text(text)
        _m2_kernel_old = _built(build, "_m2_kernel_old")
        old._Closure = _m2_kernel_old.Closure
        old.HAVE_KERNEL = True
    except Exception as exc:  # noqa: BLE001 - the baseline then runs in pure Python
        print(f"old compiled kernel unavailable ({exc}); old = pure Python", file=sys.stderr)
    return old


def _built(build: Path, name: str):
    """Module ``name`` compiled from ``build/name.pyx`` by pyximport once, then imported as
    a plain extension, so that timed runs do not import Cython (about 1 s and 40 MB)."""
    import importlib

    found = sorted((build / "build").rglob(f"{name}.*.so"))
    if not found:
        import pyximport
        pyximport.install(build_dir=str(build / "build"), language_level=3)
        sys.path.insert(0, str(build))
        return importlib.import_module(name)
    sys.path.insert(0, str(found[0].parent))
    return importlib.import_module(name)


def _main_module():
    """metrics/m2_lattice.py and its kernel as of MAIN_COMMIT, as gecmetrics.metrics.m2_lattice."""
    build = Path(os.environ.get("TMPDIR", "/tmp")) / f"gecm_main_m2_{MAIN_COMMIT}"
    build.mkdir(exist_ok=True)
    for name, path in (("_m2_kernel_main.pyx", "metrics/_m2_kernel.pyx"),
                       ("m2_lattice_main.py", "metrics/m2_lattice.py")):
        if not (build / name).exists():
            text = subprocess.run(["git", "-C", str(harness.ROOT), "show",
                                   f"{MAIN_COMMIT}:{path}"],
                                  check=True, capture_output=True, text=True).stdout
            text = text.replace("from ._m2_kernel import", "from _m2_kernel_main import")
            (build / name).write_text(text)
    _built(build, "_m2_kernel_main")
    sys.path.insert(0, str(build))
    import m2_lattice_main

    assert m2_lattice_main.HAVE_KERNEL, "the kernel of the main commit did not build"
    sys.modules["gecmetrics.metrics.m2_lattice"] = m2_lattice_main
    return m2_lattice_main


def rewritten(n: int):
    return [f"s{i}" for i in range(n)], [f"h{i}" for i in range(n)]


def shared(n: int, k: int):
    """N tokens rewritten except k kept ones, at evenly spaced positions."""
    src, hyp = rewritten(n)
    for x in range(1, k + 1):
        hyp[x * n // (k + 1)] = src[x * n // (k + 1)]
    return src, hyp


def near_identical(n: int):
    src = [f"w{i % 5000}" for i in range(n)]
    hyp = list(src)
    hyp[n // 3] = "CHANGED"
    del hyp[2 * n // 3]
    return src, hyp


def _gold(lat_module, src, hyp):
    """Two annotators: a substitution every 7 tokens and an insertion every 11; none."""
    G = lat_module.GoldEdit
    edits = [G(i, i + 1, src[i], (hyp[i] if i < len(hyp) else "x",))
             for i in range(0, len(src), 7)]
    edits += [G(i, i, "", (hyp[i] if i < len(hyp) else "y",)) for i in range(3, len(src), 11)]
    edits.sort(key=lambda e: (e.start, e.end))
    return [edits, []]


def child(impl: str, case: str) -> None:
    from gecmetrics.errors import GecMetricsError

    lat_module: Any
    if impl == "old":
        lat_module = _old_module()
    elif impl == "main":
        lat_module = _main_module()
    else:
        from gecmetrics.metrics import m2_lattice as lat_module
    t0 = time.perf_counter()
    result: dict[str, Any]
    if case == "build":
        result = {}
    elif case == "conll":
        # the whole command, as a user runs it (imports, reading, scoring, output)
        import contextlib
        import io

        from gecmetrics.interface.cli import main as cli_main
        from gecmetrics.metrics import m2 as m2_metric
        if impl != "old":
            assert m2_metric.build_lattice.__module__ == lat_module.__name__
        if impl == "old":  # the old module's per-annotator calls, as metrics/m2.py made them
            def old_sentence(src, hyp, golds, mu, iwc, _max):
                if src == hyp:
                    return {a: (0, 0, len(g)) for a, g in golds.items()}
                lat = lat_module.build_lattice(src, hyp, mu)
                return {a: lat_module.sentence_counts(lat, g, iwc) for a, g in golds.items()}
            m2_metric._sentence = old_sentence
        data = harness.shared_data()
        args = ["score", "-m", "m2", "--format", "json",
                "-s", str(data / harness.SUBMISSIONS / "INPUT"),
                "--m2", str(data / harness.CONLL_M2),
                "-c", *[str(data / harness.SUBMISSIONS / s) for s in harness.OUTPUTS]]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                cli_main(args)
            except SystemExit as exc:
                if exc.code:
                    raise
        rows = json.loads(out.getvalue())
        result = {"F0.5": [round(r["score"], 6) for r in rows]}
    else:
        kind, n = case.split(":")
        if kind in ("rewritten", "subs"):
            src, hyp = rewritten(int(n))
        elif kind.startswith("shared"):
            src, hyp = shared(int(n), int(kind[6:]))
        else:
            src, hyp = near_identical(int(n))
        golds = _gold(lat_module, src, hyp)
        if kind == "subs":  # one annotator, its gold substitutions only
            golds = [[g for g in golds[0] if g.start < g.end]]
        try:
            lat = lat_module.build_lattice(src, hyp)
            counts = [lat_module.sentence_counts(lat, g) for g in golds]
            result = {"counts": counts, "vertices": len(lat.vertices), "edges": lat.num_arcs,
                      "E": lat.num_edges}
        except GecMetricsError as exc:  # over the documented budget
            result = {"error": f"{type(exc).__name__}: {exc}"}
    result["time"] = time.perf_counter() - t0
    print(json.dumps(result))


# ---------------------------------------------------------------- parent side

def run(impl: str, case: str) -> dict:
    """One case in a subprocess; its own peak RSS from os.wait4 (ru_maxrss, KB on Linux)."""
    def limits():
        if impl != "new":
            resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))
            resource.setrlimit(resource.RLIMIT_CPU, (TIME_LIMIT_S, TIME_LIMIT_S))

    child = harness.run_child([sys.executable, __file__, "--child", impl, case], limits=limits)
    r: dict[str, Any] = {"wall": child.seconds, "cpu": child.cpu, "rss_mb": child.peak}
    if child.code != 0:
        if child.code == -signal.SIGXCPU:
            r["status"] = f"over {TIME_LIMIT_S} s CPU"
        elif "MemoryError" in child.stderr or (child.code or 0) < 0:
            r["status"] = f"over cap (rc {child.code})"
        else:
            r["status"] = f"failed (rc {child.code})"
        r["out"] = {"error": (child.stderr.strip().splitlines() or [""])[-1]}
        return r
    r["out"] = json.loads(child.stdout.strip().splitlines()[-1])
    r["status"] = "error (budget)" if "error" in r["out"] else "ok"
    return r


def fmt(r: dict) -> str:
    return (f"{r['status']:<16s} {r['wall']:>8.2f} s {r['cpu']:>8.2f} s "
            f"{r['rss_mb']:>8.0f} MB")


def same(a: dict, b: dict) -> bool:
    keys = ("counts", "F0.5", "E")
    return all(a["out"].get(k) == b["out"].get(k) for k in keys)


def main() -> None:
    ap = harness.parser(__doc__, data=None)
    ap.add_argument("--quick", action="store_true",
                    help="no 1,000-token cases; old on 100 tokens only")
    quick = ap.parse_args().quick
    cases = ["rewritten:100", "rewritten:200", "rewritten:300"]
    if not quick:
        cases += ["rewritten:1000", "subs:1000"]
    cases += ["shared1:300", "shared3:300"]
    if not quick:
        cases.append("shared1:1000")
    cases.append("near:10000")
    have_data = (harness.data_folder() / harness.SUBMISSIONS).is_dir()
    if have_data:
        cases.append("conll")
    plan = {"new": cases, "main": cases,
            "old": ["rewritten:100"] if quick else [c for c in cases if c in (
                "rewritten:100", "near:10000", "conll")]}
    for impl in plan:  # build the kernels of main and old outside the timings
        run(impl, "build")
    print(f"{'case':<15s} {'impl':<5s} {'status':<16s} {'wall':>10s} {'cpu':>10s} "
          f"{'peak RSS':>11s}  detail")
    results = {}
    for case in cases:
        for impl in ("new", "main", "old"):
            if case not in plan[impl]:
                continue
            r = run(impl, case)
            results[(impl, case)] = r
            out = r.get("out", {})
            detail = out.get("error") or {k: out[k] for k in out if k not in ("time", "F0.5")}
            print(f"{case:<15s} {impl:<5s} {fmt(r)}  {str(detail)[:140]}", flush=True)
    print("\nratios base / new (wall time; cpu time), where both finished:")
    for case in cases:
        new = results[("new", case)]
        for base in ("main", "old"):
            b = results.get((base, case))
            if not b:
                continue
            if new["status"] == b["status"] == "ok":
                print(f"  {case:<15s} {base:<5s} {b['wall'] / new['wall']:7.2f}x; "
                      f"{b['cpu'] / max(new['cpu'], 1e-9):7.2f}x  (same results: {same(new, b)})")
            else:
                print(f"  {case:<15s} {base:<5s} {base} {b['status']}, new {new['status']}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        main()
