"""`gecmetrics attribute`: each edit's share of a sentence-level score (docs/attribution.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.formatting import percent, to_json
from gecmetrics.formatting import render as render_table
from gecmetrics.interface.commands.common import friendly_errors, out, refuse_digits_with_json
from gecmetrics.interface.commands.score import GreedyCommand
from gecmetrics.interface.score_report import signature_block
from gecmetrics.readers import describe
from gecmetrics.validate import applies_to

if TYPE_CHECKING:
    from gecmetrics.corpus import Corpus
    from gecmetrics.workflows.attribution import AttributionOptions, AttributionResult, EditTuple


@dataclass(frozen=True)
class AttributeOptions:
    """One ``gecmetrics attribute`` run, checked before any file is read.

    ``spec``: the metric spec, or several (each attributed on the same edits).
    """

    spec: str | tuple[str, ...]
    source: str
    references: tuple[str, ...]
    m2: str | None
    hypotheses: tuple[str, ...]
    edits_m2: str | None
    attribution: AttributionOptions
    fmt: str = "table"
    digits: int = 2
    extractor: str = "errant"

    @property
    def specs(self) -> tuple[str, ...]:
        """The metric specs, each once, in the order given."""
        specs = (self.spec,) if isinstance(self.spec, str) else self.spec
        return tuple(dict.fromkeys(specs))


@click.command("attribute", cls=GreedyCommand)
@click.option("-m", "--metric", "specs", multiple=True, default=("green",), show_default=True,
              metavar="SPEC",
              help="The sentence-level metric, name[:key=value,...]. Repeat to attribute "
                   "several metrics on the same edits (the tables then start with a "
                   "metric column).")
@click.option("-s", "--source", required=True, metavar="FILE", help="Source sentences.")
@click.option("-r", "--reference", "references", multiple=True, metavar="FILE...",
              help="Reference file(s); several may follow one -r.")
@click.option("--m2", "m2", metavar="FILE.m2", default=None,
              help="Gold edits as an M2 file (references derived from it without -r).")
@click.option("-c", "--hypothesis", "hypotheses", multiple=True, required=True,
              metavar="FILE...", help="System output file(s) whose edits are attributed.")
@click.option("--method", type=click.Choice(["shapley", "sampling", "add", "remove"]),
              default="shapley", show_default=True,
              help="shapley: exact Shapley values (sampled beyond 10 edits, with a note); "
                   "sampling: permutation-sampled Shapley values with standard errors; "
                   "add / remove: each edit alone / all edits but it, rescaled to the "
                   "sentence's score change.")
@click.option("--samples", type=int, default=None, metavar="T",
              help="Random orders per sentence for sampling and shapley's fallback "
                   "(default 64).")
@click.option("--seed", type=int, default=None, metavar="SEED",
              help="Seed of the random orders (default 12345).")
@click.option("--max-edits", type=int, default=None, metavar="N",
              help="Most edits a sentence may have (default 100); a sentence with more is "
                   "refused before any work.")
@click.option("--max-tokens", type=int, default=None, metavar="N",
              help="Longest source or hypothesis line, in tokens (default 300, ERRANT's "
                   "max_tokens, which it also sets); a longer one is refused before any work.")
@click.option("--edits", "edits_m2", default=None, metavar="FILE.m2",
              help="The hypothesis's edits as an M2 file (annotator 0; one -c only) instead "
                   "of ERRANT's (English).")
@click.option("--extractor", type=click.Choice(["errant", "neutral"]), default="errant",
              show_default=True,
              help="Where the edits come from: ERRANT (English, typed) or the "
                   "language-neutral alignment (any language; types M, U, R, W; "
                   "docs/edits-neutral.md).")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table",
              show_default=True,
              help="JSON: 0-1 floats; table and TSV: percentage points (TSV: the signature "
                   "on stderr).")
@click.option("-d", "--digits", type=click.IntRange(0, 15), default=2, show_default=True,
              help="Decimal places of the table's numbers.")
@click.pass_context
@friendly_errors
def attribute_cmd(ctx: click.Context, specs: tuple[str, ...], source: str,
                  references: tuple[str, ...], m2: str | None, hypotheses: tuple[str, ...],
                  **flags: Any) -> None:
    """Attribute each hypothesis sentence's score change to its edits.

    Per sentence: every edit (source span, original, correction, ERRANT type)
    and its share of M(S, H) - M(S, S); then per system and error type, the
    edits' summed and mean attributions. Several -m: each metric on the same
    edits, a metric column first.

    \b
    Example:
      gecmetrics attribute -m green -s data/example/source.txt \\
          -r data/example/ref0.txt data/example/ref1.txt -c data/example/system_a.txt
    """
    from gecmetrics.workflows.attribution import (
        DEFAULT_SAMPLES,
        DEFAULT_SEED,
        MAX_EDITS,
        AttributionOptions,
    )

    refuse_digits_with_json(ctx, flags["fmt"])
    samples, seed = flags["samples"], flags["seed"]
    notes: list[str] = []
    for name, value in (("--samples", samples), ("--seed", seed)):
        if value is not None:  # add and remove draw no orders: the option would be ignored
            applies_to(name, [f"--method {flags['method']}"],
                       ["--method shapley", "--method sampling"],
                       "--method sampling and shapley (its random orders)", notes)
    max_edits, max_tokens = flags["max_edits"], flags["max_tokens"]
    options = AttributeOptions(
        tuple(specs), source, tuple(references), m2, tuple(hypotheses), flags["edits_m2"],
        AttributionOptions(flags["method"], DEFAULT_SAMPLES if samples is None else samples,
                           DEFAULT_SEED if seed is None else seed,
                           max_edits=MAX_EDITS if max_edits is None else max_edits,
                           max_tokens=max_tokens),
        flags["fmt"], flags["digits"], flags["extractor"])
    results = run_all(options, lambda m: click.echo(f"warning: {m}", err=True))
    text, notes = render_all(results, options.fmt, options.digits)
    out(text)
    for note in notes:
        click.echo(note, err=True)


def run(options: AttributeOptions, warn: Any = None) -> AttributionResult:
    """Read the files, check them, attribute (the command without its output), for
    the first metric of ``options``."""
    return run_all(options, warn)[0]


def run_all(options: AttributeOptions, warn: Any = None) -> tuple[AttributionResult, ...]:
    """Read the files, check them, attribute every metric of ``options`` on the same
    edits (the command without its output)."""
    from gecmetrics.registry import metric_from_spec
    from gecmetrics.scoring import load_corpus
    from gecmetrics.workflows.attribution import attribute_metrics, check_metric

    metrics = [metric_from_spec(spec) for spec in options.specs]
    for metric in metrics:
        check_metric(metric)  # before any file is read
    if options.edits_m2 is not None and len(options.hypotheses) != 1:
        raise ConfigError("--edits gives the edits of one hypothesis file; give one -c "
                          f"(got {len(options.hypotheses)})")
    if options.edits_m2 is not None and options.extractor != "errant":
        raise ConfigError("--edits gives the edits; drop --extractor")
    corpus = load_corpus(options.source, options.references, options.hypotheses, options.m2,
                         warn)
    edits = None
    if options.edits_m2 is not None:
        edits = {options.hypotheses[0]: m2_edits(options.edits_m2, corpus,
                                                 options.hypotheses[0])}
    source = "m2" if options.edits_m2 is not None else options.extractor
    return attribute_metrics(metrics, corpus, options.attribution, edits, edit_source=source,
                             source_name=describe(options.source, "source"))


def m2_edits(path: str, corpus: Corpus, name: str) -> list[list[EditTuple]]:
    """Annotator 0's edits of the M2 file ``path``, checked against the sources and
    the hypothesis ``name`` (its edits applied must give the hypothesis's tokens)."""
    from gecmetrics.m2_format import read_m2
    from gecmetrics.workflows.attribution import apply_edits

    gold = read_m2(path)
    where = describe(path, "--edits M2")
    if len(gold.sentences) != corpus.num_sentences:
        raise InputError(f"{where} has {len(gold.sentences)} sentences but the source has "
                         f"{corpus.num_sentences} lines; give the M2 file of this -c")
    out: list[list[EditTuple]] = []
    for d, (sent, hyp) in enumerate(zip(gold.sentences, corpus.hypotheses[name], strict=True)):
        tokens = corpus.sources[d].split()
        if sent.source.split() != tokens:
            raise InputError(f"{where}, sentence {d + 1}: its S line differs from source line "
                             f"{d + 1}; give the M2 file made from this source")
        ids = sent.annotators
        edits = [(e.start, e.end, " ".join(e.replacement), e.type) for e in sent.edits
                 if e.annotator == (ids[0] if ids else 0) and not e.is_noop]
        if apply_edits(tokens, edits).split() != hyp.split():
            raise InputError(f"{where}, sentence {d + 1}: its edits applied to the source do "
                             f"not give line {d + 1} of {name}; give the M2 file of this -c")
        out.append(edits)
    return out


def render(result: AttributionResult, fmt: str, digits: int) -> str:
    """One metric's attributions as a table, TSV (percentage points) or JSON (0-1),
    with its signature under a table (TSV: none; :func:`render_all` gives it)."""
    return render_all((result,), fmt, digits)[0]


def render_all(results: Sequence[AttributionResult], fmt: str, digits: int
               ) -> tuple[str, list[str]]:
    """The attributions of one or more metrics and the lines meant for stderr (the
    notes, and TSV's signature lines, as ``gecmetrics score`` prints them).

    JSON: every metric's rows, in order, each with its ``metric`` and
    ``signature``. Table and TSV: one table of edits and one of types; with
    several metrics, each starts with a ``metric`` column; one signature line per
    metric under a table.
    """
    notes = list(dict.fromkeys(note for r in results for note in r.notes))
    signatures = [r.signature for r in results]
    if fmt == "json":
        return to_json([row for r in results for row in r.to_json()], notes), notes

    def pct(v: float | None) -> str:
        return "" if v is None else percent(v, digits)

    several = len(results) > 1
    first = ["metric"] if several else []

    def lead(r: AttributionResult) -> list[Any]:
        return [r.metric] if several else []

    edit_rows = [[*lead(r), s.system, s.sentence + 1, s.method, pct(s.delta),
                  f"{e.start}-{e.end}", e.original, e.correction, e.type, pct(e.attribution),
                  pct(e.stderr)]
                 for r in results for s in r.sentences for e in s.edits]
    type_rows = [[*lead(r), t.system, t.type, t.count, pct(t.total), pct(t.mean)]
                 for r in results for t in r.by_type()]
    edits = render_table([*first, "system", "#", "method", "delta", "span", "original",
                          "correction", "type", "attribution", "stderr"], edit_rows, fmt)
    types = render_table([*first, "system", "type", "edits", "total", "mean"], type_rows, fmt)
    return "\n".join([edits, "", types]) + signature_block(signatures, fmt, notes), notes
