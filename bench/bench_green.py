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

import json
import os
import resource
import sys
import tempfile
from pathlib import Path

import harness


def prepare(data: Path, tmp: Path) -> tuple[list[str], list[str]]:
    """Write source, both references and INPUT from the M2 file; return -r and -c paths."""
    from gecmetrics.m2_format import read_m2

    m2 = read_m2(data / harness.CONLL_M2)
    (tmp / "source").write_text("\n".join(m2.sources) + "\n")
    (tmp / "INPUT").write_text("\n".join(m2.sources) + "\n")
    refs = []
    for k, ref in enumerate(m2.references()):
        (tmp / f"ref{k}").write_text("\n".join(ref) + "\n")
        refs.append(str(tmp / f"ref{k}"))
    hyps = [str(data / harness.SUBMISSIONS / t) for t in harness.TEAMS] + [str(tmp / "INPUT")]
    return refs, hyps


def run(args: list[str], env: dict[str, str]) -> list[dict]:
    """The JSON output of one ``gecmetrics score`` process."""
    proc = harness.run_child(args, env=env)
    if proc.code != 0:
        sys.exit(f"failed ({proc.code}): {proc.stderr.strip()[-500:]}")
    return json.loads(proc.stdout)


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the best is kept")
    opts = parser.parse_args()
    data = harness.shared_data(opts.data_dir)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        refs, hyps = prepare(data, tmp)
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
        best = {name: harness.measure(lambda a=args, e=case_env: run(a, e),
                                      repeat=opts.repeat if "pure" not in name else 1)
                for name, (args, case_env) in cases.items()}
        outputs = {name: timing.value for name, timing in best.items()}
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    table = harness.Table(width=32, peak=False, speedup=False)
    for name, timing in best.items():
        (table.row if table.base else table.baseline)(name, timing)
    one = best["one beta (compiled kernel)"].seconds
    print(f"peak memory of any run: {peak_mb:.0f} MB")
    ref = {(o["spec"], o["hypothesis"]): o["score"] for o in outputs["one beta (compiled kernel)"]}
    same_python = ref == {(o["spec"], o["hypothesis"]): o["score"]
                          for o in outputs["one beta (pure-Python kernel)"]}
    same_sweep = ref == {(o["spec"], o["hypothesis"]): o["score"]
                         for o in outputs["501 betas (compiled kernel)"] if o["beta"] == 2.0}
    print(f"identical scores: pure-Python kernel {same_python}, "
          f"beta 2 inside the sweep {same_sweep}")
    ratio = best["501 betas (compiled kernel)"].seconds / one
    print(f"targets: one beta < 1.0 s: {one < 1.0}; 501/1 <= 1.5: {ratio <= 1.5}; "
          f"memory < 200 MB: {peak_mb < 200}")


if __name__ == "__main__":
    main()
