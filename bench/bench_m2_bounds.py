"""Time and peak memory of the M2 lattice on the inputs that used to exhaust memory.

Run from the repository root:  python bench/bench_m2_bounds.py [--quick]

Cases: one sentence of N distinct tokens rewritten into N other distinct tokens
(N = 100, 200, 300, 1000: the lattice is the full (N+1) x (N+1) grid), one
near-identical 10,000-token sentence (two tokens changed), and the 13 CoNLL-2014
outputs as a speed baseline (../shared/data or $GECMETRICS_SHARED_DATA).

Every case runs in its own subprocess, for both implementations: ``new`` (this
checkout) and ``old`` (the code before bounded memory: tests/m2_lattice_old.py
with its compiled kernel built from git commit d1984ac by pyximport, or its
pure-Python path if that fails). The old one runs under an address-space cap
(RLIMIT_AS, 4 GB) and a CPU-time limit (RLIMIT_CPU); "over cap" means it was stopped. Peak
memory is the child's own ru_maxrss (os.wait4), so a killed run is measured too.
``--quick`` leaves out the 1,000-token case and the CoNLL-2014 run of the old code.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OLD_COMMIT = "d1984ac"
CAP_BYTES = 4_000_000_000
TIME_LIMIT_S = 120
SYSTEMS = "AMU CAMB CUUI IITB INPUT IPN NTHU PKU POST RAC SJTU UFC UMC".split()


def shared_data() -> Path:
    env = os.environ.get("GECMETRICS_SHARED_DATA")
    return Path(env) if env else ROOT / ".." / "shared" / "data"


# ---------------------------------------------------------------- child side

def _old_module():
    """tests/m2_lattice_old.py with the old compiled kernel when it can be built here."""
    sys.path.insert(0, str(ROOT / "tests"))
    import m2_lattice_old as old

    build = Path(os.environ.get("TMPDIR", "/tmp")) / f"gecm_old_m2_kernel_{OLD_COMMIT}"
    build.mkdir(exist_ok=True)
    pyx = build / "_m2_kernel_old.pyx"
    try:
        if not pyx.exists():
            text = subprocess.run(["git", "-C", str(ROOT), "show",
                                   f"{OLD_COMMIT}:metrics/_m2_kernel.pyx"],
                                  check=True, capture_output=True, text=True).stdout
            pyx.write_text(text)
        import pyximport
        pyximport.install(build_dir=str(build / "build"), language_level=3)
        sys.path.insert(0, str(build))
        import _m2_kernel_old
        old._Closure = _m2_kernel_old.Closure
        old.HAVE_KERNEL = True
    except Exception as exc:  # noqa: BLE001 - the baseline then runs in pure Python
        print(f"old compiled kernel unavailable ({exc}); old = pure Python", file=sys.stderr)
    return old


def rewritten(n: int):
    return [f"s{i}" for i in range(n)], [f"h{i}" for i in range(n)]


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
    from gecmetrics.metrics import m2_lattice

    lat_module: Any = _old_module() if impl == "old" else m2_lattice
    t0 = time.perf_counter()
    result: dict[str, Any]
    if case == "conll":
        from gecmetrics.corpus import Corpus
        from gecmetrics.m2 import read_m2
        from gecmetrics.metrics import m2 as m2_metric
        from gecmetrics.readers import read_lines
        data = shared_data()
        gold = read_m2(data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2")
        hyps = {s: read_lines(data / "official_submissions" / s) for s in SYSTEMS}
        corpus = Corpus(gold.sources, gold.references(), hyps, m2=gold)
        if impl == "old":  # the old module's per-annotator calls, as metrics/m2.py made them
            def old_sentence(src, hyp, golds, mu, iwc, _max):
                if src == hyp:
                    return {a: (0, 0, len(g)) for a, g in golds.items()}
                lat = lat_module.build_lattice(src, hyp, mu)
                return {a: lat_module.sentence_counts(lat, g, iwc) for a, g in golds.items()}
            m2_metric._sentence = old_sentence
        t0 = time.perf_counter()
        ec = m2_metric.m2_counts(corpus)
        result = {"tp": int(ec.tp.sum()), "fp": int(ec.fp.sum()), "fn": int(ec.fn.sum())}
    else:
        kind, n = case.split(":")
        src, hyp = rewritten(int(n)) if kind == "rewritten" else near_identical(int(n))
        golds = _gold(lat_module, src, hyp)
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
        if impl == "old":
            resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))
            resource.setrlimit(resource.RLIMIT_CPU, (TIME_LIMIT_S, TIME_LIMIT_S))

    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, __file__, "--child", impl, case],
                                stdout=out, stderr=err, preexec_fn=limits)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    r: dict[str, Any] = {"wall": wall, "rss_mb": usage.ru_maxrss / 1024}
    if proc.returncode != 0:
        if proc.returncode == -signal.SIGXCPU:
            r["status"] = f"over {TIME_LIMIT_S} s CPU"
        elif "MemoryError" in stderr or proc.returncode < 0:
            r["status"] = f"over cap (rc {proc.returncode})"
        else:
            r["status"] = f"failed (rc {proc.returncode})"
        r["out"] = {"error": (stderr.strip().splitlines() or [""])[-1]}
        return r
    r["out"] = json.loads(stdout.strip().splitlines()[-1])
    r["status"] = "error (budget)" if "error" in r["out"] else "ok"
    return r


def fmt(r: dict) -> str:
    wall = f"{r['wall']:.2f} s" if r.get("wall") is not None else "-"
    rss = f"{r['rss_mb']:.0f} MB"
    return f"{r['status']:<22s} {wall:>9s} {rss:>12s}"


def main() -> None:
    quick = "--quick" in sys.argv
    cases = ["rewritten:100", "rewritten:200", "rewritten:300"]
    if not quick:
        cases.append("rewritten:1000")
    cases.append("near:10000")
    have_data = (shared_data() / "official_submissions").is_dir()
    if have_data:
        cases.append("conll")
    print(f"{'case':<16s} {'impl':<4s} {'status':<22s} {'wall':>9s} {'peak RSS':>12s}  detail")
    results = {}
    for impl in ("new", "old"):
        for case in cases:
            if impl == "old" and quick and case == "conll":
                continue
            r = run(impl, case)
            results[(impl, case)] = r
            out = r.get("out", {})
            detail = out.get("error") or {k: out[k] for k in out if k != "time"}
            print(f"{case:<16s} {impl:<4s} {fmt(r)}  {str(detail)[:150]}", flush=True)
    print("\nratios old / new (wall time), where both finished:")
    for case in cases:
        new, old = results.get(("new", case)), results.get(("old", case))
        if not new or not old:
            continue
        if new["status"] == old["status"] == "ok":
            same = new["out"].get("counts", new["out"].get("tp")) == old["out"].get(
                "counts", old["out"].get("tp"))
            print(f"  {case:<16s} {old['wall'] / new['wall']:6.2f}x  "
                  f"(same counts: {same})")
        else:
            print(f"  {case:<16s} old {old['status']}, new {new['status']}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        main()
