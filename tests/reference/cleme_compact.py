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
                    [list(c) + [s["fp_ne"][r][1], s["fp_un"][r][1]] for r, c in enumerate(s["weighted"])]
                    for s in d["sentences"]]
            out[name][variant] = keep
json.dump({"systems": out}, sys.stdout, indent=0)
