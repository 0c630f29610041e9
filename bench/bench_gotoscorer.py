"""GoToScorer: gecmetrics vs the authors' GTS and gec-metrics 0.1.1, same run, same sentences.

Run from the repository root (references set up as in
tests/reference/gotoscorer_reference.py):

    python bench/bench_gotoscorer.py --gts-dir /tmp/gts \
        --gec-metrics-site /tmp/ref_goto/lib/python3.11/site-packages [--sentences N]

Two comparisons on the first N CoNLL-2014 sentences (default: all 1312) of
the 12 teams + INPUT:

1. weights and scores from edits already extracted: gecmetrics
   (:func:`score_chunks`) vs GTS (``chunker`` reading the gold M2 and an
   ``errant_parallel``-style system M2 written here from the same ERRANT
   edits, ``alignmenter``, ``calculate_weight``, ``calculate_system_score``);
2. end to end without caches (``--sentences`` 200 by default for this part):
   gecmetrics ``gotoscorer:weights=gec-metrics,scoring=gec-metrics,
   references=text,cache=false`` (spaCy parse, ERRANT, weights, scores) vs
   gec-metrics' weight generator plus ``score_corpus_verbose`` per system;
   both parse with spaCy, which dominates both.

Prints wall and CPU seconds (the ratios are of CPU seconds: both sides are
single-threaded Python, and on a shared machine wall time measures the
neighbours more than the code), gecmetrics' peak Python memory, and checks
that the F0.5 scores agree.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import harness

sys.path.insert(0, str(harness.ROOT / "tests" / "reference"))

from gecmetrics.corpus import Corpus  # noqa: E402
from gecmetrics.edits.extraction import Extractor, pair_edits  # noqa: E402
from gecmetrics.m2_format import M2File  # noqa: E402
from gecmetrics.metrics.gotoscorer import (  # noqa: E402
    SKIPPED_TYPES,
    GoToScorer,
    score_chunks,
)


def m2_text(path: Path, n: int) -> str:
    blocks = [b for b in path.read_text(encoding="utf-8").split("\n\n") if b.strip()]
    return "\n\n".join(blocks[:n]) + "\n\n"


def hyp_m2(sources, names, edits) -> str:
    """The system M2 errant_parallel writes (one coder id per system)."""
    out = []
    for d, src in enumerate(sources):
        lines = ["S " + src]
        for k, name in enumerate(names):
            es = edits[name][d]
            if not es:
                lines.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{k}")
            for s, e, c, t in es:
                lines.append(f"A {s} {e}|||{t}|||{c}|||REQUIRED|||-NONE-|||{k}")
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n\n"


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--gts-dir", type=Path, required=True)
    ap.add_argument("--gec-metrics-site", type=Path)
    ap.add_argument("--sentences", type=int, default=1312)
    ap.add_argument("--e2e-sentences", type=int, default=200)
    args = ap.parse_args()
    data = harness.shared_data(args.data_dir)
    m2_path = data / harness.CONLL_M2
    n = args.sentences
    sub, hyps = harness.conll14(data, sentences=n)
    hyps["INPUT"] = list(sub.sources)
    names = list(hyps)

    # -- 1. from extracted edits ------------------------------------------------------
    pairs = [(s, h[d]) for h in hyps.values() for d, s in enumerate(sub.sources)]
    with Extractor() as extractor:
        found = extractor.extract(pairs, [])
    edits = {name: [pair_edits(found, s, hyps[name][d]) for d, s in
                    enumerate(sub.sources)] for name in names}
    gold = [[(e.start, e.end, e.correction) for e in g.get(0, []) if e.type not in SKIPPED_TYPES]
            for g in (s.official_gold() for s in sub.sentences)]
    usable = {name: [[(s, e, c) for s, e, c, t in es if t not in SKIPPED_TYPES] for es in rows]
              for name, rows in edits.items()}
    ours = harness.measure(lambda: score_chunks(sub.sources, gold, usable, "paper", "gts"),
                           memory="rerun")
    ours_f = [s.score for s in ours.value.corpus(0.5)]

    sys.path.insert(0, str(args.gts_dir))
    import gotoscorer as gts_main  # noqa: E402
    from scripts import alignmenter, chunker  # noqa: E402

    with tempfile.TemporaryDirectory() as tmp:
        ref = Path(tmp) / "ref.m2"
        ref.write_text(m2_text(m2_path, n), encoding="utf-8")
        hyp = Path(tmp) / "hyp.m2"
        hyp.write_text(hyp_m2(sub.sources, names, edits), encoding="utf-8")

        def gts():
            g = chunker.generate_chunk_from_m2(str(ref), annotator_id=0)
            systems = chunker.generate_system_chunks(str(hyp))
            scored = alignmenter.evaluate(g, systems)
            weighted = gts_main.calculate_weight(scored, 1, 0, 0)
            return gts_main.calculate_system_score(weighted, len(systems), False)

        reference = harness.measure(gts)
    gts_f = [s.F05 for s in reference.value]
    worst = max(abs(a - b) for a, b in zip(ours_f, gts_f, strict=True))
    print(f"1. weights + scores from ERRANT edits, {n} sentences x {len(names)} systems")
    table = harness.Table(width=14, cpu=True, clock="cpu")
    table.baseline("GTS", reference)
    table.row("gecmetrics", ours)
    print(f"   max |F0.5 difference| {worst:.2e}")

    # -- 2. end to end, no caches ------------------------------------------------------
    if args.gec_metrics_site is None:
        print("2. skipped (no --gec-metrics-site)")
        return
    k = min(args.e2e_sentences, n)
    small = M2File(sub.path, sub.sentences[:k])
    small_hyps = {t: h[:k] for t, h in hyps.items()}
    ref_text = small.references()[0]

    def ours_e2e():
        metric = GoToScorer(weights="gec-metrics", scoring="gec-metrics", references="text",
                            cache=False)
        c = Corpus(small.sources, [ref_text], small_hyps)
        return [r.score for r in metric.evaluate(c)]

    import gotoscorer_reference as recorder  # noqa: E402

    recorder.patch_spacy()
    sys.path.insert(0, str(args.gec_metrics_site))
    GoToScorerRef, gen = recorder.load_gec_metrics()

    def reference_e2e():
        import json

        plain = GoToScorerRef(GoToScorerRef.Config(no_weight=True))
        rows = [gen.annotate_weight(small.sources[d], ref_text[d],
                                    [h[d] for h in small_hyps.values()], plain)
                for d in range(k)]
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fp:
            json.dump(rows, fp)
        scorer = GoToScorerRef(GoToScorerRef.Config(no_weight=False, weight_file=fp.name))
        out = [scorer.score_corpus(small.sources, h, [ref_text]) for h in small_hyps.values()]
        os.unlink(fp.name)
        return out

    ours = harness.measure(ours_e2e)
    reference = harness.measure(reference_e2e)
    worst = max(abs(a - b) for a, b in zip(ours.value, reference.value, strict=True))
    print(f"2. end to end (spaCy + ERRANT + weights + scores), {k} sentences x {len(names)} "
          "systems, no caches")
    table = harness.Table(width=14, cpu=True, peak=False, clock="cpu")
    table.baseline("gec-metrics", reference)
    table.row("gecmetrics", ours)
    print(f"   max |F0.5 difference| {worst:.2e}")


if __name__ == "__main__":
    main()
