"""SCIP, in-process through PySCIPOpt (whose wheels bundle SCIP) and Pyomo's new interface:
``scip_direct`` for one-off solves, ``scip_persistent`` for enumeration.

SCIP's log is switched off (`QUIET`: with it, a long run blocked on Pyomo's output pipe).
Pyomo reports PySCIPOpt's version; the record names SCIP's own and PySCIPOpt's. SCIP's
tree search is single-threaded: Pyomo passes ``threads`` on as ``lp/threads``. Trap: Pyomo's
SCIP interface fails on a constraint without variables (``0 <= 1``, as a sum over an empty
set gives; Pyomo issue #3976 is the same for ``Constraint.Feasible``): such rows are decided
here and left out of what SCIP sees.
"""

from __future__ import annotations

from pyomo_puzzles.contract.solvers import Adapter, Options, SolveOutcome, RunSettings, register_solver
from pyomo_puzzles.solvers import _pyomo_v2


QUIET = {"display/verblevel": 0}
"""SCIP's log switched off. Pyomo captures the solver's output on a pipe that a Python thread
drains, while PySCIPOpt's optimize holds the GIL: past 64 KB of log (a run of a few seconds
on a hard model) SCIP blocked writing to the pipe and stayed blocked until the run's hard
kill, which then read as a time-out."""


def scip_options(settings: RunSettings) -> dict:
    seed = {} if settings.seed is None else {"randomization/randomseedshift": int(settings.seed)}
    return {**QUIET, **seed}


def constant_rows(model) -> list:
    """The active constraints whose body has no variable at all."""
    # Pyomo: adapters are imported by `list`, which solves nothing
    import pyomo.environ as pyo
    from pyomo.core.expr.visitor import identify_variables

    return [con for con in model.component_data_objects(pyo.Constraint, active=True)
            if next(identify_variables(con.body, include_fixed=True), None) is None]


def _violated(row) -> bool:
    import pyomo.environ as pyo  # see constant_rows

    value = pyo.value(row.body)
    return (row.has_lb() and value < pyo.value(row.lower) - 1e-9) or (
        row.has_ub() and value > pyo.value(row.upper) + 1e-9)


class ScipSession(_pyomo_v2.Session):
    """A persistent session keeps the constant rows switched off for its life (the model is
    the enumeration's own); a one-off solve switches them on again afterwards."""

    label, interfaces, time_key, node_key = "SCIP", ("scip_direct", "scip_persistent"), "scip_time", "NNodes"

    def __init__(self, model, settings: RunSettings, persistent: bool) -> None:
        super().__init__(model, settings, persistent)
        self._constant = constant_rows(model)
        self._infeasible = any(_violated(row) for row in self._constant)
        if persistent:
            for row in self._constant:
                row.deactivate()

    def solver_options(self) -> dict:
        return scip_options(self.settings)

    def solve(self) -> SolveOutcome:
        if self._infeasible:
            return SolveOutcome("infeasible", False, None, None, 0.0, 0, "a row without variables is violated")
        if self.persistent:
            return super().solve()
        for row in self._constant:
            row.deactivate()
        try:
            return super().solve()
        finally:
            for row in self._constant:
                row.activate()


def _scip_library():
    """The SCIP library PySCIPOpt's wheel bundles, through ctypes, with the functions that read
    the counter's collected solutions (PySCIPOpt wraps ``count`` but not those)."""
    import ctypes  # ctypes and pyscipopt: only a native count pays for them
    import glob
    import os

    import pyscipopt  # see above

    found = sorted(glob.glob(os.path.join(os.path.dirname(pyscipopt.__file__) + ".libs", "libscip*")))
    if not found:
        raise RuntimeError("the SCIP library bundled with PySCIPOpt was not found (pyscipopt.libs/libscip*)")
    lib = ctypes.CDLL(found[0])
    pointers = ctypes.POINTER(ctypes.c_void_p)
    lib.SCIPgetCountedSparseSols.argtypes = [ctypes.c_void_p, ctypes.POINTER(pointers), ctypes.POINTER(ctypes.c_int),
                                             ctypes.POINTER(pointers), ctypes.POINTER(ctypes.c_int)]
    lib.SCIPgetCountedSparseSols.restype = None
    lib.SCIPvarGetName.argtypes, lib.SCIPvarGetName.restype = [ctypes.c_void_p], ctypes.c_char_p
    for name in ("SCIPsparseSolGetLbs", "SCIPsparseSolGetUbs"):
        getattr(lib, name).argtypes = [ctypes.c_void_p]
        getattr(lib, name).restype = ctypes.POINTER(ctypes.c_longlong)
    return lib


def counted_points(model, columns: int):
    """Every point SCIP's counter collected on `model` (variables named ``x<column>``), as
    column values: each sparse solution (a box of values per variable) expanded."""
    import ctypes  # see _scip_library
    import itertools

    import numpy as np  # numpy: loaded with the model's linear form already

    lib = _scip_library()
    capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    capsule_pointer.restype, capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    scip = capsule_pointer(model.to_ptr(False), b"scip")
    variables, sols = ctypes.POINTER(ctypes.c_void_p)(), ctypes.POINTER(ctypes.c_void_p)()
    nvars, nsols = ctypes.c_int(), ctypes.c_int()
    lib.SCIPgetCountedSparseSols(scip, ctypes.byref(variables), ctypes.byref(nvars), ctypes.byref(sols),
                                 ctypes.byref(nsols))
    order = [int(lib.SCIPvarGetName(variables[i]).decode().removeprefix("t_x")) for i in range(nvars.value)]
    if sorted(order) != list(range(columns)):
        raise RuntimeError(f"SCIP's counter kept {nvars.value} of the {columns} variables active: the values of the "
                           "others cannot be read back")
    for k in range(nsols.value):
        lower, upper = lib.SCIPsparseSolGetLbs(sols[k]), lib.SCIPsparseSolGetUbs(sols[k])
        ranges = [range(lower[i], upper[i] + 1) for i in range(nvars.value)]
        for values in itertools.product(*ranges):
            point = np.empty(columns)
            point[order] = values
            yield point


def counter_model(form, settings: RunSettings):
    """A PySCIPOpt model of the integer program `form` (objective left out) set up for SCIP's
    counter with its solutions collected (presolving off, so that every variable stays active)."""
    import pyscipopt  # pyscipopt: only when SCIP counts (adapters are imported by `list`)

    model = pyscipopt.Model()
    model.hideOutput()
    xs = [model.addVar(name=f"x{j}", vtype="I", lb=None if lo == -float("inf") else lo,
                       ub=None if hi == float("inf") else hi)
          for j, (lo, hi) in enumerate(zip(form.col_lower, form.col_upper))]
    rows: list[list] = [[] for _ in form.row_lower]
    for j in range(len(xs)):
        for k in range(form.start[j], form.start[j + 1]):
            rows[form.index[k]].append((float(form.value[k]), xs[j]))
    for terms, lo, hi in zip(rows, form.row_lower, form.row_upper):
        body = pyscipopt.quicksum(c * x for c, x in terms)
        model.addCons(pyscipopt.ExprCons(body, lhs=None if lo == -float("inf") else float(lo),
                                         rhs=None if hi == float("inf") else float(hi)))
    model.setParamsCountsols()
    model.setParam("constraints/countsols/collect", True)
    model.setParam("presolving/maxrounds", 0)
    if settings.time_limit is not None:
        model.setParam("limits/time", max(settings.time_limit, 0.01))
    for key, value in scip_options(settings).items():
        model.setParam(key, value)
    return model


@register_solver
class Scip(Adapter):
    name = "scip"
    summary = "SCIP, in-process (PySCIPOpt), enumeration persistent"
    rank = 40
    options = Options(time_limit="limits/time", threads="lp/threads (the tree search is single-threaded)",
                      seed="randomization/randomseedshift", gap="limits/gap")

    def availability(self) -> tuple[bool, str]:
        try:
            import pyscipopt  # pyscipopt: only when asked whether SCIP is available
        except ImportError as error:
            return False, f"Python package 'pyscipopt' cannot be imported ({error})"
        from pyomo.contrib.solver.common.factory import SolverFactory  # Pyomo: see constant_rows

        if not SolverFactory("scip_direct").available():
            return False, f"Pyomo's scip_direct needs PySCIPOpt >= 5.5 (found {pyscipopt.__version__})"
        model = pyscipopt.Model()
        scip = f"{model.getMajorVersion()}.{model.getMinorVersion()}.{model.getTechVersion()}"
        return True, f"SCIP {scip} (PySCIPOpt {pyscipopt.__version__})"

    enumeration = "SCIP's counter (count mode, its solutions collected)"

    def enumerate(self, form, settings: RunSettings, found) -> tuple[str, str]:
        """SCIP's counter on `form`; the points it collected go to `found` once it has ended
        (within its time limit, those counted so far)."""
        model = counter_model(form, settings)
        model.count()
        status = model.getStatus()
        for point in counted_points(model, len(form.columns)):
            if not found(point):
                return "stopped", ""
        if status in ("infeasible", "optimal"):  # counting ends when no node is left: every point collected
            return "complete", ""
        return ("time_limit", "") if status == "timelimit" else ("error", f"SCIP's counter stopped: {status}")

    def session(self, model, settings: RunSettings, persistent: bool = False) -> ScipSession:
        return ScipSession(model, settings, persistent)
