"""Time of corpus and sentence BLEU: gecmetrics against sacrebleu, in the same run.

Run from the repository root:  python bench/bench_bleu.py

The 13 CoNLL-2014 outputs with the two references of the M2 file (data from
--data-dir, else $GECMETRICS_SHARED_DATA, else ../shared/data). Both sides start from the texts in
memory. gecmetrics: one fresh corpus, every system's corpus BLEU (tokenisation
and n-gram counting included, once for all systems), then every sentence BLEU.
sacrebleu: one ``BLEU(references=...)`` object (references tokenised and counted
once, as it caches them), ``corpus_score`` per system, then ``sentence_score``
per line of every system (``BLEU(effective_order=True)``, as ``sentence_bleu``).
Peak memory: tracemalloc's peak of each step, from a second, untimed run. The
scores are checked equal. Then the corpus step of both sides runs ``--repeat``
more times, interleaved (gecmetrics, sacrebleu, gecmetrics, ...), and the
median of each gives the ratio (target: gecmetrics <= 0.10 of sacrebleu), with
the load average.
"""

from __future__ import annotations

import logging
import os
import statistics

import harness


def main() -> None:
    from sacrebleu.metrics import BLEU

    from gecmetrics.corpus import Corpus
    from gecmetrics.registry import get_metric

    ap = harness.parser(__doc__)
    ap.add_argument("--repeat", type=int, default=7, help="interleaved corpus runs per side")
    args = ap.parse_args()
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    gold, teams = harness.conll14(harness.shared_data(args.data_dir))
    refs = gold.references()
    hyps = {"INPUT": gold.sources, **teams}

    def ours_corpus():
        corpus = Corpus(gold.sources, refs, hyps)
        return corpus, get_metric("bleu").statistics(corpus).corpus_scores(None)

    ours = harness.measure(ours_corpus, memory="rerun")
    corpus = ours.value[0]
    ours_s = harness.measure(lambda: get_metric("bleu").statistics(corpus).sentence(None),
                             memory="rerun")

    def theirs_corpus():
        metric = BLEU(references=refs)
        return [metric.corpus_score(hyps[name], None).score / 100 for name in hyps]

    theirs = harness.measure(theirs_corpus, memory="rerun")

    def theirs_sentence():
        metric = BLEU(effective_order=True)
        return [[metric.sentence_score(line, [r[i] for r in refs]).score / 100
                 for i, line in enumerate(hyps[name])] for name in hyps]

    theirs_s = harness.measure(theirs_sentence, memory="rerun")
    assert list(ours.value[1]) == theirs.value, "corpus BLEU differs from sacrebleu"
    assert ours_s.value.tolist() == theirs_s.value, "sentence BLEU differs from sacrebleu"
    print(f"{len(hyps)} systems x {len(gold.sources)} sentences, 2 references; scores equal")
    table = harness.Table(width=20)
    table.baseline("corpus: sacrebleu", theirs)
    table.row("corpus: gecmetrics", ours)
    table.baseline("sentence: sacrebleu", theirs_s)
    table.row("sentence: gecmetrics", ours_s)
    walls: dict[str, list[float]] = {"gecmetrics": [], "sacrebleu": []}
    for _ in range(args.repeat):
        walls["gecmetrics"].append(harness.measure(ours_corpus).seconds)
        walls["sacrebleu"].append(harness.measure(theirs_corpus).seconds)
    median = {side: statistics.median(times) for side, times in walls.items()}
    print(f"corpus, median of {args.repeat} interleaved runs: gecmetrics "
          f"{median['gecmetrics']:.4f} s, sacrebleu {median['sacrebleu']:.4f} s, "
          f"gecmetrics/sacrebleu {median['gecmetrics'] / median['sacrebleu']:.3f} "
          f"(best: {min(walls['gecmetrics']) / min(walls['sacrebleu']):.3f}); "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
