"""`gecmetrics m2-from-text`: gold M2 from text references, in any language."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import click

from gecmetrics.edits import neutral
from gecmetrics.edits.neutral import neutral_edits
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.interface.commands.common import friendly_errors, write_text
from gecmetrics.interface.commands.score import GreedyCommand
from gecmetrics.m2_format import CORRECTION_PIPES, correction_problem
from gecmetrics.readers import check_one_stdin, check_same_length, display_name, read_bounded
from gecmetrics.validate import check_language, check_output_file, check_outputs


@dataclass(frozen=True)
class M2FromTextOptions:
    """What ``m2-from-text`` was asked: the files, the language, the tokeniser."""

    source: str
    references: tuple[str, ...]
    lang: str | None = None
    tokenize: str | None = None
    output: str | None = None

    def check(self) -> None:
        """ConfigError / InputError for what needs no file read."""
        if not self.references:
            raise ConfigError("no reference given; pass one or more with -r/--reference")
        if self.lang is not None:
            check_language(self.lang)
        named = [("-s/--source", self.source),
                 *(("-r/--reference", path) for path in self.references)]
        check_one_stdin(named)
        check_outputs([("-o/--output", self.output)], named)


def tokenised(lines: Sequence[str], tokens: Callable[[str], list[str]], name: str,
              role: str) -> list[list[str]]:
    """Each line's tokens; InputError for an empty source line (M2 has no empty
    sentence) or a token M2 cannot hold. An empty reference line is a correction
    that deletes the whole sentence (CoNLL-2014 has one), not an error."""
    out_: list[list[str]] = []
    for number, line in enumerate(lines, start=1):
        toks = tokens(line)
        if not toks and role == "source":
            raise InputError(f"{role} {name} line {number} is empty; M2 needs a source sentence "
                             "on every line (remove the line from every file)")
        if any(not t or t != "".join(t.split()) for t in toks):
            raise InputError(f"{role} {name} line {number}: the tokeniser made a token with "
                             "spaces, which M2 cannot hold; use another --tokenize "
                             "(char-nospace rather than char)")
        out_.append(toks)
    return out_


def check_pipes(src: Sequence[Sequence[str]], ref: Sequence[Sequence[str]], name: str) -> None:
    """InputError for the first correction of reference ``name`` that M2 cannot carry
    (:func:`gecmetrics.m2_format.correction_problem`: ``||`` inside, ``|`` at the end),
    before the alignment of every line: only the lines whose tokens hold ``|`` are
    aligned here, and they are few."""
    for d, (s, r) in enumerate(zip(src, ref, strict=True)):
        if not any("|" in t for t in r):
            continue
        for edit in neutral_edits(s, r):
            problem = correction_problem(edit.correction)
            if problem is not None:
                raise InputError(f"reference {name} line {d + 1}: the correction "
                                 f"{edit.correction!r} {problem}; {CORRECTION_PIPES}")


def m2_from_text_lines(options: M2FromTextOptions) -> list[str]:
    """The M2 file's lines: one block per source line, then a blank line."""
    from gecmetrics.tokenizers import check_line_lengths, tokenizer

    tokens = tokenizer(options.tokenize) if options.tokenize else str.split
    src_lines, *refs = read_bounded([(options.source, "source"),
                                     *((path, "reference") for path in options.references)])
    check_same_length([(display_name(options.source), src_lines),
                       *((display_name(p), r) for p, r in zip(options.references, refs,
                                                             strict=True))])
    if options.tokenize:  # every line's length before any is tokenized
        check_line_lengths(options.tokenize, [
            (f"source {display_name(options.source)}", src_lines),
            *((f"reference {display_name(p)}", r) for p, r in zip(options.references, refs,
                                                                   strict=True))])
    src = tokenised(src_lines, tokens, display_name(options.source), "source")
    ref_toks = [tokenised(r, tokens, display_name(p), "reference")
                for p, r in zip(options.references, refs, strict=True)]
    for d, s in enumerate(src):  # the size check of every pair before any alignment
        for r in ref_toks:
            neutral.check_size(len(s), len(r[d]))
    for path, r in zip(options.references, ref_toks, strict=True):
        check_pipes(src, r, display_name(path))
    lines: list[str] = []
    for d, s in enumerate(src):
        lines += neutral.m2_block(s, [r[d] for r in ref_toks]) + [""]
    return lines


@click.command("m2-from-text", cls=GreedyCommand)
@click.option("-s", "--source", required=True, metavar="SRC",
              help="Source sentences, one a line (- for standard input).")
@click.option("-r", "--reference", "references", multiple=True, metavar="REF",
              help="A corrected text, one sentence a line; several may follow one -r, or "
                   "repeat -r (annotator ids 0, 1, ... in this order).")
@click.option("--lang", default=None, metavar="XX",
              help="The language's ISO 639-1 code (checked; the edits are the same for "
                   "every language).")
@click.option("--tokenize", default=None, metavar="NAME",
              help="Tokenise the lines with this tokenizer of the registry (13a, intl, "
                   "chrf-word, char-nospace, ...: docs/tokenizers.md); by default the lines "
                   "are taken as tokenised, split on whitespace.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to this file instead of standard output (- is standard output).")
@friendly_errors
def m2_from_text(source, references, lang, tokenize, output) -> None:
    """Write gold M2 from text references with the language-neutral edits.

    Like errant_parallel, for any language and without a tagger: each
    reference's edits against the source, typed M, U, R or W
    (docs/edits-neutral.md).
    """
    if output == "-":
        output = None
    options = M2FromTextOptions(source, tuple(references), lang, tokenize, output)
    options.check()
    if tokenize is not None:
        from gecmetrics.tokenizers import check

        check(tokenize, "m2-from-text --tokenize")  # unknown or its extra missing: one line
    if output:
        check_output_file(output, "-o/--output")
    text = "".join(line + "\n" for line in m2_from_text_lines(options))
    write_text(text, output)
