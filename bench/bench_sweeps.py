"""Cost of a beta sweep: the meta-evaluation main job with and without
``--sweep-beta 0:5:0.01``, and GREEN word+char with 501 betas against one.

Run from the repository root::

    python bench/bench_sweeps.py [--repeat 3] [--tree DIR ...]

Case 1 is ``gecmetrics meta-eval conll14 seeda-s seeda-e -m green -m
green:tokenize=char,n=6 -m m2``, then the same with ``--sweep-beta 0:5:0.01``
(M2's annotator choice for 501 betas; issue 23: at most 1.5 x the main
job). Case 2 is ``gecmetrics score`` with GREEN word and char on CoNLL-2014
(13 outputs, 2 references) at beta 2, then at the 501 betas 0.00, ..., 5.00
(at most 1.3 x one beta). Every process is a fresh ``python -m
gecmetrics.interface.cli``; the pairs are run interleaved, ``--repeat`` times, and the
medians and their ratio printed with the load average. ``--tree`` runs the
same cases on other checkouts (their kernels built in place), e.g. a copy of
the code before a change, so that before and after share one run. The script
checks that the sweep's rows at beta 0.5 (M2) and its GREEN scores at beta 2
equal those of the one-beta runs. Case 3 (``--only green-table``) is case 2 with
the table printed (``--format table``, as a user runs it: issue 32, at most 1.3 x
one beta end to end): parsing 1,002 options and rendering 3,007 columns included.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

import harness
from bench_green import prepare

SWEEP = "0:5:0.01"
METRICS = ("-m", "green", "-m", "green:tokenize=char,n=6")


def child(tree: Path, args: list[str], data: Path) -> harness.Child:
    env = dict(os.environ, PYTHONPATH=str(tree), GECMETRICS_DATA=str(data))
    # run from the data folder: ``python -m`` puts the working directory first on
    # sys.path, which would shadow ``tree`` when run from a checkout
    proc = harness.run_child([sys.executable, "-m", "gecmetrics.interface.cli", *args], env=env,
                             cwd=data)
    if proc.code != 0:
        sys.exit(f"failed ({proc.code}): {' '.join(args[:8])}...: {proc.stderr.strip()[-500:]}")
    return proc


def interleaved(tree: Path, pair: dict[str, list[str]], data: Path, repeat: int
                ) -> dict[str, list[harness.Child]]:
    """Each case of ``pair`` ``repeat`` times, alternating, so both see the same load."""
    runs: dict[str, list[harness.Child]] = {name: [] for name in pair}
    for _ in range(repeat):
        for name, args in pair.items():
            runs[name].append(child(tree, args, data))
    return runs


def report(title: str, runs: dict[str, list[harness.Child]], target: float) -> float:
    """Print the medians and minima of wall and CPU (user + system, children included)
    seconds; the ratio of the wall medians against ``target`` (the CPU ratio too: on a
    loaded machine it is the steadier one)."""
    (base_name, base), (name, case) = runs.items()
    b = statistics.median(r.seconds for r in base)
    c = statistics.median(r.seconds for r in case)
    cpu_b = statistics.median(r.cpu for r in base)
    cpu_c = statistics.median(r.cpu for r in case)
    peak_b = max(r.peak for r in base)
    peak_c = max(r.peak for r in case)
    ratio = c / b
    print(f"  {title}")
    print(f"    {base_name:<34} {b:8.2f} s (min {min(r.seconds for r in base):.2f})  "
          f"CPU {cpu_b:.2f} s  peak {peak_b:5.0f} MiB")
    print(f"    {name:<34} {c:8.2f} s (min {min(r.seconds for r in case):.2f})  "
          f"CPU {cpu_c:.2f} s  peak {peak_c:5.0f} MiB  x{ratio:.2f} "
          f"(target <= {target}: {ratio <= target}; CPU x{cpu_c / cpu_b:.2f})")
    return ratio


def same_meta(one: str, sweep: str) -> bool:
    """The sweep's rows at the metrics' default betas are the one-beta rows."""
    rows = {(r["benchmark"], r["spec"], r["beta"]): r for r in json.loads(sweep)}
    out = True
    for r in json.loads(one):
        other = rows.get((r["benchmark"], r["spec"], r["beta"]))
        out &= other is not None and all(other[k] == r[k] for k in ("pearson", "spearman"))
    return out


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (median)")
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="also run the cases on this checkout (repeatable)")
    parser.add_argument("--only", choices=("meta", "green", "green-table"), default=None)
    opts = parser.parse_args()
    data = harness.shared_data(opts.data_dir)
    trees = [harness.ROOT, *opts.tree]
    meta = ["meta-eval", "conll14", "seeda-s", "seeda-e", *METRICS, "-m", "m2",
            "--format", "json"]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        refs, hyps = prepare(data, tmp)
        green = ["score", *METRICS, "-s", str(tmp / "source"), "-r", *refs, "-c", *hyps,
                 "--format", "json"]
        betas = [arg for i in range(501) for arg in ("-b", f"{i / 100:.2f}")]
        for tree in trees:
            print(f"{tree}  (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})")
            if opts.only in (None, "meta"):
                runs = interleaved(tree, {"main job": meta,
                                          f"main job --sweep-beta {SWEEP}":
                                              [*meta, "--sweep-beta", SWEEP]},
                                   data, opts.repeat)
                report("meta-eval conll14 seeda-s seeda-e, GREEN word+char and M2", runs, 1.5)
                one, swept = (runs[k][0].stdout for k in runs)
                try:
                    print(f"    identical rows at the default betas: {same_meta(one, swept)}")
                except (KeyError, ValueError) as exc:
                    print(f"    (rows not compared: {exc!r})")
            if opts.only in (None, "green"):
                runs = interleaved(tree, {"GREEN word+char, beta 2": [*green, "-b", "2"],
                                          "GREEN word+char, 501 betas": [*green, *betas]},
                                   data, opts.repeat)
                report("score -m green -m green:tokenize=char,n=6, CoNLL-2014", runs, 1.3)
                one, swept = (json.loads(runs[k][0].stdout) for k in runs)
                ref = {(o["spec"], o["hypothesis"]): o["score"] for o in one}
                same = ref == {(o["spec"], o["hypothesis"]): o["score"]
                               for o in swept if o["beta"] == 2.0}
                print(f"    identical scores at beta 2: {same}")
            if opts.only in (None, "green-table"):
                table = [arg for arg in green if arg not in ("--format", "json")]
                runs = interleaved(tree, {"GREEN word+char, beta 2, table": [*table, "-b", "2"],
                                          "GREEN word+char, 501 betas, table":
                                              [*table, *betas]},
                                   data, opts.repeat)
                report("the same, the table printed (--format table)", runs, 1.3)
            print(f"  (load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())})")


if __name__ == "__main__":
    main()
