"""Errors a user can cause; the CLI turns each into one line and exit code 2."""

from __future__ import annotations

import os
import sys
from pathlib import Path

TRACEBACK_VARIABLE = "PYOMO_PUZZLES_TRACEBACK"
"""Set (``pyomo-puzzles --traceback``): an error raised in a family's or formulation's code,
reported as one line, also prints its traceback on stderr (processes started from a run
inherit it)."""


def one_line(text: str) -> str:
    """`text` with every character that would break or hide a line (newlines, tabs, other
    control and separator characters, lone surrogates) written as its escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for ch in text)


def shortened(text: str, limit: int = 160) -> str:
    """`text` cut to `limit` characters, ending in "..." where it was cut (for error lines)."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def quoted(name: str) -> str:
    """A field's or key's name in single quotes, with a quote (or backslash) in the name
    escaped so that the name ends where the quotes do."""
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"


class UserError(Exception):
    """Something the user asked for or supplied is wrong; shown as one line (a file's
    or a field's name with a newline in it is escaped, not printed)."""

    def __str__(self) -> str:
        return one_line(super().__str__())


class DataError(UserError):
    """A data file is invalid. The message names the file and the offending field."""

    def __init__(self, path: str | Path, field: str, message: str) -> None:
        self.path = str(path)
        self.field = field
        self.message = message
        super().__init__(f"{self.path}: field {quoted(field)}: {message}")

    def __reduce__(self):  # an isolated run sends it from its child process
        return DataError, (self.path, self.field, self.message)


class NotApplicable(UserError):
    """A formulation cannot model the instance, or a reference method cannot answer it (their
    `applies_to` says why): on the command line a user error; in the pipeline the cell is left
    out with the reason, as for a shipped instance, not counted as a failed run."""


class SolverUnavailable(UserError):
    """The requested solver is not installed on this machine."""


def failure_line(error: BaseException) -> str:
    """An exception raised in code the framework calls (a family's hooks, a formulation,
    Pyomo building a model) as one line; with `TRACEBACK_VARIABLE` set, its traceback is
    printed on stderr first, for the author of that code."""
    if os.environ.get(TRACEBACK_VARIABLE):
        import traceback  # 2 ms: only with --traceback (every command imports this module)

        traceback.print_exception(error, file=sys.stderr)
    text = " ".join(str(error).split())  # every line: Pyomo names the failing component on a later one
    return one_line(shortened(f"{type(error).__name__}: {text}", 600) if text else type(error).__name__)
