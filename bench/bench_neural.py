"""Model-based metrics: sentences per second with batching, and a cached rerun.

Run from the repository root (needs the neural extra):

    python bench/bench_neural.py [--sentences N] [--systems A,B,...] [--device cpu]
                                 [--lm DIR] [--bert DIR]

Scores the first N CoNLL-2014 sentences (default 100) of the given systems
with Scribendi (GPT-2) and SOME (three BERT regressors), cache off, at
batch size 1 and 32, and prints seconds, sentences/second, peak Python memory
and the batching speed-up, measured in the same run. The models are the tiny
seeded ones of tests/neural_models.py unless ``--lm``/``--bert`` name real
ones (a GPT-2 folder; a BERT regressor folder used for all three SOME
sub-models): the tiny models time the code path, real ones the models.

Then a meta-evaluation (``--benchmark``, default seeda-s: system level and
``--level ew``) with Scribendi, twice, in a fresh cache folder: the first run
fills the cache, the second must run no model at all; it prints the model
calls of each run (``gecmetrics.neural.batching.TOTALS.computed``) and stops
with an error if the second is not 0.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from gecmetrics.corpus import Corpus  # noqa: E402
from gecmetrics.m2 import read_m2  # noqa: E402
from gecmetrics.readers import read_lines  # noqa: E402


def shared_data() -> Path:
    env = os.environ.get("GECMETRICS_SHARED_DATA")
    return Path(env) if env else ROOT / ".." / "shared" / "data"


def timed(fn):
    tracemalloc.start()
    start = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sentences", type=int, default=100)
    parser.add_argument("--systems", default="AMU,CAMB,UFC")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--lm", default=None)
    parser.add_argument("--bert", default=None)
    parser.add_argument("--benchmark", default="seeda-s")
    args = parser.parse_args()

    from neural_models import save_bert, save_gpt2

    from gecmetrics.meta_eval import meta_evaluate
    from gecmetrics.metrics.scribendi import Scribendi
    from gecmetrics.metrics.some import Some
    from gecmetrics.neural import batching

    data = shared_data()
    m2 = read_m2(data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2")
    n = args.sentences
    src = list(m2.sources[:n])
    hyps = {s: read_lines(str(data / "official_submissions" / s), "hypothesis")[:n]
            for s in args.systems.split(",")}
    pairs = n * len(hyps)
    tmp = Path(tempfile.mkdtemp())
    lm = args.lm or str(save_gpt2(tmp / "lm", 31))
    bert = args.bert or str(save_bert(tmp / "g", 11))
    print(f"{n} sentences x {len(hyps)} systems = {pairs} pairs, device {args.device}, "
          f"models: {'given' if args.lm or args.bert else 'tiny (tests/neural_models.py)'}")
    print(f"{'metric':10} {'batch':>5} {'seconds':>8} {'sent/s':>8} {'peak MB':>8} {'speed-up':>8}")
    for name, make in (
        ("scribendi", lambda b: Scribendi(model=lm, device=args.device, batch_size=b,
                                          cache=False)),
        ("some", lambda b: Some(model_g=bert, model_f=bert, model_m=bert, tokenizer=bert,
                                device=args.device, batch_size=b, cache=False)),
    ):
        base = None
        for batch in (1, 32):
            metric = make(batch)
            _, seconds, peak = timed(lambda m=metric: m.evaluate(Corpus(src, [src], hyps)))
            base = base or seconds
            print(f"{name:10} {batch:>5} {seconds:8.2f} {pairs / seconds:8.1f} "
                  f"{peak / 2**20:8.1f} {base / seconds:7.2f}x")

    os.environ["GECMETRICS_CACHE"] = str(tmp / "cache")
    metric = Scribendi(model=lm, device=args.device)
    print(f"\nmeta-eval {args.benchmark} with scribendi (system level + --level ew), "
          "fresh cache:")
    for run in ("first", "second"):
        before = batching.TOTALS.computed
        _, seconds, peak = timed(lambda: (
            meta_evaluate([args.benchmark], [Scribendi(model=lm, device=args.device)],
                          data_dir=str(data)),
            meta_evaluate([args.benchmark], [Scribendi(model=lm, device=args.device)],
                          data_dir=str(data), levels=("ew",))))
        calls = batching.TOTALS.computed - before
        print(f"  {run} run: {seconds:.2f} s, peak {peak / 2**20:.1f} MB, "
              f"model calls (texts run through the LM): {calls}")
    if calls != 0:
        raise SystemExit(f"the cached rerun ran the model on {calls} texts")
    del metric


if __name__ == "__main__":
    main()
