"""Record gec-metrics' SOME, IMPARA and Scribendi scores with the tiny test models.

Writes tests/data/neural_reference.json, read by tests/test_neural_metrics.py.
Run in a separate venv holding the reference (never a project dependency):

    python -m venv /tmp/ref_neural
    /tmp/ref_neural/bin/pip install torch==2.13.0
    /tmp/ref_neural/bin/pip install gec-metrics==0.1.1   # pulls transformers, fuzzywuzzy,
                                                         # python-Levenshtein
    /tmp/ref_neural/bin/python tests/reference/gec_metrics_neural.py ../shared/data \
        tests/data/neural_reference.json

The models are the seeded tiny ones of tests/neural_models.py (imported from
this checkout), so the test rebuilds the same weights. gec-metrics' SOME calls
``.cuda()`` unconditionally in its constructor; on a CPU-only machine that
call is made a no-op here (nothing else is changed: ``no_cuda=True``).
"""

from __future__ import annotations

import json
import platform
import sys
import tempfile
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import torch  # noqa: E402
from neural_models import save_bert, save_gpt2  # noqa: E402

#: What the test rebuilds: seeds, sentences (first N of CoNLL-2014), systems.
N = 50
SYSTEMS = ["AMU", "CAMB", "UFC", "INPUT"]
SEEDS = {"some_g": 11, "some_f": 12, "some_m": 13, "impara_qe": 21, "impara_se": 22,
         "scribendi_lm": 31}
BATCH = 8
FUZZY_PAIRS = 1500


def conll(data: Path) -> tuple[list[str], dict[str, list[str]]]:
    m2 = data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"
    sources = [line[2:] for line in m2.read_text(encoding="utf-8").split("\n")
               if line.startswith("S ")]
    hyps = {}
    for team in SYSTEMS:
        if team == "INPUT":
            hyps[team] = list(sources)
        else:
            text = (data / "official_submissions" / team).read_text(encoding="utf-8")
            hyps[team] = text.split("\n")[:len(sources)]
    return sources, hyps


def main(data: Path, out: Path) -> None:
    torch.nn.Module.cuda = lambda self, *a, **k: self  # SOME's unconditional .cuda()
    from fuzzywuzzy.fuzz import token_sort_ratio
    from gec_metrics.metrics.impara import IMPARA
    from gec_metrics.metrics.scribendi import Scribendi
    from gec_metrics.metrics.some import SOME

    sources, all_hyps = conll(data)
    src = sources[:N]
    tmp = Path(tempfile.mkdtemp())
    g = save_bert(tmp / "g", SEEDS["some_g"])
    f = save_bert(tmp / "f", SEEDS["some_f"])
    m = save_bert(tmp / "m", SEEDS["some_m"])
    qe = save_bert(tmp / "qe", SEEDS["impara_qe"])
    se = save_bert(tmp / "se", SEEDS["impara_se"], head="encoder")
    lm = save_gpt2(tmp / "lm", SEEDS["scribendi_lm"])
    some = SOME(SOME.Config(model_g=str(g), model_f=str(f), model_m=str(m), no_cuda=True,
                            batch_size=BATCH))
    impara = IMPARA(IMPARA.Config(model_qe=str(qe), model_se=str(se), no_cuda=True,
                                  batch_size=BATCH, threshold=0.9))
    scrib = Scribendi(Scribendi.Config(model=str(lm), no_cuda=True, batch_size=BATCH))
    result: dict = {
        "command": "/tmp/ref_neural/bin/python tests/reference/gec_metrics_neural.py "
                   "../shared/data tests/data/neural_reference.json",
        "versions": {p: metadata.version(p) for p in
                     ("gec-metrics", "torch", "transformers", "fuzzywuzzy",
                      "python-Levenshtein")} | {"python": platform.python_version()},
        "n_sentences": N, "systems": SYSTEMS, "seeds": SEEDS, "batch_size": BATCH,
        "some": {}, "impara": {}, "scribendi": {},
    }
    for team in SYSTEMS:
        hyp = all_hyps[team][:N]
        result["some"][team] = some.score_sentence(src, hyp)
        result["impara"][team] = impara.score_sentence(src, hyp)
        result["scribendi"][team] = scrib.score_sentence(src, hyp)
    # IMPARA's similarities themselves (from the reference's SimilarityEstimator), and
    # the scores at a threshold near their median, where the gate zeroes about half
    # (the tiny encoder's similarities are all above the paper's 0.9)
    sims = {}
    for team in SYSTEMS:
        args = dict(max_length=128, padding="max_length", truncation=True, return_tensors="pt")
        a = impara.tokenizer_se(src, **args)
        b = impara.tokenizer_se(all_hyps[team][:N], **args)
        with torch.no_grad():
            sims[team] = impara.model_se(a["input_ids"], a["attention_mask"], b["input_ids"],
                                         b["attention_mask"]).view(-1).tolist()
    result["impara_similarity"] = sims
    values = sorted(v for team in SYSTEMS for v in sims[team] if v < 0.99999)
    threshold = round(values[len(values) // 2], 4)
    result["impara_threshold"] = threshold
    gated = IMPARA(IMPARA.Config(model_qe=str(qe), model_se=str(se), no_cuda=True,
                                 batch_size=BATCH, threshold=threshold))
    result["impara_at_threshold"] = {team: gated.score_sentence(src, all_hyps[team][:N])
                                     for team in SYSTEMS}
    # the fuzzy ratios on many real pairs (every team's output against its source)
    pairs = []
    teams = ["AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU",
             "UFC", "UMC"]
    for k in range(FUZZY_PAIRS):
        pairs.append([(k * 7) % len(sources), teams[k % len(teams)]])
    result["fuzzy_pairs"] = pairs
    texts = {t: (data / "official_submissions" / t).read_text(encoding="utf-8").split("\n")
             for t in teams}
    result["token_sort_ratio"] = [token_sort_ratio(sources[i], texts[t][i]) / 100
                                  for i, t in pairs]
    result["levenshtein_ratio"] = [scrib.levenshtein_distance_ratio(sources[i], texts[t][i])
                                   if sources[i] or texts[t][i] else None for i, t in pairs]
    extra = [("Ünïcödé – ¡ÿes!", "unicode yes"), ("a b c", "c b a"), ("", "x"), ("x", ""),
             ("The  cat.", "the cat"), ("ß straße", "SS strasse"), ("½ ¼ 中文", "中文"),
             ("aaaa", "aaab"), ("abcdefgh", "abcdefgz")]
    result["extra_pairs"] = [list(p) for p in extra]
    result["extra_token_sort_ratio"] = [token_sort_ratio(a, b) / 100 for a, b in extra]
    result["extra_levenshtein_ratio"] = [scrib.levenshtein_distance_ratio(a, b)
                                         for a, b in extra]
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
