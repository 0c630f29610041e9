"""Per-sentence, per-annotator TP/FP/FN of ChERRANT, for gecmetrics' CommandEditMetric.

    python cherrant_counts.py CHERRANT_DIR GOLD.m2 HYPOTHESIS [char|word]

Run with the Python of ChERRANT's own environment (ltp, pypinyin, OpenCC,
python-Levenshtein; see docs/adapters.md). CHERRANT_DIR is ChERRANT's folder
(``scorers/ChERRANT`` of the MuCGEC repository). GOLD.m2 is the gold M2 file
gecmetrics writes (one token a character for char-level scoring), HYPOTHESIS
the system's output, one sentence a line.

The hypothesis edits are ChERRANT's own (its ``parallel_to_m2.py``, run as a
program), and they are matched with each annotator's gold edits by the
functions of its ``compare_m2_for_evaluation.py`` (span-based correction, its
default). Prints ``SENTENCE ANNOTATOR TP FP FN`` lines; gecmetrics then picks
one annotator per sentence by ERRANT's rule, as ChERRANT's scorer does.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile


def main() -> None:
    cherrant, gold_path, hyp_path = sys.argv[1:4]
    granularity = sys.argv[4] if len(sys.argv) > 4 else "char"
    sys.path.insert(0, cherrant)
    import compare_m2_for_evaluation as compare  # ChERRANT's scorer, as a module

    with open(gold_path, encoding="utf-8") as f:
        gold_blocks = [b for b in f.read().strip().split("\n\n") if b.strip()]
    with open(hyp_path, encoding="utf-8") as f:
        hyps = f.read().split("\n")[:len(gold_blocks)]
    with tempfile.TemporaryDirectory() as tmp:
        para = os.path.join(tmp, "hyp.para")
        with open(para, "w", encoding="utf-8") as f:
            for d, (block, hyp) in enumerate(zip(gold_blocks, hyps, strict=True)):
                source = "".join(block.split("\n")[0][2:].split())
                f.write(f"{d + 1}\t{source}\t{''.join(hyp.split())}\n")
        out = os.path.join(tmp, "hyp.m2")
        subprocess.run([sys.executable, "parallel_to_m2.py", "-f", para, "-o", out,
                        "-g", granularity], cwd=cherrant, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out, encoding="utf-8") as f:
            hyp_blocks = f.read().strip().split("\n\n")
    # compare_m2_for_evaluation's defaults: span-based correction, every annotator
    args = argparse.Namespace(dt=False, ds=False, cse=False, single=False, multi=False,
                              filt=[], max_answer_num=None)
    for d, (hyp_block, gold_block) in enumerate(zip(hyp_blocks, gold_blocks, strict=True)):
        hyp = compare.process_edits(compare.simplify_edits(hyp_block, None), args)
        gold = compare.process_edits(compare.simplify_edits(gold_block, None), args)
        for annotator in sorted(gold):
            tp, fp, fn, _ = compare.compareEdits(hyp[0], gold[annotator])
            print(d, annotator, tp, fp, fn)


if __name__ == "__main__":
    main()
