"""Run one command of the bad-input sweep, capped, and record its exit code and peak memory.

    python -I -S tests/trust_measure.py RESULT_FILE CAP_BYTES COMMAND [ARG ...]

A child's peak resident memory (``ru_maxrss``) includes what it had before it
exec'd, that is, the size of the process it was forked from; forked from a
large test process the command would seem to use that much. So the sweep
forks the command from this small process instead, which writes
``EXIT_CODE PEAK_KB`` to RESULT_FILE.
"""

import os
import resource
import signal
import sys


def main() -> None:
    result, cap, *command = sys.argv[1:]
    pid = os.fork()
    if pid == 0:
        try:
            # Address space: a run that would grow past it fails with MemoryError
            # instead of taking the machine down.
            resource.setrlimit(resource.RLIMIT_AS, (int(cap), int(cap)))
            # Ctrl-C and SIGTERM at their defaults, as from a terminal, whatever
            # the sweep's own process does with them (an ignored SIGINT is inherited).
            for stop in (signal.SIGINT, signal.SIGTERM):
                signal.signal(stop, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.execv(command[0], command)
        finally:
            os._exit(127)
    # A case's signal goes to the whole process group, as a terminal's Ctrl-C: it is
    # the command's to act on; this process waits for it and records what it did.
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, signal.SIG_IGN)
    _, status, usage = os.wait4(pid, 0)
    with open(result, "w") as handle:
        handle.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}\n")


if __name__ == "__main__":
    main()
