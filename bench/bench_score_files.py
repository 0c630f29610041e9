"""Benchmark ``meta-eval --scores``: reading score files, and a whole run against GREEN.

Run from the repository root:  python bench/bench_score_files.py
The data are read from --data-dir, else $GECMETRICS_SHARED_DATA, else ../shared/data. GREEN's
sentence scores on CoNLL-2014 (13 systems x 1,312 sentences) are written in every
format ``--scores`` reads; each is timed (best of 5) with its peak Python memory
(tracemalloc). Then one meta-eval run (level mean, 1000 bootstrap resamples,
--compare, wordGREEN and charGREEN) is timed in the same process with wordGREEN
computed (the baseline) and with its numbers read from a file; the correlations
must agree. Peak memory comes from a second run under tracemalloc.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import harness

from gecmetrics.meta_eval import meta_evaluate
from gecmetrics.meta_eval.benchmarks import load_benchmark
from gecmetrics.meta_eval.render import render_evaluation
from gecmetrics.meta_eval.score_files import read_scores
from gecmetrics.registry import get_metric


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
    args = harness.parser(__doc__).parse_args()
    data = harness.shared_data(args.data_dir)
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_formats(Path(tmp), data)
        print("reading (CoNLL-2014 GREEN scores, 13 systems x 1,312 sentences)")
        table = harness.Table("size KB", width=30)
        for label, path in paths.items():
            size = (sum(p.stat().st_size for p in path.iterdir()) if path.is_dir()
                    else path.stat().st_size)
            table.alone(label, harness.measure(lambda p=path: read_scores(p), 5, "rerun"),
                        f"{size / 1024:.0f}")

        common = dict(levels=["mean"], data_dir=str(data), bootstrap=1000, compare=True)
        load_benchmark("conll14", data)  # warm the file cache for both runs
        print("\nmeta-eval conll14, level mean, --bootstrap 1000 --compare "
              "(wordGREEN + charGREEN)")
        table = harness.Table(width=30, speedup=False)
        computed = harness.measure(lambda: render_evaluation(meta_evaluate(
            ["conll14"], ["green", "green:tokenize=char,n=6"], **common), "json"),
            memory="rerun")
        table.baseline("GREEN computed", computed)
        read = harness.measure(lambda: render_evaluation(meta_evaluate(
            ["conll14"], ["green:tokenize=char,n=6"],
            scores=[_metric(paths["score JSON (sentence)"])], **common), "json"),
            memory="rerun")
        table.row("GREEN read with --scores", read)
        same = all(abs(a["pearson"] - b["pearson"]) <= 1e-9
                   for a, b in zip(json.loads(computed.value[0])[:2],
                                   json.loads(read.value[0])[1::-1], strict=True))
        print(f"  correlations identical: {same}")


def _metric(path: Path):
    from gecmetrics.meta_eval.score_files import scores_metric

    return scores_metric("wordGREEN-file", path)


if __name__ == "__main__":
    main()
