"""`gecmetrics multigec`: GLEU and edit P/R/F0.5 per language and corpus, as MultiGEC-2025
scores them."""

from __future__ import annotations

from typing import Any

import click

from gecmetrics.formatting import percent, render, to_json
from gecmetrics.interface.commands.common import friendly_errors, out, refuse_digits_with_json
from gecmetrics.interface.commands.score import GreedyCommand

HEADERS = ("language", "corpus", "hypothesis", "essays", "refs", "GLEU", "P", "R", "F0.5",
           "edits")


@click.command("multigec", cls=GreedyCommand)
@click.option("--data", "data_dir", metavar="DIR", default=None,
              help="MultiGEC files of one split: xx-corpus-orig-SPLIT.md, "
                   "xx-corpus-refN-SPLIT.md.")
@click.option("--hyp-dir", metavar="DIR", default=None,
              help="Hypotheses named xx-corpus-NAME-SPLIT.md (e.g. en-writeandimprove2024-hypo1-"
                   "dev.md), scored against the corpus of the same language and name.")
@click.option("--split", default="dev", show_default=True, help="train, dev or test.")
@click.option("-s", "--source", default=None, metavar="FILE",
              help="One corpus instead of --data: the original essays (MultiGEC Markdown or one "
                   "text a line).")
@click.option("-r", "--reference", "references", multiple=True, metavar="FILE",
              help="Reference file(s); several may follow one -r, or repeat -r (a file may "
                   "cover only some essays).")
@click.option("-c", "--hypothesis", "hypotheses", multiple=True, metavar="FILE",
              help="Hypothesis file(s); several may follow one -c, or repeat -c.")
@click.option("--lang", default=None, metavar="XX",
              help="With -s: the corpus' language (ISO 639-1).")
@click.option("--tokenize", type=click.Choice(["syntok", "whitespace"]), default="syntok",
              show_default=True,
              help="syntok: as MultiGEC's scorer (needs the multigec extra); whitespace: the "
                   "texts are tokenised already.")
@click.option("--edits", type=click.Choice(["auto", "errant", "neutral", "none"]),
              default="auto", show_default=True,
              help="Edit P/R/F0.5: auto (ERRANT for English, the language-neutral edits "
                   "elsewhere), errant (English only), neutral, none.")
@click.option("--max-tokens", type=int, default=None, metavar="N",
              help="Longest essay ERRANT aligns, in tokens (default 1000): English corpora "
                   "with --edits auto or errant; refused where no corpus gets ERRANT's edits.")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json", "markdown"]),
              default="table", show_default=True,
              help="JSON has 0-1 floats at full precision; the others percent.")
@click.option("-d", "--digits", type=click.IntRange(0, 15), default=2, show_default=True,
              help="Decimal places of the percentages in table formats (rounded half up).")
@click.pass_context
@friendly_errors
def multigec(ctx: click.Context, fmt: str, digits: int, max_tokens: int | None,
             **inputs: Any) -> None:
    """Score essays as MultiGEC-2025's scorer does: GLEU (Koyama's gleu, word level, 500
    fixed-seed rounds) and ERRANT P/R/F0.5 (English), per language and corpus.

    See docs/multigec.md for the essay format, references per essay and the equality
    with the official scorer.
    """
    from gecmetrics.workflows.multigec import MultigecOptions, run

    refuse_digits_with_json(ctx, fmt)
    options = MultigecOptions(**inputs, max_tokens=max_tokens)
    results = run(options)
    for note in results.notes:
        click.echo(note, err=True)
    if fmt == "json":
        out(to_json(results.to_json()))
        return
    rows = [(r.lang, r.corpus, r.hypothesis, r.essays, r.references,
             percent(r.gleu, digits), percent(r.precision, digits), percent(r.recall, digits),
             percent(r.f05, digits), r.edits) for r in results.rows]
    out(render(HEADERS, rows, fmt))
