"""CoNLL-2014 with the GJG15 human rankings (Grundkiewicz et al., EMNLP 2015),
and the rankings of Napoles et al. (ACL 2015).

Systems: the 12 shared-task submissions and INPUT. INPUT is the source text
of the M2 file: the distributed ``official_submissions/INPUT`` has a trailing
space on every line, which would shift character-level scores. References:
both annotators of the official M2 file, lenient reading (see
:mod:`gecmetrics.m2`). Human scores: Expected Wins recomputed from
``GJG15/judgments.xml`` (``src-id`` is 0-based there), and the published
TrueSkill scores (the TrueSkill procedure is randomised).

``napoles15-ew`` / ``napoles15-ts``: Expected Wins and TrueSkill from
``gec-ranking/data/all_judgments.xml`` (0-based ``id``, systems sharing an
output joined by ``,``). Its ``src`` is our INPUT; ``refmix1`` (a reference)
was ranked too and takes part in both computations as a player, but it has no
output file here, so it is never correlated. Expected Wins are recomputed when
first asked for (the file is only needed then); TrueSkill is the mean mu of 10
seeded runs of :mod:`..trueskill`, stored in ``data/conll14.json`` because the
runs take a minute (``tests/test_napoles15.py`` recomputes them).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from gecmetrics.corpus import Corpus
from gecmetrics.m2 import read_m2
from gecmetrics.readers import read_lines

from ..human import RankingItem, expected_wins, read_judgments
from .base import Benchmark, LazyHuman, description, require_files

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
    napoles = desc["napoles15"]
    human = LazyHuman(
        {"ew": expected_wins(items, systems), "ts": ts},
        {"napoles15-ew": lambda: napoles15_scores(root.resolve(), "ew"),
         "napoles15-ts": lambda: _stored(root, napoles)})
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


def _stored(root: Path, desc: Mapping[str, Any]) -> dict[str, float]:
    require_files(root, desc, NAME)
    return {k: v for k, v in desc["ts"].items() if not k.startswith("_")}


def napoles15_items(root: Path) -> list[RankingItem]:
    """Napoles et al. (2015)'s rankings, ``src`` renamed to INPUT."""
    desc = description(NAME)["napoles15"]
    require_files(root, desc, NAME)
    items = read_judgments(root / desc["judgments"], desc["src_id_base"],
                           sentence_attribute=desc["sentence_attribute"],
                           separator=desc["separator"])
    rename: Mapping[str, str] = desc["rename"]
    return [RankingItem(item.sentence, item.user,
                        tuple((rank, tuple(rename.get(n, n) for n in names))
                              for rank, names in item.groups))
            for item in items]


@lru_cache(maxsize=8)
def napoles15_scores(root: Path, kind: str, runs: int = 0, seed: int = 0) -> dict[str, float]:
    """``ew``: Expected Wins over the 14 ranked entries; ``ts``: mean TrueSkill mu of
    ``runs`` runs seeded ``seed``, ``seed + 1`` ... (cached per process)."""
    from ..trueskill import trueskill_scores

    players = description(NAME)["napoles15"]["players"]
    items = napoles15_items(root)
    if kind == "ew":
        return expected_wins(items, players)
    return trueskill_scores(items, players, runs=runs, seed=seed)
