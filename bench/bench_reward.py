"""Speed of gecmetrics.reward against per-sample reward loops, on CoNLL-2014.

Run from the repository root (with the project installed; the errant extra for the
ERRANT case, the test extra for sacrebleu)::

    python bench/bench_reward.py [--sentences 1312] [--errant-sentences 100] [--repeat 3]
        [--only-errant]

The batch: each CoNLL-2014 source with 8 completions drawn (fixed seed) from the 12
official outputs, both references. Baselines, measured in the same run, interleaved
with the gecmetrics route:

* chrF: sacrebleu's ``sentence_chrf`` called once per sample (scores /100);
* GREEN: the plain-Python GREEN of the paper's formulas (tests/green_oracle.py) once
  per sample, its memo cleared before each run;
* GLEU: gecmetrics' own reward called once per sample (what a per-sample reward
  function does), without its cache;
* ERRANT F0.5: a per-sample loop over errant's API (parse the source, the completion
  and each reference, ``annotate``, F0.5 of the (start, end, correction) edits per
  reference, the best reference kept), as reward code does today; gecmetrics with
  empty ERRANT caches (a fresh ``$GECMETRICS_CACHE``), so no earlier run helps it.

It checks the rewards against the baseline's (identical, or the largest difference),
then prints rewards/s and peak traced memory at 8, 16 and 64 completions per source
(GLEU and chrF) and where the time of one GLEU batch goes. The machine's load average
is printed: on a shared machine the ratios, not the seconds, are the result.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time

import harness

sys.path.insert(0, str(harness.ROOT / "tests"))


def batch(m2, outputs, sentences: int, per_source: int, seed: int = 0):
    """(sources, references, completions): ``per_source`` completions per source."""
    refs_all = m2.references()
    rng = random.Random(seed)
    src, refs, comp = [], [], []
    for i in range(sentences):
        for _ in range(per_source):
            src.append(m2.sources[i])
            refs.append([ref[i] for ref in refs_all])
            comp.append(outputs[rng.choice(harness.TEAMS)][i])
    return src, refs, comp


def per_sample(reward, src, refs, comp):
    return [reward.score([s], [c], [r])[0] for s, r, c in zip(src, refs, comp, strict=True)]


def sacrebleu_chrf(src, refs, comp):
    from sacrebleu.metrics import CHRF

    chrf = CHRF()
    return [chrf.sentence_score(c, r).score / 100 for r, c in zip(refs, comp, strict=True)]


def oracle_green(src, refs, comp):
    import green_oracle

    green_oracle.regions.cache_clear()
    green_oracle.ngrams.cache_clear()
    return [green_oracle.sentence_green([s], [[x] for x in r], [c], 4, "word", 2.0)[0]
            for s, r, c in zip(src, refs, comp, strict=True)]


def errant_loop(src, refs, comp):
    """F0.5 per sample from errant's edits, best reference (errant_compare's rules:
    precision and recall 1 where nothing was proposed / expected)."""
    from gecmetrics.edits.extraction import load_annotator

    annotator, _ = load_annotator()
    out = []
    for s, rs, c in zip(src, refs, comp, strict=True):
        orig = annotator.parse(" ".join(s.split()))
        hyp_edits = {(e.o_start, e.o_end, e.c_str)
                     for e in annotator.annotate(orig, annotator.parse(" ".join(c.split())))}
        best = None
        for r in rs:
            ref_edits = {(e.o_start, e.o_end, e.c_str)
                         for e in annotator.annotate(orig, annotator.parse(" ".join(r.split())))}
            tp = len(hyp_edits & ref_edits)
            fp, fn = len(hyp_edits) - tp, len(ref_edits) - tp
            p = tp / (tp + fp) if fp else 1.0
            rc = tp / (tp + fn) if fn else 1.0
            f = (1.25 * p * rc) / (0.25 * p + rc) if p + rc else 0.0
            key = (tp, -fp - fn, f)
            if best is None or key > best[0]:
                best = (key, f)
        out.append(best[1])
    return out


def compare(name, ours, theirs, tol=0.0):
    diffs = [abs(a - b) for a, b in zip(ours, theirs, strict=True)]
    same = sum(d <= tol for d in diffs)
    return f"{same}/{len(diffs)} equal" + (f" (max diff {max(diffs):.2g})" if same < len(diffs)
                                           else "")


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--sentences", type=int, default=1312)
    parser.add_argument("--errant-sentences", type=int, default=100,
                        help="sources of the ERRANT case (its baseline takes ~20 ms a sample)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-errant", action="store_true")
    parser.add_argument("--only-errant", action="store_true",
                        help="only the ERRANT case (e.g. with --errant-sentences 1312)")
    parser.add_argument("--profile-only", action="store_true",
                        help="only where the time of one batch goes")
    opts = parser.parse_args()
    data = harness.shared_data(opts.data_dir)
    from gecmetrics.reward import Reward, RewardOptions

    m2, outputs = harness.conll14(data)
    print(f"load average at start: {os.getloadavg()}", flush=True)
    src, refs, comp = batch(m2, outputs, opts.sentences, 8)
    n = len(comp)
    print(f"{opts.sentences} sources x 8 completions = {n} rewards, 2 references\n", flush=True)

    cases = {} if opts.profile_only or opts.only_errant else {
        "chrF": ("chrf", sacrebleu_chrf, 1e-12),
        "GREEN": ("green", oracle_green, 1e-12),
        "GLEU": ("gleu", lambda s, r, c: per_sample(
            Reward("gleu", options=RewardOptions(cache_size=0)), s, r, c), 0.0),
    }
    table = harness.Table("rewards/s", "agreement", width=40)
    for label, (spec, baseline, tol) in cases.items():
        expected = baseline(src, refs, comp)
        got = Reward(spec).score(src, comp, refs)
        walls = harness.interleaved({
            "base": lambda b=baseline: b(src, refs, comp),
            "ours": lambda s=spec: Reward(s).score(src, comp, refs),
        }, opts.repeat)
        table.baseline(f"{label}: per-sample baseline", walls["base"], f"{n / walls['base']:.0f}")
        table.row(f"{label}: gecmetrics.reward (fresh)", walls["ours"],
                  f"{n / walls['ours']:.0f}", compare(label, got, expected, tol))
    if not (opts.skip_errant or opts.profile_only):
        esrc, erefs, ecomp = batch(m2, outputs, opts.errant_sentences, 8)
        from gecmetrics.edits.extraction import load_annotator

        load_annotator()  # spaCy loaded once before either route is timed
        with tempfile.TemporaryDirectory() as cache:
            os.environ["GECMETRICS_CACHE"] = cache
            start = time.perf_counter()
            expected = errant_loop(esrc, erefs, ecomp)
            base = time.perf_counter() - start
            start = time.perf_counter()
            got = Reward("errant").score(esrc, ecomp, erefs)
            ours = time.perf_counter() - start
            reward = Reward("errant")  # caches on disk now warm: a later training step
            start = time.perf_counter()
            reward.score(esrc, ecomp, erefs)
            warm = time.perf_counter() - start
        table.baseline(f"ERRANT F0.5: per-sample errant ({len(ecomp)})", base,
                       f"{len(ecomp) / base:.0f}")
        table.row("ERRANT F0.5: gecmetrics, empty caches", ours, f"{len(ecomp) / ours:.0f}",
                  compare("errant", got, expected))
        table.row("ERRANT F0.5: gecmetrics, same batch again", warm, f"{len(ecomp) / warm:.0f}")

    if opts.only_errant:
        return
    print("\nrewards/s and peak traced memory by completions per source "
          f"({min(opts.sentences, 200)} sources, a fresh reward each)", flush=True)
    scale = harness.Table("rewards/s", "distinct", width=40, speedup=False)
    for spec in () if opts.profile_only else ("gleu", "chrf"):
        for k in (8, 16, 64):
            s, r, c = batch(m2, outputs, min(opts.sentences, 200), k, seed=k)
            t = harness.measure(lambda s=s, r=r, c=c, spec=spec: Reward(spec).score(s, c, r),
                                repeat=opts.repeat, memory="rerun")
            distinct = len(set(zip(s, c, strict=True)))
            scale.alone(f"{spec}, {k} per source ({len(c)})", t, f"{len(c) / t.seconds:.0f}",
                        str(distinct))

    print("\nwhere the time of one GLEU batch goes (cProfile, a fresh reward)", flush=True)
    import cProfile
    import pstats

    from gecmetrics.corpus import Corpus
    from gecmetrics.reward import core

    profile = cProfile.Profile()
    profile.runcall(Reward("gleu").score, src, comp, refs)
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]

    def cumulative(func) -> float:
        code = func.__code__
        where = (code.co_filename, code.co_firstlineno, code.co_name)
        return sum(v[3] for k, v in stats.items() if k == where)

    total = cumulative(core.Reward.evaluate)
    metric_cls = type(Reward("gleu").metrics[0])
    parts = (("degenerate checks", cumulative(core.degenerate_reason)),
             ("corpus (checks, copies)", cumulative(Corpus.__post_init__)),
             ("n-gram counts and statistics", cumulative(metric_cls.statistics)))
    parts += (("the rest (row keys, grouping, cache)", total - sum(t for _, t in parts)),
              ("whole call", total))
    for what, t in parts:
        print(f"  {what:32} {t * 1000:9.1f} ms  {t / total:6.1%}", flush=True)
    print(f"\nload average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
