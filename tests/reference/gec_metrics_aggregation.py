"""Record gec-metrics' own aggregation on SEEDA: tests/gec_metrics_aggregation_reference.json.

Not a test and not a dependency: run by hand to regenerate the reference numbers
that tests/test_aggregate.py::test_equals_gec_metrics_on_seeda checks.

1. Export gecmetrics' inputs and sentence scores (gecmetrics' environment)::

       python tests/reference/gec_metrics_aggregation.py export /tmp/ours.json

2. In a scratch venv with gec-metrics 0.1.1 (PyPI; its package __init__ imports
   torch, so only metrics/base.py, green.py and gleu.py are loaded, and gecommon,
   whose apply_edits is unused here, is stubbed)::

       python -m venv /tmp/ref_gm
       /tmp/ref_gm/bin/pip install --no-deps gec-metrics==0.1.1
       /tmp/ref_gm/bin/pip install trueskill numpy scipy tqdm
       git clone https://github.com/gotutiyan/gec-metrics /tmp/gm   # run_expected_wins (320c830)
       cd DATA && /tmp/ref_gm/bin/python tests/reference/gec_metrics_aggregation.py \\
           reference /tmp/ours.json /tmp/gm/src/gec_metrics/metrics/base.py OUT.json

   DATA is the folder holding SEEDA/ (outputs/subset, scores/human).

Sentence scores: gec-metrics' GREEN() and GLEU() on SEEDA's subset outputs with
gecmetrics' sources and references ("theirs"), and gecmetrics' gleu (official
variant) fed to gec-metrics' aggregation ("ours"). Aggregation: make_pairwise_scores
(every sentence, every pair, ties 0) + run_trueskill (0.1.1) / run_expected_wins
(GitHub HEAD); correlations with SEEDA's EW/TS human scores (scipy).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import types
from typing import Any

MODELS = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT", "LM-Critic",
          "PIE", "REF-F", "REF-M", "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS"]
DROPPED = {"base": ["INPUT", "REF-F", "GPT-3.5"], "+fluency": ["INPUT"]}
HUMAN = ("EW_sent", "EW_edit", "TS_sent", "TS_edit")


def export(path: str) -> None:
    from gecmetrics.meta_eval.benchmarks import load_benchmark
    from gecmetrics.registry import metric_from_spec

    bench = load_benchmark("seeda-s", "../shared/data", seeda_corpus="subset")
    out: dict[str, Any] = {"sources": list(bench.corpus.sources),
                           "references": [list(r) for r in bench.corpus.references]}
    for spec in ("green", "gleu"):
        stats = metric_from_spec(spec).statistics(bench.corpus)
        out[spec] = {"systems": list(stats.systems), "sentence": stats.sentence(None).tolist()}
    with open(path, "w") as f:
        json.dump(out, f)


def reference(ours_path: str, github_base: str, out_path: str) -> None:
    from scipy.stats import pearsonr, spearmanr

    site = importlib.util.find_spec("gec_metrics").submodule_search_locations[0]  # type: ignore
    sys.modules["gecommon"] = types.SimpleNamespace(apply_edits=None)  # type: ignore
    for name, folder in (("gec_metrics", site), ("gec_metrics.metrics", site + "/metrics")):
        module = types.ModuleType(name)
        module.__path__ = [folder]
        sys.modules[name] = module
    green = importlib.import_module("gec_metrics.metrics.green")
    gleu = importlib.import_module("gec_metrics.metrics.gleu")
    spec = importlib.util.spec_from_file_location("gh_base", github_base)
    gh = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(gh)  # type: ignore[union-attr]

    def read(path: str) -> list[str]:
        with open(path) as f:
            return f.read().rstrip("\n").split("\n")

    with open(ours_path) as f:
        ours = json.load(f)
    srcs, refs = ours["sources"], ours["references"]
    hyps = {m: read(f"SEEDA/outputs/subset/{m}.txt") for m in MODELS}
    assert srcs == hyps["INPUT"], "the sources differ"
    human = {k: [float(x) for x in read(f"SEEDA/scores/human/{k}.txt")] for k in HUMAN}
    rows = []
    for metric_name, metric in (("green", green.GREEN()), ("gleu", gleu.GLEU())):
        theirs = {m: metric.score_sentence(srcs, hyps[m], refs) for m in MODELS}
        mine = dict(zip(ours[metric_name]["systems"], ours[metric_name]["sentence"],
                        strict=True))
        sources = {"green": [("green", theirs)],
                   "gleu": [("gleu:variant=paper", theirs), ("gleu", mine)]}[metric_name]
        for spec_name, scores in sources:
            for systems, dropped in DROPPED.items():
                models = [m for m in MODELS if m not in dropped]
                pairwise = metric.make_pairwise_scores([scores[m] for m in models])
                for level, values in (("trueskill", metric.run_trueskill(pairwise)),
                                      ("ew", gh.MetricBase.run_expected_wins(metric, pairwise))):
                    row: dict[str, Any] = {"spec": spec_name, "systems": systems,
                                           "level": level,
                                           "scores": dict(zip(models, values, strict=True))}
                    for h in HUMAN:
                        hv = [human[h][MODELS.index(m)] for m in models]
                        row[h] = [float(pearsonr(values, hv)[0]), float(spearmanr(values, hv)[0])]
                    rows.append(row)
    with open(out_path, "w") as f:
        json.dump({"rows": rows}, f, indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2])
    else:
        reference(*sys.argv[2:5])
