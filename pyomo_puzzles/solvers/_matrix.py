"""Helpers of the adapters that hand the compiled matrix to a C library in this process
(CBC, GLPK): array checks before the hand-over, and the clock of a library without one."""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from pyomo_puzzles.contract.solvers import LinearForm


def check_form(form: LinearForm) -> None:
    """Refuse, with a ValueError, a matrix a C library would misread or abort on: indices out
    of range, a coefficient given twice, numbers that are not numbers."""
    n_rows, n_cols = len(form.row_lower), len(form.columns)
    start, index = np.asarray(form.start), np.asarray(form.index)
    if len(start) != n_cols + 1 or start[0] != 0 or start[-1] != len(index) or np.any(np.diff(start) < 0):
        raise ValueError("the matrix's column starts are inconsistent")
    if len(index) and (index.min() < 0 or index.max() >= n_rows):
        raise ValueError("the matrix names a row that does not exist")
    if _repeats(np.repeat(np.arange(n_cols, dtype=np.int64), np.diff(start)) * max(n_rows, 1) + index):
        raise ValueError("the matrix gives a coefficient twice")
    if not np.all(np.isfinite(form.value)) or not np.all(np.isfinite(form.cost)) or not np.isfinite(form.offset):
        raise ValueError("the matrix or objective has a coefficient that is not a finite number")
    for bounds in (form.row_lower, form.row_upper, form.col_lower, form.col_upper):
        if np.any(np.isnan(bounds)):
            raise ValueError("a bound is not a number")


def _repeats(keys: np.ndarray) -> bool:
    """Whether a value occurs twice (not np.unique: its first call imports 190 ms of numpy)."""
    ordered = np.sort(keys)
    return bool(np.any(ordered[1:] == ordered[:-1]))


def check_rows(rows, n_cols: int) -> None:
    """As `check_form`, for rows added to a loaded model (`LinearForm`'s columns)."""
    if len(rows.index) and (rows.index.min() < 0 or rows.index.max() >= n_cols):
        raise ValueError("an added row names a column that does not exist")
    n_entries = np.diff(rows.start)
    if _repeats(np.repeat(np.arange(len(rows), dtype=np.int64), n_entries) * max(n_cols, 1) + rows.index):
        raise ValueError("an added row gives a coefficient twice")
    if not np.all(np.isfinite(rows.value)) or np.any(np.isnan(rows.lower)) or np.any(np.isnan(rows.upper)):
        raise ValueError("an added row has a coefficient or bound that is not a number")


def timed(call: Callable, *args) -> tuple[object, float]:
    """(what `call(*args)` returned, its seconds): the library call alone, for a solver
    without a clock of its own (the outcome's ``solver_clock`` is then ``call``)."""
    started = time.perf_counter()
    result = call(*args)
    return result, time.perf_counter() - started
