"""SEEDA (Kobayashi et al., TACL 2024): 15 systems, two kinds of human rankings.

``seeda-s`` uses the sentence-based rankings, ``seeda-e`` the edit-based ones.
The systems are scored either on ``outputs/subset`` (the sentences the humans
judged; SEEDA's instruction) or on ``outputs/all`` (all 1,312 CoNLL-2014 test
sentences). Either way the references are CoNLL-2014's: for the subset, each
``INPUT`` line is located in the full CoNLL-2014 source, and a line that is
not found there is an error.

Human scores: Expected Wins and TrueSkill as published in
``SEEDA/scores/human`` (one value a line, systems in alphabetical order).
Expected Wins recomputed from the raw judgments (``SEEDA/data``, 1-based
``src-id``; ``benchmark.judgments``) agree with the published values to within
0.001.

System sets (SEEDA's ``corr_system.py``): ``base`` drops INPUT, REF-F and
GPT-3.5; ``+INPUT`` drops REF-F and GPT-3.5; ``+fluency`` (SEEDA's
``+REF-F_GPT-3.5``) drops INPUT; ``all`` keeps the 15.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.m2_format import M2File, read_m2
from gecmetrics.readers import read_lines

from ..human import read_judgments, read_score_lines
from .base import CONLL14_TEST, Benchmark, Judgments, SourceSet, description, require_files

CORPORA = ("subset", "all")
DEFAULT_CORPUS = "subset"
KINDS = {"seeda-s": "sent", "seeda-e": "edit"}


@lru_cache(maxsize=4)
def _corpus(root: Path, which: str) -> Corpus:
    """The SEEDA corpus on ``which`` sentences, shared by seeda-s and seeda-e.

    Cached, so metric statistics computed for one ranking are reused for the other.
    """
    desc = description("seeda")
    m2 = read_m2(root / desc["m2"])
    outputs = root / desc["outputs"] / which
    hypotheses = {name: read_lines(outputs / f"{name}.txt", "hypothesis")
                  for name in desc["systems"]}
    if which == "all":
        if hypotheses["INPUT"] != m2.sources:
            raise InputError(f"{outputs / 'INPUT.txt'} differs from the CoNLL-2014 source "
                             f"{root / desc['m2']}; is the data folder complete and unmodified?")
        return Corpus(m2.sources, m2.references(), hypotheses, m2=m2)
    positions = subset_positions(hypotheses["INPUT"], m2.sources, outputs / "INPUT.txt")
    sentences = [m2.sentences[i] for i in positions]
    sub_m2 = M2File(m2.path, sentences)
    return Corpus(sub_m2.sources, sub_m2.references(), hypotheses, m2=sub_m2)


@lru_cache(maxsize=4)
def corpus_positions(root: Path, which: str) -> tuple[int, ...]:
    """0-based CoNLL-2014 position of each corpus sentence (the judgments' ``src-id``)."""
    desc = description("seeda")
    corpus = _corpus(root, which)
    if which == "all":
        return tuple(range(corpus.num_sentences))
    m2 = read_m2(root / desc["m2"])
    return tuple(subset_positions(corpus.hypotheses["INPUT"], m2.sources,
                                  root / desc["outputs"] / which / "INPUT.txt"))


def subset_positions(lines: Sequence[str], sources: Sequence[str], where: object) -> list[int]:
    """0-based position in ``sources`` of each subset line, in order; loud on a mismatch."""
    index: dict[str, list[int]] = {}
    for i, line in enumerate(sources):
        index.setdefault(line, []).append(i)
    positions = []
    previous = -1
    for number, line in enumerate(lines, start=1):
        candidates = [i for i in index.get(line, []) if i > previous]
        if not candidates:
            raise InputError(
                f"{where}:{number}: this line is not (in order) a sentence of the CoNLL-2014 "
                "source, so its references cannot be found; is the data folder complete?"
            )
        previous = candidates[0]
        positions.append(previous)
    return positions


def load(root: Path, name: str = "seeda-s", seeda_corpus: str | None = None,
         **_: object) -> Benchmark:
    which = seeda_corpus or DEFAULT_CORPUS
    if which not in CORPORA:
        raise ConfigError(f"--seeda-corpus must be one of {', '.join(CORPORA)} (got {which!r})")
    desc = description("seeda")
    require_files(root, desc, name)
    kind = KINDS[name]
    corpus = _corpus(root.resolve(), which)
    systems = desc["systems"]
    human_dir = root / desc["human_scores"]
    human = {
        "ew": read_score_lines(human_dir / f"EW_{kind}.txt", systems),
        "ts": read_score_lines(human_dir / f"TS_{kind}.txt", systems),
    }
    items = read_judgments(root / desc["judgments"] / f"judgments_{kind}.xml",
                           desc["judgments_src_id_base"])
    return Benchmark(
        name=name,
        corpus=corpus,
        human=human,
        system_sets=desc["system_sets"],
        default_set="base",
        setting=f"corpus={which} ({corpus.num_sentences} sentences, CoNLL-2014 references)",
        corpus_label=which,
        judgments=Judgments(items, kind),
        sentence_positions=corpus_positions(root.resolve(), which),
        source_set=SourceSet(CONLL14_TEST, corpus_positions(root.resolve(), which)),
    )
