"""Write docs/results/attribution-auc.md: edit attributions against SEEDA's edit judgments.

    python docs/generate/make_attribution_auc.py [DATA_DIR]
    python docs/generate/make_results.py --fill-only      # to refill the page only

(docs/generate/make-results.sh runs it before docs/generate/make_results.py, which puts the
table into docs/results.md as ``{{attribution-auc}}``.) DATA_DIR defaults as for make_results.py.
For every metric below that runs on CPU (the neural metrics need their models and
are left out) and every attribution method, the ROC AUC of the attributions
separating the edits SEEDA's annotators accepted from those they rejected
(gecmetrics.meta_eval.edit_judgments). ERRANT joins with the ``errant`` extra
(``ERRANT=errant`` in the environment, as for make_results.py).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from gecmetrics.paths import data_dir

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "results" / "attribution-auc.md"
METRICS = ["green", "green:tokenize=char,n=6", "gleu", "gleu:variant=paper", "chrf", "bleu",
           "m2", "imeasure:mix=false", *os.environ.get("ERRANT", "").split()]
# ATTRIBUTION_METRICS="green chrf" runs these only (a quicker, partial table)
METRICS = os.environ.get("ATTRIBUTION_METRICS", "").split() or METRICS
METHODS = ("shapley", "add", "remove")


def main() -> None:
    from gecmetrics.m2_format import read_m2
    from gecmetrics.meta_eval.edit_judgments import attribution_auc, read_edit_judgments
    from gecmetrics.registry import metric_from_spec

    data = Path(sys.argv[1] if len(sys.argv) > 1 else data_dir())
    judgments = read_edit_judgments(data)
    m2 = read_m2(data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2")
    refs = m2.references()
    lines = ["| metric | " + " | ".join(f"AUC {m}" for m in METHODS) + " | seconds |",
             "|:--|" + "--:|" * (len(METHODS) + 1)]
    counts = None
    for spec in METRICS:
        start = time.perf_counter()
        rows = attribution_auc(metric_from_spec(spec), judgments, m2.sources, refs, m2, METHODS)
        took = time.perf_counter() - start
        counts = (rows[0].accepted, rows[0].rejected)
        lines.append(f"| `{spec}` | " + " | ".join(f"{r.auc:.3f}" for r in rows)
                     + f" | {took:.0f} |")
        print(f"{spec}: {took:.0f} s", file=sys.stderr, flush=True)
    assert counts is not None
    distinct = len({(c.source, c.hypothesis) for c in judgments.corrections})
    sentences = len({c.source for c in judgments.corrections})
    lines += ["", f"{len(judgments.corrections)} judged corrections ({distinct} distinct "
              f"corrections of {sentences} sentences), {counts[0]} accepted and {counts[1]} "
              "rejected edit judgments; "
              f"left out: {judgments.unreadable} corrections whose markup could not be read, "
              f"{judgments.unlabelled} edits without a single label."]
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
