"""Helpers shared by the ``gecmetrics`` commands: error handling, standard output and
option provenance.

They live here, not in :mod:`gecmetrics.interface.cli`, because the CLI module imports
every command: a command importing the CLI module would be an import cycle.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, NoReturn

import click

from gecmetrics.errors import ConfigError, GecMetricsError, OutputError, PartialOutputError
from gecmetrics.paths import atomic_output


class Stopped(BaseException):
    """Ctrl-C or SIGTERM: stop with the shell's exit code (128 + signal), no traceback.

    A BaseException, so neither ``except Exception`` in the work nor click's own
    KeyboardInterrupt handling (which prints a blank line and exits 1) sees it.
    """

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


INTERRUPTED = Stopped(130, "interrupted (Ctrl-C)")
TERMINATED = Stopped(143, "terminated (SIGTERM)")


def friendly_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn user errors into one line on stderr and exit code 2 (no traceback).

    A :class:`PartialOutputError` (results computed, a figure failed) prints the
    results first, then the error.
    """

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except PartialOutputError as err:
            out(err.output)
            for note in err.notes:
                click.echo(note, err=True)
            click.echo(f"error: {err}", err=True)
            sys.exit(2)
        except OutputError as err:
            click.echo(f"error: {err}", err=True)
            _drop_stdout()  # what is left in its buffer would fail again at exit
            sys.exit(2)
        except GecMetricsError as err:
            click.echo(f"error: {err}", err=True)
            sys.exit(2)
        except BrokenPipeError:  # e.g. `gecmetrics score ... | head`
            stdout_closed()
        except KeyboardInterrupt:
            raise INTERRUPTED from None

    return wrapper


def out(text: str = "", nl: bool = True) -> None:
    """``click.echo`` to standard output; a write that fails is one line
    (:func:`writing_stdout`)."""
    with writing_stdout():
        click.echo(text, nl=nl)


def write_text(text: str, output: str | None, flag: str = "-o/--output") -> None:
    """``text`` to the file ``output`` (whole or not at all: written to a part file
    that replaces it), or to standard output when ``output`` is None; a file that
    cannot be written is one line naming ``flag``."""
    if not output:
        out(text, nl=False)
        return

    try:
        with atomic_output(output) as part, open(part, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as err:
        raise ConfigError(f"{flag} {output} could not be written "
                          f"({err.strerror or err})") from None


@contextmanager
def writing_stdout() -> Iterator[None]:
    """Around writes to standard output: a failed write (a full disk behind ``>
    file``, ``> /dev/full``, an I/O error) becomes :class:`OutputError`, one line
    with the reason; exit code 2. A closed pipe (``| head``) is no error: the
    BrokenPipeError goes on to :func:`friendly_errors`, which exits quietly. An
    OSError naming a file is that file's, and goes on unchanged."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as err:
        if err.filename is not None:
            raise
        raise stdout_error(err) from None


def stdout_error(err: OSError) -> OutputError:
    """The one line for a write to standard output that failed with ``err``."""
    return OutputError(f"cannot write to standard output ({err.strerror or err}); free "
                       "space where it goes, or redirect it to another file")


def stdout_closed() -> NoReturn:
    """Exit quietly (code 0) when the reader of standard output has gone (``| head``).

    Python flushes standard output at exit, and a flush into the closed pipe would
    print "Exception ignored ... BrokenPipeError": standard output is pointed at
    the null device first.
    """
    _drop_stdout()
    sys.exit(0)


def echo_failed(err: OSError) -> bool:
    """Whether ``err`` was raised by a ``click.echo`` itself (its innermost frame), as
    when click writes ``--help`` or ``--version``: a write to an output, not a file."""
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_name == "echo" and err.filename is None


def report_output_error(err: OSError) -> NoReturn:
    """Exit for a failed write to standard output outside a command's own writes
    (click's help and version): quietly for a closed pipe, else one line, code 2."""
    if isinstance(err, BrokenPipeError):
        stdout_closed()
    try:
        click.echo(f"error: {stdout_error(err)}", err=True)
    except OSError:  # stderr is gone too
        pass
    _drop_stdout()
    sys.exit(2)


def _drop_stdout() -> None:
    """Point file descriptor 1 at the null device (nothing more can reach the reader),
    so that the exit's flush of what is still buffered cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real descriptor (tests, embedding)
        pass


def explicit(ctx: click.Context) -> set[str]:
    """Parameters given on the command line (or by environment), not left at their
    default: an option given explicitly that applies to nothing is an error, while
    its default, shown in --help, is not."""
    from click.core import ParameterSource

    given = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    return {name for name in ctx.params if ctx.get_parameter_source(name) in given}


def refuse_digits_with_json(ctx: click.Context, fmt: str) -> None:
    """A one-line :class:`~gecmetrics.errors.ConfigError` when ``-d/--digits`` is given
    with ``--format json``: JSON has full precision, so the option would be ignored
    silently (one message for every command that has both options)."""
    if "digits" in explicit(ctx) and fmt == "json":
        raise ConfigError("-d/--digits sets the decimals of tables; JSON has full precision: "
                          "drop -d or choose another --format")
