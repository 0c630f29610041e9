"""The ``gecmetrics`` command line (click). Thin over the Python API.

Heavy libraries (numpy, pandas, scipy, matplotlib) are imported inside the
commands that use them, so ``gecmetrics --help`` starts fast.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import threading
from pathlib import Path
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

#: Each subcommand: its name, and the module under gecmetrics/interface/commands/ and the
#: click command in it. A new command is one module plus one line here. A command's module
#: is imported only when that command runs (or its --help is asked for), so
#: ``gecmetrics score`` never pays for meta-eval's imports.
COMMANDS: dict[str, tuple[str, str]] = {
    "attribute": ("attribute", "attribute_cmd"),
    "download": ("download", "download_cmd"),
    "list": ("list_metrics", "list_cmd"),
    "m2-from-text": ("m2_from_text", "m2_from_text"),
    "m2-to-text": ("m2_to_text", "m2_to_text"),
    "mbr": ("mbr", "mbr_cmd"),
    "meta-eval": ("meta_eval", "meta_eval"),
    "multigec": ("multigec", "multigec"),
    "report": ("report", "report"),
    "score": ("score", "score"),
}


def _command_module(name: str) -> str:
    return f"gecmetrics.interface.commands.{COMMANDS[name][0]}"


def command_docstring(name: str) -> str:
    """The help text of command ``name``, read from its module's source without importing
    it: the top-level ``--help`` lists every command's first sentence, and importing all
    of them would cost more than the rest of start-up together."""
    import ast
    import importlib.util

    module, attribute = COMMANDS[name]
    spec = importlib.util.find_spec(_command_module(name))
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return _loaded_help(name)
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == attribute:
            return ast.get_docstring(node, clean=False) or ""
    return _loaded_help(name)


def _loaded_help(name: str) -> str:
    command = LazyGroup.load(name)
    return command.help or ""


class LazyGroup(click.Group):
    """The ``gecmetrics`` group: commands from :data:`COMMANDS`, each imported when used."""

    @staticmethod
    def load(name: str) -> click.Command:
        import importlib

        command = getattr(importlib.import_module(_command_module(name)), COMMANDS[name][1])
        assert isinstance(command, click.Command)
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands or cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        command = self.load(cmd_name)
        self.add_command(command, cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """As click's, from the docstrings in the source (:func:`command_docstring`)."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in self.commands:
                text = self.commands[name].get_short_help_str(limit)
            else:
                text = click.Command(name, help=command_docstring(name)).get_short_help_str(limit)
            rows.append((name, text))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
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
    external = sys.modules.get("gecmetrics.tokenizers.external")  # a tokenizer's thread
    if external is not None and external.busy():
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(stop.code)  # not sys.exit: finalizing would abort the thread's library
    sys.exit(stop.code)


#: How long OpenBLAS's threads spin waiting for work before they sleep: 2^4 cycles,
#: its least (the default, 2^28, is 0.1-0.13 s of a second core's CPU in every
#: process that imports numpy, more than a BLEU run's counting, and on a busy
#: machine taken from the run itself; the matrix products a command makes are few
#: and small). Set for the process before anything imports numpy; a value the user
#: set is kept. ``python bench/bench_bleu_process.py`` shows the CPU saved.
BLAS_THREAD_TIMEOUT = "4"

#: Allocations between two collections of the youngest generation (CPython's default
#: is 700). A command makes tens of thousands of long-lived records (a 501-beta GREEN
#: sweep of 13 outputs: 13,026 results), which the default examines over and over:
#: 15 ms of a one-beta GREEN run and 35 ms of that sweep, against 4 and 13 ms at
#: 20,000. The cyclic garbage left for longer is at most that many objects.
GC_YOUNG_THRESHOLD = 20_000


def run() -> None:
    """Console entry point: click usage errors become one line and exit code 2."""
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", BLAS_THREAD_TIMEOUT)
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
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
