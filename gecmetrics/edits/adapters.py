"""Plugging an external M2/ERRANT-style scorer into gecmetrics (docs/adapters.md).

An external scorer only has to count, for every sentence and every
annotator of the gold M2 file, the TP, FP and FN of the hypothesis edits.
gecmetrics does the rest as for its built-in M2 and ERRANT metrics: the
official annotator choice (rule ``m2`` or ``errant``), corpus, sentence and
mean scores, several betas, bootstrap resamples, meta-evaluation. Two ways:

* :class:`SentenceEditMetric`: a Python method called per (sentence,
  distinct hypothesis) with the source, the hypothesis and the gold edits of
  every annotator;
* :class:`CommandEditMetric`: a command run once per system, which prints
  ``SENTENCE ANNOTATOR TP FP FN`` lines (:data:`COUNT_LINE_FORMAT`).

A subclass becomes a metric like any other: ``register_metric`` from
Python, or an entry point in the group ``gecmetrics.metrics``, after which
``get_metric(name)`` and ``gecmetrics score -m NAME --m2 GOLD.m2`` use it.

Counts are checked before any score is made: one triple of non-negative
integers for exactly the annotators of each M2 sentence (those of its ``A``
lines, or annotator 0 for a sentence without any), so a scorer that skips an
annotator or a sentence fails with one line instead of giving a wrong number.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..corpus import Corpus
from ..errors import ConfigError, InputError
from ..metric import MetricConfig, check_beta
from .choice import CHOICE_RULES
from .metric import EditMetric, gold_of
from .span import SpanEdit
from .statistics import EditCounts

#: What a :class:`CommandEditMetric` command prints, one line per (sentence, annotator).
COUNT_LINE_FORMAT = "SENTENCE ANNOTATOR TP FP FN"

#: Per sentence, {annotator id: (TP, FP, FN)}.
SentenceCounts = Mapping[int, tuple[int, int, int]]


@dataclass(frozen=True)
class EditAdapterConfig(MetricConfig):
    """Options of an adapted scorer: the F-beta weight (default 0.5, as M2 and ERRANT)."""

    beta: float = 0.5

    def validate(self) -> None:
        check_beta(self.beta)


def annotator_order(rule: str, ids: set[int]) -> list[int]:
    """Annotator ids in the order the rule's tool visits them (ties go to the first):
    the M2 scorer by number, ERRANT by the id written as text ("10" before "2")."""
    return sorted(ids, key=str) if rule == "errant" else sorted(ids)


def counts_from_sentences(corpus: Corpus, golds: Sequence[Mapping[int, Sequence[SpanEdit]]],
                          per_system: Sequence[Sequence[SentenceCounts]], rule: str,
                          origin: str) -> EditCounts:
    """:class:`EditCounts` from per-(system, sentence) {annotator: (TP, FP, FN)},
    checked against the gold annotators of each sentence; ``origin`` names the
    scorer in error messages."""
    names = list(corpus.hypotheses)
    annotators = annotator_order(rule, {a for g in golds for a in g})
    col = {a: k for k, a in enumerate(annotators)}
    H, D, A = len(names), corpus.num_sentences, len(annotators)
    tp = np.zeros((H, D, A), dtype=np.int64)
    fp = np.zeros_like(tp)
    fn = np.zeros_like(tp)
    present = np.zeros((D, A), dtype=bool)
    for d, gold in enumerate(golds):
        present[d, [col[a] for a in gold]] = True
    for h, rows in enumerate(per_system):
        for d, counts in enumerate(rows):
            if not counts:
                raise InputError(f"{origin} gave no counts for sentence {d} (0-based) of "
                                 f"{names[h]}; give one count per annotator of every sentence")
            if set(counts) != set(golds[d]):
                raise InputError(
                    f"{origin} gave counts for annotators {sorted(counts)} of sentence {d} "
                    f"(0-based) of {names[h]}, but the M2 file has annotators "
                    f"{sorted(golds[d])} there; give one count per annotator of the sentence "
                    "(annotator 0 when it has no A line)")
            for a, triple in counts.items():
                if (len(triple) != 3
                        or not all(isinstance(x, int | np.integer) and x >= 0 for x in triple)):
                    raise InputError(
                        f"{origin} gave {triple!r} for annotator {a} of sentence {d} "
                        f"(0-based) of {names[h]}; counts are (TP, FP, FN), integers >= 0")
                k = col[a]
                tp[h, d, k], fp[h, d, k], fn[h, d, k] = triple
    return EditCounts(tuple(names), tp, fp, fn, present, tuple(annotators))


class _Adapter(EditMetric):
    """What both adapters share: a beta option and a checked choice rule."""

    Config = EditAdapterConfig

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if self.choice_rule not in CHOICE_RULES:
            raise ConfigError(f"metric {self.name!r} sets choice_rule = {self.choice_rule!r}; "
                              f"choose one of: {', '.join(CHOICE_RULES)}")
        super().__init__(*args, **kwargs)


class SentenceEditMetric(_Adapter):
    """An edit scorer written in Python, called per sentence.

    Subclasses set ``name``, ``description`` and ``choice_rule`` and implement
    :meth:`sentence_counts`. It is called once per sentence and distinct
    hypothesis (systems with the same output for a sentence share the call).
    """

    @abstractmethod
    def sentence_counts(self, source: str, hypothesis: str,
                        gold: Mapping[int, Sequence[SpanEdit]]) -> SentenceCounts:
        """{annotator: (TP, FP, FN)} of ``hypothesis`` for every annotator of ``gold``.

        ``source`` and ``hypothesis`` are the lines as given (tokenised as the
        M2 file is, for M2 test sets); ``gold`` maps each annotator to its
        edits on the source tokens as the official M2 scorer reads them
        (``noop`` edits left out).
        """

    def edit_counts(self, corpus: Corpus) -> EditCounts:
        golds = gold_of(corpus)
        seen: dict[tuple[int, str], SentenceCounts] = {}
        per_system = []
        for lines in corpus.hypotheses.values():
            rows = []
            for d, line in enumerate(lines):
                key = (d, line)
                if key not in seen:
                    seen[key] = self.sentence_counts(corpus.sources[d], line, golds[d])
                rows.append(seen[key])
            per_system.append(rows)
        return counts_from_sentences(corpus, golds, per_system, self.choice_rule,
                                     f"metric {self.name!r}")


class CommandEditMetric(_Adapter):
    """An edit scorer that is a command, run once per system.

    Subclasses set ``name``, ``description``, ``choice_rule`` and ``command``,
    a shell-style template whose placeholders are replaced by paths:
    ``{source}`` (the source, one sentence a line), ``{hypothesis}`` (this
    system's output, one sentence a line), ``{m2}`` (the corpus's gold edits,
    written as an M2 file in the standard layout: the sentences of the
    corpus, which for a benchmark subset are fewer than in the file it came
    from) and
    ``{python}`` (the running Python interpreter, for scorers written in
    Python); ``{{``/``}}`` are literal braces. The command is run without a
    shell. It prints one line per sentence and annotator::

        SENTENCE ANNOTATOR TP FP FN

    whitespace-separated integers, SENTENCE 0-based in file order, ANNOTATOR
    the id of the M2 file; blank lines and lines starting with ``#`` are
    ignored. ``timeout`` (seconds per run, None: no limit) stops a hung scorer.
    """

    command: ClassVar[str] = ""
    timeout: ClassVar[float | None] = None

    def arguments(self, **paths: str) -> list[str]:
        """The argument list of one run: the template split as a shell would, then filled."""
        origin = f"metric {self.name!r}"
        if not self.command.strip():
            raise ConfigError(f"{origin} has no command; set e.g. "
                              "command = 'mytool --m2 {m2} --hyp {hypothesis}'")
        try:
            parts = shlex.split(self.command)
        except ValueError as err:
            raise ConfigError(f"{origin}: cannot split its command {self.command!r} ({err}); "
                              "check the quotes") from None
        values = dict(paths, python=sys.executable)
        try:
            return [part.format(**values) for part in parts]
        except (KeyError, IndexError, ValueError) as err:
            raise ConfigError(
                f"{origin}: bad placeholder in its command {self.command!r} ({err}); use "
                "{source}, {hypothesis}, {m2}, {python}, and {{ }} for literal braces") from None

    def edit_counts(self, corpus: Corpus) -> EditCounts:
        golds = gold_of(corpus)
        self.arguments(source="", hypothesis="", m2="")  # a bad template fails before any run
        per_system = []
        with tempfile.TemporaryDirectory(prefix="gecmetrics-") as tmp:
            src_path = os.path.join(tmp, "source.txt")
            _write_lines(src_path, corpus.sources)
            # The gold the corpus holds, not the file it was read from: a benchmark
            # subset (SEEDA's) keeps the full file's path with fewer sentences.
            m2_path = os.path.join(tmp, "gold.m2")
            _write_lines(m2_path, m2_lines(corpus.m2.sentences))
            for h, (name, lines) in enumerate(corpus.hypotheses.items()):
                hyp_path = os.path.join(tmp, f"hypothesis{h}.txt")
                _write_lines(hyp_path, lines)
                args = self.arguments(source=src_path, hypothesis=hyp_path, m2=m2_path)
                stdout = self._run(args, name)
                per_system.append(parse_count_lines(stdout, corpus.num_sentences,
                                                    f"the command of metric {self.name!r} "
                                                    f"on {name}"))
        return counts_from_sentences(corpus, golds, per_system, self.choice_rule,
                                     f"the command of metric {self.name!r}")

    def _run(self, args: list[str], system: str) -> str:
        origin = f"the command of metric {self.name!r}"
        try:
            run = subprocess.run(args, capture_output=True, text=True, encoding="utf-8",
                                 timeout=self.timeout, check=False)
        except FileNotFoundError:
            raise ConfigError(f"{origin} was not found: {args[0]!r}; install it or fix "
                              "the command") from None
        except subprocess.TimeoutExpired:
            raise InputError(f"{origin} ran longer than {self.timeout} s on {system}; "
                             "raise the metric's timeout or check the scorer") from None
        if run.returncode != 0:
            last = (run.stderr.strip().splitlines() or ["(no message on stderr)"])[-1]
            raise InputError(f"{origin} failed on {system} (exit {run.returncode}): {last}")
        return run.stdout


def parse_count_lines(text: str, num_sentences: int, origin: str) -> list[dict[int, tuple]]:
    """Per sentence {annotator: (TP, FP, FN)} from ``SENTENCE ANNOTATOR TP FP FN`` lines."""
    rows: list[dict[int, tuple]] = [{} for _ in range(num_sentences)]
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            d, a, t, f_, n = (int(x) for x in line.split())
        except ValueError:
            raise InputError(f"{origin}: output line {number} is {line!r}; expected "
                             f"'{COUNT_LINE_FORMAT}' (integers)") from None
        if not 0 <= d < num_sentences:
            raise InputError(f"{origin}: output line {number} has sentence {d}; sentences are "
                             f"numbered 0 to {num_sentences - 1}")
        if a in rows[d]:
            raise InputError(f"{origin}: output line {number} repeats sentence {d} annotator "
                             f"{a}; print each (sentence, annotator) once")
        rows[d][a] = (t, f_, n)
    return rows


def m2_lines(sentences: Sequence[Any]) -> list[str]:
    """M2 text of parsed sentences (:class:`gecmetrics.m2_format.M2Sentence`), one block
    each, in the standard field layout; reading it back gives the same sentences."""
    out = []
    for sent in sentences:
        out.append(f"S {sent.source}")
        out += [f"A {e.start} {e.end}|||{e.type}|||{e.correction}|||REQUIRED|||-NONE-|||"
                f"{e.annotator}" for e in sent.edits]
        out.append("")
    return out


def _write_lines(path: str, lines: Sequence[str]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write("".join(line + "\n" for line in lines))
