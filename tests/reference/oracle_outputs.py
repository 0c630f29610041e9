"""Record the outputs of the slow reference implementations on the real data, for the
fast tier: tests/data/{sacrebleu_bleu,sacrebleu_chrf,green_oracle}_reference.json.

Not a test and not part of the package: the command that produced the recorded
numbers which the fast tests of tests/test_bleu.py, tests/test_chrf_sacrebleu.py
and tests/test_green_conll14.py compare gecmetrics with. The same references run
live in the full tier (``pytest -m full``) on every sentence; recorded are every
score at corpus level and, at sentence level, every :data:`STRIDE`-th sentence
(:func:`sampled`), to keep the files small.

* ``bleu``: sacrebleu's ``BLEU.corpus_score`` / ``BLEU.sentence_score`` on the 13
  CoNLL-2014 outputs (2 references from the M2 file) and SEEDA's 15 outputs, with the
  options of tests/test_bleu.py;
* ``chrf``: sacrebleu's ``CHRF`` (chrF and chrF++) on the 13 CoNLL-2014 outputs of
  tests/gleu_chrf_data.py;
* ``green``: tests/green_oracle.py (the paper's formulas in plain Python) on the 12
  teams + INPUT + NULL, word n=4 and char n=6, beta 0.5, 1 and 2 (about 2 minutes).

Run from the repository root, in the test environment (``pip install ".[test]"``),
with DATA the folder of the real data::

    GECMETRICS_SHARED_DATA=DATA python tests/reference/oracle_outputs.py bleu chrf green
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))

#: sentence-level scores are recorded for sentences 0, STRIDE, 2 * STRIDE, ...
STRIDE = 10
BLEU_FILE = TESTS / "data" / "sacrebleu_bleu_reference.json"
CHRF_FILE = TESTS / "data" / "sacrebleu_chrf_reference.json"
GREEN_FILE = TESTS / "data" / "green_oracle_reference.json"

#: BLEU options: tests/test_bleu.py's CONFIGS (corpus level)
BLEU_CONFIGS = [{}, {"tokenize": "none"}, {"smooth_method": "floor"},
                {"smooth_method": "floor", "smooth_value": 0.3}, {"smooth_method": "add-k"},
                {"smooth_method": "add-k", "smooth_value": 0.5}, {"smooth_method": "none"},
                {"lowercase": True}, {"max_ngram_order": 2}]
#: sentence BLEU, effective order unless effective_order=False (tests/test_bleu.py)
SENTENCE_BLEU_CONFIGS = [{}, {"tokenize": "none", "smooth_method": "add-k"},
                         {"smooth_method": "floor"}, {"effective_order": False}]
GREEN_SETTINGS = {"word": 4, "char": 6}
GREEN_BETAS = [0.5, 1.0, 2.0]


def sampled(scores: list[float]) -> list[float]:
    """The recorded sentence scores: every STRIDE-th one."""
    return list(scores[::STRIDE])


def conll14(with_null: bool = False) -> tuple[list[str], list[list[str]], dict[str, list[str]]]:
    """tests/conftest.py's ``conll`` fixture: sources, the M2 references, the 12 teams +
    INPUT (the M2 sources) [+ NULL]."""
    from conftest import CONLL_M2, SUBMISSIONS, TEAMS

    from gecmetrics.m2_format import read_m2
    from gecmetrics.readers import read_lines

    m2 = read_m2(CONLL_M2)
    hyps = {team: read_lines(SUBMISSIONS / team, "hypothesis") for team in TEAMS}
    hyps["INPUT"] = list(m2.sources)
    if with_null:
        hyps["NULL"] = [""] * len(m2.sources)
    return m2.sources, m2.references(), hyps


def seeda() -> tuple[list[list[str]], dict[str, list[str]]]:
    """tests/test_bleu.py's ``seeda_corpus``: the CoNLL-2014 references of SEEDA's
    sentences and its 15 outputs."""
    from conftest import SHARED_DATA

    from gecmetrics.readers import read_lines

    _, refs, _ = conll14()
    folder = SHARED_DATA / "SEEDA" / "outputs" / "all"
    hyps = {p.stem: read_lines(str(p), "hypothesis") for p in sorted(folder.glob("*.txt"))}
    n = len(next(iter(hyps.values())))
    return [r[:n] for r in refs], hyps


def record_bleu() -> dict:
    from sacrebleu.metrics import BLEU

    _, refs, hyps = conll14()
    corpus = []
    for options in BLEU_CONFIGS:
        metric = BLEU(force=True, references=refs, **options)
        scores = {}
        for name, lines in hyps.items():
            s = metric.corpus_score(lines, None)
            scores[name] = {"score": s.score, "sys_len": s.sys_len, "ref_len": s.ref_len,
                            "bp": s.bp}
        corpus.append({"options": options, "scores": scores})
    sentence = []
    for options in SENTENCE_BLEU_CONFIGS:
        theirs = dict(options)
        effective = theirs.pop("effective_order", True)
        metric = BLEU(force=True, effective_order=effective, **theirs)
        scores = {name: sampled([metric.sentence_score(line, [r[i] for r in refs]).score
                                 for i, line in enumerate(lines)])
                  for name, lines in hyps.items()}
        sentence.append({"options": options, "scores": scores})
    seeda_refs, seeda_hyps = seeda()
    corpus_metric, sentence_metric = BLEU(force=True), BLEU(force=True, effective_order=True)
    seeda_out = {
        "corpus": {name: corpus_metric.corpus_score(lines, seeda_refs).score
                   for name, lines in seeda_hyps.items()},
        "sentence": {name: sampled([sentence_metric.sentence_score(
            line, [r[i] for r in seeda_refs]).score for i, line in enumerate(lines)])
            for name, lines in seeda_hyps.items()},
    }
    return {"sacrebleu": version("sacrebleu"), "stride": STRIDE,
            "conll14": {"corpus": corpus, "sentence": sentence}, "seeda": seeda_out}


def record_chrf() -> dict:
    from gleu_chrf_data import SYSTEMS
    from gleu_chrf_data import conll14 as chrf_data
    from sacrebleu.metrics import CHRF

    _, refs, outputs = chrf_data()
    hyps = {name: outputs[name] for name in SYSTEMS}
    out: dict = {}
    for word_order in (0, 2):
        chrf = CHRF(word_order=word_order)
        out[str(word_order)] = {
            name: {"corpus": chrf.corpus_score(lines, refs).score,
                   "sentence": sampled([chrf.sentence_score(line, [r[i] for r in refs]).score
                                        for i, line in enumerate(lines)])}
            for name, lines in hyps.items()}
    return {"sacrebleu": version("sacrebleu"), "stride": STRIDE, "word_order": out}


def record_green() -> dict:
    import green_oracle as oracle

    sources, refs, hyps = conll14(with_null=True)
    out: dict = {}
    for tokenize, n in GREEN_SETTINGS.items():
        out[tokenize] = {}
        for name, hyp in hyps.items():
            out[tokenize][name] = {}
            for beta in GREEN_BETAS:
                p, r, f = oracle.corpus_green(sources, refs, hyp, n, tokenize, beta)
                sent = oracle.sentence_green(sources, refs, hyp, n, tokenize, beta)
                out[tokenize][name][str(beta)] = {
                    "precision": p, "recall": r, "f": f, "mean": sum(sent) / len(sent),
                    "sentence": sampled(sent)}
    return {"n": GREEN_SETTINGS, "stride": STRIDE, "results": out}


RECORDERS = {"bleu": (record_bleu, BLEU_FILE), "chrf": (record_chrf, CHRF_FILE),
             "green": (record_green, GREEN_FILE)}


def main(which: list[str]) -> None:
    for name in which or list(RECORDERS):
        record, path = RECORDERS[name]
        data = {"made_by": "GECMETRICS_SHARED_DATA=DATA python tests/reference/"
                           f"oracle_outputs.py {name}", **record()}
        path.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
        print(f"{path}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
