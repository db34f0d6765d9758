"""Small helpers shared by the adapters."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from contextlib import contextmanager


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


@contextmanager
def quiet_stdout(active: bool = True):
    """Silence what a solver library prints (licence banners and size notices of the
    commercial solvers, from C on file descriptors 1 and 2 or from Python on sys.stdout
    and sys.stderr), so that the CLI prints only the framework's lines; the solver's errors
    still reach the caller as exceptions."""
    if not active:
        yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in saved:
        os.dup2(devnull, fd)
    os.close(devnull)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)


class UntestedVersion(RuntimeError):
    """A solver library whose version is outside the set its hand-written binding (struct
    layouts, function signatures) was written and tested for: never used blind."""


def require_tested(library: str, found: str, tested: tuple[str, ...], install: str) -> None:
    """Refuse, in one line, a `library` version outside `tested` (the binding's versions;
    `install` says how to get one)."""
    if found not in tested:
        raise UntestedVersion(f"{library} {found} is not a version this binding was written and tested for "
                              f"({', '.join(tested)}): its layouts may differ; {install}")
