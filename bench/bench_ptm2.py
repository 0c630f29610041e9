"""PT-M2 / PT-ERRANT speed: gecmetrics vs the authors' code, and the cached rerun.

Run from the repository root (needs the neural extra and ../shared/data; for
``--metric pterrant`` the errant extra too):

    python bench/bench_ptm2.py [--metric ptm2|pterrant] [--sentences 20]
        [--systems AMU CAMB] [--device cpu]
        [--ref-python /tmp/ref_ptm2/bin/python --ref-src /tmp/ptm2_ref_src]

Both use the tiny random BERT of the tests (tests/ptm2_tiny.py; no hub is
reachable here), so the times are dominated by the edit extraction and the
per-pair work rather than by the model; with bert-base-uncased the model calls
dominate and the number of BERTScore pairs (printed) is what counts.

1. gecmetrics, empty cache: seconds, sentences/s (sentence x system), BERTScore
   pairs, model calls;
2. the same again with a new scorer on the same cache file: model calls must be 0;
3. the authors' ``compute_m2`` (pygongnlp/PT-M2 67ef575, its bert_score 0.3.11)
   in its own venv on the same sentences and model, when ``--ref-python`` exists
   (see tests/reference/ptm2_reference.py for that venv); the ratio to 1.

With ``--metric pterrant`` gecmetrics' first run starts from empty ERRANT
parse and edit caches too (so it includes spaCy and ERRANT), and the authors'
side is ``errant_parallel`` (timed in this process, errant 3.0.2) plus their
``compute_errant`` (tests/reference/pterrant_reference.py ``time``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import harness

sys.path.insert(0, str(harness.ROOT / "tests"))
sys.path.insert(0, str(harness.ROOT / "tests" / "reference"))

from ptm2_reference import CONLL, subset_m2  # noqa: E402
from ptm2_tiny import tiny_bert, vocabulary  # noqa: E402

from gecmetrics.corpus import Corpus  # noqa: E402
from gecmetrics.m2_format import read_m2  # noqa: E402
from gecmetrics.metrics.ptm2 import PTM2  # noqa: E402


def main() -> None:
    ap = harness.parser(__doc__, data="--data")
    ap.add_argument("--sentences", type=int, default=20)
    ap.add_argument("--systems", nargs="+", default=["AMU", "CAMB"])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--ref-python", default="/tmp/ref_ptm2/bin/python")
    ap.add_argument("--ref-src", default="/tmp/ptm2_ref_src")
    ap.add_argument("--metric", choices=["ptm2", "pterrant"], default="ptm2")
    args = ap.parse_args()
    if args.metric == "pterrant":
        return bench_pterrant(args)
    data = harness.shared_data(args.data_dir)
    tmp = Path(tempfile.mkdtemp())
    text = subset_m2(str(data / CONLL), list(range(args.sentences)))
    (tmp / "sub.m2").write_text(text, encoding="utf8")
    m2 = read_m2(tmp / "sub.m2")
    model = tiny_bert(str(tmp / "tiny"), vocabulary(m2.sources))
    hyps = {}
    for system in args.systems:
        lines = (data / "official_submissions" / system).read_text(encoding="utf8").split("\n")
        hyps[system] = [" ".join(lines[i].split()) for i in range(args.sentences)]
    corpus = Corpus(m2.sources, m2.references(), hyps, m2=m2)
    metric = PTM2(model=model, layer=2, device=args.device)
    n = args.sentences * len(args.systems)

    import torch  # noqa: F401  (imported before timing: its import is not PT-M2's cost)

    print(f"PT-M2, {args.sentences} CoNLL-2014 sentences x {len(args.systems)} systems "
          f"({', '.join(args.systems)}), tiny BERT, device {args.device}")
    table = harness.Table("sent/s", "pairs", "model calls", width=30, peak=False,
                          speedup=False)
    calls = []
    for label in ("gecmetrics, empty cache", "gecmetrics, cached rerun"):
        scorer = metric.bert_scorer()
        scorer.cache_path = tmp / "cache.sqlite"
        pairs: list[int] = []
        inner = scorer.f_scores

        def counting(p, progress_label="", inner=inner, pairs=pairs):
            pairs.append(len(p))
            return inner(p, progress_label)

        scorer.f_scores = counting  # type: ignore[method-assign]
        timing = harness.measure(lambda s=scorer: metric.weighted_counts(corpus, s))
        show = table.row if calls else table.baseline
        show(label, timing, f"{n / timing.seconds:.1f}", str(pairs[0]),
             str(scorer.forward_passes))
        calls.append(scorer.forward_passes)
    if Path(args.ref_python).exists() and Path(args.ref_src).exists():
        out = reference(args.ref_python, "tests/reference/ptm2_reference.py", args.ref_src,
                        str(data), model, str(args.sentences), *args.systems)
        table.row("authors' code (compute_m2)", out, f"{n / out:.1f}")
    if calls[1] != 0:
        sys.exit("the cached rerun called the model")


def reference(python: str, script: str, cwd: str, *argv: str) -> float:
    """The seconds the authors' code reports for its own scoring (its last word)."""
    out = harness.run_child([python, str(harness.ROOT / script), "time", *argv], cwd=Path(cwd))
    if out.code != 0:
        sys.exit(f"{script} failed: {out.stderr.strip()[-500:]}")
    return float(out.stdout.split()[-1])


def bench_pterrant(args: argparse.Namespace) -> None:
    import os

    from pterrant_reference import errant_step, inputs  # type: ignore[import-not-found]

    from gecmetrics.metrics.pterrant import PTErrant
    from gecmetrics.metrics.ptm2 import bert_scorer

    data = harness.shared_data(args.data_dir)
    work = Path(tempfile.mkdtemp())
    os.environ["GECMETRICS_CACHE"] = str(work / "cache")  # empty parse and edit caches
    sentences = list(range(args.sentences))
    text = subset_m2(str(data / CONLL), sentences)
    inputs(str(data), str(work), sentences, args.systems,
           vocabulary([line[2:] for line in text.split("\n") if line.startswith("S ")]))
    m2 = read_m2(work / "gold.m2")
    hyps = {s: (work / s).read_text(encoding="utf8").split("\n")[:-1] for s in args.systems}
    corpus = Corpus(m2.sources, m2.references(), hyps)
    metric = PTErrant(model=str(work / "model"), layer=2, device=args.device)
    n = args.sentences * len(args.systems)

    import torch  # noqa: F401  (imported before timing: its import is not PT-ERRANT's cost)

    print(f"PT-ERRANT, {args.sentences} CoNLL-2014 sentences x {len(args.systems)} systems "
          f"({', '.join(args.systems)}), tiny BERT, device {args.device}")
    table = harness.Table("sent/s", "model calls", width=30, peak=False, speedup=False)
    calls = []
    for label in ("gecmetrics, empty caches", "gecmetrics, cached rerun"):
        scorer = bert_scorer(metric.config)
        scorer.cache_path = work / "bs.sqlite"
        timing = harness.measure(lambda s=scorer: metric.weighted_counts(
            Corpus(corpus.sources, corpus.references, corpus.hypotheses), s))
        show = table.row if calls else table.baseline
        show(label, timing, f"{n / timing.seconds:.1f}", str(scorer.forward_passes))
        calls.append(scorer.forward_passes)
    if Path(args.ref_python).exists() and Path(args.ref_src).exists():
        errant_s = harness.measure(lambda: errant_step(str(work), systems=args.systems)).seconds
        table.row("authors: errant_parallel", errant_s, f"{n / errant_s:.1f}")
        ref_s = reference(args.ref_python, "tests/reference/pterrant_reference.py",
                          args.ref_src, str(work), *args.systems)
        table.row("authors: compute_errant", ref_s, f"{n / ref_s:.1f}")
        table.row("authors: both", errant_s + ref_s, f"{n / (errant_s + ref_s):.1f}")
    if calls[1] != 0:
        sys.exit("the cached rerun called the model")


if __name__ == "__main__":
    main()
