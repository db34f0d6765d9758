"""GLPK, in-process: GLPK's C API through ctypes, on the ``libglpk`` of the ``swiglpk`` wheel
(GLPK 5.0, GPL-3: the optional extra ``glpk``); the compiled matrix in one ``glp_load_matrix``
call, bounds and values through `_c_loops`. Why, and GLPK's traps: docs/solver_bindings.md.
"""

from __future__ import annotations

import ctypes
import importlib.util
from functools import lru_cache
from pathlib import Path

import numpy as np

from pyomo_puzzles.contract.solvers import (Adapter, LinearForm, Native, Options, RunSettings, SolveOutcome,
                                            c_pointer, check_form, check_rows, declare, finite, library_availability,
                                            register_solver, require_tested, timed)
from pyomo_puzzles.solvers._c_loops import loops, path

GLP_MIN, GLP_MAX, GLP_IV = 1, 2, 2
GLP_FR, GLP_LO, GLP_UP, GLP_DB, GLP_FX = 1, 2, 3, 4, 5
GLP_UNDEF, GLP_FEAS, GLP_NOFEAS, GLP_OPT = 1, 2, 4, 5
GLP_OFF, GLP_ON = 0, 1
GLP_EBOUND, GLP_ETMLIM, GLP_ENOPFS, GLP_ENODFS, GLP_EMIPGAP = 0x04, 0x09, 0x0A, 0x0B, 0x0E
RETURN_CODES = {0x01: "GLP_EBADB", 0x04: "GLP_EBOUND", 0x05: "GLP_EFAIL", 0x08: "GLP_EITLIM", 0x09: "GLP_ETMLIM",
                0x0A: "GLP_ENOPFS", 0x0B: "GLP_ENODFS", 0x0C: "GLP_EROOT", 0x0D: "GLP_ESTOP", 0x0E: "GLP_EMIPGAP"}
TM_LIM_MAX = 2**31 - 1  # tm_lim is a C int of milliseconds

_SIGNATURES = {  # name: (result, arguments), in ctypes' type names ("iocp*": the control parameters)
    "glp_version": ("c_char_p", ()),
    "glp_term_out": ("c_int", ("c_int",)),
    "glp_create_prob": ("c_void_p", ()),
    "glp_delete_prob": (None, ("c_void_p",)),
    "glp_set_obj_dir": (None, ("c_void_p", "c_int")),
    "glp_add_rows": ("c_int", ("c_void_p", "c_int")),
    "glp_add_cols": ("c_int", ("c_void_p", "c_int")),
    "glp_set_row_bnds": (None, ("c_void_p", "c_int", "c_int", "c_double", "c_double")),
    "glp_set_col_bnds": (None, ("c_void_p", "c_int", "c_int", "c_double", "c_double")),
    "glp_set_obj_coef": (None, ("c_void_p", "c_int", "c_double")),
    "glp_set_col_kind": (None, ("c_void_p", "c_int", "c_int")),
    "glp_load_matrix": (None, ("c_void_p", "c_int", "int*", "int*", "double*")),
    "glp_set_mat_row": (None, ("c_void_p", "c_int", "c_int", "int*", "double*")),
    "glp_init_iocp": (None, ("iocp*",)),
    "glp_intopt": ("c_int", ("c_void_p", "iocp*")),
    "glp_mip_status": ("c_int", ("c_void_p",)),
    "glp_mip_obj_val": ("c_double", ("c_void_p",)),
    "glp_mip_col_val": ("c_double", ("c_void_p", "c_int")),
    "glp_ios_best_node": ("c_int", ("c_void_p",)),
    "glp_ios_node_bound": ("c_double", ("c_void_p", "c_int")),
    "glp_ios_tree_size": (None, ("c_void_p", "int*", "int*", "int*")),
}


TESTED = ("5.0",)  # the GLPK versions whose glp_iocp structure `library` lays out field by field


@lru_cache(maxsize=None)
def library():
    """(libglpk of the swiglpk wheel, its functions declared; ``glp_iocp``; the callback type), once."""
    spec = importlib.util.find_spec("swiglpk")  # its folder only: swiglpk's own module is not imported
    if spec is None or spec.origin is None:
        raise ImportError("swiglpk is not installed (pip install 'pyomo-puzzles[glpk]')")
    package = Path(spec.origin).parent
    found = sorted(package.parent.glob("swiglpk.libs/libglpk*.so*")) or sorted(package.glob(".dylibs/libglpk*")) \
        or sorted(package.glob("*glpk*.dll"))
    if not found:
        raise OSError(f"no libglpk beside swiglpk in {package.parent}")
    for needed in sorted(found[0].parent.glob("libgmp*")):  # the wheel's libglpk finds it only if loaded already
        ctypes.CDLL(str(needed))
    lib = ctypes.CDLL(str(found[0]))
    lib.glp_version.restype, lib.glp_version.argtypes = ctypes.c_char_p, []
    require_tested("GLPK", lib.glp_version().decode(), TESTED, "install swiglpk==5.0.13 (uv.lock), which bundles "
                   "GLPK 5.0")  # before the glp_iocp structure below is laid over the library's
    callback = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)

    class Iocp(ctypes.Structure):  # glp_iocp of glpk.h 5.0, field for field
        _fields_ = [(name, ctypes.c_int) for name in ("msg_lev", "br_tech", "bt_tech")] + [
            ("tol_int", ctypes.c_double), ("tol_obj", ctypes.c_double), ("tm_lim", ctypes.c_int),
            ("out_frq", ctypes.c_int), ("out_dly", ctypes.c_int), ("cb_func", callback), ("cb_info", ctypes.c_void_p),
            ("cb_size", ctypes.c_int), ("pp_tech", ctypes.c_int), ("mip_gap", ctypes.c_double)] + [
            (name, ctypes.c_int) for name in ("mir_cuts", "gmi_cuts", "cov_cuts", "clq_cuts", "presolve", "binarize",
                                              "fp_heur", "ps_heur", "ps_tm_lim", "sr_heur", "use_sol")] + [
            ("save_sol", ctypes.c_char_p), ("alien", ctypes.c_int), ("flip", ctypes.c_int),
            ("foo_bar", ctypes.c_double * 23)]

    return declare(lib, _SIGNATURES, {"iocp*": ctypes.POINTER(Iocp)}), Iocp, callback


def _bounds(lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GLPK's bound type and values for each lower <= x <= upper (±inf: none)."""
    lower, upper = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
    no_lower, no_upper = lower == -np.inf, upper == np.inf
    kind = np.select([lower == upper, no_lower & no_upper, no_lower, no_upper], [GLP_FX, GLP_FR, GLP_UP, GLP_LO],
                     GLP_DB).astype(np.int32)
    unused_lower = (kind == GLP_FR) | (kind == GLP_UP)
    unused_upper = (kind == GLP_FR) | (kind == GLP_LO)
    return kind, np.where(unused_lower, 0.0, lower), np.where(unused_upper, 0.0, upper)


def _indices(first: int, count: int) -> np.ndarray:
    """GLPK's indices first, first + 1, ... of `count` rows or columns (C ints)."""
    return np.arange(first, first + count, dtype=np.int32)


def _one_based(values, dtype) -> np.ndarray:
    """`values` after a dummy element 0 (GLPK ignores it)."""
    return np.concatenate([np.zeros(1, dtype), np.asarray(values, dtype)])


class _Tree:
    """What the callback saw of GLPK's search tree: the open nodes' best bound, the nodes made."""

    def __init__(self, lib) -> None:
        self.lib, self.bound, self.nodes = lib, None, 0
        self._counts = [ctypes.c_int() for _ in range(3)]
        self._pointers = [ctypes.byref(c) for c in self._counts]

    def __call__(self, tree, _info) -> None:
        best = self.lib.glp_ios_best_node(tree)
        if best:
            self.bound = self.lib.glp_ios_node_bound(tree, best)
        self.lib.glp_ios_tree_size(tree, *self._pointers)
        self.nodes = self._counts[2].value


class MatrixSession:
    """The matrix as one GLPK problem (``glp_load_matrix``), kept by a persistent session."""

    def __init__(self, form: LinearForm, settings: RunSettings, persistent: bool = False) -> None:
        check_form(form)
        self.settings = settings
        self._lib, self._iocp, self._callback = library()
        lib = self._lib
        lib.glp_term_out(GLP_OFF)
        self._n_cols = len(form.columns)
        self._problem = lib.glp_create_prob()
        lib.glp_set_obj_dir(self._problem, GLP_MAX if form.maximise else GLP_MIN)
        if len(form.row_lower):
            lib.glp_add_rows(self._problem, len(form.row_lower))
        lib.glp_add_cols(self._problem, self._n_cols)
        self._load_bounds_and_kinds(form)
        self._load_objective(form)
        self._load_matrix(form)

    def _load_bounds_and_kinds(self, form: LinearForm) -> None:
        """Every row's and column's bounds, the integer columns' kind: in compiled loops where there are."""
        lib, problem = self._lib, self._problem
        loops().each(lib.glp_set_row_bnds, problem, _indices(1, len(form.row_lower)),
                     *_bounds(form.row_lower, form.row_upper))
        loops().each(lib.glp_set_col_bnds, problem, _indices(1, self._n_cols),
                     *_bounds(form.col_lower, form.col_upper))
        integer = np.flatnonzero(form.integer)
        loops().each(lib.glp_set_col_kind, problem, (integer + 1).astype(np.int32),
                     np.full(len(integer), GLP_IV, dtype=np.int32))

    def _load_objective(self, form: LinearForm) -> None:
        lib, problem = self._lib, self._problem
        costly = np.flatnonzero(form.cost)
        loops().each(lib.glp_set_obj_coef, problem, (costly + 1).astype(np.int32),
                     np.asarray(form.cost, dtype=np.float64)[costly])
        lib.glp_set_obj_coef(problem, 0, float(form.offset))

    def _load_matrix(self, form: LinearForm) -> None:
        rows = _one_based(np.asarray(form.index) + 1, np.int32)
        columns = _one_based(np.repeat(np.arange(1, self._n_cols + 1), np.diff(form.start)), np.int32)
        values = _one_based(form.value, np.float64)
        self._lib.glp_load_matrix(self._problem, len(form.index), c_pointer(rows), c_pointer(columns), c_pointer(values))

    def __del__(self) -> None:
        if getattr(self, "_problem", None):
            self._lib.glp_delete_prob(self._problem)

    def add_rows(self, rows) -> None:
        check_rows(rows, self._n_cols)
        lib, problem = self._lib, self._problem
        first = lib.glp_add_rows(problem, len(rows))
        loops().each(lib.glp_set_row_bnds, problem, _indices(first, len(rows)), *_bounds(rows.lower, rows.upper))
        for i in range(len(rows)):
            part = slice(int(rows.start[i]), int(rows.start[i + 1]))
            columns, values = _one_based(rows.index[part] + 1, np.int32), _one_based(rows.value[part], np.float64)
            lib.glp_set_mat_row(problem, first + i, len(columns) - 1, c_pointer(columns), c_pointer(values))

    def set_bounds(self, columns, lower, upper) -> None:
        loops().each(self._lib.glp_set_col_bnds, self._problem, (np.asarray(columns) + 1).astype(np.int32),
                     *_bounds(lower, upper))

    def solve(self) -> SolveOutcome:
        lib = self._lib
        lib.glp_term_out(GLP_OFF)
        parameters = self._iocp()
        lib.glp_init_iocp(ctypes.byref(parameters))
        for name, value in Glpk.options.native(self.settings).items():
            setattr(parameters, name, value)
        tree = _Tree(lib)
        parameters.cb_func = hook = self._callback(tree)  # kept alive while glp_intopt may call it
        code, seconds = timed(lib.glp_intopt, self._problem, ctypes.byref(parameters))
        del hook
        return self._outcome(code, tree, seconds)

    def _outcome(self, code: int, tree: _Tree, seconds: float) -> SolveOutcome:
        lib, problem = self._lib, self._problem
        mip_status = lib.glp_mip_status(problem)
        found = mip_status in (GLP_OPT, GLP_FEAS)
        if code == GLP_ENODFS:
            return SolveOutcome("error", False, None, None, seconds, tree.nodes,
                                "GLPK: the LP relaxation has no dual feasible solution (unbounded)",
                                solver_clock="call")
        if code == 0 and mip_status == GLP_OPT:
            state = "optimal"
        elif code == GLP_EMIPGAP and found:
            state = "optimal"  # within the relative gap asked for, as HiGHS calls it
        elif code in (GLP_ENOPFS, GLP_EBOUND) or mip_status == GLP_NOFEAS:
            state = "infeasible"  # GLP_EBOUND: a lower bound above its upper bound
        elif code == GLP_ETMLIM:
            state = "time_limit"
        else:
            state = "feasible" if found else "error"
        objective = lib.glp_mip_obj_val(problem) if found else None
        bound = objective if code == 0 and mip_status == GLP_OPT else finite(tree.bound)
        return SolveOutcome(
            status=state, has_solution=found, objective=objective,
            bound=None if state == "infeasible" else bound, solver_time=seconds, nodes=tree.nodes,
            message="" if state != "error" else
            f"GLPK stopped with {RETURN_CODES.get(code, code)}, MIP status {mip_status}",
            values=loops().gather_double(lib.glp_mip_col_val, problem, 1, self._n_cols) if found else None,
            solver_clock="call")


@register_solver
class Glpk(Adapter):
    name = "glpk"
    summary = "GNU GLPK, in-process (the swiglpk wheel's library through GLPK's C API): the model as one matrix"
    rank = 30
    options = Options(  # fields of GLPK's glp_iocp
        fixed={"presolve": GLP_ON, "msg_lev": 0},
        time_limit=Native("tm_lim", lambda seconds: int(min(max(seconds, 0.0) * 1000, TM_LIM_MAX)), note="milliseconds"),
        gap=Native("mip_gap", lambda gap: max(float(gap), 0.0)),
        notes="single-threaded; no seed; no clock of its own: solver_time is the library call")

    def availability(self) -> tuple[bool, str]:
        from importlib.metadata import version  # 20 ms: only when asked which versions are installed

        return library_availability(lambda: library()[0], lambda lib: f"GLPK {lib.glp_version().decode()} (swiglpk "
                                    f"{version('swiglpk')}; hand-over: {path()})", "GLPK's library from swiglpk")

    def matrix_session(self, form: LinearForm, settings: RunSettings, persistent: bool = False) -> MatrixSession:
        return MatrixSession(form, settings, persistent)

    def warm_up(self) -> None:
        """GLPK's library and the compiled loops (0.1 to 0.2 s), once per process."""
        library()
        loops()
