"""CBC, in-process: CBC's C interface (``Cbc_C_Interface.h``) through ctypes, on the library
of the ``cbcbox`` wheel; the compiled matrix in one ``Cbc_loadProblem`` call. Why, and CBC's
traps (a persistent session solves clones; LPs; OpenBLAS threads; crashes): docs/solver_bindings.md.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import os
from functools import lru_cache, partial
from pathlib import Path

import numpy as np

from pyomo_puzzles.contract.solvers import (Adapter, LinearForm, Native, Options, RunSettings, SolveOutcome,
                                            c_pointer, check_form, check_rows, clipped, declare, finite,
                                            library_availability, quiet_stdout, ran_to_limit, register_solver,
                                            require_tested, row_senses, timed)

LARGEST = np.finfo(np.float64).max  # CBC's infinity (COIN_DBL_MAX)

_SIGNATURES = {  # name: (result, arguments), in ctypes' type names
    "Cbc_getVersion": ("c_char_p", ()),
    "Cbc_newModel": ("c_void_p", ()),
    "Cbc_deleteModel": (None, ("c_void_p",)),
    "Cbc_clone": ("c_void_p", ("c_void_p",)),
    "Cbc_loadProblem": (None, ("c_void_p", "c_int", "c_int", "int*", "int*", "double*", "double*", "double*",
                               "double*", "double*", "double*")),
    "Cbc_setInteger": (None, ("c_void_p", "c_int")),
    "Cbc_setObjSense": (None, ("c_void_p", "c_double")),
    "Cbc_setParameter": (None, ("c_void_p", "c_char_p", "c_char_p")),
    "Cbc_setLogLevel": (None, ("c_void_p", "c_int")),
    "Cbc_addRow": (None, ("c_void_p", "c_char_p", "c_int", "int*", "double*", "c_char", "c_double")),
    "Cbc_setColLower": (None, ("c_void_p", "c_int", "c_double")),
    "Cbc_setColUpper": (None, ("c_void_p", "c_int", "c_double")),
    "Cbc_solve": ("c_int", ("c_void_p",)),
    "Cbc_status": ("c_int", ("c_void_p",)),
    "Cbc_secondaryStatus": ("c_int", ("c_void_p",)),
    "Cbc_isProvenOptimal": ("c_int", ("c_void_p",)),
    "Cbc_isProvenInfeasible": ("c_int", ("c_void_p",)),
    "Cbc_isContinuousUnbounded": ("c_int", ("c_void_p",)),
    "Cbc_isAbandoned": ("c_int", ("c_void_p",)),
    "Cbc_isSecondsLimitReached": ("c_int", ("c_void_p",)),
    "Cbc_getObjValue": ("c_double", ("c_void_p",)),
    "Cbc_getBestPossibleObjValue": ("c_double", ("c_void_p",)),
    "Cbc_getNodeCount": ("c_int", ("c_void_p",)),
    "Cbc_bestSolution": ("double*", ("c_void_p",)),
    "Cbc_getColSolution": ("double*", ("c_void_p",)),
}


TESTED = ("2.935",)  # the cbcbox releases whose CBC `_SIGNATURES` declares


@lru_cache(maxsize=None)
def library():
    """cbcbox's ``libCbc``, its functions declared (once per process); an untested release refused."""
    from importlib.metadata import version  # 20 ms: with the library, once

    require_tested("cbcbox", version("cbcbox"), TESTED, "install cbcbox==2.935 (uv.lock)")
    import cbcbox  # cbcbox: not when the adapters are merely imported (listing solvers)

    with contextlib.redirect_stdout(io.StringIO()):  # CBCBOX_BUILD / CBCBOX_VERBOSE print the build chosen
        folder = Path(cbcbox.cbc_lib_dir())
    found = sorted(folder.glob("libCbc.so*")) or sorted(folder.glob("libCbc*.dylib")) or sorted(folder.glob("*Cbc*.dll"))
    if not found:
        raise OSError(f"cbcbox has no CBC library in {folder}")
    with _one_blas_thread():
        lib = ctypes.CDLL(str(found[0]))
    return declare(lib, _SIGNATURES)


@contextlib.contextmanager
def _one_blas_thread():
    """OPENBLAS_NUM_THREADS=1 while cbcbox's OpenBLAS starts (unless the user set it)."""
    if "OPENBLAS_NUM_THREADS" in os.environ:
        yield
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        yield
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


_doubles = partial(clipped, infinity=LARGEST)
_ints = partial(np.ascontiguousarray, dtype=np.int32)


def _column_values(solution, count: int) -> np.ndarray:
    """The `count` doubles at `solution` (CBC's array), copied (not `np.ctypeslib`: 5 to 6 ms to import)."""
    return np.frombuffer(ctypes.string_at(solution, count * ctypes.sizeof(ctypes.c_double)), dtype=np.float64).copy()


ABANDONED = 2  # what Cbc_solve returns for a MIP it abandoned: its proofs and solution mean nothing


def _made(model, call: str):
    """The model a CBC call made, or a `RuntimeError` naming the call where it made none."""
    if not model:
        raise RuntimeError(f"CBC: {call} returned no model (out of memory?)")
    return model


class MatrixSession:
    """The matrix loaded into one CBC model (``Cbc_loadProblem``). A one-off session solves it;
    a persistent one keeps it unsolved, takes new rows and bounds, and solves a clone."""
    def __init__(self, form: LinearForm, settings: RunSettings, persistent: bool = False) -> None:
        check_form(form)
        self.settings, self._persistent, self._solved = settings, persistent, False
        self._lib = lib = library()
        self._n_cols, self._offset, self._integer = len(form.columns), float(form.offset), bool(form.integer.any())
        self._model = _made(lib.Cbc_newModel(), "Cbc_newModel")
        arrays = [_ints(form.start), _ints(form.index), _doubles(form.value), _doubles(form.col_lower),
                  _doubles(form.col_upper), _doubles(form.cost), _doubles(form.row_lower), _doubles(form.row_upper)]
        lib.Cbc_loadProblem(self._model, self._n_cols, len(form.row_lower), *map(c_pointer, arrays))
        for column in np.flatnonzero(form.integer).tolist():
            lib.Cbc_setInteger(self._model, column)
        lib.Cbc_setObjSense(self._model, -1.0 if form.maximise else 1.0)

    def __del__(self) -> None:
        if getattr(self, "_model", None):
            self._lib.Cbc_deleteModel(self._model)

    def _loaded(self):
        """The loaded model; a one-off session's is freed by its solve, and is used no more."""
        if not self._model:
            raise RuntimeError("CBC: this one-off session's model was freed by its solve")
        return self._model

    def add_rows(self, rows) -> None:
        check_rows(rows, self._n_cols)
        model = self._loaded()
        senses, rhs, spans = row_senses(rows.lower, rows.upper, LARGEST)
        for i, (sense, right, span) in enumerate(zip(senses.tolist(), rhs.tolist(), spans.tolist())):
            part = slice(int(rows.start[i]), int(rows.start[i + 1]))
            columns, values = _ints(rows.index[part]), _doubles(rows.value[part])
            for sense, rhs in ((b"G", right), (b"L", right + span)) if sense == "R" else ((sense.encode(), right),):
                self._lib.Cbc_addRow(model, b"", len(columns), c_pointer(columns), c_pointer(values), sense, rhs)

    def set_bounds(self, columns, lower, upper) -> None:
        model = self._loaded()
        for column, low, high in zip(np.asarray(columns).tolist(), _doubles(lower).tolist(), _doubles(upper).tolist()):
            self._lib.Cbc_setColLower(model, column, low)
            self._lib.Cbc_setColUpper(model, column, high)

    def solve(self) -> SolveOutcome:
        lib = self._lib
        if self._solved:
            raise RuntimeError("a one-off CBC session solves once")
        model = _made(lib.Cbc_clone(self._loaded()), "Cbc_clone") if self._persistent else self._loaded()
        self._solved = not self._persistent
        try:
            lib.Cbc_setLogLevel(model, 0)
            for name, value in Cbc.options.native(self.settings).items():
                lib.Cbc_setParameter(model, name.encode(), value.encode())
            with quiet_stdout():
                returned, seconds = timed(lib.Cbc_solve, model)
            if self._integer and (returned == ABANDONED or lib.Cbc_isAbandoned(model)):
                return SolveOutcome("error", False, None, None, seconds, None, f"CBC abandoned the solve (Cbc_solve "
                                    f"returned {returned}: numerical difficulties)", solver_clock="call")
            return self._outcome(model, seconds)
        finally:
            lib.Cbc_deleteModel(model)
            if not self._persistent:
                self._model = None

    def _outcome(self, model, seconds: float) -> SolveOutcome:
        lib = self._lib
        if lib.Cbc_isContinuousUnbounded(model):
            return SolveOutcome("error", False, None, None, seconds, None, "CBC: the linear relaxation is unbounded",
                                solver_clock="call")
        state = self._state(model, seconds)
        solution = lib.Cbc_bestSolution(model) or lib.Cbc_getColSolution(model)
        has_solution = state in ("optimal", "feasible") or (state == "time_limit" and bool(lib.Cbc_bestSolution(model)))
        objective = lib.Cbc_getObjValue(model) + self._offset if has_solution else None
        bound = finite(lib.Cbc_getBestPossibleObjValue(model))
        bound = None if bound is None or state == "infeasible" else bound + self._offset
        if state == "optimal" and bound is None:
            bound = objective
        return SolveOutcome(
            status=state, has_solution=has_solution, objective=objective, bound=bound, solver_time=seconds,
            nodes=int(lib.Cbc_getNodeCount(model)) if self._integer else None,
            message="" if state != "error" else self._failure(model),
            values=_column_values(solution, self._n_cols) if has_solution and solution else None,
            solver_clock="call")

    def _state(self, model, seconds: float) -> str:
        """The status, in the contract's words (on an LP only the proofs: the rest abort)."""
        lib = self._lib
        if lib.Cbc_isProvenOptimal(model):
            return "optimal"
        if lib.Cbc_isProvenInfeasible(model):
            return "infeasible"
        if not self._integer:
            return "time_limit" if ran_to_limit(self.settings, seconds) else "error"
        secondary = lib.Cbc_secondaryStatus(model)
        if secondary == 1:
            return "infeasible"
        if secondary == 4 or lib.Cbc_isSecondsLimitReached(model):
            return "time_limit"
        if secondary == 2 and lib.Cbc_bestSolution(model):
            return "optimal"  # stopped within the relative gap asked for, as HiGHS calls it
        return "feasible" if lib.Cbc_bestSolution(model) else "error"

    def _failure(self, model) -> str:
        if not self._integer:
            return "CBC's LP solve ended without an answer"
        return f"CBC stopped with status {self._lib.Cbc_status(model)}, secondary status {self._lib.Cbc_secondaryStatus(model)}"


@register_solver
class Cbc(Adapter):
    name = "cbc"
    summary = "COIN-OR CBC, in-process (cbcbox's library through CBC's C interface): the model as one matrix"
    rank = 20
    options = Options(  # CBC's own parameter names (those of its command line) and values, as text
        fixed={"timeMode": "elapsed"},
        time_limit=Native("sec", lambda seconds: repr(max(float(seconds), 1e-3))),  # 0 would be no limit
        threads=Native("threads", lambda threads: str(int(threads)) if threads > 1 else None, note="passed above 1"),
        seed=Native("randomCbcSeed", lambda seed: str(int(seed))), gap=Native("ratioGap", lambda gap: repr(float(gap))),
        notes="no clock of its own: solver_time is the library call")

    def availability(self) -> tuple[bool, str]:
        from importlib.metadata import version  # 20 ms: only when asked which versions are installed

        return library_availability(library, lambda lib: f"CBC {lib.Cbc_getVersion().decode()} (cbcbox "
                                    f"{version('cbcbox')})", "CBC's library from cbcbox")

    def matrix_session(self, form: LinearForm, settings: RunSettings, persistent: bool = False) -> MatrixSession:
        return MatrixSession(form, settings, persistent)
