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

import os
import sys
import tempfile
from pathlib import Path

import harness

sys.path.insert(0, str(harness.ROOT / "tests"))

from gecmetrics.corpus import Corpus  # noqa: E402


def main() -> None:
    parser = harness.parser(__doc__)
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

    data = harness.shared_data(args.data_dir)
    n = args.sentences
    m2, hyps = harness.conll14(data, args.systems.split(","), n)
    src = list(m2.sources)
    pairs = n * len(hyps)
    tmp = Path(tempfile.mkdtemp())
    lm = args.lm or str(save_gpt2(tmp / "lm", 31))
    bert = args.bert or str(save_bert(tmp / "g", 11))
    print(f"{n} sentences x {len(hyps)} systems = {pairs} pairs, device {args.device}, "
          f"models: {'given' if args.lm or args.bert else 'tiny (tests/neural_models.py)'}")
    table = harness.Table("sent/s", width=20)
    for name, make in (
        ("scribendi", lambda b: Scribendi(model=lm, device=args.device, batch_size=b,
                                          cache=False)),
        ("some", lambda b: Some(model_g=bert, model_f=bert, model_m=bert, tokenizer=bert,
                                device=args.device, batch_size=b, cache=False)),
    ):
        for batch in (1, 32):
            metric = make(batch)
            timing = harness.measure(lambda m=metric: m.evaluate(Corpus(src, [src], hyps)),
                                     memory="traced")
            show = table.baseline if batch == 1 else table.row
            show(f"{name}, batch {batch}", timing, f"{pairs / timing.seconds:.1f}")

    os.environ["GECMETRICS_CACHE"] = str(tmp / "cache")
    metric = Scribendi(model=lm, device=args.device)
    print(f"\nmeta-eval {args.benchmark} with scribendi (system level + --level ew), "
          "fresh cache:")
    for run in ("first", "second"):
        before = batching.TOTALS.computed
        step = harness.measure(lambda: (
            meta_evaluate([args.benchmark], [Scribendi(model=lm, device=args.device)],
                          data_dir=str(data)),
            meta_evaluate([args.benchmark], [Scribendi(model=lm, device=args.device)],
                          data_dir=str(data), levels=("ew",))), memory="traced")
        calls = batching.TOTALS.computed - before
        print(f"  {run} run: {step.seconds:.2f} s, peak {step.peak:.1f} MiB, "
              f"model calls (texts run through the LM): {calls}")
    if calls != 0:
        raise SystemExit(f"the cached rerun ran the model on {calls} texts")
    del metric


if __name__ == "__main__":
    main()
