"""Speed of corpus GREEN on CoNLL-2014: 13 outputs, 2 references, word and char.

Run from the repository root (with the project installed)::

    python bench/bench_green.py [--repeat 3]

It times whole `gecmetrics score` processes (start-up, reading, counting,
scoring, JSON output), once with beta 2 and once with the 501 betas
0.00, 0.01, ..., 5.00, and prints the ratio of the two; it also times the
same one-beta run with the pure-Python kernel (GECMETRICS_KERNEL=python) as
a baseline measured in the same run, reports peak memory, and checks that
all runs give identical scores. Targets (2-core machine): one beta under
1.0 s, 501 betas at most 1.5 x one beta, peak memory under 200 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("GECMETRICS_SHARED_DATA", ROOT / ".." / "shared" / "data")).resolve()
TEAMS = ["AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC"]


def prepare(tmp: Path) -> tuple[list[str], list[str]]:
    """Write source, both references and INPUT from the M2 file; return -r and -c paths."""
    from gecmetrics.m2 import read_m2

    m2 = read_m2(DATA / "conll14st-test-data" / "noalt" / "official-2014.combined.m2")
    (tmp / "source").write_text("\n".join(m2.sources) + "\n")
    (tmp / "INPUT").write_text("\n".join(m2.sources) + "\n")
    refs = []
    for k, ref in enumerate(m2.references()):
        (tmp / f"ref{k}").write_text("\n".join(ref) + "\n")
        refs.append(str(tmp / f"ref{k}"))
    hyps = [str(DATA / "official_submissions" / t) for t in TEAMS] + [str(tmp / "INPUT")]
    return refs, hyps


def run(args: list[str], env: dict[str, str]) -> tuple[float, list[dict]]:
    start = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, env=env, check=True)
    return time.perf_counter() - start, json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the best is kept")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        refs, hyps = prepare(tmp)
        base = [str(Path(sys.executable).with_name("gecmetrics")), "score",
                "-m", "green", "-m", "green:tokenize=char,n=6", "-s", str(tmp / "source"),
                "-r", *refs, "-c", *hyps, "--format", "json"]
        sweep = [arg for i in range(501) for arg in ("-b", f"{i / 100:.2f}")]
        env = dict(os.environ)
        python_env = dict(env, GECMETRICS_KERNEL="python")
        cases = {
            "one beta (compiled kernel)": (base + ["-b", "2"], env),
            "501 betas (compiled kernel)": (base + sweep, env),
            "one beta (pure-Python kernel)": (base + ["-b", "2"], python_env),
        }
        best: dict[str, float] = {}
        outputs: dict[str, list[dict]] = {}
        for name, (args, case_env) in cases.items():
            times = []
            for _ in range(opts.repeat if "pure" not in name else 1):
                seconds, out = run(args, case_env)
                times.append(seconds)
            best[name] = min(times)
            outputs[name] = out
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    one = best["one beta (compiled kernel)"]
    for name, seconds in best.items():
        print(f"{name:32s} {seconds:7.3f} s   ratio to one beta (compiled): {seconds / one:5.2f}")
    print(f"peak memory of any run: {peak_mb:.0f} MB")
    ref = {(o["spec"], o["hypothesis"]): o["score"] for o in outputs["one beta (compiled kernel)"]}
    same_python = ref == {(o["spec"], o["hypothesis"]): o["score"]
                          for o in outputs["one beta (pure-Python kernel)"]}
    same_sweep = ref == {(o["spec"], o["hypothesis"]): o["score"]
                         for o in outputs["501 betas (compiled kernel)"] if o["beta"] == 2.0}
    print(f"identical scores: pure-Python kernel {same_python}, "
          f"beta 2 inside the sweep {same_sweep}")
    ratio = best["501 betas (compiled kernel)"] / one
    print(f"targets: one beta < 1.0 s: {one < 1.0}; 501/1 <= 1.5: {ratio <= 1.5}; "
          f"memory < 200 MB: {peak_mb < 200}")


if __name__ == "__main__":
    main()
