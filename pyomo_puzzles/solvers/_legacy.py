"""A session on one of Pyomo's classic solver interfaces (``pyo.SolverFactory``): the generic
adapter's (``pyomo:NAME``, any solver Pyomo knows). Every shipped adapter takes the compiled
matrix instead.

Traps handled here: Pyomo's own ``timelimit`` argument is not used (it is passed on to the
solver as well, and some reject a fractional one); a solver stopped by a limit without an
incumbent may still hand Pyomo a "solution" (status ``other``, objective 1e50): only
solutions that claim feasibility are loaded; a solver that reports ``feasible`` or
``intermediateNonInteger`` when its time limit stopped it is ``time_limit``.
"""

from __future__ import annotations

import logging
import time
from typing import Callable

from pyomo_puzzles.contract.solvers import SolveOutcome, RunSettings, finite
from pyomo_puzzles.solvers._common import first_line, quiet_stdout, ran_to_limit


class LegacySession:
    """Solve with ``pyo.SolverFactory(factory_name)``; the model is read again at every solve.

    options(settings) -> the solver's options; nodes(results, opt) -> node count or None;
    licence(error) -> the licence message if `error` says the model is over the licence's
    size, else None."""

    def __init__(self, label: str, factory_name: str, model, settings: RunSettings,
                 options: Callable[[RunSettings], dict],
                 nodes: Callable | None = None, licence: Callable[[BaseException], str | None] | None = None,
                 quiet_solver: bool = False) -> None:
        self.label, self.factory_name, self.model, self.settings = label, factory_name, model, settings
        self._options, self._nodes, self._licence, self._quiet = options, nodes, licence, quiet_solver

    def solve(self) -> SolveOutcome:
        import pyomo.environ as pyo  # Pyomo: adapters are imported by `list`, which solves nothing

        opt = pyo.SolverFactory(self.factory_name)
        opt.options.update(self._options(self.settings))
        started = time.perf_counter()
        try:
            with quiet_stdout(self._quiet):
                results = opt.solve(self.model, load_solutions=False)
        except Exception as error:  # a solver failure must still leave a record
            elapsed = time.perf_counter() - started
            message = self._licence(error) if self._licence else None
            if message:
                return SolveOutcome("licence_limit", False, None, None, None, None, message)
            return SolveOutcome("error", False, None, None, None, None,
                                f"{self.label} failed: {first_line(error)}")
        elapsed = time.perf_counter() - started
        return self._outcome(results, opt, elapsed)

    def _outcome(self, results, opt, elapsed: float) -> SolveOutcome:
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
        return SolveOutcome(status, has_solution, incumbent if has_solution else None, bound, solver_time,
                            self._nodes(results, opt) if self._nodes else None,
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
            return "time_limit"  # CBC stopped by a limit before any integer solution: the time limit is the only one set
        if ran_to_limit(self.settings, elapsed):
            return "time_limit"  # GLPK reports 'feasible' when its time limit stops it
        if has_solution and tc == LegacyTC.feasible:
            return "feasible"
        return "error"
