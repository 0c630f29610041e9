"""CoNLL-2014 with the GJG15 human rankings (Grundkiewicz et al., EMNLP 2015),
and the rankings of Napoles et al. (ACL 2015).

Systems: the 12 shared-task submissions and INPUT. INPUT is the source text
of the M2 file: the distributed ``official_submissions/INPUT`` has a trailing
space on every line, which would shift character-level scores. References:
both annotators of the official M2 file, lenient reading (see
:mod:`gecmetrics.m2_format`). Human scores: Expected Wins recomputed from
``GJG15/judgments.xml`` (``src-id`` is 0-based there), and the published
TrueSkill scores (the TrueSkill procedure is randomised).

``napoles15-ew`` / ``napoles15-ts``: Expected Wins and TrueSkill from
``gec-ranking/data/all_judgments.xml`` (0-based ``id``, systems sharing an
output joined by ``,``). Its ``src`` is our INPUT; ``refmix1`` (a reference)
was ranked too and takes part in both computations as a player, but it has no
output file here, so it is never correlated. Expected Wins are recomputed when
first asked for (the file is only needed then); TrueSkill is the mean mu of 10
seeded runs of :mod:`..trueskill`, stored in ``data/conll14.json`` because the
runs take a minute or more (``tests/test_napoles15.py`` recomputes them).

``references`` (``--references``, combinable): ``nucle`` (default: the two
annotators of the official M2 file, as always) and the fluency and
minimal-edit references of Sakaguchi et al. (TACL 2016, ``keisks/reassess-gec``
``annotations/``), written by experts and by crowd workers, two annotators
each: ``expert-fluency``, ``expert-minimal``, ``turker-fluency``,
``turker-minimal``. Chosen sets are concatenated in the order given. With
any set other than ``nucle`` the corpus has text references only (no M2 gold
edits: ``m2`` and ``errant`` cannot score it) and its corpus label names the
sets. ``sakaguchi16-expert`` / ``sakaguchi16-turker``: the mean mu of the 100
published TrueSkill runs of the expert and the crowd ranking of the 13 systems.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.formatting import plural
from gecmetrics.m2_format import read_m2
from gecmetrics.readers import parse_json, read_lines, read_text

from ..human import RankingItem, expected_wins, read_judgments
from .base import (
    CONLL14_TEST,
    Benchmark,
    Judgments,
    LazyHuman,
    SourceSet,
    description,
    require_files,
)

NAME = "conll14"


DEFAULT_REFERENCES = ("nucle",)


def load(root: Path, references: tuple[str, ...] | None = None, **_: object) -> Benchmark:
    desc = description(NAME)
    require_files(root, desc, NAME)
    m2 = read_m2(root / desc["m2"])
    sources = m2.sources
    hypotheses = {team: read_lines(root / desc["submissions"] / team, "hypothesis")
                  for team in desc["teams"]}
    hypotheses[desc["input_system"]] = list(sources)
    chosen = tuple(references or DEFAULT_REFERENCES)
    refs = reference_texts(root, chosen, m2.references(), len(sources))
    nucle_only = chosen == DEFAULT_REFERENCES
    corpus = Corpus(sources, refs, hypotheses, m2=m2 if nucle_only else None)
    systems = list(hypotheses)
    items = read_judgments(root / desc["judgments"], desc["judgments_src_id_base"])
    ts = {k: v for k, v in desc["human_published"]["ts"].items() if not k.startswith("_")}
    napoles = desc["napoles15"]
    human = LazyHuman(
        {"ew": expected_wins(items, systems), "ts": ts},
        {"napoles15-ew": lambda: napoles15_scores(root.resolve(), "ew"),
         "napoles15-ts": lambda: _stored(root, napoles),
         "sakaguchi16-expert": lambda: sakaguchi16_scores(root, "sakaguchi16-expert"),
         "sakaguchi16-turker": lambda: sakaguchi16_scores(root, "sakaguchi16-turker")})
    setting = f"CoNLL-2014 test set ({len(sources)} sentences, {len(refs)} references"
    label = ""
    if not nucle_only:
        setting += f": {'+'.join(chosen)}"
        label = f"{NAME}-test+{'+'.join(chosen)}"
    return Benchmark(
        name=NAME,
        corpus=corpus,
        human=human,
        system_sets={"all": systems, "+INPUT": systems,
                     "base": [s for s in systems if s != desc["input_system"]]},
        default_set="all",
        setting=setting + ")",
        corpus_label=label,
        judgments=Judgments(items, "gjg15"),
        source_set=SourceSet(CONLL14_TEST, range(len(sources))),
    )


def reference_texts(root: Path, chosen: tuple[str, ...], nucle: list[list[str]] | Any,
                    n_sentences: int) -> list[list[str]]:
    """The reference texts of the chosen sets, in order (``nucle``: the M2 file's)."""
    sets = description(NAME)["reference_sets"]
    out: list[list[str]] = []
    for name in chosen:
        if name == "nucle":
            out += [list(r) for r in nucle]
            continue
        if name not in sets or name.startswith("_") or name == "files":
            known = [k for k in sets if not k.startswith("_") and k != "files"]
            raise ConfigError(f"--references must be among {', '.join(known)} (got {name!r})")
        require_files(root, {"files": [f for f in sets["files"] if f["path"] in sets[name]]},
                      NAME)
        for rel in sets[name]:
            lines = read_lines(root / rel, "reference")
            if len(lines) != n_sentences:
                raise InputError(f"{root / rel}: {plural(len(lines), 'line')}, but the "
                                 f"CoNLL-2014 test set has {n_sentences} sentences; is the file "
                                 "complete?")
            out.append(lines)
    return out


def sakaguchi16_scores(root: Path, kind: str) -> dict[str, float]:
    """Mean mu over the published TrueSkill runs of ranking ``kind``."""
    desc = description(NAME)["sakaguchi16"]
    pattern, runs = desc["rankings"][kind], desc["runs"]
    wanted = [f for f in desc["files"]
              if f["path"] in {pattern.format(run=i) for i in range(runs)}]
    require_files(root, {"files": wanted}, NAME)
    totals: dict[str, float] = {}
    for run in range(runs):
        path = root / pattern.format(run=run)
        text = read_text(path, "TrueSkill ranking")  # as every input: BOM, CRLF, NUL ...
        try:
            data = parse_json(text, str(path))
            scores = {k: float(v[0]) for k, v in data.items() if k != "data_points"}
        except (ValueError, TypeError, IndexError, AttributeError, InputError):
            raise InputError(f"{path}: expected a JSON object of system: [mu, sigma^2]") from None
        if totals and set(scores) != set(totals):
            raise InputError(f"{path}: other systems than the runs before it")
        for name, mu in scores.items():
            totals[name] = totals.get(name, 0.0) + mu
    return {name: total / runs for name, total in totals.items()}


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
