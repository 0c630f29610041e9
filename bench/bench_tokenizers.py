"""Time of the tokenizers on CoNLL-2014, and of the fast word/char/13a paths against a baseline.

Run from the repository root:  python bench/bench_tokenizers.py [--baseline /path/to/main]

The texts: the CoNLL-2014 sources, both references and the 13 outputs (data from
--data-dir, else $GECMETRICS_SHARED_DATA, else ../shared/data). Two steps per
tokenizer: ``encode`` (tokenize and integer-code every text:
gecmetrics.ngrams.encode) and ``intersections`` (a fresh corpus counted to n=4,
encode and kernel and, in this checkout, the Unicode normal-form check included).

With ``--baseline REPO`` (a checkout of main, say, its kernels built), the
``word``, ``char`` and ``13a`` steps also run from that checkout's code, each
side in its own child process, interleaved (this, baseline, this, ...) for
``--rounds`` rounds; the median of each side's CPU seconds (of its fastest of
``--repeat`` runs) gives the
ratio (this / baseline: 1.00 is no change). The optional tokenizers (intl, ja,
ko, zh) run once each here, when their extra is installed.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

import harness

FAST = ("word", "char", "13a")
OTHERS = ("intl", "zh-char", "ja", "ko", "zh")


def child(names: list[str], repeat: int, data: str) -> None:
    """In a child: best-of-``repeat`` seconds of each step, as JSON on stdout."""
    from gecmetrics.corpus import Corpus
    from gecmetrics.ngrams import encode, intersections

    gold, teams = harness.conll14(harness.shared_data(data))
    refs = gold.references()
    hyps = {"INPUT": gold.sources, **teams}
    texts = [*gold.sources, *(line for ref in refs for line in ref),
             *(line for hyp in hyps.values() for line in hyp)]
    out = {}
    for name in names:
        encode(texts[:50], name)  # loads an optional tokenizer outside the timing
        enc = harness.measure(lambda name=name: encode(texts, name), repeat=repeat)
        inter = harness.measure(lambda name=name: intersections(
            Corpus(gold.sources, refs, hyps), name, 4), repeat=repeat)
        out[name] = [enc.cpu, inter.cpu, len(texts)]
    print(json.dumps(out))


def run(repo: str, names: list[str], repeat: int, data: str) -> dict:
    env = {**os.environ, "PYTHONPATH": repo}
    proc = subprocess.run([sys.executable, __file__, "--child", ",".join(names),
                           "--repeat", str(repeat), "--data-dir", data],
                          capture_output=True, text=True, env=env, cwd=repo, check=False)
    if proc.returncode:
        raise SystemExit(proc.stderr)
    return json.loads(proc.stdout.splitlines()[-1])


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--baseline", help="a checkout to compare word, char and 13a with")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved child runs per side")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per step in a child")
    ap.add_argument("--child", help=argparse_hidden())
    args = ap.parse_args()
    data = str(harness.shared_data(args.data_dir))
    if args.child:
        child(args.child.split(","), args.repeat, data)
        return
    here = str(harness.ROOT)
    print(f"load average {os.getloadavg()[0]:.2f} at start; CoNLL-2014, 15 line lists")
    mine: dict[str, list[list[float]]] = {n: [] for n in FAST}
    base: dict[str, list[list[float]]] = {n: [] for n in FAST}
    for _ in range(args.rounds):
        for name, value in run(here, list(FAST), args.repeat, data).items():
            mine[name].append(value)
        if args.baseline:
            for name, value in run(args.baseline, list(FAST), args.repeat, data).items():
                base[name].append(value)
    print(f"{'tokenizer':<10} {'encode s':>9} {'count s':>9}"
          + (f" {'base enc':>9} {'base cnt':>9} {'enc ratio':>9} {'cnt ratio':>9}"
             if args.baseline else ""))
    for name in FAST:
        enc = statistics.median(v[0] for v in mine[name])
        cnt = statistics.median(v[1] for v in mine[name])
        line = f"{name:<10} {enc:9.3f} {cnt:9.3f}"
        if args.baseline:
            b_enc = statistics.median(v[0] for v in base[name])
            b_cnt = statistics.median(v[1] for v in base[name])
            line += f" {b_enc:9.3f} {b_cnt:9.3f} {enc / b_enc:9.2f} {cnt / b_cnt:9.2f}"
        print(line)
    from gecmetrics import tokenizers
    from gecmetrics.errors import ConfigError

    for name in OTHERS:
        try:
            tokenizers.check(name, "bench_tokenizers")
        except ConfigError as err:
            print(f"{name:<10} ({err})")
            continue
        start = time.perf_counter()
        (enc, cnt, _), = run(here, [name], 1, data).values()
        print(f"{name:<10} {enc:9.3f} {cnt:9.3f}   (child {time.perf_counter() - start:.1f} s "
              "with the tokenizer's loading)")
    print(f"load average {os.getloadavg()[0]:.2f} at end")


def argparse_hidden() -> str:
    import argparse

    return argparse.SUPPRESS


if __name__ == "__main__":
    main()
