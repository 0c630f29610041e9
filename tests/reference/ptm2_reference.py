"""Record the authors' PT-M2 with a tiny model on CoNLL-2014: tests/data/ptm2_reference.json.

Not a test and not a dependency: run by hand, in a scratch venv, to regenerate
the reference numbers that tests/test_ptm2.py checks gecmetrics' ``ptm2`` against.

1. Save the tiny BERT of the test (gecmetrics' environment)::

       python tests/reference/ptm2_reference.py model DATA /tmp/ptm2_tiny

2. The reference: pygongnlp/PT-M2 at commit 67ef5755d7fbe5860f7988af58bc960c47846178
   (its vendored bert_score 0.3.11) in a venv with torch 2.13.0 (CPU) and
   transformers, pandas, matplotlib, tqdm; run from the PT-M2 checkout::

       python3.11 -m venv /tmp/ref_ptm2
       /tmp/ref_ptm2/bin/pip install torch==2.13.0
       /tmp/ref_ptm2/bin/pip install transformers pandas matplotlib tqdm numpy
       git clone https://github.com/pygongnlp/PT-M2 /tmp/ptm2_ref_src   # 67ef575
       cd /tmp/ptm2_ref_src && /tmp/ref_ptm2/bin/python \\
           GECMETRICS/tests/reference/ptm2_reference.py reference DATA /tmp/ptm2_tiny OUT.json

   DATA is the folder holding conll14st-test-data/ and official_submissions/.

What runs there is the authors' own code: ``metrics.PTM2.compute_m2`` (the
corpus level, ``--base m2``) and, per sentence, ``batch_multi_pre_rec_f1_sent``
as ``compute_sentm2`` calls it (``--base sentm2``), with a ``BERTScorer`` made
as ``PTM2.get_plm_scorer`` makes it (``lang="en"``, ``rescale_with_baseline=True``,
no idf) except for the two settings a model outside bert_score's tables needs:
``num_layers=2`` and a ``baseline_path`` file whose layer-2 F baseline is
:data:`BASELINE_F`. The reference files ref0/ref1 are written with the
reference's own ``get_ref`` from its own ``load_annotation`` (its assertion
requires exactly that).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

#: The CoNLL-2014 sentences (0-based) and systems of the fixture.
SENTENCES = list(range(60))
SYSTEMS = ["AMU", "CAMB", "INPUT"]
BETA = 0.5
LAYER = 2
BASELINE_F = 0.25
CONLL = "conll14st-test-data/noalt/official-2014.combined.m2"


def save_model(data: str, folder: str) -> None:
    """The tiny BERT (tests/ptm2_tiny.py) over the words of the fixture's sentences."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from ptm2_tiny import tiny_bert, vocabulary  # type: ignore[import-not-found]

    blocks = subset_m2(os.path.join(data, CONLL), SENTENCES).split("\n")
    tiny_bert(folder, vocabulary([line[2:] for line in blocks if line.startswith("S ")]))
    print(folder)


def subset_m2(m2_path: str, sentences: list[int]) -> str:
    blocks = [b for b in open(m2_path, encoding="utf8").read().split("\n\n") if b.strip()]
    return "\n\n".join(blocks[i].strip("\n") for i in sentences) + "\n\n"


def reference(data: str, model: str, out_path: str) -> None:
    import platform

    import torch
    import transformers
    from bert_score import BERTScorer
    from m2score.levenshtein import batch_multi_pre_rec_f1_sent
    from m2score.m2scorer import load_annotation
    from m2score.util import get_ref

    from metrics import PTM2

    tmp = tempfile.mkdtemp()
    m2_file = os.path.join(tmp, "reference.m2")
    with open(m2_file, "w", encoding="utf8") as fh:
        fh.write(subset_m2(os.path.join(data, CONLL), SENTENCES))
    sources, golds = load_annotation(m2_file)
    refs = []
    for src, gold in zip(sources, golds, strict=True):
        refs.append({a: get_ref(sorted([(g[0], g[1], g[2], g[-1][0]) for g in edits],
                                       key=lambda x: (x[0], x[1])), src)
                     for a, edits in gold.items()})
    baseline = os.path.join(tmp, "baseline.tsv")
    with open(baseline, "w") as fh:
        fh.write("LAYER,P,R,F\n")
        for layer in range(LAYER + 1):
            fh.write(f"{layer},0.3,0.3,{BASELINE_F}\n")

    class Args:
        beta = BETA
        device = "cpu"
        model_type = model
        scorer = "bertscore"

    metric = PTM2.__new__(PTM2)
    metric.args, metric.beta, metric.device = Args, BETA, "cpu"
    metric.model_type, metric.corpus = model, None
    metric.scorer = BERTScorer(device="cpu", model_type=model, num_layers=LAYER, lang="en",
                               rescale_with_baseline=True, baseline_path=baseline)
    results = {}
    for system in SYSTEMS:
        lines = open(os.path.join(data, "official_submissions", system),
                     encoding="utf8").read().split("\n")
        hyp_file = os.path.join(tmp, system)
        with open(hyp_file, "w", encoding="utf8") as fh:
            fh.write("\n".join(" ".join(lines[i].split()) for i in SENTENCES) + "\n")
        hyps = [" ".join(lines[i].split()) for i in SENTENCES]
        p, r, f = PTM2_corpus(metric, m2_file, hyps, sources, refs)
        sent = [batch_multi_pre_rec_f1_sent(candidates=[h], sources=[s], gold_edits=[g],
                                            references=[rf], scorer=metric.scorer,
                                            scorer_type="bertscore", beta=BETA)[-1]
                for h, s, g, rf in zip(hyps, sources, golds, refs, strict=True)]
        mean = metric.compute_sentm2(m2_file=m2_file, hyp_file=hyp_file, sources=sources,
                                     references=refs)
        results[system] = {"corpus": {"precision": p, "recall": r, "f": f},
                           "mean": float(mean), "sentence": [float(x) for x in sent]}
        print(system, p, r, f, mean, file=sys.stderr)
    out = {
        "what": "PT-M2 of the authors' code (pygongnlp/PT-M2 67ef575) with the tiny BERT of "
                "tests/ptm2_tiny.py on CoNLL-2014 sentences; see "
                "tests/reference/ptm2_reference.py",
        "command": "cd /tmp/ptm2_ref_src && /tmp/ref_ptm2/bin/python "
                   "/work/wt/ptm2/tests/reference/ptm2_reference.py reference "
                   "/work/shared/data /tmp/ptm2_tiny /work/wt/ptm2/tests/data/ptm2_reference.json",
        "versions": {"python": platform.python_version(), "torch": torch.__version__,
                     "transformers": transformers.__version__, "bert_score": "0.3.11 (vendored)",
                     "pt_m2": "67ef5755d7fbe5860f7988af58bc960c47846178"},
        "vocab": open(os.path.join(model, "vocab.txt"), encoding="utf8").read().split("\n")[:-1],
        "sentences": SENTENCES, "systems": SYSTEMS, "beta": BETA, "layer": LAYER,
        "baseline_f": BASELINE_F, "results": results,
    }
    with open(out_path, "w", encoding="utf8") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")


def PTM2_corpus(metric, m2_file, hyps, sources, refs):  # noqa: N802 - the reference's name
    """``PTM2.compute_m2`` on lines in memory (it reads the hypothesis file; same call)."""
    from m2score.levenshtein import batch_multi_pre_rec_f1
    from m2score.m2scorer import load_annotation

    _, gold_edits = load_annotation(m2_file)
    return batch_multi_pre_rec_f1(candidates=hyps, sources=sources, gold_edits=gold_edits,
                                  references=refs, scorer=metric.scorer,
                                  scorer_type="bertscore", beta=metric.beta)


def time_reference(data: str, model: str, n: int, systems: list[str]) -> None:
    """Seconds of the authors' ``compute_m2`` on the first ``n`` sentences (bench/bench_ptm2.py)."""
    import time

    from bert_score import BERTScorer
    from m2score.m2scorer import load_annotation
    from m2score.util import get_ref

    tmp = tempfile.mkdtemp()
    m2_file = os.path.join(tmp, "reference.m2")
    with open(m2_file, "w", encoding="utf8") as fh:
        fh.write(subset_m2(os.path.join(data, CONLL), list(range(n))))
    sources, golds = load_annotation(m2_file)
    refs = [{a: get_ref(sorted([(g[0], g[1], g[2], g[-1][0]) for g in edits],
                               key=lambda x: (x[0], x[1])), src) for a, edits in gold.items()}
            for src, gold in zip(sources, golds, strict=True)]
    start = time.perf_counter()
    scorer = BERTScorer(device="cpu", model_type=model, num_layers=LAYER, lang="en")
    for system in systems:
        lines = open(os.path.join(data, "official_submissions", system),
                     encoding="utf8").read().split("\n")
        hyps = [" ".join(lines[i].split()) for i in range(n)]

        class Metric:
            pass

        metric = Metric()
        metric.scorer, metric.beta = scorer, BETA  # type: ignore[attr-defined]
        PTM2_corpus(metric, m2_file, hyps, sources, refs)
    print(f"{time.perf_counter() - start:.3f}")


if __name__ == "__main__":
    if sys.argv[1] == "model":
        save_model(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "time":
        sys.path.insert(0, os.getcwd())
        sys.path.insert(0, os.path.join(os.getcwd(), "m2score"))
        time_reference(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:])
    elif sys.argv[1] == "reference":
        sys.path.insert(0, os.getcwd())
        sys.path.insert(0, os.path.join(os.getcwd(), "m2score"))
        reference(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
