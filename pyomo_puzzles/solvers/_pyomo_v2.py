"""Reading a result of Pyomo's new solver interface (``pyomo.contrib.solver``), shared by the
adapters that use it (HiGHS persistent, SCIP, Gurobi)."""

from __future__ import annotations

from pyomo_puzzles.contract.solvers import SolveOutcome, RunSettings, finite


def solve_options(settings: RunSettings) -> dict:
    """The interface's own keywords for the common settings (threads pass through it too)."""
    options: dict = {"time_limit": settings.time_limit, "load_solutions": False,
                     "raise_exception_on_nonoptimal_result": False}
    if settings.threads:
        options["threads"] = settings.threads
    if settings.gap is not None:
        options["rel_gap"] = settings.gap
    return options


def outcome(result, label: str, solver_time: float | None = None, nodes: float | None = None) -> SolveOutcome:
    """The result in the run record's vocabulary; the solution is loaded if there is one."""
    # Pyomo: adapters are imported by `list`, which solves nothing
    from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition

    has_solution = result.solution_status in (SolutionStatus.optimal, SolutionStatus.feasible)
    if has_solution:
        result.solution_loader.load_vars()
    tc = result.termination_condition
    if tc == TerminationCondition.convergenceCriteriaSatisfied:
        status = "optimal"
    elif tc == TerminationCondition.provenInfeasible:
        status = "infeasible"
    elif tc == TerminationCondition.maxTimeLimit:
        status = "time_limit"
    elif has_solution:
        status = "feasible"
    else:
        status = "error"
    nodes = finite(nodes)
    return SolveOutcome(
        status=status, has_solution=has_solution,
        objective=finite(result.incumbent_objective) if has_solution else None,
        bound=finite(result.objective_bound),
        solver_time=solver_time,  # the solver's own clock; None where it tells none (never Pyomo's clock)
        nodes=int(nodes) if nodes is not None and nodes >= 0 else None,
        message="" if status != "error" else f"{label} stopped with {tc.name}",
    )


def extra(result, key: str):
    """A value of the result's ``extra_info`` (None if the interface did not set it)."""
    return getattr(result.extra_info, key, None)


class Session:
    """A session on one of the new interface's solvers: ``direct`` for one-off solves,
    ``persistent`` for enumeration (the interface then sends only what changed).

    Subclasses name the interfaces, the solver label, where the result keeps the solver's
    own clock and node count, and the solver's options for the settings."""

    label: str
    interfaces: tuple[str, str]  # (one-off, persistent)
    time_key: str
    node_key: str

    def __init__(self, model, settings: RunSettings, persistent: bool) -> None:
        self.model, self.settings, self.persistent = model, settings, persistent
        self._opt = None

    def solver_options(self) -> dict:
        return {}

    def solve(self) -> SolveOutcome:
        from pyomo.contrib.solver.common.factory import SolverFactory  # Pyomo: see outcome

        if self._opt is None:
            self._opt = SolverFactory(self.interfaces[self.persistent])
        result = self._opt.solve(self.model, solver_options=self.solver_options(), **solve_options(self.settings))
        return outcome(result, self.label, getattr(result.timing_info, self.time_key, None),
                       extra(result, self.node_key))
