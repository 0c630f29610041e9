"""Benchmark ``meta-eval --scores``: reading score files, and a whole run against GREEN.

Run from the repository root:  python bench/bench_score_files.py
The data are read from ../shared/data (or $GECMETRICS_SHARED_DATA). GREEN's
sentence scores on CoNLL-2014 (13 systems x 1,312 sentences) are written in every
format ``--scores`` reads; each is timed (best of 5) with its peak Python memory
(tracemalloc). Then one meta-eval run (level mean, 1000 bootstrap resamples,
--compare, wordGREEN and charGREEN) is timed in the same process with wordGREEN
computed (the baseline) and with its numbers read from a file; the correlations
must agree. Peak memory comes from a second run under tracemalloc.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from gecmetrics.meta_eval import meta_evaluate
from gecmetrics.meta_eval.benchmarks import load_benchmark
from gecmetrics.meta_eval.report import render_evaluation
from gecmetrics.meta_eval.score_files import read_scores
from gecmetrics.registry import get_metric


def shared_data() -> Path:
    env = os.environ.get("GECMETRICS_SHARED_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def measure(func: Callable[[], object], repeat: int = 5) -> tuple[float, float]:
    """(best seconds, peak MiB of Python allocations) of ``func()``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    tracemalloc.start()
    func()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return best, peak


def write_formats(folder: Path, data: Path) -> dict[str, Path]:
    corpus = load_benchmark("conll14", data).corpus
    results = get_metric("green").evaluate(corpus, level="sentence")
    lists = {r.hypothesis: r.scores for r in results}
    paths = {"score JSON (sentence)": folder / "score.json",
             "JSON {system: [scores]}": folder / "lists.json",
             "folder of per-system files": folder / "systems",
             "TSV system<TAB>score": folder / "green.tsv"}
    paths["score JSON (sentence)"].write_text(json.dumps([r.to_json() for r in results]))
    paths["JSON {system: [scores]}"].write_text(json.dumps(lists))
    paths["folder of per-system files"].mkdir()
    for name, scores in lists.items():
        (paths["folder of per-system files"] / f"{name}.txt").write_text(
            "".join(f"{v!r}\n" for v in scores or []))
    corpus_scores = get_metric("green").evaluate(corpus)
    paths["TSV system<TAB>score"].write_text(
        "system\tscore\n" + "".join(f"{r.hypothesis}\t{r.score!r}\n" for r in corpus_scores))
    return paths


def main() -> None:
    data = shared_data()
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_formats(Path(tmp), data)
        print("reading (CoNLL-2014 GREEN scores, 13 systems x 1,312 sentences)")
        print(f"  {'format':30s} {'size':>9s} {'time':>9s} {'peak':>9s}")
        for label, path in paths.items():
            size = (sum(p.stat().st_size for p in path.iterdir()) if path.is_dir()
                    else path.stat().st_size)
            seconds, peak = measure(lambda p=path: read_scores(p))
            print(f"  {label:30s} {size / 1024:7.0f} KB {seconds * 1000:6.1f} ms "
                  f"{peak:6.1f} MiB")

        common = dict(levels=["mean"], data_dir=str(data), bootstrap=1000, compare=True)
        load_benchmark("conll14", data)  # warm the file cache for both runs
        runs = {}
        for label, kwargs in {
            "GREEN computed (baseline)": dict(metrics=["green", "green:tokenize=char,n=6"]),
            "GREEN read with --scores": dict(metrics=["green:tokenize=char,n=6"], scores=[
                _metric(paths["score JSON (sentence)"])]),
        }.items():
            start = time.perf_counter()
            out, _ = render_evaluation(meta_evaluate(["conll14"], **kwargs, **common), "json")
            seconds = time.perf_counter() - start
            tracemalloc.start()  # a second run for the memory: tracemalloc slows numpy down
            meta_evaluate(["conll14"], **kwargs, **common)
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            runs[label] = (seconds, peak, json.loads(out))
        base = runs["GREEN computed (baseline)"]
        print("\nmeta-eval conll14, level mean, --bootstrap 1000 --compare "
              "(wordGREEN + charGREEN)")
        for label, (seconds, peak, _rows) in runs.items():
            print(f"  {label:30s} {seconds:6.2f} s  peak {peak:6.1f} MiB  "
                  f"time ratio {seconds / base[0]:.2f}")
        same = all(abs(a["pearson"] - b["pearson"]) <= 1e-9
                   for a, b in zip(base[2][:2], runs["GREEN read with --scores"][2][1::-1],
                                   strict=True))
        print(f"  correlations identical: {same}")


def _metric(path: Path):
    from gecmetrics.meta_eval.score_files import scores_metric

    return scores_metric("wordGREEN-file", path)


if __name__ == "__main__":
    main()
