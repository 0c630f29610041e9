"""Checks of option values, run before any file is read or any score computed.

Each function checks one kind of value and raises :class:`ConfigError` with one
line naming the option, the value and the valid range. Commands call them first,
so a typo costs nothing; a later per-command options dataclass can call them from
its ``__post_init__`` unchanged. The limits are module constants so that the
docs, the help texts and the tests refer to one number.

Why these limits:

* ``MAX_BETA = 1e100``. Every F-beta here computes ``beta**2`` and multiplies it
  with counts or ratios. GREEN and chrF raise OverflowError from beta = 1e155
  (beta**2 > 1.8e308); M2 already picks wrong annotators at beta = 1e153 on
  CoNLL-2014 (``(1 + beta**2) * correct`` overflows to inf, every running F ties).
  Beyond beta = 1e8 every F equals R to the last digit, so larger betas add
  nothing; 1e100 keeps 50 orders of magnitude of headroom for any count.
* ``MIN_RESAMPLES = 100``. A 95% percentile interval is read at the 2.5th and
  97.5th percentiles; with fewer than 40 resamples they are the extreme draws,
  and with a handful the interval can exclude the point estimate. 100 puts at
  least two resamples in each tail.
* ``MAX_SEED = 2**32 - 1``: the range every NumPy/C seed accepts.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, get_args

from .errors import ConfigError, InputError
from .formatting import short_repr

#: The levels a metric scores at (``Metric.evaluate``, ``score --level``): here,
#: free of numpy, so that the CLI derives its choices from it and starts fast.
Level = Literal["corpus", "sentence", "mean"]
LEVELS: tuple[Level, ...] = get_args(Level)
#: The formats of ``gecmetrics score --format`` and of ``render_scores``.
SCORE_FORMATS = ("table", "tsv", "json", "markdown", "latex")
#: The most decimal places a table shows (``-d/--digits``).
MAX_DIGITS = 15

MAX_BETA = 1e100
MAX_GRID_POINTS = 100_001
MIN_RESAMPLES = 100
MAX_RESAMPLES = 1_000_000
MAX_SEED = 2**32 - 1
MAX_FOLDS = 100
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def check_beta(beta: Any, option: str = "beta") -> float:
    """``beta`` as a float in [0, MAX_BETA] (0 is precision alone; large betas tend to recall).

    The one check of a beta, for the CLI and for library calls alike (``Metric.evaluate``,
    every ``Statistics`` method), so both refuse the same values with the same words.
    A bool is refused although ``float(True)`` is 1: it is surely a mistake.
    """
    if isinstance(beta, bool):
        raise ConfigError(f"{option} must be a number (got {beta!r})")
    try:
        value = float(beta)
    except (TypeError, ValueError):
        raise ConfigError(f"{option} must be a number (got {beta!r})") from None
    if not math.isfinite(value) or value < 0:
        raise ConfigError(f"{option} must be a finite number >= 0 (got {beta!r})")
    if value > MAX_BETA:
        raise ConfigError(f"{option} must be at most {MAX_BETA:g} (got {beta!r}); beyond it "
                          "beta**2 overflows, and from about 1e8 on F already equals recall")
    return value


def check_betas(betas: Any, option: str = "beta", keyword: str = "betas") -> list[float]:
    """A list of betas (the ``betas=`` of ``Metric.evaluate`` and ``ScoreOptions``), each
    checked by :func:`check_beta` under ``option`` (so refused in the CLI's words).

    A single number or a string is refused: ``betas=2`` is not a list of betas.
    """
    if isinstance(betas, (str, bytes)) or not isinstance(betas, Iterable):
        raise ConfigError(f"{keyword}= takes a list of numbers, e.g. {keyword}=[0.5, 2.0] "
                          f"(got {betas!r})")
    return [check_beta(b, option) for b in betas]


def check_sentences(sentences: Any, num_sentences: int | None = None,
                    option: str = "sentences") -> None:
    """Sentence indices for a gather (``Statistics.corpus_scores(beta, sentences=idx)``).

    A non-empty one-dimensional sequence of integers (repeats allowed, as in a
    bootstrap resample), each in [0, ``num_sentences``) when the count is known.
    Refused: floats (some metrics' gathers would truncate 0.5 to sentence 0), bools
    (numpy reads a bool array as a mask, not as indices), negative indices (numpy
    would silently count them from the end) and an empty selection (its scores are
    NaN or a meaningless 0 or 1).
    """
    if sentences is None:
        return
    import numpy as np

    try:
        array = np.asarray(sentences)
    except (TypeError, ValueError):
        array = np.asarray([], dtype=object)
    if array.size == 0 and array.ndim == 1:
        raise ConfigError(f"{option}= selects no sentence; give at least one index")
    if array.ndim != 1 or array.dtype.kind not in "iu" or isinstance(sentences, (str, bytes)):
        kind = "bools" if array.dtype.kind == "b" else (
            f"{array.dtype} values" if array.ndim == 1 else f"shape {array.shape}")
        raise ConfigError(f"{option}= takes a list or 1-D array of whole-number sentence "
                          f"indices (got {kind}: {short_repr(sentences, 60)}); "
                          "e.g. np.array([0, 2, 2])")
    low, high = int(array.min()), int(array.max())
    top = "" if num_sentences is None else f" to {num_sentences - 1}"
    if low < 0 or (num_sentences is not None and high >= num_sentences):
        bad = low if low < 0 else high
        raise ConfigError(f"{option}= index {bad} is out of range: sentences are numbered "
                          f"from 0{top}" + (f" ({num_sentences} sentences)"
                                             if num_sentences is not None else ""))


def parse_beta_grid(text: str, option: str = "--sweep-beta"):
    """``START:STOP:STEP`` (STOP included) as an array of betas rounded to the step.

    Every bound is a valid beta, STEP > 0 and at most ``MAX_GRID_POINTS`` points.
    """
    import numpy as np

    example = f"e.g. {option} 0:5:0.01"
    try:
        start, stop, step = (float(part) for part in str(text).split(":"))
    except ValueError:
        raise ConfigError(f"{option} must be START:STOP:STEP ({example}; got {text!r})") from None
    if not all(map(math.isfinite, (start, stop, step))):
        raise ConfigError(f"{option} needs finite numbers ({example}; got {text!r})")
    if step <= 0 or start < 0 or stop < start:
        raise ConfigError(f"{option} needs 0 <= START <= STOP and STEP > 0 ({example}; "
                          f"got {text!r})")
    if stop > MAX_BETA:
        raise ConfigError(f"{option} STOP must be at most {MAX_BETA:g}, the largest valid beta "
                          f"(got {text!r})")
    count = math.floor((stop - start) / step + 1e-9) + 1
    if count > MAX_GRID_POINTS:
        raise ConfigError(f"{option} {text} has {count:.4g} points; use at most "
                          f"{MAX_GRID_POINTS} (a larger STEP or a shorter range)")
    decimals = max(0, -int(np.floor(np.log10(step))) + 2)
    return np.round(start + step * np.arange(count), decimals)


def check_int_range(value: int, option: str, low: int, high: int, what: str) -> int:
    """``value`` a whole number within [low, high], else one line naming ``what`` the
    option takes (a bool or a float from a library caller is refused, not truncated)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not (
            low <= value <= high):
        raise ConfigError(f"{option} takes {what} from {low} to {high} (got {value})")
    return value


def check_int_option(value: Any, option: str, low: int, high: int, why: str = "") -> int:
    """An integer option (not a bool, not a float) within [low, high].

    For the count options of metrics (n-gram orders, iterations), which a library
    caller may pass as any Python object: ``n=4.0`` or ``n=True`` is refused, not
    counted as 4 or 1. ``why`` says where the upper bound comes from.
    """
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if not is_int or not low <= value <= high:
        over = is_int and value > high and why
        raise ConfigError(f"{option} must be an integer >= {low} and <= {high} (got {value!r})"
                          + (f"; {why}" if over else ""))
    return value


def check_resamples(n: int, option: str = "--bootstrap") -> int:
    return check_int_range(n, option, MIN_RESAMPLES, MAX_RESAMPLES,
                           f"a number of resamples (at least {MIN_RESAMPLES}, so that the 2.5% "
                           "tails of a 95% interval hold more than the extreme draws)")


def check_seed(seed: int, option: str = "--seed") -> int:
    return check_int_range(seed, option, 0, MAX_SEED, "an integer seed")


def check_paired(samples: int, seed: int, option: str) -> None:
    """Resamples (bootstrap) or trials (AR) and seed of a paired test."""
    check_resamples(samples, option)
    check_seed(seed)


def check_paired_request(bootstrap: int | None, ar: int | None
                         ) -> tuple[Literal["bs", "ar"], int] | None:
    """``score --paired-bootstrap N`` / ``--paired-ar N``: at most one of them, with a
    valid N. Returns the test and its N, or None when neither is given."""
    if bootstrap is not None and ar is not None:
        raise ConfigError("--paired-bootstrap and --paired-ar are two tests of the same "
                          "question; give one of them")
    if bootstrap is None and ar is None:
        return None
    test: Literal["bs", "ar"] = "bs" if bootstrap is not None else "ar"
    n = bootstrap if bootstrap is not None else ar
    assert n is not None
    check_resamples(n, paired_option(test))
    return test, n


def paired_option(test: str) -> str:
    """The ``score`` flag of a paired test (``bs`` or ``ar``)."""
    return "--paired-bootstrap" if test == "bs" else "--paired-ar"


def check_paired_use(test: str, hypotheses: int, level: str) -> None:
    """A paired test needs at least two hypothesis files (the first is the
    baseline) and a level with one score per system."""
    option = paired_option(test)
    if hypotheses < 2:
        raise ConfigError(f"{option} compares hypothesis files with the first one (the "
                          f"baseline) and needs at least 2 after -c/--hypothesis "
                          f"(got {hypotheses})")
    if level == "sentence":
        raise ConfigError(f"{option} compares one score per system: use --level corpus or "
                          "mean, not sentence")


#: ``--jobs`` above this is surely a typo (each job is a process holding a chunk).
MAX_JOBS = 1024


def check_jobs(jobs: int, option: str = "--jobs") -> int:
    """A number of counting processes: 1 (no pool) to :data:`MAX_JOBS`."""
    if isinstance(jobs, bool) or not isinstance(jobs, int):
        raise ConfigError(f"{option} takes a whole number of processes (got {jobs!r})")
    return check_int_range(jobs, option, 1, MAX_JOBS, "a number of processes")


def check_chunk_size(size: int, option: str = "--chunk-size") -> int:
    """Sentences per chunk: 0 (the whole corpus as one chunk) or more."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ConfigError(f"{option} takes a number of sentences >= 1, or 0 for one chunk "
                          f"(got {size!r})")
    return size


#: The shortest timeout an option takes, in seconds: below it no server answers in time.
MIN_TIMEOUT = 0.1


def check_seconds(value: Any, option: str, least: float = MIN_TIMEOUT) -> float:
    """A time limit in seconds: a finite number >= ``least``. NaN would make every
    comparison false (the limit never trips, or the socket library refuses it with a
    ValueError), infinity would wait for ever: both are one-line errors."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{option} takes a number of seconds (got {value!r})") from None
    if not math.isfinite(seconds) or seconds < least:
        raise ConfigError(f"{option} takes a finite number of seconds >= {least:g} "
                          f"(got {value!r})")
    return seconds


def check_folds(k: int, option: str = "--cv-beta") -> int:
    return check_int_range(k, option, 2, MAX_FOLDS, "a number of folds")


def check_window(w: int, n_systems: int | None = None, where: str = "",
                 option: str = "--window") -> int:
    """At least 2 systems (a correlation of one point is undefined); at most ``n_systems``."""
    if w < 2 or (n_systems is not None and w > n_systems):
        most = "the number of systems" + (f" ({n_systems} in {where})" if n_systems else "")
        raise ConfigError(f"{option} must be between 2 and {most}; got {w}")
    return w


def check_output_file(path: str, option: str, suffixes: Sequence[str] | None = None) -> str:
    """Fail now, not after minutes of work, if ``path`` cannot be written.

    Checks the suffix, that the folder exists and is a folder, that ``path`` is not
    a folder, and that a file can be created in the folder (a real try, as
    ``os.access`` says yes to root even on read-only file systems such as /proc).
    """
    path = os.fspath(check_path(path, option, ConfigError, empty=True))
    if not path:
        raise ConfigError(f"{option} needs a file name (got an empty one)")
    if suffixes and os.path.splitext(path)[1].lower() not in suffixes:
        raise ConfigError(f"{option} file must end in {', '.join(suffixes)} (got {path!r})")
    if os.path.isdir(path):
        raise ConfigError(f"{option} {path} is a folder; give a file name")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise ConfigError(f"{option} {path}: folder {folder} does not exist; create it or "
                          "choose another path")
    import tempfile  # start-up: the registry imports this module for `gecmetrics list`

    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".gecmetrics-write-test-"):
            pass
    except OSError as err:
        raise ConfigError(f"{option} {path}: cannot write in {folder} "
                          f"({err.strerror or err}); choose another folder") from None
    return path


#: ``(option as typed, path or None)``: a file a command reads or writes.
NamedPath = tuple[str, "str | os.PathLike[str] | None"]


def check_outputs(outputs: Sequence[NamedPath], inputs: Sequence[NamedPath]) -> None:
    """Refuse, before anything is read or written, an output file that is also an input
    of the same command (``m2-from-text -s x.txt -o x.txt`` would replace the source
    by the output), or two outputs that are one file (the second would replace the
    first). A file is compared by identity (:func:`same_file`), so a link or ``./x``
    is caught too. ``-`` (standard input or output) and an output that exists but is
    not a regular file (``/dev/stdout``, a FIFO: written to, not replaced) are no
    clash. Every command with an output option calls this, with all its inputs."""
    for flag, p in outputs:
        if p is not None:
            check_path(p, flag, ConfigError, empty=True)
    for flag, p in inputs:
        if p is not None:
            check_path(p, flag, InputError, empty=True)
    written = [(flag, os.fspath(p)) for flag, p in outputs
               if p is not None and os.fspath(p) not in ("", "-")
               and (os.path.isfile(p) or not os.path.exists(p))]
    read = [(flag, os.fspath(p)) for flag, p in inputs
            if p is not None and os.fspath(p) not in ("", "-")]
    for k, (flag, path) in enumerate(written):
        for other_flag, other in read:
            if same_file(path, other):
                raise ConfigError(f"{flag} {path} is also the input {other_flag} {other}: "
                                  "writing it would destroy that input; choose another "
                                  "output file")
        for other_flag, other in written[:k]:
            if same_file(path, other):
                raise ConfigError(f"{other_flag} {other} and {flag} {path} are the same file: "
                                  "the second output would replace the first; give each "
                                  "output its own file")


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file: :func:`os.path.samefile` where both exist (a
    hard or symbolic link, ``./x``, another spelling), else the same resolved path."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return os.path.realpath(a) == os.path.realpath(b)


def check_plot_file(path: str, option: str = "--plot") -> str:
    """A writable .png/.svg/.pdf path, with matplotlib installed to draw it."""
    check_output_file(path, option, PLOT_SUFFIXES)
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        raise ConfigError(f"{option} needs matplotlib; install the plot extra: "
                          'pip install ".[plot]"')
    return path


def applies_to(option: str, chosen: Sequence[str], fits: Iterable[str], what: str,
               notes: list[str]) -> None:
    """An option given explicitly must apply to at least one chosen target.

    None of them: an error (it would be ignored silently); some: a note saying
    which ones ignore it.
    """
    fits = set(fits)
    hits = [c for c in chosen if c in fits]
    if not hits:
        raise ConfigError(f"{option} applies only to {what}, not to {', '.join(chosen)}; "
                          f"drop {option}")
    if len(hits) < len(chosen):
        missed = [c for c in chosen if c not in fits]
        notes.append(f"note: {option} applies to {', '.join(hits)} only, not to "
                     f"{', '.join(missed)}")


def check_choice(option: str, value: Any, allowed: Sequence[str]) -> None:
    """``value`` is one of ``allowed`` (click checks a CLI's choices; library callers
    get the same one line)."""
    if value not in allowed:
        raise ConfigError(f"{option} must be one of {', '.join(allowed)} (got {value!r})")


def needs(option: str, other: str, present: bool) -> None:
    """``option`` only means something together with ``other``."""
    if not present:
        raise ConfigError(f"{option} needs {other}; add it or drop {option}")


def beta_options_apply(metrics: Sequence[Any], notes: list[str], **given: bool) -> None:
    """Beta options (``-b``, ``--sweep-beta``...; keyword = option name, value = given)
    need a metric with a beta: GLEU has none and would ignore them silently."""
    specs = [m.spec for m in metrics]
    with_beta = [m.spec for m in metrics if m.has_beta]
    for option, on in given.items():
        if on:
            applies_to(option, specs, with_beta, "metrics with a beta (green, chrf, m2, errant)",
                       notes)


# -- the Python API's arguments -------------------------------------------------------
#
# Each public function checks its arguments at its entry with these, so that a library
# caller's None, number or string in the wrong place is one line naming the argument
# (InputError for data, ConfigError for settings) instead of a TypeError or a numpy
# error from deep inside. They check and return; they never change a valid value
# (a list given as another iterable may come back as a tuple or an array).


def _got(value: Any) -> str:
    return f"got {type(value).__name__}: {short_repr(value, 60)}"


def check_instance(value: Any, argument: str, kind: type | tuple[type, ...], what: str,
                   error: type[Exception] = ConfigError) -> Any:
    """``value`` an instance of ``kind`` (``what`` says it in words: "a Corpus")."""
    if not isinstance(value, kind):
        raise error(f"{argument} must be {what} ({_got(value)})")
    return value


def check_text(value: Any, argument: str, empty: bool = False) -> str:
    """A string (non-empty unless ``empty``): a name, a spec, a format."""
    if not isinstance(value, str) or (not empty and not value):
        raise ConfigError(f"{argument} must be a non-empty string ({_got(value)})")
    return value


def check_path(value: Any, argument: str, error: type[Exception] = InputError,
               empty: bool = False) -> Any:
    """A file name: a string or path-like object (non-empty unless ``empty``: then the
    caller says what an empty name means)."""
    if not isinstance(value, (str, os.PathLike)) or not (empty or os.fspath(value)):
        raise error(f"{argument} must be a file name, a string or a Path ({_got(value)})")
    return value


def check_paths(value: Any, argument: str) -> tuple[Any, ...]:
    """A list of file names, as a tuple (any iterable is read once; a lone string is
    refused: it is not a list of files)."""
    if isinstance(value, (str, bytes, os.PathLike)) or not isinstance(value, Iterable):
        raise InputError(f"{argument} must be a list of file names, e.g. [\"ref0.txt\"] "
                         f"({_got(value)})")
    paths = tuple(value)
    for item in paths:
        check_path(item, f"{argument} item")
    return paths


def check_mapping(value: Any, argument: str, what: str = "a mapping (a dict)") -> Any:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{argument} must be {what} ({_got(value)})")
    return value


def check_callable(value: Any, argument: str, what: str) -> Any:
    if not callable(value):
        raise ConfigError(f"{argument} must be {what} ({_got(value)})")
    return value


def as_items(value: Any, argument: str, example: str) -> tuple[Any, ...]:
    """A sequence argument as a tuple; a lone string is taken as a one-item list (the
    friendlier reading of ``metrics="green"``); None or a number is refused."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise ConfigError(f"{argument} must be a list, e.g. {argument}={example} "
                          f"({_got(value)})")
    return tuple(value)


def check_count(value: Any, argument: str, low: int = 0) -> int:
    """A whole number >= ``low`` (a bool or a float is refused, not truncated)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ConfigError(f"{argument} must be a whole number >= {low} ({_got(value)})")
    return int(value)


def check_number(value: Any, argument: str, low: float | None = None,
                 high: float | None = None) -> float:
    """A finite real number within [low, high] where given."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(
            value):
        raise ConfigError(f"{argument} must be a finite number ({_got(value)})")
    number = float(value)
    if (low is not None and number < low) or (high is not None and number > high):
        bounds = f"from {low:g} to {high:g}" if low is not None and high is not None else (
            f">= {low:g}" if low is not None else f"<= {high:g}")
        raise ConfigError(f"{argument} must be a number {bounds} (got {value!r})")
    return number


def check_fraction(value: Any, argument: str) -> float:
    """A level or a probability strictly between 0 and 1 (confidence, alpha)."""
    number = check_number(value, argument)
    if not 0 < number < 1:
        raise ConfigError(f"{argument} must be a number between 0 and 1, e.g. 0.95 "
                          f"(got {value!r})")
    return number


def check_size(argument: str, got: int, expected: int, what: str) -> None:
    """A length that must match another argument's (``what`` says which, in words)."""
    if got != expected:
        raise InputError(f"{argument} must have {expected} {what} (got {got})")


def check_broadcast(first: str, a: Any, second: str, b: Any) -> None:
    """Two arrays that numpy combines element by element: their shapes must broadcast."""
    import numpy as np

    try:
        np.broadcast_shapes(np.shape(a), np.shape(b))
    except ValueError:
        raise InputError(f"{first} of shape {np.shape(a)} does not match {second} of shape "
                         f"{np.shape(b)}; give one value per pair in each") from None


def check_numbers(value: Any, argument: str, ndim: int | tuple[int, ...] | None = None,
                  least: int = 1, kind: str = "numbers") -> Any:
    """An array of numbers (bools allowed where ``kind`` says so) with ``ndim``
    dimensions and at least ``least`` values along each; returns it as numpy reads it
    (``numpy.asarray``, no copy of an array), so results are those of the unchecked
    value."""
    import numpy as np

    if value is None or isinstance(value, (str, bytes, Mapping)):
        raise InputError(f"{argument} must be an array of {kind} ({_got(value)})")
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        raise InputError(f"{argument} must be a regular array of {kind} "
                         f"({_got(value)})") from None
    if array.dtype.kind == "O":  # None among numbers is NaN to numpy's float reading
        try:
            array = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            pass
    allowed = "biuf" if kind != "numbers" else "iuf"
    if array.dtype.kind not in allowed and not (array.size == 0 and array.dtype.kind == "f"):
        raise InputError(f"{argument} must be an array of {kind} (got {array.dtype} values: "
                         f"{short_repr(value, 60)})")
    dims = (ndim,) if isinstance(ndim, int) else ndim
    if dims is not None and array.ndim not in dims:
        wanted = " or ".join(f"{d}-D" for d in dims)
        raise InputError(f"{argument} must be a {wanted} array of {kind} (got shape "
                         f"{array.shape})")
    if array.ndim == 0 or min(array.shape) < least:
        raise InputError(f"{argument} needs at least {least} value(s) along each axis (got "
                         f"shape {array.shape})")
    return array


# Declarative checks of a function's arguments: ``@arguments(x=numbers(ndim=1))`` runs
# each named check on the bound argument before the function, so a module of pure
# functions (gecmetrics.stats) states its contract once, above each function.

Check = Any  # a callable (value, argument name) -> None


def arguments(same: tuple[str, ...] = (), **checks: Check) -> Any:
    """Decorate a function so that ``checks[name](value, name)`` runs on each named
    argument (given or default) before the body; the arrays named in ``same`` must
    have the same length."""
    import functools
    import inspect

    def decorate(function: Any) -> Any:
        signature = inspect.signature(function)

        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as err:
                raise ConfigError(f"{function.__name__}(): {err}") from None
            bound.apply_defaults()
            for name, check in checks.items():
                out = check(bound.arguments[name], name)
                if out is not None:  # an array as numpy reads it (the same object if it was one)
                    bound.arguments[name] = out
            if same:
                lengths = {name: len(bound.arguments[name]) for name in same}
                if len(set(lengths.values())) > 1:
                    raise InputError(f"{' and '.join(same)} must have the same length (got "
                                     f"{', '.join(map(str, lengths.values()))})")
            return function(*bound.args, **bound.kwargs)

        return checked

    return decorate


def is_array(ndim: int | tuple[int, ...] | None = None, least: int = 1,
             kind: str = "numbers", convert: bool = True) -> Check:
    """An array of numbers, passed on as numpy reads it (``convert``; an array stays the
    same object) or as given (for a function that uses it as a Python sequence)."""
    def check(value: Any, name: str) -> Any:
        array = check_numbers(value, name, ndim, least, kind)
        return array if convert else None
    return check


def is_matrix() -> Check:
    """A 2-D matrix: anything with a 2-D ``shape`` (a numpy array, a scipy sparse
    matrix) as given, else an array of numbers as numpy reads it."""
    def check(value: Any, name: str) -> Any:
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple) and len(shape) == 2:
            return None
        return check_numbers(value, name, 2, 1)
    return check


def is_count(low: int = 0) -> Check:
    return lambda value, name: check_count(value, name, low) and None


def is_number(low: float | None = None, high: float | None = None) -> Check:
    return lambda value, name: check_number(value, name, low, high) and None


def is_real() -> Check:
    """Any real number, NaN and infinities included (a correlation may be undefined)."""
    return lambda value, name: check_instance(
        value, name, numbers.Real, "a number", InputError) and None


def is_fraction() -> Check:
    return lambda value, name: check_fraction(value, name) and None


def is_function(what: str) -> Check:
    return lambda value, name: check_callable(value, name, what) and None


def is_flag() -> Check:
    return lambda value, name: check_instance(value, name, (bool, numbers.Integral),
                                              "True or False") and None


def is_choice(allowed: Sequence[str]) -> Check:
    return lambda value, name: check_choice(name, value, allowed)


def is_optional(check: Check) -> Check:
    return lambda value, name: None if value is None else check(value, name)


def is_texts(least: int = 1) -> Check:
    """A list of strings (names)."""
    def check(value: Any, name: str) -> None:
        if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
            raise InputError(f"{name} must be a list of strings ({_got(value)})")
        items = list(value)
        if len(items) < least or not all(isinstance(item, str) for item in items):
            raise InputError(f"{name} must be a list of at least {least} string(s) "
                             f"({_got(value)})")
    return check


def is_mapping(what: str) -> Check:
    return lambda value, name: check_mapping(value, name, what) and None
#: The ISO 639-1 language codes a ``--lang`` option accepts (``m2-from-text``,
#: ``multigec``): every language, checked so that a typo is caught.
LANGUAGE_CODES = frozenset(
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu "
    "cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi "
    "ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks "
    "ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl "
    "nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl "
    "sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve "
    "vi vo wa wo xh yi yo za zh zu".split())


def check_language(lang: object, option: str = "--lang") -> str:
    """``lang`` if it is an ISO 639-1 code (:data:`LANGUAGE_CODES`), else the one
    ConfigError naming ``option``."""
    if not isinstance(lang, str) or lang not in LANGUAGE_CODES:
        raise ConfigError(f"unknown {option} {lang!r}; give an ISO 639-1 code in lower case "
                          "(en, de, uk, sv, ...)")
    return lang
