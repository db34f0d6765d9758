"""Small helpers shared by the adapters."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


@contextmanager
def quiet_stdout(active: bool = True):
    """Silence what a solver library prints on the process's standard output (licence
    banners and size notices of the commercial solvers), so that the CLI prints only the
    framework's lines."""
    if not active:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
