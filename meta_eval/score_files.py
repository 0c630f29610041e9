"""Meta-evaluate a metric computed elsewhere: its scores read from a file or a mapping.

Researchers with a new metric (often neural, run on another machine) have
scores, not a gecmetrics plug-in. This module turns those scores into a
:class:`~gecmetrics.metric.Metric` (:class:`ScoresMetric`, ``has_beta=False``)
whose statistics are the given numbers, so every analysis of ``gecmetrics
meta-eval`` treats it exactly like a built-in metric.

What can be read (:func:`read_scores`, format detected from the content):

* a TSV with the header ``system<TAB>score``: system scores;
* a JSON object ``{system: score}`` (system scores) or ``{system: [score per
  sentence]}`` (sentence scores);
* the JSON array of ``gecmetrics score --format json``: ``--level sentence``
  gives sentence scores (objects with ``scores``), ``corpus``/``mean`` system
  scores (objects with ``score``); the system is the ``hypothesis`` path's file
  name without ``.txt``. With several specs or betas in the file, ``spec=`` /
  ``beta=`` pick one;
* a folder with one file per system (``AMU`` or ``AMU.txt``), one sentence score
  a line (SEEDA's layout for metric scores).

System levels: a system score is used as given at both ``corpus`` and ``mean``
level; with sentence scores both levels are their mean (most sentence-level
metrics define the system score that way). ``order=lower`` (lower is better)
negates every score, so a positive correlation still means agreement.

Checks against the benchmark (:func:`check_score_metrics`, run right after the
benchmarks load and before anything is scored): every selected system has
scores, no system is foreign to the benchmark, every system has one score per
sentence of the scored corpus, and analyses that resample sentences are not
asked of system scores.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, Literal, cast, get_args

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.formatting import plural
from gecmetrics.metric import Metric, MetricConfig, Score, Statistics
from gecmetrics.readers import (
    STDIN,
    BlockCheck,
    check_one_stdin,
    display_name,
    is_stdin,
    parse_json,
    read_lines,
    read_text,
    split_lines,
)

from .benchmarks import registry
from .selection import Selection

Order = Literal["higher", "lower"]
ORDERS: tuple[Order, ...] = get_args(Order)
OPTIONS = ("order", "spec", "beta")
#: The largest score magnitude read: the correlations square and sum differences of
#: scores, which overflow a float (a numpy RuntimeWarning, then no correlation) from
#: about 1e154 on. Correlations do not change when every score is multiplied by one
#: positive factor, so larger scores can be divided down without changing a result.
MAX_ABS_SCORE = 1e100
SPEC_PREFIX = "scores:"
OPTION_HELP = "write --scores NAME=PATH[:order=lower][,beta=B][,spec=SPEC]"
# Options start at the first ':' followed by a known key, so paths may hold ':'.
_OPTIONS_START = re.compile(r":(?=(?:" + "|".join(OPTIONS) + r")=)")
_LOOKS_LIKE_OPTION = re.compile(r"[A-Za-z_]\w*=")


@dataclass(frozen=True)
class ScoreTable:
    """Parsed scores: per system either one number or one number per sentence.

    ``where`` locates each system's scores (``file:line``, a file of a folder, or
    ``file, system X``) for the messages of later checks.
    """

    source: str
    values: dict[str, float | np.ndarray]
    where: dict[str, str]

    @property
    def sentence_level(self) -> bool:
        return isinstance(next(iter(self.values.values())), np.ndarray)


# -- reading ----------------------------------------------------------------------------


def read_scores(path: str | os.PathLike[str], spec: str | None = None,
                beta: float | None = None) -> ScoreTable:
    """Read a scores file or folder (any format of the module docstring); ``-``
    reads standard input (a file's formats, named "standard input" in messages)."""
    if is_stdin(path):
        text = _read_text(STDIN)
        path = display_name(STDIN)
    else:
        path = Path(path)
        if path.is_dir():
            if spec is not None or beta is not None:
                raise ConfigError(f"scores folder {path}: spec=/beta= only select within the "
                                  "JSON of `gecmetrics score`; drop them")
            return _read_folder(path)
        text = _read_text(path)
    first = text.lstrip()[:1]
    if first in ("{", "["):
        return _read_json(path, text, spec, beta)
    if spec is not None or beta is not None:
        raise ConfigError(f"scores file {path}: spec=/beta= only select within the JSON of "
                          "`gecmetrics score`; drop them")
    return _read_tsv(path, text)


def _read_text(path: str | Path) -> str:
    """The file's text; an empty file is an error that says what to put in it."""
    name = display_name(STDIN) if is_stdin(path) else path
    lines = split_lines(read_text(path, "scores", check=_first_block_check(name)))
    what = "scores from standard input" if is_stdin(path) else f"scores file {path}"
    if not lines:
        raise InputError(f"{what} is empty; expected a 'system<TAB>score' TSV, "
                         "a JSON object or the JSON of `gecmetrics score --format json`")
    if not any(line.strip() for line in lines):
        raise InputError(f"{what} is empty (only blank lines); expected a "
                         "'system<TAB>score' TSV, a JSON object or the JSON of "
                         "`gecmetrics score --format json`")
    return "\n".join(lines)


def _number(raw: Any, where: str, text: bool = False) -> float:
    """A finite float of at most :data:`MAX_ABS_SCORE` from a JSON value (``text``:
    a cell of a text file, where every value is a string), else one line saying where."""
    if isinstance(raw, str) and not text:
        raise InputError(f"{where}: the score {raw!r} is a string, not a number; write it "
                         "as a JSON number, without quotes")
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str, np.number)):
        raise InputError(f"{where}: {raw!r} is not a number; every score must be a finite "
                         "number")
    try:
        value = float(raw.strip() if isinstance(raw, str) else raw)
    except (ValueError, OverflowError):
        raise InputError(f"{where}: {raw!r} is not a number; every score must be a finite "
                         "number") from None
    if not math.isfinite(value):
        raise InputError(f"{where}: the score is {raw!r}; every score must be a finite number "
                         "(drop or recompute that sentence's score)")
    if abs(value) > MAX_ABS_SCORE:
        raise InputError(_too_large(where, raw))
    return value


def _too_large(where: str, raw: Any) -> str:
    return (f"{where}: the score {raw!r} is beyond +-{MAX_ABS_SCORE:g}, the largest score "
            "read (the correlations' sums would overflow); divide every score by one "
            "factor, which changes no correlation")


def _system_name(raw: str) -> str:
    """A system's name from a file name or a hypothesis path: the base name, no ``.txt``."""
    name = PurePath(raw).name
    return name[:-4] if name.endswith(".txt") else name


def _add(values: dict[str, Any], where: dict[str, str], system: str, value: Any,
         location: str, source: str) -> None:
    if not system.strip():
        raise InputError(f"{location}: empty system name; name each system as the benchmark "
                         "does (e.g. AMU, BART)")
    if system in values:
        raise InputError(f"{location}: system {system!r} appears twice in {source} (first at "
                         f"{where[system]}); give each system once")
    values[system] = value
    where[system] = location


def _check_header(path: str | Path, line: str) -> None:
    header = [cell.strip().lower() for cell in line.split("\t")]
    if header != ["system", "score"]:
        raise InputError(f"{path}:1: expected the header 'system<TAB>score' (got "
                         f"{line[:60]!r}); or give a JSON object {{system: score}}")


def _first_block_check(path: str | Path) -> BlockCheck:
    """A check of the first block read (:func:`~gecmetrics.readers.read_text`): text
    that is neither JSON nor a TSV with its header stops there, so an endless stream
    of something else (``yes | ... --scores mine=-``) is refused at its first line."""
    first = True

    def check(text: str) -> None:
        nonlocal first
        if first and text.strip():
            first = False
            if text.lstrip()[:1] not in ("{", "["):
                _check_header(path, split_lines(text)[0])

    return check


def _read_tsv(path: str | Path, text: str) -> ScoreTable:
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    _check_header(path, lines[0])
    if len(lines) == 1:
        raise InputError(f"scores file {path} has a header but no systems; add one "
                         "'system<TAB>score' line per system")
    values: dict[str, Any] = {}
    where: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != 2:
            raise InputError(f"{path}:{number}: expected 'system<TAB>score' (2 tab-separated "
                             f"fields), got {len(cells)} field(s): {line[:60]!r}")
        location = f"{path}:{number}"
        _add(values, where, cells[0].strip(), _number(cells[1], location, text=True), location,
             str(path))
    return ScoreTable(str(path), values, where)


def _no_duplicates(path: str | Path):
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise InputError(f"{path}: key {key!r} appears twice in one JSON object; give "
                                 "each system once")
            out[key] = value
        return out
    return hook


def _read_json(path: str | Path, text: str, spec: str | None, beta: float | None) -> ScoreTable:
    data = parse_json(text, str(path), _no_duplicates(path))
    if isinstance(data, list):
        return _read_score_output(path, data, spec, beta)
    if spec is not None or beta is not None:
        raise ConfigError(f"scores file {path}: spec=/beta= only select within the JSON of "
                          "`gecmetrics score` (an array); drop them")
    if not data:
        raise InputError(f"scores file {path} holds an empty JSON object; expected "
                         "{system: score} or {system: [sentence scores]}")
    return table_from_mapping(data, str(path))


def _read_score_output(path: str | Path, rows: list[Any], spec: str | None,
                       beta: float | None) -> ScoreTable:
    """The array of ``gecmetrics score --format json``, narrowed to one (spec, beta)."""
    expected = ("the JSON array of `gecmetrics score --format json` (objects with "
                "'hypothesis', 'spec', 'beta' and 'score' or 'scores')")
    if not rows:
        raise InputError(f"scores file {path} holds an empty JSON array; expected {expected}")
    for k, row in enumerate(rows):
        if not isinstance(row, dict) or "hypothesis" not in row or "spec" not in row or not (
                "score" in row or "scores" in row):
            raise InputError(f"{path}: element {k} of the array is not an object with "
                             f"'hypothesis', 'spec' and 'score'/'scores'; expected {expected}")
    groups: dict[tuple[str, Any], list[dict[str, Any]]] = {}
    for row in rows:
        beta_key = row.get("beta")
        if beta_key is not None and not isinstance(beta_key, (int, float)):
            raise InputError(f"{path}: 'beta' {beta_key!r} of {row['hypothesis']} is not a "
                             f"number; expected {expected}")
        groups.setdefault((str(row["spec"]), beta_key), []).append(row)
    chosen = [key for key in groups
              if (spec is None or key[0] == spec) and (beta is None or key[1] == beta)]
    held = "; ".join(f"spec={s}" + ("" if b is None else f",beta={b:g}")
                     for s, b in groups)
    if len(chosen) != 1:
        what = "none matches" if not chosen else "several match"
        raise ConfigError(f"scores file {path} holds {len(groups)} score sets and {what} "
                          f"the selection; pick one by appending e.g. :beta=B or "
                          f":spec=SPEC (spec last) to the path; the file holds: {held}")
    spec_name, beta_value = chosen[0]
    values: dict[str, Any] = {}
    where: dict[str, str] = {}
    for row in groups[chosen[0]]:
        system = _system_name(str(row["hypothesis"]))
        location = f"{path}, spec {spec_name}, system {system}"
        if "scores" in row:
            value: Any = _sentence_array(row["scores"], location)
        else:
            value = _number(row["score"], location)
        _add(values, where, system, value, location, str(path))
    return _uniform(ScoreTable(str(path), values, where))


def _sentence_array(raw: Any, location: str) -> np.ndarray:
    if isinstance(raw, (str, bytes)) or not isinstance(raw, (Sequence, np.ndarray)):
        raise InputError(f"{location}: expected a list of sentence scores, got "
                         f"{type(raw).__name__}")
    if len(raw) == 0:
        raise InputError(f"{location}: the list of sentence scores is empty; give one score "
                         "per sentence")
    if all(type(v) in (float, int) for v in raw):  # the common case, at numpy's speed
        values = np.array(raw, dtype=float)
        with np.errstate(invalid="ignore"):  # NaN: the slow path names it
            if (np.abs(values) <= MAX_ABS_SCORE).all():
                return values
    # otherwise one value at a time, so that the message names the bad one
    return np.array([_number(v, f"{location}, sentence {i + 1}") for i, v in enumerate(raw)],
                    dtype=float)


def _uniform(table: ScoreTable) -> ScoreTable:
    """Reject a mix of system scores and sentence-score lists (one level per source)."""
    kinds = {isinstance(v, np.ndarray) for v in table.values.values()}
    if len(kinds) > 1:
        lists = [s for s, v in table.values.items() if isinstance(v, np.ndarray)]
        single = [s for s, v in table.values.items() if not isinstance(v, np.ndarray)]
        raise InputError(f"{table.source}: systems {lists[0]!r} (a list of sentence scores) "
                         f"and {single[0]!r} (one number) differ; give every system one "
                         "number or every system a list")
    return table


def _read_folder(path: Path) -> ScoreTable:
    files = sorted(p for p in path.iterdir() if not p.name.startswith("."))
    if not files:
        raise InputError(f"scores folder {path} is empty; put one file per system in it "
                         "(e.g. AMU.txt), one sentence score a line")
    values: dict[str, Any] = {}
    where: dict[str, str] = {}
    for file in files:
        if not file.is_file():
            raise InputError(f"scores folder {path}: {file.name} is not a file; the folder "
                             "should hold only one score file per system")
        if file.stat().st_size == 0:
            raise InputError(f"scores file {file} is empty; expected one sentence score a line")
        lines = read_lines(file, "scores")
        while lines and not lines[-1].strip():
            lines.pop()
        scores = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                raise InputError(f"{file}:{number}: empty line; expected one sentence score a "
                                 "line, in corpus order")
            scores.append(_number(line, f"{file}:{number}", text=True))
        if not scores:
            raise InputError(f"scores file {file} is empty (only blank lines); expected one "
                             "sentence score a line")
        _add(values, where, _system_name(file.name), np.array(scores, dtype=float), str(file),
             str(path))
    return ScoreTable(str(path), values, where)


def table_from_mapping(mapping: Mapping[Any, Any], source: str = "in-memory scores"
                       ) -> ScoreTable:
    """``{system: score}`` or ``{system: [sentence scores]}`` (lists or arrays) as a table."""
    if not isinstance(mapping, Mapping):
        raise InputError(f"{source}: expected a mapping {{system: score}} or {{system: "
                         f"[sentence scores]}}, got {type(mapping).__name__}")
    if not mapping:
        raise InputError(f"{source}: no systems; expected {{system: score}} or {{system: "
                         "[sentence scores]}")
    values: dict[str, Any] = {}
    where: dict[str, str] = {}
    for system, raw in mapping.items():
        location = f"{source}, system {system}"
        if not isinstance(system, str):
            raise InputError(f"{location}: system names must be strings")
        if isinstance(raw, (Sequence, np.ndarray)) and not isinstance(raw, (str, bytes)):
            value: Any = _sentence_array(raw, location)
        else:
            value = _number(raw, location)
        _add(values, where, system, value, location, source)
    return _uniform(ScoreTable(source, values, where))


# -- the metric ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoresConfig(MetricConfig):
    """What :meth:`ScoresMetric.signature` records: the name, where the scores came from,
    and the order."""

    label: str = "scores"
    source: str = "in-memory scores"
    order: Order = "higher"

    def validate(self) -> None:
        if self.order not in ORDERS:
            raise ConfigError(f"order={self.order!r} of scores {self.label!r} must be higher "
                              f"or lower; {OPTION_HELP}")
        if not self.label.strip():
            raise ConfigError(f"empty metric name for scores from {self.source}; "
                              f"{OPTION_HELP}")


class FileStatistics(Statistics):
    """Given scores laid out as a metric's statistics, for one corpus.

    ``sentences`` (systems x sentences) when sentence scores were given: the
    corpus and mean levels are both their mean, so a bootstrap resample is a gather
    and a mean. ``system`` (one per system) otherwise: only the whole corpus has a
    score, so a request for a subset of sentences is an error.
    """

    def __init__(self, label: str, systems: tuple[str, ...], system: np.ndarray | None,
                 sentences: np.ndarray | None) -> None:
        self.label, self.systems = label, systems
        self._system, self._sentences = system, sentences

    def corpus(self, beta: float | None, sentences: np.ndarray | None = None) -> list[Score]:
        return [Score(float(v)) for v in self.corpus_scores(beta, sentences)]

    def corpus_scores(self, beta: float | None, sentences: np.ndarray | None = None
                      ) -> np.ndarray:
        return self.mean(beta, sentences)

    def sentence(self, beta: float | None) -> np.ndarray:
        if self._sentences is None:
            raise ConfigError(f"metric {self.label} has system scores only; sentence-level "
                              "analyses need one score per sentence")
        return self._sentences

    def mean(self, beta: float | None, sentences: np.ndarray | None = None) -> np.ndarray:
        if self._sentences is not None:
            return super().mean(beta, sentences)
        if sentences is not None:
            self.sentence(beta)  # raises: a resample needs sentence scores
        assert self._system is not None
        return self._system.copy()


class ScoresMetric(Metric[ScoresConfig]):
    """A metric whose scores are given (read from a file or passed as a mapping).

    Display name: the user's NAME; spec ``scores:NAME``. It has no beta, so
    beta sweeps give it one point and ``--cv-beta`` reports null, as for GLEU.
    """

    name = "scores"
    description = "scores computed elsewhere, from a file or a mapping (meta-eval --scores)"
    Config = ScoresConfig
    has_beta = False

    def __init__(self, label: str, table: ScoreTable, order: str = "higher") -> None:
        # Any string is accepted here; ScoresConfig.validate rejects the unknown ones.
        super().__init__(ScoresConfig(label, table.source, cast(Order, order)))
        self.label, self.order, self.table = label, order, table

    @property
    def display_name(self) -> str:
        return self.label

    @property  # type: ignore[override]
    def spec(self) -> str:
        return SPEC_PREFIX + self.label

    @property
    def sentence_level(self) -> bool:
        return self.table.sentence_level

    def cache_key(self) -> tuple[Any, ...]:
        """This instance: the scores themselves live in ``table``, not in the config.

        Two metrics with the same name, source and order may hold different
        tables (e.g. two in-memory mappings), so the config alone would be a
        stale key. There is no beta: the statistics ignore ``beta``.
        """
        return (type(self), self)

    def statistics(self, corpus: Corpus) -> FileStatistics:
        """The scores as statistics of ``corpus``; checked against its systems and length."""
        return self.cached_statistics(corpus, lambda: self._statistics(corpus))

    def _statistics(self, corpus: Corpus) -> FileStatistics:
        self._fits(corpus)
        systems = tuple(self.table.values)
        sign = -1.0 if self.order == "lower" else 1.0
        if not self.sentence_level:
            system = np.array([self.table.values[s] for s in systems], dtype=float)
            return FileStatistics(self.display_name, systems, sign * system, None)
        rows = np.stack([np.asarray(self.table.values[s], dtype=float) for s in systems])
        return FileStatistics(self.display_name, systems, None, sign * rows)

    def _fits(self, corpus: Corpus, benchmark: str = "the benchmark", hint: str = "") -> None:
        """One line unless every system is the corpus's and has a score per sentence."""
        foreign = [s for s in self.table.values if s not in corpus.hypotheses]
        if foreign:
            raise InputError(f"{self.table.where[foreign[0]]}: {foreign[0]!r} is not a system "
                             f"of {benchmark} (its systems: {', '.join(corpus.hypotheses)}); "
                             "rename or remove it")
        for system, row in self.table.values.items():
            if isinstance(row, np.ndarray) and len(row) != corpus.num_sentences:
                raise InputError(
                    f"{self.table.where[system]}: system {system!r} has "
                    f"{plural(len(row), 'sentence score')} but {benchmark} has "
                    f"{corpus.num_sentences} sentences; give one score per sentence, in corpus "
                    f"order{hint}")

    def check(self, selection: Selection) -> None:
        """Fail in one line unless these scores fit the selection's benchmark and systems."""
        bench = selection.benchmark
        hint = (" (scores of the other SEEDA corpus? choose it with --seeda-corpus)"
                if bench.name in registry.takes("seeda_corpus") else "")
        self._fits(bench.corpus, f"benchmark {bench.name} ({bench.setting})", hint)
        missing = [s for s in selection.systems if s not in self.table.values]
        if missing:
            raise InputError(
                f"{self.table.source}: no scores for system {missing[0]!r}"
                + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
                + f" of benchmark {bench.name} (system set {selection.system_set}: "
                f"{', '.join(selection.systems)}); add them, or choose a smaller set with "
                "--systems")


def scores_metric(name: str, scores: str | os.PathLike[str] | Mapping[str, Any],
                  order: str = "higher", spec: str | None = None,
                  beta: float | None = None) -> ScoresMetric:
    """A metric from scores computed elsewhere, for ``gecmetrics.meta_evaluate(...,
    scores=[...])``.

    ``scores`` is a path (a file or folder in any format of this module) or an
    in-memory mapping ``{system: float}`` / ``{system: [float per sentence]}``;
    ``order="lower"`` for metrics where lower is better (scores are negated);
    ``spec``/``beta`` pick one score set in the JSON of ``gecmetrics score``.
    """
    if isinstance(scores, Mapping):
        if spec is not None or beta is not None:
            raise ConfigError("spec=/beta= only select within the JSON of `gecmetrics score`; "
                              "drop them for in-memory scores")
        table = table_from_mapping(scores)
    else:
        table = read_scores(scores, spec, beta)
    return ScoresMetric(name, table, order)


def _split_option(text: str) -> tuple[str, str, str]:
    """NAME, PATH and the options' text of ``--scores NAME=PATH[:OPTS]``."""
    name, eq, rest = text.partition("=")
    if not eq or not name.strip() or not rest.strip():
        raise ConfigError(f"--scores expects NAME=PATH (got {text!r}); {OPTION_HELP}, e.g. "
                          "--scores mymetric=scores.tsv")
    match = _OPTIONS_START.search(rest)
    path, options = (rest[:match.start()], rest[match.end():]) if match else (rest, "")
    return name, path, options


def scores_paths(items: Sequence[Any]) -> list[str]:
    """The paths of the ``--scores NAME=PATH[:OPTS]`` texts among ``items`` (a
    malformed text is left to :func:`parse_scores_option` to report)."""
    paths = []
    for item in items:
        if isinstance(item, str):
            try:
                paths.append(_split_option(item)[1])
            except ConfigError:
                continue
    return paths


def check_scores_stdin(items: Sequence[Any]) -> None:
    """At most one ``--scores NAME=-`` (standard input is read once); ``items`` are the
    ``NAME=PATH`` texts (metrics given as objects are skipped)."""
    named = [(f"--scores {name}", path) for name, path, _ in
             (_split_option(item) for item in items if isinstance(item, str))]
    check_one_stdin(named)


def parse_scores_option(text: str) -> ScoresMetric:
    """``NAME=PATH[:key=value,...]`` of ``--scores`` as a metric (the file is read now).

    The options begin at the first ``:`` followed by ``order=``, ``spec=`` or
    ``beta=``, so a path may itself contain ``:``. ``spec=`` takes the rest of the
    text (a spec has its own ``:`` and ``,``), so it comes last.
    """
    name, path, options = _split_option(text)
    values: dict[str, str] = {}
    while options:
        key, eq, tail = options.partition("=")
        if key == "spec":
            value, options = tail, ""
        else:
            value, _, options = tail.partition(",")
        if not eq or key not in OPTIONS:
            raise ConfigError(f"--scores {name}: unknown option {key!r} (known: "
                              f"{', '.join(OPTIONS)}); {OPTION_HELP}")
        if key in values:
            raise ConfigError(f"--scores {name}: option {key} is given twice; {OPTION_HELP}")
        values[key] = value.strip()
    if not is_stdin(path) and not Path(path).exists():
        tail = path.rpartition(":")[2]
        hint = (f"; {tail!r} is not an option (known: {', '.join(OPTIONS)})"
                if ":" in path and _LOOKS_LIKE_OPTION.match(tail) else "")
        raise InputError(f"--scores {name}: scores file not found: {path} (check the path)"
                         + hint)
    beta: float | None = None
    if "beta" in values:
        try:
            beta = float(values["beta"])
        except ValueError:
            raise ConfigError(f"--scores {name}: beta={values['beta']!r} is not a number"
                              ) from None
    return scores_metric(name.strip(), path, values.get("order", "higher"),
                         values.get("spec"), beta)


def check_score_metrics(metrics: Sequence[Metric], selections: Sequence[Selection],
                        levels: Sequence[str], *, bootstrap: bool = False,
                        compare: bool = False, sentence_level: bool = False) -> list[str]:
    """Check every :class:`ScoresMetric` of ``metrics`` against the loaded benchmarks and
    the analyses asked for, before any scoring; return the notes for stderr."""
    given = [m for m in metrics if isinstance(m, ScoresMetric)]
    seen: set[str] = set()
    for metric in given:
        if metric.spec in seen:
            raise ConfigError(f"two --scores are named {metric.display_name!r}; give each a "
                              "different NAME")
        seen.add(metric.spec)
    needs = [flag for flag, on in (("--sentence-level", sentence_level),
                                   ("--bootstrap", bootstrap), ("--compare", compare)) if on]
    notes = []
    for metric in given:
        if needs and not metric.sentence_level:
            raise ConfigError(f"{needs[0]} resamples or compares sentences, but --scores "
                              f"{metric.display_name} ({metric.table.source}) has system scores "
                              "only; give one score per sentence, or drop " + needs[0])
        for selection in selections:
            metric.check(selection)
        if metric.sentence_level and "corpus" in levels and not sentence_level:
            notes.append(f"note: --scores {metric.display_name} has sentence scores; its corpus "
                         "level is their mean (as for --level mean)")
    return notes
