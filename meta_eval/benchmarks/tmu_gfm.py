"""TMU-GFM-Dataset (Yoshimura et al., COLING 2020): ``tmu-gfm``, sentence-level ratings.

``TMU-GFM-Dataset/tmu-gfm-dataset.csv`` has a header ``source, output, grammer,
fluency, meaning, system, ave_g, ave_f, ave_m`` and one row per *distinct*
output of a source: ``system`` lists every system that produced that text
(``"lstm,cnn"``), and the three rating cells hold the five annotators'
ratings (0-4) as ``"3,4,3,4,3"``. There are no references, so only
reference-free metrics (``Metric.reference_free``: some, impara, scribendi)
and reference-free scores (``--scores``) can be meta-evaluated here.

Why the corpus is built the way it is: a few sources lack some systems'
outputs (not every system x source cell was rated), so the rated outputs
themselves are the corpus: one pseudo-system ``rows`` whose "sentences" are
the 4,221 CSV data rows (source and output of each row). That is also the
``--scores`` format here: ``{"rows": [score per CSV data row]}`` (or a folder
with a file ``rows``, one score a line). The corpus needs a reference set, so
the sources stand in for it; a reference-based metric is refused before
anything is scored (:func:`gecmetrics.meta_eval.ratings.check_metrics`), and
signatures say ``refs=0``.

Human scores: per row and aspect, the mean of the annotators' ratings
(``--human grammaticality|fluency|meaning``); an empty or non-numeric
rating cell is left out of that mean (the published file has none: all
4,221 rows carry five ratings per aspect), and a row with no rating of an
aspect is left out of that aspect's analyses. The system-level human score
(for the selection line) is the mean over the system's sentences.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from gecmetrics.corpus import Corpus
from gecmetrics.errors import InputError
from gecmetrics.readers import open_text

from .base import Benchmark, RatedOutput, RatedOutputs, description, require_files

NAME = "tmu-gfm"
ROWS = "rows"  # the pseudo-system whose sentences are the rated outputs
ASPECTS = ("grammaticality", "fluency", "meaning")


def _mean_rating(cell: str, where: str) -> float:
    values = []
    for part in cell.split(","):
        part = part.strip()
        if not part:
            continue  # a missing rating: left out of the mean
        try:
            values.append(float(part))
        except ValueError:
            raise InputError(f"{where}: rating {part!r} is not a number; expected "
                             "comma-separated ratings such as '3,4,3,4,3'") from None
    return sum(values) / len(values) if values else math.nan


def read_rows(path: Path, columns: dict[str, str]) -> list[RatedOutput]:
    """The rated outputs, in CSV order."""
    with open_text(path, "TMU-GFM rating", "tmu-gfm-dataset.csv's header and rows") as handle:
        reader = csv.DictReader(handle)
        needed = ["source", "output", "system", *columns.values()]
        missing = [c for c in needed if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(f"{path}:1: no column {missing[0]!r}; expected the header of "
                             "tmu-gfm-dataset.csv (source,output,grammer,fluency,meaning,"
                             "system,...)")
        records = list(reader)
    sentence_of: dict[str, int] = {}
    rows: list[RatedOutput] = []
    for number, rec in enumerate(records):
        where = f"{path}:{number + 2}"
        sentence = sentence_of.setdefault(rec["source"], len(sentence_of))
        systems = tuple(s.strip() for s in rec["system"].split(",") if s.strip())
        if not systems:
            raise InputError(f"{where}: empty 'system' field; every output names its systems")
        ratings = {aspect: _mean_rating(rec[column], f"{where}, field {column}")
                   for aspect, column in columns.items()}
        rows.append(RatedOutput(number, sentence, systems, ratings, rec["source"],
                                rec["output"]))
    return rows


def load(root: Path, name: str = NAME, **_: object) -> Benchmark:
    desc = description(NAME)
    require_files(root, desc, name)
    rows = read_rows(root / desc["csv"], desc["columns"])
    systems = sorted({s for row in rows for s in row.systems})
    if systems != sorted(desc["systems"]):
        raise InputError(f"{root / desc['csv']}: systems {', '.join(systems)}; expected "
                         f"{', '.join(desc['systems'])}")
    sources = [row.source for row in rows]
    corpus = Corpus(sources, [sources], {ROWS: [row.output for row in rows]})
    human: dict[str, dict[str, float]] = {}
    for aspect in ASPECTS:
        per_system: dict[str, list[float]] = {s: [] for s in systems}
        for row in rows:
            if not math.isnan(row.ratings[aspect]):
                for s in row.systems:
                    per_system[s].append(row.ratings[aspect])
        human[aspect] = {s: sum(v) / len(v) for s, v in per_system.items() if v}
    return Benchmark(
        name=name, corpus=corpus, human=human, system_sets={"all": systems},
        default_set="all", default_human="grammaticality",
        setting=(f"TMU-GFM ({len(rows)} rated outputs of {len(set(sources))} sources, "
                 f"{len(systems)} systems, no references)"),
        corpus_label=NAME, rated=RatedOutputs(rows, ROWS), reference_free=True,
    )
