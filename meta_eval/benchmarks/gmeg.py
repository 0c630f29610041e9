"""GMEG-Data (Napoles, Nădejde and Tetreault, TACL 2019): ``gmeg-fce``, ``gmeg-wiki``.

Each domain and split (``GMEG/data/{test,dev}/{fce,wiki}/``) has the source
text (``source``), four references (``ref0``-``ref3``) and six system outputs
(``amu``, ``lstm``, ``lstm-r``, ``marian``, ``nus``, ``transformer``), one
tokenised sentence a line. The folder also holds ``source+error``: a negative
control (the source with errors inserted) shown to the raters, not a system;
it is never scored.

Human scores (kind ``rating``): ``{domain}-corpus-scores.csv``, a header
``system,score`` then one row per rated entry: the six systems, ``source`` and
``ref`` (the references as a system). ``ref`` has no single output file, so it
stays out; ``source`` is kept, as INPUT is for conll14. System sets: ``all``
(= ``+INPUT``/``+source``, the default: 6 systems + source) and ``base`` (the
6 systems).

Sentence-level human scores: ``{domain}-segment-scores.csv``, a header naming
the eight entries (columns in the order amu, marian, nus, lstm, lstm-r, ref,
source, transformer, *not* the order of the files), then one row per sentence
in file order; a few cells are empty (no rating). They become ranking items
(one per sentence: systems grouped by equal rating, higher rating = better
rank) for the pairwise sentence-level meta-evaluation.

The Yahoo! Answers domain is rated in the CSV files too, but its texts are not
public: ``gmeg-yahoo`` cannot run and says so.
"""

from __future__ import annotations

import csv
from pathlib import Path

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.formatting import plural
from gecmetrics.readers import open_text, read_lines

from ..human import RankingItem
from .base import Benchmark, Judgments, description, rating_items, require_files

NAME = "gmeg"
SPLITS = ("test", "dev")
DEFAULT_SPLIT = "test"
HUMAN_KIND = "rating"


def read_corpus_scores(path: Path) -> dict[str, float]:
    """``system,score`` rows of a GMEG corpus-scores file (header required)."""
    with open_text(path, "GMEG rating", "a 'system,score' header and rows") as handle:
        rows = [row for row in csv.reader(handle) if row]
    if not rows or [c.strip().lower() for c in rows[0]] != ["system", "score"]:
        raise InputError(f"{path}: expected a header 'system,score'")
    out = {}
    for number, row in enumerate(rows[1:], start=2):
        try:
            name, value = row
            out[name.strip()] = float(value)
        except ValueError:
            raise InputError(f"{path}:{number}: expected 'system,score'") from None
    return out


def read_segment_scores(path: Path, n_sentences: int) -> dict[str, list[float | None]]:
    """Per-entry lists of sentence ratings (None for an empty cell), one per sentence."""
    with open_text(path, "GMEG rating", "a header of systems and a row per sentence") as handle:
        rows = list(csv.reader(handle))
    header = [c.strip() for c in rows[0]]
    body = [row for row in rows[1:] if row]
    if len(body) != n_sentences:
        raise InputError(f"{path}: {plural(len(body), 'row')} of ratings but {n_sentences} "
                         "sentences")
    out: dict[str, list[float | None]] = {name: [] for name in header}
    for number, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise InputError(f"{path}:{number}: {plural(len(row), 'cell')}, expected {len(header)}")
        for name, cell in zip(header, row, strict=True):
            try:
                out[name].append(float(cell) if cell.strip() else None)
            except ValueError:
                raise InputError(f"{path}:{number}: {cell!r} is not a number") from None
    return out


def segment_items(segment: dict[str, list[float | None]], systems: list[str]) -> list[RankingItem]:
    """One ranking item per sentence: ``systems`` grouped by equal rating, best first."""
    return rating_items(segment, systems, "gmeg")


def load(root: Path, name: str = "gmeg-fce", split: str | None = None,
         **_: object) -> Benchmark:
    desc = description(NAME)
    domain = name.removeprefix("gmeg-")
    if domain in desc["unavailable_domains"]:
        raise ConfigError(f"benchmark {name} cannot run: {desc['unavailable_domains'][domain]}; "
                          f"use gmeg-fce or gmeg-wiki")
    split = split or DEFAULT_SPLIT
    if split not in SPLITS:
        raise ConfigError(f"--split must be one of {', '.join(SPLITS)} (got {split!r})")
    base = f"{desc['root']}/{split}/{domain}"
    needed = {**desc, "files": [f for f in desc["files"] if f["path"].startswith(base)]}
    require_files(root, needed, name)
    folder = root / base
    sources = read_lines(folder / "source", "source")
    references = [read_lines(folder / ref, "reference") for ref in desc["references"]]
    systems = list(desc["systems"])
    hypotheses = {s: read_lines(folder / s, "hypothesis") for s in systems}
    hypotheses[desc["input_system"]] = list(sources)
    corpus = Corpus(sources, references, hypotheses)
    every = systems + [desc["input_system"]]
    scores_dir = root / desc["root"] / split
    rating = read_corpus_scores(scores_dir / desc["corpus_scores"].format(domain=domain))
    missing = [s for s in every if s not in rating]
    if missing:
        raise InputError(f"{scores_dir}: no corpus rating for {missing}")
    segment = read_segment_scores(
        scores_dir / desc["segment_scores"].format(domain=domain), corpus.num_sentences)
    return Benchmark(
        name=name,
        corpus=corpus,
        human={HUMAN_KIND: {s: rating[s] for s in every}},
        system_sets={"all": every, "+INPUT": every, "base": systems},
        default_set="all",
        default_human=HUMAN_KIND,
        setting=(f"GMEG-Data {domain} {split} ({corpus.num_sentences} sentences, "
                 f"{len(references)} references)"),
        corpus_label=f"{name}-{split}",
        judgments=Judgments(segment_items(segment, every), "segment"),
        segment_scores=segment,
    )
