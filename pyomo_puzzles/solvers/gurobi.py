"""Gurobi, in-process through gurobipy (optional extra ``[gurobi]``): the compiled matrix as one
`addMVar` and `addMConstr`; a persistent session adds rows to the same model. Why, and
Gurobi's traps (INF_OR_UNBD, the licence's size limit): docs/solver_bindings.md.
"""

from __future__ import annotations

import numpy as np

from pyomo_puzzles.contract.solvers import (Adapter, Kept, LinearForm, Native, Options, SolveOutcome, RunSettings,
                                            by_rows, finite, first_line, missing_package, quiet_stdout, record_progress,
                                            register_solver, row_senses, time_left, without_objective, worth_tracing)


def licence_message(error: BaseException) -> str | None:
    text = first_line(error)
    return f"Gurobi: {text}" if "size-limited license" in text else None


def _started_environment():
    import gurobipy as gp  # gurobipy: only where Gurobi solves (adapters are imported by `list`)

    with quiet_stdout():  # the licence banner
        return gp.Env(params={"OutputFlag": 0})


ENVIRONMENT = Kept(_started_environment, survives_fork=False, end=lambda env: env.dispose())


def environment():
    """This process's started Gurobi environment (`ENVIRONMENT`)."""
    return ENVIRONMENT.one()


def _senses(lower, upper) -> tuple:
    """Gurobi's sense and right-hand side per row, and the ranged rows (stated ``>= lower``
    here, and once more ``<= upper``)."""
    sense, rhs, _ = row_senses(lower, upper, 1e100)  # a free row: at Gurobi's infinity
    return np.select([sense == "E", sense == "L"], ["=", "<"], ">"), rhs, np.flatnonzero(sense == "R")


class MatrixSession:
    """The model's matrix in one gurobipy model (`addMVar`, `addMConstr`); a persistent session
    adds rows and changes the MVar's bounds. The licence's size limit is ``licence_limit``."""

    def __init__(self, form, settings: RunSettings) -> None:
        import gurobipy as gp  # see environment

        self.settings, self._refused = settings, None
        self._model = model = gp.Model(env=environment())
        n = len(form.columns)
        self._x = model.addMVar(n, lb=form.col_lower, ub=form.col_upper, obj=form.cost,
                                vtype=np.where(form.integer, gp.GRB.INTEGER, gp.GRB.CONTINUOUS))
        model.ModelSense = gp.GRB.MAXIMIZE if form.maximise else gp.GRB.MINIMIZE
        model.ObjCon = form.offset
        rows = by_rows(form.start, form.index, form.value, len(form.row_lower))
        self._add(rows, len(form.row_lower), form.row_lower, form.row_upper)
        for key, value in Gurobi.options.native(settings).items():
            model.setParam(key, value)
        self._traced = worth_tracing(form)

    def _add(self, rows: tuple, count: int, lower, upper) -> None:
        """Rows given compressed (starts, columns, values) with their bounds."""
        import gurobipy as gp  # see environment
        import scipy.sparse as sp  # scipy: gurobipy's matrix interface takes its matrices

        if self._refused is not None:
            return
        start, index, value = rows
        matrix = sp.csr_matrix((value, index, start), shape=(count, self._x.shape[0]))
        sense, rhs, ranged = _senses(lower, upper)
        try:
            self._model.addMConstr(matrix, self._x, sense, rhs)
            if len(ranged):
                self._model.addMConstr(matrix[ranged], self._x, gp.GRB.LESS_EQUAL, upper[ranged])
        except gp.GurobiError as error:
            if licence_message(error) is None:
                raise
            self._refused = licence_message(error)

    def add_rows(self, rows) -> None:
        self._add((rows.start, rows.index, rows.value), len(rows), rows.lower, rows.upper)

    def set_bounds(self, columns, lower, upper) -> None:
        chosen = self._x[columns]
        chosen.LB, chosen.UB = lower, upper

    def solve(self) -> SolveOutcome:
        import gurobipy as gp  # see environment

        model = self._model
        for key, value in Gurobi.options.native(self.settings, "time_limit").items():  # lowered between solves
            model.setParam(key, value)
        events: list | None = [] if self._traced else None
        if self._refused is None:
            try:
                model.optimize(None if events is None else _progress_callback(events))
                clock = model.Runtime
                if model.Status == gp.GRB.INF_OR_UNBD:  # presolve's verdict: ask which, once, in the time left
                    model.Params.DualReductions = 0
                    for key, value in Gurobi.options.native(time_left(self.settings, clock), "time_limit").items():
                        model.setParam(key, value)
                    model.optimize()
                    model.Params.DualReductions = 1
                    clock += model.Runtime
            except gp.GurobiError as error:
                if licence_message(error) is None:
                    raise
                self._refused = licence_message(error)
        if self._refused is not None:  # no time in the solver, as Pyomo's path recorded it
            return SolveOutcome("licence_limit", False, None, None, 0.0, None, self._refused)
        outcome = _matrix_outcome(model, self._x, clock)
        if events:
            record_progress(outcome, events)
        return outcome


def _progress_callback(events: list):
    """Gurobi's callback: ``[seconds, incumbent, bound, nodes]`` at each MIP report and incumbent."""
    import gurobipy as gp  # see environment

    codes = gp.GRB.Callback
    asked = {codes.MIP: (codes.MIP_OBJBST, codes.MIP_OBJBND, codes.MIP_NODCNT),
             codes.MIPSOL: (codes.MIPSOL_OBJBST, codes.MIPSOL_OBJBND, codes.MIPSOL_NODCNT)}

    def follow(model, where) -> None:
        if where in asked:
            incumbent, bound, nodes = (model.cbGet(what) for what in asked[where])
            events.append([model.cbGet(codes.RUNTIME), finite(incumbent), finite(bound), int(nodes)])

    return follow


def _matrix_outcome(model, x, solver_time: float) -> SolveOutcome:
    import gurobipy as gp  # see environment

    codes = gp.GRB.Status
    status = model.Status
    has_solution = model.SolCount > 0
    kinds = {codes.OPTIMAL: "optimal", codes.INFEASIBLE: "infeasible", codes.TIME_LIMIT: "time_limit"}
    state = kinds.get(status, "feasible" if has_solution else "error")
    try:
        bound = finite(model.ObjBound)
    except gp.GurobiError:  # a continuous model has no MIP bound
        bound = finite(model.ObjVal) if state == "optimal" else None
    return SolveOutcome(
        status=state, has_solution=has_solution,
        objective=finite(model.ObjVal) if has_solution else None,
        bound=bound if state != "infeasible" else None,
        solver_time=solver_time, nodes=int(model.NodeCount) if model.IsMIP else None,
        message="" if state != "error" else f"Gurobi stopped with status {status}",
        values=x.X if has_solution else None)


@register_solver
class Gurobi(Adapter):
    name = "gurobi"
    summary = "Gurobi, in-process (gurobipy; optional extra [gurobi]), enumeration persistent"
    rank = 50
    options = Options(time_limit=Native("TimeLimit", lambda seconds: max(float(seconds), 0.0), unset=1e100),
                      threads=Native("Threads", int, unset=0), seed=Native("Seed", int), gap=Native("MIPGap", float),
                      notes="without a licence file: at most 2,000 variables and constraints")

    def availability(self) -> tuple[bool, str]:
        if missing := missing_package("gurobipy", "pip install 'pyomo-puzzles[gurobi]'"):
            return False, missing
        import gurobipy  # gurobipy: only when asked whether Gurobi is available
        from pyomo.contrib.solver.common.factory import SolverFactory  # Pyomo: adapters are imported by `list`

        with quiet_stdout():
            licence = SolverFactory("gurobi_direct").available()
        if not licence:
            return False, f"Gurobi cannot start: {licence.name}"
        version = ".".join(map(str, gurobipy.gurobi.version()))
        limited = " (size-limited licence)" if licence.name == "LimitedLicense" else ""
        return True, f"Gurobi {version}{limited}"

    def warm_up(self) -> None:
        """scipy's sparse matrices (1 to 2 s to import) and the environment, once per batch."""
        import scipy.sparse  # noqa: F401 - see above

        environment()

    def matrix_session(self, form: LinearForm, settings: RunSettings, persistent: bool = False) -> MatrixSession:
        return MatrixSession(form, settings)

    enumeration = "solution pool (PoolSearchMode 2, every solution kept)"

    def enumerate(self, form, settings: RunSettings, found) -> tuple[str, str]:
        """Gurobi's pool search for every solution of `form` (no objective); the points go to `found`."""
        import gurobipy as gp  # gurobipy: see availability

        session = None
        try:
            session = MatrixSession(without_objective(form), settings)
            if session._refused is not None:
                return "licence_limit", session._refused
            model = session._model
            model.Params.PoolSearchMode, model.Params.PoolSolutions = 2, gp.GRB.MAXINT
            with quiet_stdout():
                model.optimize()
            status = model.Status
            for number in range(model.SolCount):
                model.Params.SolutionNumber = number
                if not found(session._x.Xn):
                    return "stopped", ""
        except gp.GurobiError as error:
            message = licence_message(error)
            return ("licence_limit", message) if message else ("error", f"Gurobi: {first_line(error)}")
        finally:
            if session is not None:
                session._model.dispose()
        if status in (gp.GRB.OPTIMAL, gp.GRB.INFEASIBLE):
            return "complete", ""
        return ("time_limit", "") if status == gp.GRB.TIME_LIMIT else ("error", f"Gurobi stopped with status {status}")
