"""Small helpers shared by the adapters."""

from __future__ import annotations

import contextlib
import dataclasses
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


def ran_to_limit(settings, seconds: float) -> bool:
    """Whether a solve that ended without a verdict ran `seconds` into its time limit (95 % of
    it: a solver's clock stops a little before the limit it was given), for solvers that do
    not say that the limit stopped them (CBC on an LP, GLPK through Pyomo)."""
    return settings.time_limit is not None and seconds >= 0.95 * settings.time_limit


def time_left(settings, spent: float):
    """`settings` with what is left of their time limit after `spent` seconds (for a second
    solve within one run's limit)."""
    if settings.time_limit is None:
        return settings
    return settings.replace(time_limit=max(settings.time_limit - spent, 0.0))


def row_senses(lower, upper, infinity: float):
    """Rows ``lower <= a x <= upper`` as a sense per row (``E`` equal, ``L`` at most, ``G`` at
    least, ``R`` a range: ``rhs <= a x <= rhs + span``; a free row is ``L`` at `infinity`), the
    right-hand side (clipped to the solver's `infinity`) and the span: (senses, rhs, span)."""
    import numpy as np  # numpy: with the form (adapters are imported by `list`)

    lower, upper = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
    sense = np.where(lower == upper, "E", np.where(np.isinf(lower), "L", np.where(np.isinf(upper), "G", "R")))
    rhs = clipped(np.where(sense == "L", upper, lower), infinity)
    return sense, rhs, np.where(sense == "R", upper - lower, 0.0)


def clipped(values, infinity: float):
    """`values` as contiguous doubles, infinite ones at the solver's `infinity`."""
    import numpy as np  # see row_senses

    return np.ascontiguousarray(np.clip(np.asarray(values, dtype=np.float64), -infinity, infinity))


def by_rows(start, index, value, n_rows: int):
    """A compressed-column matrix as compressed rows, each row's columns in order:
    (row starts, column indices, values). Where scipy's sparse matrices are loaded already
    (Gurobi's warm-up, CP-SAT's worker), by the C routine of scipy's own conversion (0.2 ms
    less than numpy's sort on a 2,000-column model); otherwise by a stable sort."""
    import numpy as np  # see row_senses

    tools = sys.modules.get("scipy.sparse._sparsetools")  # a private module of scipy's: used only if there
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


def declare(lib, signatures: dict, kinds: dict | None = None):
    """Declare `lib`'s functions: ``name: (result, [arguments])``, each a ctypes type or the
    name of one (``"c_int"``; ``"int*"``, ``"double*"`` and `kinds` for pointers); None: void."""
    import ctypes  # ctypes: with the C libraries (adapters are imported by `list`)

    named = {"int*": ctypes.POINTER(ctypes.c_int), "double*": ctypes.POINTER(ctypes.c_double), **(kinds or {})}

    def kind(given):
        return named.get(given) or getattr(ctypes, given) if isinstance(given, str) else given

    for name, (result, arguments) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = kind(result), [kind(a) for a in arguments]
    return lib


def c_pointer(array):
    """A C ``int*`` or ``double*`` to the data of an int32 or float64 numpy array."""
    import ctypes  # see declare

    import numpy as np  # see row_senses

    kind = ctypes.c_int if array.dtype == np.int32 else ctypes.c_double
    return array.ctypes.data_as(ctypes.POINTER(kind))


def without_objective(form):
    """The model an enumeration loads (`Adapter.enumerate`): `form` with its objective left
    out (every feasible point counts, whatever its cost)."""
    import numpy as np  # see row_senses

    return dataclasses.replace(form, cost=np.zeros(len(form.columns)), offset=0.0)
