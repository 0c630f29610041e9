"""User-facing errors.

Every problem a user can fix (a bad file, an unknown metric, an invalid
option) raises :class:`GecMetricsError` with a one-line message that says what
is wrong, where, and how to fix it. The CLI prints that line and exits with
code 2; it never shows a traceback for these.
"""


class GecMetricsError(Exception):
    """A problem with the user's input, reported as one actionable line."""


class InputError(GecMetricsError):
    """A file or text input is missing, unreadable or inconsistent."""


class ConfigError(GecMetricsError):
    """An unknown metric, option or an invalid parameter value."""


class OutputError(GecMetricsError):
    """An output could not be written (standard output on a full disk, a closed
    file descriptor); the message names the output and the operating system's reason."""


class PartialOutputError(GecMetricsError):
    """The results were computed but a side output (a figure, a file) failed.

    Carries the results (``output``) and the notes for stderr, so the CLI prints
    them before the one-line error instead of losing minutes of work.
    """

    def __init__(self, message: str, output: str, notes: list[str] | None = None) -> None:
        super().__init__(message)
        self.output = output
        self.notes = list(notes or [])
