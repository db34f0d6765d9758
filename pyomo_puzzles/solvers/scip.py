"""SCIP, in-process, on the library PySCIPOpt's wheel bundles: the compiled matrix through
SCIP's C API (`_scip_c`); a persistent session goes back to the original problem after each
solve; SCIP's counter for native enumeration. Why, and SCIP's traps: docs/solver_bindings.md.
"""

from __future__ import annotations

import ctypes
import itertools

import numpy as np

from pyomo_puzzles.contract.solvers import (Adapter, LinearForm, Native, Options, SolveOutcome, RunSettings, finite,
                                            library_availability, register_solver, root_bound, without_objective,
                                            worth_tracing)

QUIET = {"display/verblevel": 0}  # SCIP's log off


STATUSES = {"optimal": "optimal", "gaplimit": "optimal", "infeasible": "infeasible", "timelimit": "time_limit"}
"""SCIP's statuses named in the record's vocabulary; any other is ``feasible`` with a solution,
``error`` without."""


class MatrixSession:
    """The model's matrix in SCIP through its C API (`_scip_c.Problem`)."""

    def __init__(self, form, settings: RunSettings) -> None:
        from pyomo_puzzles.solvers._scip_c import Problem  # ctypes, numpy, pyscipopt: where SCIP solves

        self.settings = settings
        self._problem = Problem(form, QUIET)
        self._traced = worth_tracing(form)

    def add_rows(self, rows) -> None:
        self._problem.add_rows(rows)

    def set_bounds(self, columns, lower, upper) -> None:
        self._problem.set_bounds(columns, lower, upper)

    def solve(self) -> SolveOutcome:
        problem = self._problem
        model = problem.model
        for key, value in Scip.options.native(self.settings).items():
            model.setParam(key, value)
        problem.original()  # a repeated solve starts from the problem as it now stands
        progress = _progress(model) if self._traced else {}
        events = progress["events"] = [] if self._traced else None
        try:
            model.optimize()
        finally:
            progress["events"] = None
        found = problem.best()
        status = model.getStatus()
        root = None
        state = STATUSES.get(status, "feasible" if found else "error")
        dual = model.getDualbound()
        # SCIP's infinity (1e20) is its 'no bound yet': below the framework's NO_VALUE, so asked here
        bound = None if state == "infeasible" or model.isInfinity(abs(dual)) else finite(dual)
        if events is not None:
            root = root_bound(events, state, bound)
        return SolveOutcome(
            status=state, has_solution=found is not None,
            objective=finite(found[0]) if found else None,
            bound=bound,
            solver_time=model.getSolvingTime(), nodes=int(model.getNNodes()),
            message="" if state != "error" else f"SCIP stopped with status {status}",
            values=found[1] if found else None, progress=None if events is None else [e[:3] for e in events],
            root_bound=root, presolved_size=problem.solved_size())


def _progress(model) -> dict:
    """Where an event handler on `model` (included once: instances are kept) puts ``[seconds,
    incumbent, bound, nodes]`` at each new incumbent and better dual bound, while ``events`` is a list."""
    import pyscipopt  # see Scip.availability

    if not isinstance(model.data, dict):
        model.data = {}
    if "progress" not in model.data:
        progress = model.data["progress"] = {"events": None}

        def caught(model, event) -> None:
            if progress["events"] is not None:
                found, proved = model.getPrimalbound(), model.getDualbound()
                progress["events"].append([model.getSolvingTime(), None if model.isInfinity(abs(found)) else found,
                                           None if model.isInfinity(abs(proved)) else proved, model.getNNodes()])

        kinds = pyscipopt.SCIP_EVENTTYPE
        model.attachEventHandlerCallback(caught, [kinds.BESTSOLFOUND, kinds.DUALBOUNDIMPROVED], "pyomo_puzzles_progress")
    return model.data["progress"]


def counted_points(problem, columns: int):
    """Every point SCIP's counter collected on `problem`, as column values (each sparse box expanded)."""
    lib, scip = problem.lib, problem.scip
    variables, sols = ctypes.POINTER(ctypes.c_void_p)(), ctypes.POINTER(ctypes.c_void_p)()
    nvars, nsols = ctypes.c_int(), ctypes.c_int()
    lib.SCIPgetCountedSparseSols(scip, ctypes.byref(variables), ctypes.byref(nvars), ctypes.byref(sols),
                                 ctypes.byref(nsols))
    column_of = {lib.SCIPvarGetTransVar(int(var)): j for j, var in enumerate(problem.variables)}
    order = [column_of.get(variables[i]) for i in range(nvars.value)]
    if sorted(order, key=lambda j: -1 if j is None else j) != list(range(columns)):
        raise RuntimeError(f"SCIP's counter kept {nvars.value} of the {columns} variables active: the values of the "
                           "others cannot be read back")
    for k in range(nsols.value):
        lower, upper = lib.SCIPsparseSolGetLbs(sols[k]), lib.SCIPsparseSolGetUbs(sols[k])
        ranges = [range(lower[i], upper[i] + 1) for i in range(nvars.value)]
        for values in itertools.product(*ranges):
            point = np.empty(columns)
            point[order] = values
            yield point


def counter_problem(form, settings: RunSettings):
    """`form` (no objective) in SCIP, set up for its counter, solutions collected, presolving off."""
    from pyomo_puzzles.solvers._scip_c import Problem  # see MatrixSession

    problem = Problem(without_objective(form), QUIET)
    model = problem.model
    model.setParamsCountsols()
    model.setParam("constraints/countsols/collect", True)
    model.setParam("presolving/maxrounds", 0)
    for key, value in Scip.options.native(settings, "time_limit", "seed").items():
        model.setParam(key, value)
    return problem


@register_solver
class Scip(Adapter):
    name = "scip"
    summary = "SCIP, in-process (its C API on PySCIPOpt's bundled library): one matrix, enumeration persistent"
    rank = 40
    options = Options(  # every setting given a value: a persistent session's settings change between solves
        time_limit=Native("limits/time", lambda seconds: max(float(seconds), 0.0), unset=1e20),
        threads=Native("lp/threads", int, unset=0, note="the tree search is single-threaded"),
        seed=Native("randomization/randomseedshift", int), gap=Native("limits/gap", float, unset=0.0))

    def availability(self) -> tuple[bool, str]:
        try:
            import pyscipopt  # pyscipopt: only when asked whether SCIP is available
        except ImportError as error:
            return False, f"Python package 'pyscipopt' cannot be imported ({error})"
        from pyomo_puzzles.solvers._c_loops import path  # see MatrixSession
        from pyomo_puzzles.solvers._scip_c import library  # the C library the matrix goes to: see MatrixSession

        def described(lib) -> str:  # available: the library every solve calls is there, of a tested release
            model = pyscipopt.Model()
            scip = f"{model.getMajorVersion()}.{model.getMinorVersion()}.{model.getTechVersion()}"
            return f"SCIP {scip} (PySCIPOpt {pyscipopt.__version__}; hand-over: {path()})"

        return library_availability(library, described, "SCIP's library from PySCIPOpt's wheel")

    enumeration = "SCIP's counter (count mode, its solutions collected)"

    def enumerate(self, form, settings: RunSettings, found) -> tuple[str, str]:
        """SCIP's counter on `form`; the points it collected (by its time limit) go to `found` when it ends."""
        problem = counter_problem(form, settings)
        problem.model.count()
        status = problem.model.getStatus()
        for point in counted_points(problem, len(form.columns)):
            if not found(point):
                return "stopped", ""
        if status in ("infeasible", "optimal"):  # counting ends when no node is left: every point collected
            return "complete", ""
        return ("time_limit", "") if status == "timelimit" else ("error", f"SCIP's counter stopped: {status}")

    def matrix_session(self, form: LinearForm, settings: RunSettings, persistent: bool = False) -> MatrixSession:
        return MatrixSession(form, settings)

    def warm_up(self) -> None:
        """An idle SCIP instance (11 to 15 ms to make) and the compiled loops, for the runs forked afterwards."""
        from pyomo_puzzles.solvers._scip_c import keep_one  # see MatrixSession

        keep_one()
