"""Any other solver Pyomo knows, by name: ``--solver pyomo:NAME`` (e.g. ``pyomo:xpress_direct``),
through Pyomo's classic ``SolverFactory``. No option is passed (option names differ from
solver to solver): the time limit is the framework's hard kill, and threads, seed and gap are
the solver's defaults. `list` marks such solvers as generic. The traps handled are in
docs/solver_bindings.md.
"""

from __future__ import annotations

import logging
import time

from pyomo_puzzles.contract.solvers import (Adapter, Options, RunSettings, SolveOutcome, UserError, finite, first_line,
                                            ran_to_limit, register_solver_prefix)


class GenericSession:
    """Solve with ``pyo.SolverFactory(solver)``; the model is read again at every solve."""

    def __init__(self, label: str, solver: str, model, settings: RunSettings) -> None:
        self.label, self.solver, self.model, self.settings = label, solver, model, settings

    def solve(self) -> SolveOutcome:
        import pyomo.environ as pyo  # Pyomo: adapters are imported by `list`, which solves nothing

        started = time.perf_counter()
        try:
            results = pyo.SolverFactory(self.solver).solve(self.model, load_solutions=False)
        except Exception as error:  # a solver failure must still leave a record
            return SolveOutcome("error", False, None, None, None, None, f"{self.label} failed: {first_line(error)}")
        return self._outcome(results, time.perf_counter() - started)

    def _outcome(self, results, elapsed: float) -> SolveOutcome:
        # Pyomo: see solve
        import pyomo.environ as pyo
        from pyomo.opt import SolutionStatus as LegacySS

        usable = (LegacySS.optimal, LegacySS.feasible, LegacySS.bestSoFar,
                  LegacySS.globallyOptimal, LegacySS.locallyOptimal)
        claimed = results.solution[0].status if len(results.solution) else None
        has_solution = claimed in usable or (
            claimed == LegacySS.stoppedByLimit and finite(results.problem.upper_bound) is not None)
        if has_solution:
            quiet = logging.getLogger("pyomo.core")  # "loading ... with an 'aborted' status" at a limit
            level, quiet.level = quiet.level, logging.ERROR
            try:
                self.model.solutions.load_from(results)
            finally:
                quiet.setLevel(level)
        tc = results.solver.termination_condition
        status = self._status(tc, has_solution, elapsed)
        incumbent, bound = finite(results.problem.upper_bound), finite(results.problem.lower_bound)
        objectives = list(self.model.component_data_objects(pyo.Objective, active=True))
        if objectives and objectives[0].sense == pyo.maximize:
            incumbent, bound = bound, incumbent
        solver_time = finite(getattr(results.solver, "wallclock_time", None))  # None: the solver tells none
        return SolveOutcome(status, has_solution, incumbent if has_solution else None, bound, solver_time, None,
                            "" if status != "error" else f"{self.label} stopped with {tc}")

    def _status(self, tc, has_solution: bool, elapsed: float) -> str:
        from pyomo.opt import TerminationCondition as LegacyTC  # Pyomo: see solve

        if tc == LegacyTC.optimal:
            return "optimal"
        if tc in (LegacyTC.infeasible, LegacyTC.invalidProblem):
            return "infeasible"
        if tc in (LegacyTC.maxTimeLimit, LegacyTC.maxIterations, LegacyTC.maxEvaluations):
            return "time_limit"
        if tc == LegacyTC.intermediateNonInteger and self.settings.time_limit is not None:
            return "time_limit"  # stopped by a limit before any integer solution: the time limit is the only one set
        if ran_to_limit(self.settings, elapsed):
            return "time_limit"  # some solvers report 'feasible' when their time limit stops them
        if has_solution and tc == LegacyTC.feasible:
            return "feasible"
        return "error"


class PyomoSolver(Adapter):
    kind = "mip"
    rank = 1000
    options = Options(time_limit=None, threads=None, seed=None, gap=None,
                      notes="generic: no option passed; the time limit is the framework's hard kill")

    def __init__(self, solver: str) -> None:
        import pyomo.environ as pyo  # Pyomo: see GenericSession.solve

        if solver not in pyo.SolverFactory:
            raise UserError(f"unknown solver 'pyomo:{solver}': Pyomo has no solver named {solver!r}")
        self.solver = solver
        self.name = f"pyomo:{solver}"
        self.summary = f"Pyomo's {solver} interface (generic adapter)"

    def availability(self) -> tuple[bool, str]:
        import pyomo.environ as pyo  # Pyomo: see GenericSession.solve

        opt = pyo.SolverFactory(self.solver)
        try:
            available = opt.available(exception_flag=False)
        except Exception as error:  # noqa: BLE001 - some interfaces raise instead of answering
            return False, f"Pyomo's {self.solver} interface says: {first_line(error)}"
        if not available:
            return False, f"Pyomo's {self.solver} interface reports the solver as not available"
        version = opt.version() or ()
        return True, f"{self.solver} " + ".".join(map(str, version)) + " (generic)"

    @property
    def executable(self) -> str | None:
        """The program Pyomo's interface runs (``glpsol`` for ``pyomo:glpk``); None in-process."""
        import pyomo.environ as pyo  # Pyomo: see GenericSession.solve

        find = getattr(pyo.SolverFactory(self.solver), "executable", None)
        try:
            return find() if callable(find) else None
        except Exception:  # noqa: BLE001 - an interface that cannot say names none
            return None

    def session(self, model, settings: RunSettings, persistent: bool = False) -> GenericSession:
        return GenericSession(self.name, self.solver, model, settings)


register_solver_prefix("pyomo", PyomoSolver)
