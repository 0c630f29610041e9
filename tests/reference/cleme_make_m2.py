"""Write ERRANT M2 files (errant_parallel for the 13 outputs, errant_m2 -gold for the
references) from gecmetrics' ERRANT extraction, as inputs for the CLEME reference."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for conftest
from conftest import CONLL_M2, SUBMISSIONS, TEAMS

from gecmetrics.corpus import Corpus
from gecmetrics.edits.extraction import (
    Extractor,
    gold_key,
    m2_corrections,
    pair_edits,
    reference_items,
)
from gecmetrics.m2_format import read_m2
from gecmetrics.readers import read_lines

out = Path(sys.argv[1])
m2 = read_m2(CONLL_M2)
sources = list(m2.sources)
hyps = {t: read_lines(SUBMISSIONS / t, "hypothesis") for t in TEAMS}
hyps["INPUT"] = read_lines(SUBMISSIONS / "INPUT", "hypothesis")
corpus = Corpus(sources, m2.references(), hyps, m2=m2)
gold = m2_corrections(corpus)
ref_pairs, gold_items = reference_items(corpus, gold)
hyp_pairs = [(sources[d], h) for lines in hyps.values() for d, h in enumerate(lines)]
with Extractor() as ex:
    edits = ex.extract(hyp_pairs, gold_items)
print("computed", ex.computed)

def line(e, coder):
    s, t, c, ty = e
    return f"A {s} {t}|||{ty}|||{c}|||REQUIRED|||-NONE-|||{coder}"

with open(out / "ref.m2", "w") as f:
    for sent, coders in zip(m2.sentences, gold, strict=True):
        src = " ".join(sent.source.split())
        f.write(f"S {src}\n")
        if not coders:
            coders = {0: None}
        for a in sorted(coders, key=str):
            item = coders[a]
            es = [] if item is None else edits[gold_key(sent.source, item)]
            if not es:
                f.write(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{a}\n")
            for e in es:
                f.write(line(e, a) + "\n")
        f.write("\n")
for name, lines in hyps.items():
    with open(out / f"{name}.m2", "w") as f:
        for d, hyp in enumerate(lines):
            src = " ".join(sources[d].split())
            f.write(f"S {src}\n")
            es = pair_edits(edits, sources[d], hyp)
            if not es:
                f.write("A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n")
            for e in es:
                f.write(line(e, 0) + "\n")
            f.write("\n")
