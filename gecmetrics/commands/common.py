"""Helpers shared by the ``gecmetrics`` commands: error handling and option provenance.

They live here, not in :mod:`gecmetrics.cli`, because the CLI module imports
every command: a command importing the CLI module would be an import cycle.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import Any

import click

from ..errors import GecMetricsError, PartialOutputError


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
            click.echo(err.output)
            for note in err.notes:
                click.echo(note, err=True)
            click.echo(f"error: {err}", err=True)
            sys.exit(2)
        except GecMetricsError as err:
            click.echo(f"error: {err}", err=True)
            sys.exit(2)
        except BrokenPipeError:  # e.g. `gecmetrics score ... | head`
            sys.exit(0)
        except KeyboardInterrupt:
            raise INTERRUPTED from None

    return wrapper


def explicit(ctx: click.Context) -> set[str]:
    """Parameters given on the command line (or by environment), not left at their
    default: an option given explicitly that applies to nothing is an error, while
    its default, shown in --help, is not."""
    from click.core import ParameterSource

    given = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    return {name for name in ctx.params if ctx.get_parameter_source(name) in given}
