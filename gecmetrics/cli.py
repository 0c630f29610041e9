"""The ``gecmetrics`` command line (click). Thin over the Python API.

Heavy libraries (numpy, pandas, scipy, matplotlib) are imported inside the
commands that use them, so ``gecmetrics --help`` starts fast.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from functools import wraps
from typing import Any

import click

from .errors import GecMetricsError


def friendly_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn user errors into one line on stderr and exit code 2 (no traceback)."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except GecMetricsError as err:
            click.echo(f"error: {err}", err=True)
            sys.exit(2)
        except BrokenPipeError:  # e.g. `gecmetrics score ... | head`
            sys.exit(0)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="gecmetrics")
def main() -> None:
    """Evaluate grammatical error correction: many metrics side by side, and how well
    each metric agrees with human rankings.

    \b
    Examples:
      gecmetrics list
      gecmetrics score -m green -s src.txt -r ref0.txt ref1.txt -c sysA.txt sysB.txt
      gecmetrics score -m green:tokenize=char,n=6 -m green -b 0.5 -b 2 \\
          -s src.txt -r ref.txt -c sys.txt
      gecmetrics m2-to-text official-2014.combined.m2 --annotator 0 > ref0.txt
    """


# Each subcommand lives in its own module under gecmetrics/commands/; a new
# command is one module plus one line here.
from .commands.download import download_cmd  # noqa: E402
from .commands.list_metrics import list_cmd  # noqa: E402
from .commands.m2_to_text import m2_to_text  # noqa: E402
from .commands.meta_eval import meta_eval  # noqa: E402
from .commands.score import score  # noqa: E402

main.add_command(list_cmd, "list")
main.add_command(score, "score")
main.add_command(m2_to_text, "m2-to-text")
main.add_command(meta_eval, "meta-eval")
main.add_command(download_cmd, "download")


def _exit_on_sigterm() -> None:
    """Make SIGTERM unwind the stack like Ctrl-C does, then exit with 143.

    By default SIGTERM kills Python without running ``finally`` blocks or
    ``except BaseException`` handlers, so a killed ``gecmetrics download``
    would leave its temporary file and lock behind. Raising ``SystemExit(143)``
    (128 + 15, the shell convention) from the handler runs every cleanup on
    the way out, exactly as ``KeyboardInterrupt`` does for Ctrl-C (exit 130).
    """

    def handler(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, handler)


def run() -> None:
    """Console entry point: click usage errors become one line and exit code 2;
    Ctrl-C exits 130 and SIGTERM 143, after the same cleanup."""
    _exit_on_sigterm()
    try:
        main.main(standalone_mode=False)
    except click.exceptions.Abort as err:
        if isinstance(err.__cause__, KeyboardInterrupt):
            click.echo("interrupted", err=True)
            sys.exit(130)
        click.echo("aborted", err=True)
        sys.exit(1)
    except click.exceptions.NoArgsIsHelpError as err:
        click.echo(err.ctx.get_help() if err.ctx else str(err))
        sys.exit(0)
    except click.UsageError as err:
        command = err.ctx.command_path if err.ctx else "gecmetrics"
        click.echo(f"error: {err.format_message()} (see `{command} --help`)", err=True)
        sys.exit(2)
    except click.exceptions.Exit as err:
        sys.exit(err.exit_code)
    except click.ClickException as err:
        click.echo(f"error: {err.format_message()}", err=True)
        sys.exit(err.exit_code)


if __name__ == "__main__":  # pragma: no cover
    run()
