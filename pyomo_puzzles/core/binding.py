"""What adapters share beyond the contract's types, written once: the rules of handing a
model's matrix to a solver (senses and ranges, the column-to-row transpose, a solver's
infinity, the checks a C library needs, the enumeration's model), and of binding a C library
by ctypes (version gates, declarations, silenced output, the call's own clock). Offered to
plugins through `pyomo_puzzles.contract.solvers`; numpy and ctypes only, no solver named."""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import importlib.util
import io
import os
import sys
import time
from contextlib import contextmanager
from typing import Callable

import numpy as np


def first_line(error: BaseException) -> str:
    """The first line of an exception's message (its type's name if it has none)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


@contextmanager
def quiet_stdout(active: bool = True):
    """Silence what a solver library prints, from C on file descriptors 1 and 2 or from
    Python (licence banners, size notices), so that the CLI prints only the framework's lines."""
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
    """A library version outside the set a hand-written binding (struct layouts, function
    signatures) was written and tested for: never used blind."""


def require_tested(library: str, found: str, tested: tuple[str, ...], install: str) -> None:
    """Refuse, in one line, a `library` version outside `tested`; `install` says how to get one."""
    if found not in tested:
        raise UntestedVersion(f"{library} {found} is not a version this binding was written and tested for "
                              f"({', '.join(tested)}): its layouts may differ; {install}")


def declare(lib: ctypes.CDLL, signatures: dict, kinds: dict | None = None) -> ctypes.CDLL:
    """Declare `lib`'s functions: ``name: (result, [arguments])``, each a ctypes type or the
    name of one (``"c_int"``; ``"int*"``, ``"double*"`` and `kinds` for pointers); None: void."""
    named = {"int*": ctypes.POINTER(ctypes.c_int), "double*": ctypes.POINTER(ctypes.c_double), **(kinds or {})}

    def kind(given):
        return named.get(given) or getattr(ctypes, given) if isinstance(given, str) else given

    for name, (result, arguments) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = kind(result), [kind(a) for a in arguments]
    return lib


def c_pointer(array: np.ndarray):
    """A C ``int*`` or ``double*`` to the data of an int32 or float64 array."""
    kind = ctypes.c_int if array.dtype == np.int32 else ctypes.c_double
    return array.ctypes.data_as(ctypes.POINTER(kind))


def timed(call: Callable, *args) -> tuple[object, float]:
    """(what `call(*args)` returned, its seconds): the library call alone, for a solver without
    a clock of its own (its outcome's ``solver_clock`` is then ``call``)."""
    started = time.perf_counter()
    result = call(*args)
    return result, time.perf_counter() - started


def ran_to_limit(settings, seconds: float) -> bool:
    """Whether a solve that ended without a verdict ran into its time limit (95 % of it: a
    solver's clock stops a little before its limit), for a solver that does not say so."""
    return settings.time_limit is not None and seconds >= 0.95 * settings.time_limit


def time_left(settings, spent: float):
    """`settings` with what is left of their time limit after `spent` seconds (a second solve
    within one run's limit)."""
    if settings.time_limit is None:
        return settings
    return settings.replace(time_limit=max(settings.time_limit - spent, 0.0))


def row_senses(lower, upper, infinity: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``lower <= a x <= upper`` as (sense, right-hand side, span) per row: ``E`` equal,
    ``L`` at most, ``G`` at least, ``R`` a range ``rhs <= a x <= rhs + span``; a free row is
    ``L`` at the solver's `infinity`, to which the right-hand sides are clipped."""
    lower, upper = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
    sense = np.where(lower == upper, "E", np.where(np.isinf(lower), "L", np.where(np.isinf(upper), "G", "R")))
    rhs = clipped(np.where(sense == "L", upper, lower), infinity)
    return sense, rhs, np.where(sense == "R", upper - lower, 0.0)


def clipped(values, infinity: float) -> np.ndarray:
    """`values` as contiguous doubles, infinite ones at the solver's `infinity`."""
    return np.ascontiguousarray(np.clip(np.asarray(values, dtype=np.float64), -infinity, infinity))


def by_rows(start, index, value, n_rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A compressed-column matrix as compressed rows, each row's columns in order: (row starts,
    column indices, values). By scipy's own C routine where scipy is loaded already (0.2 ms
    less on a 2,000-column model), else by a stable sort."""
    tools = sys.modules.get("scipy.sparse._sparsetools")  # private to scipy: used only if loaded
    if tools is not None and hasattr(tools, "csr_tocsc"):
        start, index = np.asarray(start, dtype=np.int32), np.asarray(index, dtype=np.int32)
        row_start, columns = np.empty(n_rows + 1, np.int32), np.empty(len(index), np.int32)
        values = np.empty(len(index))
        tools.csr_tocsc(len(start) - 1, n_rows, start, index, np.asarray(value, dtype=np.float64), row_start, columns,
                        values)
        return row_start, columns, values
    start, index = np.asarray(start), np.asarray(index)
    order = np.argsort(index, kind="stable")  # within a row, columns stay in order
    columns = np.repeat(np.arange(len(start) - 1), np.diff(start))
    row_start = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(index, minlength=n_rows), out=row_start[1:])
    return row_start, columns[order], np.asarray(value)[order]


def without_objective(form):
    """The model an enumeration loads: `form` (a `LinearForm`) with no objective, so that
    every feasible point counts."""
    return dataclasses.replace(form, cost=np.zeros(len(form.columns)), offset=0.0)


def check_form(form) -> None:
    """Refuse (ValueError) a `LinearForm` a C library would misread or abort on: indices out of
    range, a coefficient given twice, numbers that are not numbers."""
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


def check_rows(rows, n_cols: int) -> None:
    """As `check_form`, for `Rows` added to a loaded model of `n_cols` columns."""
    if len(rows.index) and (rows.index.min() < 0 or rows.index.max() >= n_cols):
        raise ValueError("an added row names a column that does not exist")
    if _repeats(np.repeat(np.arange(len(rows), dtype=np.int64), np.diff(rows.start)) * max(n_cols, 1) + rows.index):
        raise ValueError("an added row gives a coefficient twice")
    if not np.all(np.isfinite(rows.value)) or np.any(np.isnan(rows.lower)) or np.any(np.isnan(rows.upper)):
        raise ValueError("an added row has a coefficient or bound that is not a number")


def _repeats(keys: np.ndarray) -> bool:
    """Whether a value occurs twice (not np.unique: its first call imports 190 ms of numpy)."""
    ordered = np.sort(keys)
    return bool(np.any(ordered[1:] == ordered[:-1]))


def library_availability(load: Callable, describe: Callable, source: str) -> tuple[bool, str]:
    """An adapter's availability where it binds a library: (True, `describe(load())`), else
    (False, one line: the untested version, or why the library from `source` cannot be loaded)."""
    try:
        return True, describe(load())
    except UntestedVersion as error:
        return False, str(error)
    except (ImportError, OSError, RuntimeError, ValueError, AttributeError) as error:
        return False, f"{source} cannot be loaded ({type(error).__name__}: {error})"


def missing_package(module: str, install: str) -> str | None:
    """One line saying that the optional Python package `module` is not installed and how to
    `install` it; None where it is (found, not imported: importing it may be what an adapter avoids)."""
    return None if importlib.util.find_spec(module) else f"Python package '{module}' not installed ({install})"
