"""SIGTERM handled as Ctrl-C: a scheduler (Snakemake, SLURM) cancelling a job stops it the
way an interrupt does, so a run's processes are killed and its record says so."""

from __future__ import annotations

import contextlib
import signal


@contextlib.contextmanager
def sigterm_as_interrupt():
    """While the block runs, SIGTERM raises KeyboardInterrupt; the previous handler is back
    afterwards (the caller may live in a longer process: pytest, a notebook). Outside the
    main thread, where handlers cannot be set, nothing changes."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
