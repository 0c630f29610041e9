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
import os
import tempfile
from collections.abc import Iterable, Sequence
from typing import Any, Literal, get_args

from .errors import ConfigError

#: The levels a metric scores at (``Metric.evaluate``, ``score --level``): here,
#: free of numpy, so that the CLI derives its choices from it and starts fast.
Level = Literal["corpus", "sentence", "mean"]
LEVELS: tuple[Level, ...] = get_args(Level)

MAX_BETA = 1e100
MAX_GRID_POINTS = 100_001
MIN_RESAMPLES = 100
MAX_RESAMPLES = 1_000_000
MAX_SEED = 2**32 - 1
MAX_FOLDS = 100
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def check_beta(beta: Any, option: str = "beta") -> float:
    """``beta`` as a float in [0, MAX_BETA] (0 is precision alone; large betas tend to recall)."""
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
    """``value`` within [low, high], else one line naming ``what`` the option takes."""
    if not low <= value <= high:
        raise ConfigError(f"{option} takes {what} from {low} to {high} (got {value})")
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
    path = os.fspath(path)
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
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".gecmetrics-write-test-"):
            pass
    except OSError as err:
        raise ConfigError(f"{option} {path}: cannot write in {folder} "
                          f"({err.strerror or err}); choose another folder") from None
    return path


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
