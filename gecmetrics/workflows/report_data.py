"""What an HTML report shows, gathered as typed data: the library behind
``gecmetrics report``.

:class:`ReportOptions` takes the inputs of ``gecmetrics score`` (the same files,
metrics, betas and paired test, checked by the same
:class:`~gecmetrics.scoring.ScoreOptions`, so both commands accept and refuse
the same things) plus what only a report needs: where it goes and which edits
to show. :func:`gather` reads the files once into a corpus and returns one
:class:`ReportData`: corpus and sentence scores of every (metric, beta) and
system (the metric's statistics are counted once and cached on the corpus, so
the sentence level costs a gather, not a second count), each result's
signature, the paired comparison of every system with every other one as
baseline (one resampling per metric and baseline; the reader picks the baseline
in the page), and the edits of every system output and reference against the
source. Rendering it is :mod:`gecmetrics.interface.html_report`'s job, which this module
never imports.

Edits: ERRANT's (:mod:`gecmetrics.edits.extraction`, with its disk cache) when
the errant extra is installed, else a plain token diff (:func:`token_diff`),
which finds the same spans as an alignment with no linguistic costs and gives
each edit only its operation (``R``, ``M`` missing, ``U`` unnecessary); with an
M2 file and no ``-r``, the references are the M2 annotators and their edits are
the M2 file's own.

Attributions (``attribution``, one of :data:`ATTRIBUTIONS`; default ``none``):
:attr:`ReportData.attributions` holds, per metric spec, one value per edit (per
system and sentence, in the order of :attr:`ReportData.system_edits`), computed
by :func:`gecmetrics.workflows.attribution.attribute` on exactly the edits the page
highlights (they are passed to it, so the spans cannot differ); the page colours
edits by it. Every metric with sentence scores of the sentence alone is
attributed; the others are left out with a note. The attribution module's
bounds apply: a sentence with more edits than its exact bound is sampled, with a
note, and a run that would build too many subset sentences is refused before
any is scored. The default is ``none`` because attribution costs several times
the report itself on CoNLL-2014 (docs/report.md gives the times).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from gecmetrics import extras
from gecmetrics.errors import ConfigError
from gecmetrics.metric import Metric, SystemResult
from gecmetrics.paired import PairedOptions, compare_with_baselines
from gecmetrics.parallel import execution
from gecmetrics.readers import short_names
from gecmetrics.scoring import ScoreOptions, load_corpus, references_field, score_corpus
from gecmetrics.signature import score_signature
from gecmetrics.validate import check_output_file, check_outputs
from gecmetrics.workflows.attribution import AttributionOptions, attribute

if TYPE_CHECKING:
    from gecmetrics.corpus import Corpus
    from gecmetrics.paired import PairedOptions
    from gecmetrics.paired_result import PairedResult
    from gecmetrics.scoring import ScoreOptions

#: Which edits the sentence explorer shows: ``auto`` (ERRANT's when the errant
#: extra is installed, else the token diff), ``errant`` or ``diff``.
EditSource = Literal["auto", "errant", "diff"]
EDIT_SOURCES: tuple[str, ...] = ("auto", "errant", "diff")

#: Paired bootstrap resamples of a report when no paired test is named: enough
#: for p-values to two digits, and about a second for 13 systems and 4 metrics.
REPORT_RESAMPLES = 1000

#: ``--attribution``: none, or a method of :mod:`gecmetrics.workflows.attribution`.
ATTRIBUTIONS: tuple[str, ...] = ("none", "shapley", "sampling", "add", "remove")

#: The suffixes a report file may have.
REPORT_SUFFIXES = (".html", ".htm")

#: One edit on the source's whitespace tokens [start, end): (start, end,
#: correction, type); type is ERRANT's (``R:VERB:SVA``), the M2 file's, or the
#: token diff's operation (``R``, ``M``, ``U``).
ReportEdit = tuple[int, int, str, str]


@dataclass(frozen=True)
class ReportOptions:
    """What one report shows. The scoring inputs are those of
    :class:`~gecmetrics.scoring.ScoreOptions` (and checked by it, when this object
    is made); ``paired`` None picks a paired bootstrap of :data:`REPORT_RESAMPLES`
    when there are at least two systems (``significance=False``: no test);
    ``output``, when given, is checked to be a writable ``.html`` path before any
    file is read; ``edits`` one of :data:`EDIT_SOURCES`; ``attribution`` one of
    :data:`ATTRIBUTIONS`.
    """

    source: str
    references: Sequence[str] = ()
    hypotheses: Sequence[str] = ()
    metrics: Sequence[str | Metric] = ("green",)
    m2: str | None = None
    betas: Sequence[float] = ()
    paired: PairedOptions | None = None
    jobs: int | None = None
    edits: EditSource = "auto"
    output: str | None = None
    significance: bool = True
    attribution: str = "none"
    score_options: ScoreOptions = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.edits not in EDIT_SOURCES:
            raise ConfigError(f"--edits {self.edits!r} is not one of "
                              f"{', '.join(EDIT_SOURCES)}")
        if self.attribution not in ATTRIBUTIONS:
            raise ConfigError(f"--attribution {self.attribution!r} is not one of "
                              f"{', '.join(ATTRIBUTIONS)}")
        if self.output is not None:  # before any file is read
            check_output_file(self.output, "-o/--output", REPORT_SUFFIXES)
            check_outputs([("-o/--output", self.output)],
                          [("-s/--source", self.source), ("--m2", self.m2),
                           *(("-r/--reference", p) for p in self.references),
                           *(("-c/--hypothesis", p) for p in self.hypotheses)])
        if not self.hypotheses:
            raise ConfigError("a report needs at least one system output: give -c FILE...")
        paired = self.paired
        if paired is None and self.significance and len(self.hypotheses) >= 2:

            paired = PairedOptions("bs", REPORT_RESAMPLES)
        options = ScoreOptions(self.source, self.references, self.hypotheses, self.metrics,
                               self.m2, self.betas, "corpus", None, paired, self.jobs)
        object.__setattr__(self, "score_options", options)
        if self.edits == "errant":

            extras.check("--edits errant", "errant")


@dataclass(frozen=True)
class ReportColumn:
    """One (metric, beta) of the report.

    ``corpus``: its corpus result per system (systems in :attr:`ReportData.systems`
    order); ``sentences``: per system, its sentence scores (None where undefined);
    ``paired``: per baseline system, the comparison of every system with it (empty
    without a paired test).
    """

    metric: str
    spec: str
    beta: float | None
    signature: str
    corpus: tuple[SystemResult, ...]
    sentences: tuple[tuple[float | None, ...], ...]
    paired: tuple[tuple[PairedResult, ...], ...] = ()


@dataclass(frozen=True)
class ReportData:
    """Everything a report shows (see the module's docstring)."""

    sources: tuple[str, ...]
    systems: tuple[str, ...]
    outputs: tuple[tuple[str, ...], ...]
    reference_names: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    columns: tuple[ReportColumn, ...]
    system_edits: tuple[tuple[tuple[ReportEdit, ...], ...], ...]
    reference_edits: tuple[tuple[tuple[ReportEdit, ...], ...], ...]
    edit_source: str
    attributions: Mapping[str, Sequence[Sequence[Sequence[float]]]] = field(
        default_factory=lambda: MappingProxyType({}))
    notes: tuple[str, ...] = ()
    #: The method of :attr:`attributions` (None: none computed) and each
    #: attributed metric spec's attribution signature.
    attribution_method: str | None = None
    attribution_signatures: Mapping[str, str] = field(
        default_factory=lambda: MappingProxyType({}))


def gather(options: ReportOptions, warn: Callable[[str], None] | None = None) -> ReportData:
    """Read, score and extract everything ``options`` asks for (see the module)."""
    from gecmetrics.edits.extraction import sharing_edits

    # the ERRANT metric's edits are the page's too: read from the edit cache once
    with sharing_edits():
        return _gather(options, warn)


def _gather(options: ReportOptions, warn: Callable[[str], None] | None) -> ReportData:
    so = options.score_options
    notes = list(so.notes)
    with execution(jobs=so.jobs):
        corpus = load_corpus(so.source, so.references, so.hypotheses, so.m2, warn)
        columns = _columns(corpus, so, options.paired is None, notes)
    systems = tuple(corpus.hypotheses)
    kind = _edit_kind(options.edits, notes)
    others = [corpus.hypotheses[name] for name in systems]
    gold = corpus.m2 if corpus.m2 is not None and not so.references else None
    if gold is None:
        others += list(corpus.references)
    edits = _edits(corpus.sources, others, kind)
    system_edits = tuple(edits[:len(systems)])
    if gold is not None:  # the M2 edits, first alternative (as the derived references)
        ids = gold.annotator_ids
        names = tuple(f"annotator {k}" for k in ids)
        reference_edits = tuple(
            tuple(tuple((e.start, e.end, " ".join(e.replacement), e.type) for e in s.edits
                        if e.annotator == k and not e.is_noop)
                  for s in gold.sentences) for k in ids)
    else:
        names = tuple(short_names(so.references))
        reference_edits = tuple(edits[len(systems):])
    attributions, signatures = _attributions(corpus, so, options.attribution, kind,
                                             system_edits, notes)
    return ReportData(
        sources=tuple(corpus.sources), systems=systems,
        outputs=tuple(tuple(corpus.hypotheses[s]) for s in systems),
        reference_names=names, references=tuple(tuple(r) for r in corpus.references),
        columns=columns, system_edits=system_edits, reference_edits=reference_edits,
        edit_source=kind, notes=tuple(notes), attributions=MappingProxyType(attributions),
        attribution_method=None if options.attribution == "none" else options.attribution,
        attribution_signatures=MappingProxyType(signatures))


def _attributions(corpus: Corpus, so: ScoreOptions, method: str, kind: str,
                  system_edits: Sequence[Sequence[Sequence[ReportEdit]]], notes: list[str]
                  ) -> tuple[dict[str, tuple[tuple[tuple[float, ...], ...], ...]],
                             dict[str, str]]:
    """Per metric spec, the attribution of every shown edit (``method``; none for
    ``none``), and its signature. The edits attributed are ``system_edits``
    themselves, so each value belongs to the span the page highlights."""
    if method == "none":
        return {}, {}

    options = AttributionOptions(method)
    edits = {name: [list(per) for per in system_edits[k]]
             for k, name in enumerate(corpus.hypotheses)}
    values: dict[str, tuple[tuple[tuple[float, ...], ...], ...]] = {}
    signatures: dict[str, str] = {}
    for metric in so.metric_objects:
        if metric.spec in values:
            continue
        problem = metric.sentence_scores_problem()
        if problem is not None:
            notes.append(f"note: {metric.display_name} has no edit attributions: {problem}")
            continue
        result = attribute(metric, corpus, options, edits, edit_source=kind)
        notes.extend(n for n in result.notes if n not in notes)  # the same per metric
        index = {name: k for k, name in enumerate(corpus.hypotheses)}
        table: list[list[tuple[float, ...]]] = [[()] * corpus.num_sentences
                                                for _ in corpus.hypotheses]
        for s in result.sentences:
            table[index[s.system]][s.sentence] = tuple(e.attribution for e in s.edits)
        values[metric.spec] = tuple(tuple(per) for per in table)
        signatures[metric.spec] = result.signature
    return values, signatures


def _columns(corpus: Corpus, so: ScoreOptions, default_test: bool, notes: list[str]
             ) -> tuple[ReportColumn, ...]:
    """One :class:`ReportColumn` per (metric, beta), metrics in the order given.

    The default test (``default_test``: no paired test named) runs only where a
    resample is one matrix product (:meth:`~gecmetrics.metric.Statistics.sentence_statistics`);
    a metric without it (GLEU: its references are sampled) needs a corpus score per
    resample, about a minute for 1,000 on CoNLL-2014, so it is tested only when a
    test is named, with a note saying so.
    """
    import math


    refs_from = "text" if so.references else "m2-lenient"
    extra = so.paired.signature_fields() if so.paired is not None else {}
    out = []
    for metric in so.metric_objects:
        scored = score_corpus(corpus, [metric], "corpus", so.betas)
        sentence = score_corpus(corpus, [metric], "sentence", so.betas)
        stats = metric.statistics(corpus) if so.paired is not None else None
        for beta in dict.fromkeys(r.beta for r in scored):
            rows = tuple(r for r in scored if r.beta == beta)
            per = tuple(tuple(None if v is None or not math.isfinite(v) else float(v)
                              for v in (r.scores or ()))
                        for r in sentence if r.beta == beta)
            sig = str(score_signature(
                metric, *references_field(metric, corpus, len(corpus.references), refs_from),
                "corpus", beta, corpus).extend(**extra))
            paired: tuple[tuple[PairedResult, ...], ...] = ()
            fast = stats is not None and stats.sentence_statistics(beta) is not None
            if stats is not None and so.paired is not None and default_test and not fast:
                notes.append(f"note: {metric.display_name} has no significance marks: its "
                             "paired bootstrap rescores the corpus for every resample (slow); "
                             "give --paired-bootstrap N to test it too")
            elif stats is not None and so.paired is not None:
                values = [float(r.score) if r.score is not None else float("nan")
                          for r in rows]
                paired = tuple(tuple(row) for row in compare_with_baselines(
                    stats, values, "corpus", beta, so.paired, range(len(rows))))
            out.append(ReportColumn(metric.display_name, metric.spec, beta, sig, rows, per,
                                    paired))
    return tuple(out)


def _edit_kind(asked: str, notes: list[str]) -> str:
    """``errant`` or ``diff``: what ``asked`` (one of :data:`EDIT_SOURCES`) resolves to."""
    if asked != "auto":
        return asked
    from gecmetrics.edits.edit_cache import tool_identity
    from gecmetrics.edits.extraction import MODEL_CANDIDATES

    try:
        extras.check("ERRANT edits", "errant")
    except ConfigError:
        notes.append("note: the errant extra is not installed: edits are shown as a token "
                     f"diff without error types ({extras.install_command('errant')} for "
                     "ERRANT's)")
        return "diff"
    if tool_identity("", MODEL_CANDIDATES) is None:
        notes.append("note: no spaCy English pipeline found: edits are shown as a token diff "
                     "without error types")
        return "diff"
    return "errant"


def _edits(sources: Sequence[str], others: Sequence[Sequence[str]], kind: str
           ) -> list[tuple[tuple[ReportEdit, ...], ...]]:
    """Per sentence list of ``others``, the edits of each line against its source."""
    if kind == "diff":
        known: dict[tuple[str, str], tuple[ReportEdit, ...]] = {}  # outputs repeat

        def diff(s: str, o: str) -> tuple[ReportEdit, ...]:
            found = known.get((s, o))
            if found is None:
                found = known[(s, o)] = tuple(token_diff(s, o))
            return found

        return [tuple(diff(s, o) for s, o in zip(sources, lines, strict=True))
                for lines in others]
    from gecmetrics.edits.extraction import Extractor, pair_key

    # each line's key once; ERRANT is asked for each distinct changed pair once (most
    # outputs leave most lines unchanged, and systems share corrections)
    keys = [[pair_key(s, o) for s, o in zip(sources, lines, strict=True)] for lines in others]
    pairs: dict[Any, tuple[str, str]] = {}
    for lines, line_keys in zip(others, keys, strict=True):
        for s, o, key in zip(sources, lines, line_keys, strict=True):
            if key is not None and key not in pairs:
                pairs[key] = (s, o)
    with Extractor() as extractor:
        found = extractor.extract(pairs.values(), ())
    typed: dict[Any, tuple[ReportEdit, ...]] = {
        key: tuple((int(a), int(b), str(c), str(t)) for a, b, c, t in edits)
        for key, edits in found.items()}
    return [tuple(() if key is None else typed.get(key, ()) for key in line_keys)
            for line_keys in keys]


def token_diff(source: str, other: str) -> list[ReportEdit]:
    """The edits turning ``source``'s whitespace tokens into ``other``'s: the
    replaced, missing (inserted) and unnecessary (deleted) stretches, typed by
    operation only (``R``, ``M``, ``U``).

    The common prefix and suffix are matched first, then the rest by the longest
    matching blocks (:class:`difflib.SequenceMatcher`, no junk heuristic): a GEC
    output changes a few tokens, so the matcher sees a few tokens, not the sentence.
    """
    a, b = source.split(), other.split()
    if a == b:
        return []
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    ops = {"replace": "R", "insert": "M", "delete": "U"}
    matcher = difflib.SequenceMatcher(None, a[start:end_a], b[start:end_b], autojunk=False)
    return [(start + i1, start + i2, " ".join(b[start + j1:start + j2]), ops[tag])
            for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def edit_types(data: ReportData) -> list[str]:
    """The edit types present in ``data``'s system outputs, sorted."""
    return sorted({e[3] for per in data.system_edits for edits in per for e in edits})


def report_json(data: ReportData, labels: Sequence[str], title: str,
                display: Callable[[str], str] | None = None) -> dict[str, Any]:
    """The JSON the page embeds: ``labels`` name the columns (one per column),
    scores are 0-1 floats rounded to 6 digits (the page shows percent to 2), and a
    system output equal to its source is null (the page shows the source).
    Systems are named by ``display`` or else by :func:`~gecmetrics.readers.short_names`
    (the file name, with as many folders as tell two files of one name apart)."""
    def r(v: float | None) -> float | None:
        return None if v is None else round(v, 6)

    def paired(p: PairedResult) -> list[Any] | None:
        if p.delta is None:
            return None
        ci = p.delta_ci or (None, None)
        return [r(p.delta), r(ci[0]), r(ci[1]), r(p.p_value)]

    columns = []
    for label, c in zip(labels, data.columns, strict=True):
        columns.append({
            "label": label, "metric": c.metric, "spec": c.spec, "beta": c.beta,
            "signature": c.signature,
            "corpus": [r(x.score) for x in c.corpus],
            "precision": [r(x.precision) for x in c.corpus],
            "recall": [r(x.recall) for x in c.corpus],
            "sentences": [[r(v) for v in per] for per in c.sentences],
            "paired": [[paired(p) for p in per] for per in c.paired],
            "test": (c.paired[0][0].test if c.paired else None),
            "samples": (c.paired[0][0].samples if c.paired else None),
        })
    return {
        "title": title,
        "sources": list(data.sources),
        "systems": (short_names(data.systems) if display is None
                    else [display(s) for s in data.systems]),
        "outputs": [[None if o == s else o for o, s in zip(out, data.sources, strict=True)]
                    for out in data.outputs],
        "references": [{"name": n, "lines": list(lines)}
                       for n, lines in zip(data.reference_names, data.references,
                                           strict=False)],
        "columns": columns,
        "edits": [[[list(e) for e in edits] for edits in per] for per in data.system_edits],
        "reference_edits": [[[list(e) for e in edits] for edits in per]
                            for per in data.reference_edits],
        "edit_source": data.edit_source,
        "types": edit_types(data),
        "attributions": {k: [[[r(x) for x in v] for v in per] for per in values]
                         for k, values in data.attributions.items()},
        "attribution_method": data.attribution_method,
        "attribution_signatures": dict(data.attribution_signatures),
    }
