"""The ``gecmetrics`` command line (click). Thin over the Python API.

Heavy libraries (numpy, pandas, scipy, matplotlib) are imported inside the
commands that use them, so ``gecmetrics --help`` starts fast.
"""

from __future__ import annotations

import signal
import sys
import threading
from typing import Any

import click

# The helpers every command shares live in commands/common.py: commands import
# them from there, not from here, which imports the commands.
from gecmetrics.interface.commands.common import (
    INTERRUPTED,
    TERMINATED,
    Stopped,
    echo_failed,
    report_output_error,
)


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


# Each subcommand lives in its own module under gecmetrics/interface/commands/; a new
# command is one module plus one line here.
from gecmetrics.interface.commands.attribute import attribute_cmd  # noqa: E402
from gecmetrics.interface.commands.download import download_cmd  # noqa: E402
from gecmetrics.interface.commands.list_metrics import list_cmd  # noqa: E402
from gecmetrics.interface.commands.m2_from_text import m2_from_text  # noqa: E402
from gecmetrics.interface.commands.m2_to_text import m2_to_text  # noqa: E402
from gecmetrics.interface.commands.meta_eval import meta_eval  # noqa: E402
from gecmetrics.interface.commands.multigec import multigec  # noqa: E402
from gecmetrics.interface.commands.report import report  # noqa: E402
from gecmetrics.interface.commands.score import score  # noqa: E402

main.add_command(list_cmd, "list")
main.add_command(score, "score")
main.add_command(m2_to_text, "m2-to-text")
main.add_command(m2_from_text, "m2-from-text")
main.add_command(meta_eval, "meta-eval")
main.add_command(download_cmd, "download")
main.add_command(multigec, "multigec")
main.add_command(report, "report")
main.add_command(attribute_cmd, "attribute")


def _terminate(signum: int, frame: Any) -> None:
    raise TERMINATED


def _stop(stop: Stopped) -> None:
    """Exit for a signal; output already printed stays (it was complete when printed)."""
    # Further signals while exiting would print a traceback from the handler.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    parallel = sys.modules.get("gecmetrics.parallel")  # counting processes, if any started
    if parallel is not None:
        parallel.stop_pools()
    try:
        click.echo(f"error: {stop.message}", err=True)
    except OSError:  # stderr closed
        pass
    sys.exit(stop.code)


def run() -> None:
    """Console entry point: click usage errors become one line and exit code 2."""
    # SIGTERM unwinds the stack like Ctrl-C (finally blocks and cleanup run, e.g. a
    # download's temporary file and lock), then exits 143.
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    try:
        main.main(standalone_mode=False)
    except Stopped as stop:
        _stop(stop)
    except KeyboardInterrupt:
        _stop(INTERRUPTED)
    except click.exceptions.Abort as err:
        if isinstance(err.__cause__, KeyboardInterrupt):  # Ctrl-C while click was parsing
            _stop(INTERRUPTED)
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
    except OSError as err:  # click's own output (--help, --version) could not be written
        if not echo_failed(err):
            raise
        report_output_error(err)
    except Exception as err:
        signalled = _signal_behind(err)
        if signalled is None:
            raise
        _stop(signalled)


def _signal_behind(err: BaseException) -> Stopped | None:
    """The signal that caused ``err``, if any.

    A signal that lands while a C extension initialises (e.g. scipy's, imported
    lazily in the middle of a run) surfaces as ``ImportError: initialization
    failed`` chained to the KeyboardInterrupt or :class:`Stopped`; it is still
    the signal, not a bug.
    """
    seen: set[int] = set()
    cause: BaseException | None = err
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, Stopped):
            return cause
        if isinstance(cause, KeyboardInterrupt):
            return INTERRUPTED
        cause = cause.__cause__ or cause.__context__
    return None


if __name__ == "__main__":  # pragma: no cover
    run()
