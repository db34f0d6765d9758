"""SCIP's C API through ctypes, on the library PySCIPOpt's wheel bundles: a `LinearForm`
handed to SCIP three C calls per variable and per row (in `_c_loops` where they compile),
read back in one call; SCIP instances kept between sessions. Why: docs/solver_bindings.md.
"""

from __future__ import annotations

import atexit
import ctypes
import glob
import os
import weakref
from functools import lru_cache

import numpy as np

from pyomo_puzzles.contract.solvers import Kept, by_rows, clipped, declare, require_tested
from pyomo_puzzles.solvers._c_loops import loops

_OKAY = 1  # SCIP_RETCODE SCIP_OKAY
_BINARY, _INTEGER, _CONTINUOUS = 0, 1, 3  # SCIP_VARTYPE
_MINIMIZE, _MAXIMIZE = 1, -1  # SCIP_OBJSENSE
_PROBLEM = 1  # SCIP_STAGE_PROBLEM: the original problem, before any transformation

_P = ctypes.c_void_p
_D = ctypes.c_double

_SIGNATURES = {  # name: (result, arguments), as `declare` takes them
    "SCIPinfinity": (_D, [_P]),
    "SCIPgetNVars": (ctypes.c_int, [_P]),
    "SCIPgetNConss": (ctypes.c_int, [_P]),
    "SCIPgetNNZs": (ctypes.c_longlong, [_P]),
    "SCIPcreateVarBasic": (ctypes.c_int, [_P, ctypes.POINTER(_P), ctypes.c_char_p, _D, _D, _D, ctypes.c_int]),
    "SCIPaddVar": (ctypes.c_int, [_P, _P]),
    "SCIPreleaseVar": (ctypes.c_int, [_P, ctypes.POINTER(_P)]),
    "SCIPcreateConsBasicLinear": (ctypes.c_int, [_P, ctypes.POINTER(_P), ctypes.c_char_p, ctypes.c_int, _P, _P, _D,
                                                 _D]),
    "SCIPaddCons": (ctypes.c_int, [_P, _P]),
    "SCIPreleaseCons": (ctypes.c_int, [_P, ctypes.POINTER(_P)]),
    "SCIPsetObjsense": (ctypes.c_int, [_P, ctypes.c_int]),
    "SCIPaddOrigObjoffset": (ctypes.c_int, [_P, _D]),
    "SCIPchgVarLb": (ctypes.c_int, [_P, _P, _D]),
    "SCIPchgVarUb": (ctypes.c_int, [_P, _P, _D]),
    "SCIPgetStage": (ctypes.c_int, [_P]),
    "SCIPfreeTransform": (ctypes.c_int, [_P]),
    "SCIPgetBestSol": (_P, [_P]),
    "SCIPgetSolVals": (ctypes.c_int, [_P, _P, ctypes.c_int, _P, _P]),
    "SCIPgetSolOrigObj": (_D, [_P, _P]),
    "SCIPvarGetTransVar": (_P, [_P]),
    "SCIPvarGetType": (ctypes.c_int, [_P]),
    "SCIPchgVarType": (ctypes.c_int, [_P, _P, ctypes.c_int, ctypes.POINTER(ctypes.c_uint)]),
    "SCIPgetCountedSparseSols": (None, [_P, ctypes.POINTER(ctypes.POINTER(_P)), ctypes.POINTER(ctypes.c_int),
                                        ctypes.POINTER(ctypes.POINTER(_P)), ctypes.POINTER(ctypes.c_int)]),
    "SCIPsparseSolGetLbs": (ctypes.POINTER(ctypes.c_longlong), [_P]),
    "SCIPsparseSolGetUbs": (ctypes.POINTER(ctypes.c_longlong), [_P]),
}


TESTED = ("10.0",)  # the SCIP releases (major.minor) whose functions `_SIGNATURES` declares


@lru_cache(maxsize=None)
def library() -> ctypes.CDLL:
    """The SCIP library PySCIPOpt's wheel bundles, its functions declared; an untested release refused."""
    import pyscipopt  # pyscipopt: only where SCIP solves (adapters are imported by `list`)

    found = sorted(glob.glob(os.path.join(os.path.dirname(pyscipopt.__file__) + ".libs", "libscip*")))
    if not found:
        raise RuntimeError("the SCIP library bundled with PySCIPOpt was not found (pyscipopt.libs/libscip*)")
    lib = ctypes.CDLL(found[0])
    for name in ("SCIPmajorVersion", "SCIPminorVersion"):
        getattr(lib, name).restype, getattr(lib, name).argtypes = ctypes.c_int, []
    require_tested("SCIP", f"{lib.SCIPmajorVersion()}.{lib.SCIPminorVersion()}", TESTED,
                   "install pyscipopt==6.3.0 (uv.lock), which bundles SCIP 10.0")
    return declare(lib, _SIGNATURES)


def pointer(model) -> int:
    """The ``SCIP*`` of a PySCIPOpt model (from its capsule)."""
    capsule = ctypes.pythonapi.PyCapsule_GetPointer
    capsule.restype, capsule.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return capsule(model.to_ptr(False), b"scip")


def call(result: int, what: str) -> None:
    if result != _OKAY:
        raise RuntimeError(f"SCIP: {what} failed (SCIP_RETCODE {result})")


def _new_instance():
    import pyscipopt  # see library

    return pyscipopt.Model()


INSTANCES = Kept(_new_instance, survives_fork=True, end=lambda model: model.free())  # plain memory: forks share it
_IN_USE: weakref.WeakSet = weakref.WeakSet()  # the `Problem`s alive, freed at exit too (`_free_in_use`)


@atexit.register
def _free_in_use() -> None:
    """Free every `Problem`'s SCIP instance still alive at exit: its Python plugins must not reach teardown."""
    for problem in list(_IN_USE):
        problem.given_back.detach()
        problem.model.free()


def take(quiet: dict):
    """An idle SCIP instance (or a new one) with an empty problem and the parameters `quiet`."""
    model = INSTANCES.take()
    for key, value in quiet.items():
        model.setParam(key, value)
    model.createProbBasic("matrix")
    return model


def give_back(model) -> None:
    """Free the problem of `model`, reset its parameters and keep it (else drop it)."""
    try:
        model.freeProb()
        model.resetParams()
    except Exception:  # noqa: BLE001 - a broken instance is not reused
        return
    INSTANCES.give_back(model)


def keep_one() -> None:
    """Create an idle instance and compile the hand-over's loops, for the runs forked afterwards."""
    loops()
    if not len(INSTANCES):
        INSTANCES.give_back(_new_instance())


class Problem:
    """A `LinearForm` loaded into an idle SCIP instance (`take`), given back when this is collected."""

    def __init__(self, form, quiet: dict) -> None:
        self.model = take(quiet)
        self.given_back = weakref.finalize(self, give_back, self.model)
        _IN_USE.add(self)
        self.lib, self.scip = library(), pointer(self.model)
        self.infinity = self.lib.SCIPinfinity(self.scip)
        self.lower, self.upper = clipped(form.col_lower, self.infinity), clipped(form.col_upper, self.infinity)
        self.variables = self._add_variables(form)
        self._add_rows(*by_rows(form.start, form.index, form.value, len(form.row_lower)), form.row_lower, form.row_upper)
        call(self.lib.SCIPsetObjsense(self.scip, _MAXIMIZE if form.maximise else _MINIMIZE), "setting the sense")
        if form.offset:
            call(self.lib.SCIPaddOrigObjoffset(self.scip, float(form.offset)), "adding the objective offset")

    def _add_variables(self, form) -> np.ndarray:
        """SCIP's variables of the columns, in a compiled loop where there is one (`_c_loops`)."""
        lib, kinds = self.lib, _kinds(form.integer, self.lower, self.upper).astype(np.int32)
        made = np.zeros(len(kinds), dtype=np.uintp)
        added = loops().scip_add_variables((lib.SCIPcreateVarBasic, lib.SCIPaddVar, lib.SCIPreleaseVar), self.scip,
                                           self.lower, self.upper, np.ascontiguousarray(form.cost, dtype=np.float64),
                                           kinds, made)
        if added != len(kinds):
            raise RuntimeError(f"SCIP: adding variable {added} failed")
        return made

    def _add_rows(self, start, index, value, lower, upper) -> None:
        """Rows in compressed-row form, in a compiled loop where there is one (a row without
        entries is a constraint over no variable, which SCIP's presolving decides)."""
        lib = self.lib
        added = loops().scip_add_rows(
            (lib.SCIPcreateConsBasicLinear, lib.SCIPaddCons, lib.SCIPreleaseCons), self.scip,
            np.ascontiguousarray(start, dtype=np.int64), np.ascontiguousarray(self.variables[np.asarray(index, np.intp)]),
            np.ascontiguousarray(value, dtype=np.float64), clipped(lower, self.infinity), clipped(upper, self.infinity))
        if added != len(lower):
            raise RuntimeError(f"SCIP: adding row {added} failed")

    def original(self) -> None:
        """Back to the original problem, where rows and bounds can change (after a solve)."""
        if self.lib.SCIPgetStage(self.scip) > _PROBLEM:
            call(self.lib.SCIPfreeTransform(self.scip), "freeing the transformed problem")

    def add_rows(self, rows) -> None:
        self.original()
        self._add_rows(rows.start, rows.index, rows.value, rows.lower, rows.upper)

    def set_bounds(self, columns, lower, upper) -> None:
        """New bounds of `columns`; the side that keeps lower <= upper at every step first."""
        self.original()
        lib, scip = self.lib, self.scip
        lower, upper = clipped(lower, self.infinity).tolist(), clipped(upper, self.infinity).tolist()
        for j, low, high in zip(np.asarray(columns).tolist(), lower, upper):
            var = int(self.variables[j])
            if (low < 0 or high > 1) and lib.SCIPvarGetType(var) == _BINARY:  # a column fixed when loaded, freed
                call(lib.SCIPchgVarType(scip, var, _INTEGER, ctypes.byref(ctypes.c_uint())), "changing a type")
            changes = [(lib.SCIPchgVarLb, low), (lib.SCIPchgVarUb, high)]
            for change, bound in changes[::-1] if low > self.upper[j] else changes:
                call(change(scip, var, bound), "changing a bound")
            self.lower[j], self.upper[j] = low, high

    def solved_size(self) -> tuple[int, int, int]:
        """(variables, constraints, nonzeros) of the problem SCIP solved, after its presolve."""
        lib, scip = self.lib, self.scip
        return int(lib.SCIPgetNVars(scip)), int(lib.SCIPgetNConss(scip)), int(lib.SCIPgetNNZs(scip))

    def best(self) -> tuple[float, np.ndarray] | None:
        """(objective, column values) of SCIP's best solution, None without one."""
        solution = self.lib.SCIPgetBestSol(self.scip)
        if not solution:
            return None
        values = np.empty(len(self.variables))
        call(self.lib.SCIPgetSolVals(self.scip, solution, len(self.variables), self.variables.ctypes.data,
                                     values.ctypes.data), "reading the solution")
        return self.lib.SCIPgetSolOrigObj(self.scip, solution), values


def _kinds(integer: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """SCIP's type of each column: binary for an integer column within [0, 1] (1.5 times faster
    on the Rubik parts), else integer or continuous."""
    binary = integer & (lower >= 0) & (upper <= 1)
    return np.where(binary, _BINARY, np.where(integer, _INTEGER, _CONTINUOUS))


