"""Time of corpus and sentence BLEU: gecmetrics against sacrebleu, in the same run.

Run from the repository root:  python bench/bench_bleu.py

The 13 CoNLL-2014 outputs with the two references of the M2 file (data from
../shared/data or $GECMETRICS_SHARED_DATA). Both sides start from the texts in
memory. gecmetrics: one fresh corpus, every system's corpus BLEU (tokenisation
and n-gram counting included, once for all systems), then every sentence BLEU.
sacrebleu: one ``BLEU(references=...)`` object (references tokenised and counted
once, as it caches them), ``corpus_score`` per system, then ``sentence_score``
per line of every system (``BLEU(effective_order=True)``, as ``sentence_bleu``).
Peak memory: tracemalloc's peak of each step, from a second, untimed run. The
scores are checked equal.
"""

from __future__ import annotations

import logging
import os
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEAMS = "AMU CAMB CUUI IITB IPN NTHU PKU POST RAC SJTU UFC UMC".split()


def shared_data() -> Path:
    env = os.environ.get("GECMETRICS_SHARED_DATA")
    return Path(env) if env else ROOT / ".." / "shared" / "data"


def measured(func):
    """Result, seconds, and the peak MiB from a second run under tracemalloc (which
    slows Python code several-fold, so it is never timed)."""
    start = time.perf_counter()
    value = func()
    seconds = time.perf_counter() - start
    tracemalloc.start()
    func()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return value, seconds, peak


def main() -> None:
    from sacrebleu.metrics import BLEU

    from gecmetrics.corpus import Corpus
    from gecmetrics.m2 import read_m2
    from gecmetrics.readers import read_lines
    from gecmetrics.registry import get_metric

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    data = shared_data()
    gold = read_m2(data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2")
    refs = gold.references()
    hyps = {"INPUT": gold.sources}
    hyps.update({t: read_lines(str(data / "official_submissions" / t), "hypothesis")
                 for t in TEAMS})

    def ours_corpus():
        corpus = Corpus(gold.sources, refs, hyps)
        return corpus, get_metric("bleu").statistics(corpus).corpus_scores(None)

    (corpus, ours), t_ours, m_ours = measured(ours_corpus)
    sent_ours, t_ours_s, m_ours_s = measured(
        lambda: get_metric("bleu").statistics(corpus).sentence(None))

    def theirs_corpus():
        metric = BLEU(references=refs)
        return [metric.corpus_score(hyps[name], None).score / 100 for name in hyps]

    theirs, t_theirs, m_theirs = measured(theirs_corpus)

    def theirs_sentence():
        metric = BLEU(effective_order=True)
        return [[metric.sentence_score(line, [r[i] for r in refs]).score / 100
                 for i, line in enumerate(hyps[name])] for name in hyps]

    sent_theirs, t_theirs_s, m_theirs_s = measured(theirs_sentence)
    assert list(ours) == theirs, "corpus BLEU differs from sacrebleu"
    assert sent_ours.tolist() == sent_theirs, "sentence BLEU differs from sacrebleu"
    print(f"{len(hyps)} systems x {len(gold.sources)} sentences, 2 references; scores equal")
    print(f"{'level':9} {'gecmetrics s':>12} {'MiB':>6} {'sacrebleu s':>12} {'MiB':>6} "
          f"{'speed-up':>9}")
    print(f"{'corpus':9} {t_ours:12.2f} {m_ours:6.1f} {t_theirs:12.2f} {m_theirs:6.1f} "
          f"{t_theirs / t_ours:8.1f}x")
    print(f"{'sentence':9} {t_ours_s:12.2f} {m_ours_s:6.1f} {t_theirs_s:12.2f} "
          f"{m_theirs_s:6.1f} {t_theirs_s / t_ours_s:8.1f}x")


if __name__ == "__main__":
    main()
