"""CoNLL-2014 with the GJG15 human rankings (Grundkiewicz et al., EMNLP 2015).

Systems: the 12 shared-task submissions and INPUT. INPUT is the source text
of the M2 file: the distributed ``official_submissions/INPUT`` has a trailing
space on every line, which would shift character-level scores. References:
both annotators of the official M2 file, lenient reading (see
:mod:`gecmetrics.m2`). Human scores: Expected Wins recomputed from
``GJG15/judgments.xml`` (``src-id`` is 0-based there), and the published
TrueSkill scores (the TrueSkill procedure is randomised).
"""

from __future__ import annotations

from pathlib import Path

from gecmetrics.corpus import Corpus
from gecmetrics.m2 import read_m2
from gecmetrics.readers import read_lines

from ..human import expected_wins, read_judgments
from .base import Benchmark, description, require_files

NAME = "conll14"


def load(root: Path, **_: object) -> Benchmark:
    desc = description(NAME)
    require_files(root, desc, NAME)
    m2 = read_m2(root / desc["m2"])
    sources = m2.sources
    hypotheses = {team: read_lines(root / desc["submissions"] / team, "hypothesis")
                  for team in desc["teams"]}
    hypotheses[desc["input_system"]] = list(sources)
    corpus = Corpus(sources, m2.references(), hypotheses, m2=m2)
    systems = list(hypotheses)
    items = read_judgments(root / desc["judgments"], desc["judgments_src_id_base"])
    ts = {k: v for k, v in desc["human_published"]["ts"].items() if not k.startswith("_")}
    human = {"ew": expected_wins(items, systems), "ts": ts}
    return Benchmark(
        name=NAME,
        corpus=corpus,
        human=human,
        system_sets={"all": systems, "+INPUT": systems,
                     "base": [s for s in systems if s != desc["input_system"]]},
        default_set="all",
        setting=f"CoNLL-2014 test set ({len(sources)} sentences, 2 references)",
        info={"judgments": items, "judgments_kind": "gjg15"},
    )
