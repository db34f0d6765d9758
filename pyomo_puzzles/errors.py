"""Errors a user can cause; the CLI turns each into one line and exit code 2."""

from __future__ import annotations

from pathlib import Path


class UserError(Exception):
    """Something the user asked for or supplied is wrong; shown as one line."""


class DataError(UserError):
    """A data file is invalid. The message names the file and the offending field."""

    def __init__(self, path: str | Path, field: str, message: str) -> None:
        self.path = str(path)
        self.field = field
        self.message = message
        super().__init__(f"{self.path}: field '{field}': {message}")


class SolverUnavailable(UserError):
    """The requested solver is not installed on this machine."""
