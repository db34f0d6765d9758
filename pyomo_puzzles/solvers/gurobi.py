"""Gurobi, in-process through gurobipy and Pyomo's new interface (``gurobi_direct``;
``gurobi_persistent`` for enumeration). An optional extra: ``pip install
pyomo-puzzles[gurobi]``.

Without a licence file the pip wheel solves models of up to 2,000 variables and 2,000
constraints; a larger model is the outcome ``licence_limit`` with Gurobi's message, never an
error. A full licence needs no change here.
"""

from __future__ import annotations

from pyomo_puzzles.contract.solvers import Adapter, Options, SolveOutcome, RunSettings, register_solver
from pyomo_puzzles.solvers import _pyomo_v2
from pyomo_puzzles.solvers._common import first_line, quiet_stdout


def gurobi_options(settings: RunSettings) -> dict:
    return {} if settings.seed is None else {"Seed": int(settings.seed)}


def licence_message(error: BaseException) -> str | None:
    text = first_line(error)
    return f"Gurobi: {text}" if "size-limited license" in text else None


class GurobiSession(_pyomo_v2.Session):
    label, interfaces, time_key, node_key = "Gurobi", ("gurobi_direct", "gurobi_persistent"), "gurobi_time", "NodeCount"

    def solver_options(self) -> dict:
        return gurobi_options(self.settings)

    def solve(self) -> SolveOutcome:
        try:
            with quiet_stdout():  # the licence banner
                return super().solve()
        except Exception as error:  # noqa: BLE001 - over the licence is an outcome, not a crash
            message = licence_message(error)
            if message is None:
                raise
            self._opt = None  # a persistent interface is left half-built
            return SolveOutcome("licence_limit", False, None, None, 0.0, None, message)


@register_solver
class Gurobi(Adapter):
    name = "gurobi"
    summary = "Gurobi, in-process (gurobipy; optional extra [gurobi]), enumeration persistent"
    rank = 50
    options = Options(time_limit="TimeLimit", threads="Threads", seed="Seed", gap="MIPGap",
                      notes="without a licence file: at most 2,000 variables and constraints")

    def availability(self) -> tuple[bool, str]:
        try:
            import gurobipy  # gurobipy: only when asked whether Gurobi is available
        except ImportError:
            return False, "Python package 'gurobipy' not installed (pip install 'pyomo-puzzles[gurobi]')"
        from pyomo.contrib.solver.common.factory import SolverFactory  # Pyomo: adapters are imported by `list`

        with quiet_stdout():
            licence = SolverFactory("gurobi_direct").available()
        if not licence:
            return False, f"Gurobi cannot start: {licence.name}"
        version = ".".join(map(str, gurobipy.gurobi.version()))
        limited = " (size-limited licence)" if licence.name == "LimitedLicense" else ""
        return True, f"Gurobi {version}{limited}"

    def warm_up(self) -> None:
        """Pyomo's Gurobi interface hands the model over through its standard-form writer,
        whose first use finalises Pyomo's deferred scipy import (scipy.stats among it): 1 to
        2 s, paid by every forked run unless paid here once."""
        from pyomo.common.dependencies import scipy_available  # Pyomo: see availability
        from pyomo.repn.plugins import standard_form  # noqa: F401 - the writer itself, 0.25 s

        bool(scipy_available)  # resolves the deferred import and its finalisation

    enumeration = "solution pool (PoolSearchMode 2, every solution kept)"

    def enumerate(self, form, settings: RunSettings, found) -> tuple[str, str]:
        """Gurobi's pool search for every solution of `form` (objective left out); the pool's
        points go to `found` once the search has ended."""
        import gurobipy as gp  # gurobipy: see availability
        import scipy.sparse as sp  # scipy: with gurobipy's matrix interface

        try:
            with quiet_stdout():
                env = gp.Env(params={"OutputFlag": 0})
                model = gp.Model(env=env)
                x = model.addMVar(len(form.columns), lb=form.col_lower, ub=form.col_upper, vtype=gp.GRB.INTEGER)
                matrix = sp.csc_matrix((form.value, form.index, form.start),
                                       shape=(len(form.row_lower), len(form.columns))).tocsr()
                model.addMConstr(matrix, x, gp.GRB.GREATER_EQUAL, form.row_lower)
                model.addMConstr(matrix, x, gp.GRB.LESS_EQUAL, form.row_upper)
                model.Params.PoolSearchMode, model.Params.PoolSolutions = 2, gp.GRB.MAXINT
                if settings.time_limit is not None:
                    model.Params.TimeLimit = settings.time_limit
                model.Params.Threads = settings.threads or 0
                for key, value in gurobi_options(settings).items():
                    model.setParam(key, value)
                model.optimize()
        except gp.GurobiError as error:
            message = licence_message(error)
            return ("licence_limit", message) if message else ("error", f"Gurobi: {first_line(error)}")
        status = model.Status
        for number in range(model.SolCount):
            model.Params.SolutionNumber = number
            if not found(x.Xn):
                return "stopped", ""
        if status in (gp.GRB.OPTIMAL, gp.GRB.INFEASIBLE):
            return "complete", ""
        return ("time_limit", "") if status == gp.GRB.TIME_LIMIT else ("error", f"Gurobi stopped with status {status}")

    def session(self, model, settings: RunSettings, persistent: bool = False) -> GurobiSession:
        return GurobiSession(model, settings, persistent)
