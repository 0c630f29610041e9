"""`gecmetrics m2-to-text`: plain text from an M2 file."""

from __future__ import annotations

import click

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.interface.commands.common import friendly_errors, write_text
from gecmetrics.readers import display_name
from gecmetrics.validate import check_output_file, check_outputs


@click.command("m2-to-text")
@click.argument("m2_file", metavar="FILE.m2")
@click.option("--source", "want_source", is_flag=True, help="Write the source sentences.")
@click.option("--annotator", type=int, default=None, metavar="K",
              help="Write annotator K's corrected text (edits applied right to left).")
@click.option("--strict", is_flag=True,
              help="For a sentence where annotator K has no line at all, write the unchanged "
                   "source instead of the lowest-numbered annotator present (the default, as "
                   "the M2 scorer sees such sentences).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to this file instead of standard output (- is standard output).")
@friendly_errors
def m2_to_text(m2_file, want_source, annotator, strict, output) -> None:
    """Turn an M2 file into plain text: the source or one annotator's correction.

    FILE.m2 may be - for standard input. The file is read strictly: a malformed
    line is reported with its line number and field (see docs/metrics/m2.md). A
    line may be at most 8 MiB long; set GECMETRICS_MAX_LINE_BYTES (bytes) to allow
    longer ones.
    """
    from gecmetrics.m2_format import read_m2

    if want_source == (annotator is not None):
        raise ConfigError("give exactly one of --source or --annotator K")
    if strict and want_source:
        raise ConfigError("--strict changes annotator texts only, not --source; drop --strict")
    if annotator is not None and annotator < 0:
        raise ConfigError(f"--annotator takes a number >= 0 (got {annotator})")
    if output == "-":  # the usual spelling of standard output, not a file named "-"
        output = None
    if output:
        check_output_file(output, "-o/--output")  # before reading the M2 file
        check_outputs([("-o/--output", output)], [("M2 file", m2_file)])
    m2 = read_m2(m2_file)
    if want_source:
        lines = m2.sources
    else:
        ids = m2.annotator_ids
        if annotator not in ids:
            shown = ", ".join(map(str, ids[:20])) + (f" ... ({len(ids)} in all)"
                                                     if len(ids) > 20 else "")
            raise ConfigError(f"--annotator {annotator} is out of range: "
                              f"{display_name(m2_file)} has the annotator ids {shown}")
        overlap = m2.first_overlap(annotator, strict)
        if overlap is not None:
            raise InputError(overlap)
        lines = [sentence.reference(annotator, strict) for sentence in m2.sentences]
    text = "".join(line + "\n" for line in lines)
    write_text(text, output)
