"""Essays: MultiGEC-2025's Markdown essay files, and a corpus of whole texts.

MultiGEC-2025 (spraakbanken/multigec-2025, ``data_format.md``) ships each
subcorpus as an ``orig`` file of learner essays and ``ref1``, ``ref2`` ...
files of corrections, every essay a block::

    ### essay_id = 17
    First paragraph of the essay.

    Second paragraph.

The id is the rest of the header line; the text is every line up to the next
header, without the blank lines around it (newlines inside are kept, and
become tabs when the essay is put on one line, as MultiGEC's scorer does).
A reference file may cover only some essays: an essay is scored against the
references that have it (:attr:`gecmetrics.corpus.Corpus.reference_counts`).

A file without such a header is read as one text a
line (:func:`gecmetrics.readers.read_lines`); its items are numbered by line.

Every check happens here, before any metric runs, and fails with one line
naming the file and line: text before the first header, a header without an
id, a duplicate id, an empty essay, a reference id the source lacks, a
hypothesis that misses or adds an essay, an essay that no reference covers,
essay and line files mixed.
"""

from __future__ import annotations

import mmap
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import extras
from .corpus import Corpus
from .errors import ConfigError, InputError
from .formatting import plural
from .readers import (
    ESSAY_HEADER,
    ESSAY_MARK,
    BlockCheck,
    LineBound,
    describe,
    display_name,
    essay_header_line,
    is_stream,
    nonempty_lines,
    read_text,
    split_lines,
)

#: The header of an essay block, alone on its line (MultiGEC's ``### essay_id = N``).
HEADER = ESSAY_HEADER
#: A line that looks like a header but is not one (a typo: a missing space, a
#: different number of ``#``): read as text, it would silently merge two essays.
NEAR_HEADER = re.compile(r"\s*#+\s*essay_id\b", re.IGNORECASE)

#: The tokenisations of essay texts: ``syntok`` as MultiGEC's scorer (its
#: ``pretokenize``: syntok's tokens joined by one space; needs the multigec
#: extra), ``whitespace`` keeps the text (already tokenised files).
TOKENIZATIONS = ("syntok", "whitespace")


@dataclass(frozen=True)
class Essays:
    """The texts of one file in order, with their ids and 1-based header lines
    (for a line file: ids ``1``, ``2``, ... and the line numbers)."""

    path: str
    ids: tuple[str, ...]
    texts: tuple[str, ...]
    lines: tuple[int, ...]
    markdown: bool

    def where(self, index: int) -> str:
        return f"{display_name(self.path)}, line {self.lines[index]}"


def is_essay_file(text: str) -> bool:
    """Whether ``text`` is in MultiGEC's format: some line of it is an essay header."""
    return essay_header_line(text) is not None


#: The bytes every essay header starts with: a file without them is no essay file,
#: which :func:`holds_essays` finds without decoding or keeping the file.
HEADER_BYTES = ESSAY_MARK.encode()


def holds_essays(path: str | os.PathLike[str], role: str = "input") -> bool:
    """Whether the file at ``path`` is a MultiGEC essay file (:func:`is_essay_file`).

    ``gecmetrics score`` asks this of every input before it chooses how to read
    them, so a file of one sentence a line (perhaps gigabytes, read by chunks)
    is only searched for :data:`HEADER_BYTES`, mapped, not read into memory
    (about 0.03 s for 65 MB); only a file that has them is decoded and checked
    line by line. Only a regular file is searched: standard input or a pipe
    (``<(zcat ...)``) cannot be read twice, so it is never an essay file here
    (give essays by file name). A file that cannot be opened is not one either:
    its reader reports why.
    """
    if is_stream(path):
        return False
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size == 0:
                return False
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                if mapped.find(HEADER_BYTES) < 0:
                    return False
    except (OSError, ValueError):
        return False
    return is_essay_file(read_text(path, role))


def essay_inputs(source: str, references: Sequence[str], hypotheses: Sequence[str]) -> bool:
    """Whether any input of a scoring run is a MultiGEC essay file (:func:`holds_essays`):
    then all are read as essays, by :func:`essay_corpus`, which refuses a mix."""
    named = [(source, "source"), *((p, "reference") for p in references),
             *((p, "hypothesis") for p in hypotheses)]
    return any(holds_essays(path, role) for path, role in named)


def read_essays(path: str | os.PathLike[str], role: str, like: Essays | None = None
                ) -> Essays:
    """Read a MultiGEC essay file or a one-text-a-line file (checked, one-line errors).

    With ``like`` (the source, read already), a stream (standard input, a pipe) is
    read only until it holds more texts than ``like``: more lines than a line file,
    more essay headers than an essay file; so endless input stops there."""
    bound, check = None, None
    if like is not None and is_stream(path):
        if like.markdown:
            check = _essay_count_check(describe(path, role), like)
        else:
            bound = LineBound(len(like.ids), describe(like.path, "source"))
    text = read_text(path, role, bound, check)
    name = str(path)
    if not is_essay_file(text):
        lines = nonempty_lines(text, path, role, "one text a line, or MultiGEC essays")
        numbers = tuple(range(1, len(lines) + 1))
        return Essays(name, tuple(map(str, numbers)), tuple(lines), numbers, False)
    return parse_essays(text, name, role)


def _essay_count_check(what: str, like: Essays) -> BlockCheck:
    """A :data:`~gecmetrics.readers.BlockCheck` that raises once the text read holds
    more essay headers than ``like`` has essays, or text before its first header (a
    file of one text a line, or text no essay holds)."""
    seen = 0

    def check(text: str) -> None:
        nonlocal seen
        for line in split_lines(text):
            if HEADER.fullmatch(line.rstrip()):
                seen += 1
            elif not seen and line.strip():
                raise InputError(f"{what} holds one text a line but "
                                 f"{display_name(like.path)} holds MultiGEC essays; give all "
                                 "files in one format")
        if seen > len(like.ids):
            raise InputError(f"{what} has more than {plural(len(like.ids), 'essay')} but "
                             f"{describe(like.path, 'source')} has {len(like.ids)}; give "
                             "the essays of this source")

    return check


def parse_essays(text: str, path: str, role: str) -> Essays:
    """The blocks of a MultiGEC essay file's ``text`` (``path`` names it in errors)."""
    what = describe(path, role)
    ids: list[str] = []
    texts: list[str] = []
    starts: list[int] = []
    body: list[str] = []
    seen: dict[str, int] = {}

    def close() -> None:
        if not ids:
            return
        essay = "\n".join(body).strip("\n")
        if not essay.strip():
            raise InputError(f"{what}, line {starts[-1]}: essay {ids[-1]} is empty; give "
                             f"its text under the header or remove the block")
        texts.append(essay)

    for number, line in enumerate(split_lines(text), 1):
        header = HEADER.fullmatch(line.rstrip())
        if header is None:
            if NEAR_HEADER.match(line):
                raise InputError(f"{what}, line {number}: unreadable essay header {line!r}; "
                                 f"write it as '### essay_id = ID'")
            if not ids and line.strip():
                raise InputError(f"{what}, line {number}: text before the first "
                                 f"'### essay_id = ID' header; every essay needs its header")
            body.append(line)
            continue
        close()
        essay_id = header.group(1).strip()
        if not essay_id:
            raise InputError(f"{what}, line {number}: essay header without an id; write "
                             f"'### essay_id = ID'")
        if essay_id in seen:
            raise InputError(f"{what}, line {number}: duplicate essay id {essay_id} (first "
                             f"at line {seen[essay_id]}); every id may appear once")
        seen[essay_id] = number
        ids.append(essay_id)
        starts.append(number)
        body = []
    close()
    return Essays(path, tuple(ids), tuple(texts), tuple(starts), True)


def tokenizer(name: str) -> Callable[[str], str]:
    """The function that puts one essay on one line, tokenised as ``name`` says."""
    if name == "whitespace":
        return lambda text: text.replace("\n", "\t")
    if name != "syntok":
        raise ConfigError(f"unknown essay tokenisation {name!r}; use one of: "
                          f"{', '.join(TOKENIZATIONS)}")

    extras.check("essay tokenisation 'syntok'", "multigec")
    from syntok.tokenizer import Tokenizer

    tok = Tokenizer()

    def syntok(text: str) -> str:
        # MultiGEC's pretokenize: each token without its leading spacing, one space between.
        return " ".join(str(token).strip() for token in tok.tokenize(text))

    return syntok


@dataclass(frozen=True)
class EssayCorpus:
    """A :class:`Corpus` of whole texts and the ids of its items (the source's order)."""

    corpus: Corpus
    ids: tuple[str, ...]


def essay_corpus(source: str, references: Sequence[str], hypotheses: Sequence[str],
                 tokenize: str = "whitespace") -> EssayCorpus:
    """Read, check, align by id and tokenise a source, its references and hypotheses.

    An essay's references are those of the ``references`` files that have its id,
    in the order given; the reference sets after them hold a copy of its first
    one (:attr:`Corpus.reference_counts`). Hypotheses must have every essay.
    """
    if not references:
        raise ConfigError("no reference given; pass at least one reference file (-r)")
    prepare = tokenizer(tokenize)  # before reading: a missing extra fails at once
    src = read_essays(source, "source")
    refs = [read_essays(path, "reference", src) for path in references]
    hyps = [read_essays(path, "hypothesis", src) for path in hypotheses]
    for other in [*refs, *hyps]:
        if other.markdown != src.markdown:
            kinds = ("MultiGEC essays", "one text a line")
            raise InputError(f"{describe(other.path, 'input')} holds "
                             f"{kinds[not other.markdown]} but {display_name(source)} holds "
                             f"{kinds[not src.markdown]}; give all files in one format")
    position = {essay_id: i for i, essay_id in enumerate(src.ids)}
    present: list[list[str]] = [[] for _ in src.ids]
    for ref in refs:
        _check_known(ref, src, position, "reference")
        if not src.markdown and len(ref.ids) != len(src.ids):
            raise InputError(f"{describe(ref.path, 'reference')} has {len(ref.ids)} lines but "
                             f"{display_name(source)} has {len(src.ids)}; a line file must "
                             f"cover every item (use MultiGEC essay files for partial ones)")
        for essay_id, text in zip(ref.ids, ref.texts, strict=True):
            present[position[essay_id]].append(text)
    missing = [i for i, texts in enumerate(present) if not texts]
    if missing:
        i = missing[0]
        raise InputError(f"{src.where(i)}: essay {src.ids[i]} has no reference in any -r file "
                         f"({len(missing)} such essays); give a reference or remove it")
    hyp_lines: dict[str, list[str]] = {}
    for hyp in hyps:
        _check_known(hyp, src, position, "hypothesis")
        have = set(hyp.ids)
        lacking = [essay_id for essay_id in src.ids if essay_id not in have]
        if lacking:
            raise InputError(f"{describe(hyp.path, 'hypothesis')} lacks essay {lacking[0]} of "
                             f"{display_name(source)} ({len(lacking)} missing); a hypothesis "
                             f"needs every essay of the source")
        by_id = dict(zip(hyp.ids, hyp.texts, strict=True))
        hyp_lines[hyp.path] = [prepare(by_id[essay_id]) for essay_id in src.ids]
    sets = max(len(texts) for texts in present)
    counts = tuple(len(texts) for texts in present)
    ref_sets = [[prepare(texts[k] if k < len(texts) else texts[0]) for texts in present]
                for k in range(sets)]
    corpus = Corpus([prepare(text) for text in src.texts], ref_sets, hyp_lines,
                    reference_counts=None if min(counts) == sets else counts)
    return EssayCorpus(corpus, src.ids)


def _check_known(essays: Essays, src: Essays, position: dict[str, int], role: str) -> None:
    """Every id of ``essays`` is one of the source's."""
    for i, essay_id in enumerate(essays.ids):
        if essay_id not in position:
            raise InputError(f"{describe(essays.path, role)}, line {essays.lines[i]}: essay id "
                             f"{essay_id} is not in the source {display_name(src.path)}; "
                             f"ids must match the source's")
