"""IBM CPLEX, in-process through ``cplex`` (optional extra ``[cplex]``): the compiled matrix in
one `copylp` call into a kept problem; a persistent session adds rows and changes bounds on
a problem of its own. Why, and CPLEX's traps (bounds of optimal solves, the Community
Edition's size limit): docs/solver_bindings.md.
"""

from __future__ import annotations

import functools
import time
import weakref

import numpy as np

from pyomo_puzzles.contract.solvers import (Adapter, Kept, LinearForm, Native, Options, RunSettings, SolveOutcome,
                                            clipped, finite, first_line, missing_package, quiet_stdout, record_progress,
                                            register_solver, row_senses, time_left, without_objective, worth_tracing)


def licence_message(error: BaseException) -> str | None:
    text = first_line(error)
    return f"CPLEX: {text}" if "1016" in text or "Community Edition" in text else None


def _rows(lower, upper) -> tuple[str, list, list]:
    """CPLEX's senses, right-hand sides and ranges (`row_senses`: its letters are CPLEX's)."""
    import cplex  # cplex: only where CPLEX solves (adapters are imported by `list`)

    sense, rhs, spans = row_senses(lower, upper, cplex.infinity)
    return "".join(sense.tolist()), rhs.tolist(), spans.tolist()


def silent_problem():
    """A CPLEX problem with every output stream off (its banner quieted too)."""
    import cplex  # see _rows

    with quiet_stdout():
        problem = cplex.Cplex()
    for stream in (problem.set_log_stream, problem.set_results_stream, problem.set_warning_stream,
                   problem.set_error_stream):
        stream(None)
    return problem


PROBLEMS = Kept(silent_problem, survives_fork=False, end=lambda problem: problem.end())
"""CPLEX problems a one-off session is done with, kept for the next one: making one was most
of a small model's hand-over. A forked run makes its own (its environment has threads)."""


def _take():
    """A kept problem, reset to an LP (no integrality, no MIP start), or a new one."""
    problem = PROBLEMS.take()
    problem.set_problem_type(problem.problem_type.LP)  # drops the old integrality and MIP starts
    return problem


def _give_back(problem) -> None:
    """Keep `problem` for the next one-off session, its parameters reset (else end it)."""
    try:
        problem.parameters.reset()
    except Exception:  # noqa: BLE001 - a broken problem is not reused
        problem.end()
        return
    PROBLEMS.give_back(problem)


def _apply(problem, parameters: dict) -> None:
    """Set CPLEX's parameters by their paths (``mip.tolerances.mipgap``)."""
    for path, value in parameters.items():
        functools.reduce(getattr, path.split("."), problem.parameters).set(value)


class MatrixSession:
    """The model's matrix in one CPLEX problem by one `copylp` call (a kept one for a one-off session;
    a persistent session's own takes rows and bounds). Error 1016 is ``licence_limit``."""

    def __init__(self, form, settings: RunSettings, persistent: bool = False) -> None:
        import cplex  # see _rows

        self.settings = settings
        self._problem = problem = silent_problem() if persistent else _take()
        # a persistent session's problem ended with it, and at exit while CPLEX's module still stands
        weakref.finalize(self, problem.end if persistent else functools.partial(_give_back, problem))
        big = cplex.infinity
        senses, rhs, spans = _rows(form.row_lower, form.row_upper)
        problem.copylp(len(form.columns), len(rhs),
                       problem.objective.sense.maximize if form.maximise else problem.objective.sense.minimize,
                       form.cost.tolist(), rhs, senses, form.start[:-1].tolist(), np.diff(form.start).tolist(),
                       form.index.tolist(), form.value.tolist(), clipped(form.col_lower, big).tolist(),
                       clipped(form.col_upper, big).tolist(), spans)
        integer = np.flatnonzero(form.integer).tolist()
        if integer:
            problem.variables.set_types(zip(integer, "I" * len(integer)))
        problem.objective.set_offset(float(form.offset))  # a kept problem's last offset replaced too
        _apply(problem, Cplex.options.native(settings))
        self._traced = worth_tracing(form)

    def add_rows(self, rows) -> None:
        senses, rhs, spans = _rows(rows.lower, rows.upper)
        starts, index, value = rows.start.tolist(), rows.index.tolist(), rows.value.tolist()
        expressions = [[index[a:b], value[a:b]] for a, b in zip(starts, starts[1:])]
        self._problem.linear_constraints.add(lin_expr=expressions, senses=senses, rhs=rhs, range_values=spans)

    def set_bounds(self, columns, lower, upper) -> None:
        import cplex  # see _rows

        columns = np.asarray(columns).tolist()
        variables, big = self._problem.variables, cplex.infinity
        variables.set_lower_bounds(zip(columns, clipped(lower, big).tolist()))
        variables.set_upper_bounds(zip(columns, clipped(upper, big).tolist()))

    def solve(self) -> SolveOutcome:
        import cplex  # see _rows

        problem = self._problem
        _apply(problem, Cplex.options.native(self.settings, "time_limit"))  # lowered between solves
        started = problem.get_time()
        events: list | None = [] if self._traced else None
        if events is not None:
            problem.set_callback(_ProgressCallback(events), cplex.callbacks.Context.id.global_progress)
        try:
            problem.solve()
            codes = problem.solution.status
            if problem.solution.get_status() in (codes.MIP_infeasible_or_unbounded, codes.infeasible_or_unbounded):
                # presolve's verdict: ask which, once, with primal reductions only, in the time left
                reduce = problem.parameters.preprocessing.reduce
                reduce.set(1)
                _apply(problem, Cplex.options.native(time_left(self.settings, problem.get_time() - started),
                                                     "time_limit"))
                problem.solve()
                reduce.reset()
        except cplex.exceptions.CplexError as error:
            message = licence_message(error)
            if message is None:
                raise
            return SolveOutcome("licence_limit", False, None, None, None, None, message)
        finally:
            if events is not None:
                problem.set_callback()  # the session's next solve starts without it
        outcome = _matrix_outcome(problem, problem.get_time() - started)
        if events:
            record_progress(outcome, events)
        return outcome


class _ProgressCallback:
    """CPLEX's generic callback in its global-progress context: ``[seconds, incumbent, bound,
    nodes]`` whenever one moves, seconds on Python's clock from the call's start."""

    def __init__(self, events: list) -> None:
        self.events, self._clock, self._start = events, time.perf_counter, time.perf_counter()

    def invoke(self, context) -> None:
        import cplex  # see _rows

        info = cplex.callbacks.Context.info
        incumbent = context.get_double_info(info.best_solution) if context.get_int_info(info.feasible) else None
        self.events.append([self._clock() - self._start, finite(incumbent),
                            finite(context.get_double_info(info.best_bound)), int(context.get_long_info(info.node_count))])


def _matrix_outcome(problem, solver_time: float) -> SolveOutcome:
    solution = problem.solution
    codes = solution.status
    status = solution.get_status()
    kinds = {codes.MIP_optimal: "optimal", codes.optimal_tolerance: "optimal", codes.optimal: "optimal",
             codes.MIP_infeasible: "infeasible", codes.infeasible: "infeasible",
             codes.MIP_time_limit_feasible: "time_limit", codes.MIP_time_limit_infeasible: "time_limit",
             codes.abort_time_limit: "time_limit"}
    has_solution = solution.is_primal_feasible()
    state = kinds.get(status, "feasible" if has_solution else "error")
    mip = problem.get_problem_type() != problem.problem_type.LP
    objective = finite(solution.get_objective_value()) if has_solution else None
    if mip:
        bound = finite(solution.MIP.get_best_objective()) if state != "infeasible" else None
        if state == "optimal" and objective is not None:
            bound = _proven_bound(problem, objective, bound)
    else:
        bound = finite(solution.get_objective_value()) if state == "optimal" else None
    return SolveOutcome(
        status=state, has_solution=has_solution, objective=objective, bound=bound, solver_time=solver_time,
        nodes=int(solution.progress.get_num_nodes_processed()) if mip else None,
        message="" if state != "error" else f"CPLEX stopped with {solution.get_status_string()}",
        values=np.array(solution.get_values()) if has_solution else None)


def _proven_bound(problem, objective: float, reported: float | None) -> float:
    """The final bound of a solve CPLEX ended optimal: its reported best bound where that is
    within its gap tolerances of the objective, else the objective its optimality proves."""
    tolerances = problem.parameters.mip.tolerances
    allowed = max(tolerances.mipgap.get() * (1e-10 + abs(objective)), tolerances.absmipgap.get())
    if reported is not None and abs(objective - reported) <= allowed:
        return reported
    return objective


def _populated(solution) -> tuple[str, str]:
    """How CPLEX's populate ended, in the enumeration's words."""
    codes, status = solution.status, solution.get_status()
    if status in (codes.optimal_populated, codes.optimal_populated_tolerance, codes.MIP_infeasible):
        return "complete", ""
    if status in (codes.MIP_time_limit_feasible, codes.MIP_time_limit_infeasible):
        return "time_limit", ""
    return "error", f"CPLEX's populate stopped: {solution.get_status_string()}"


@register_solver
class Cplex(Adapter):
    name = "cplex"
    summary = "IBM CPLEX, in-process (cplex; optional extra [cplex])"
    rank = 60
    options = Options(time_limit=Native("timelimit", lambda seconds: max(float(seconds), 0.0), unset=1e75),  # its largest
                      threads=Native("threads", int, unset=0), seed=Native("randomseed", int),
                      gap=Native("mip.tolerances.mipgap", float),
                      notes="Community Edition: at most 1,000 variables and constraints")

    def availability(self) -> tuple[bool, str]:
        if missing := missing_package("cplex", "pip install 'pyomo-puzzles[cplex]'"):
            return False, missing
        import cplex  # cplex: only when asked whether CPLEX is available

        with quiet_stdout():
            version = cplex.Cplex().get_version()
        return True, f"CPLEX {version}"

    enumeration = "populate (solution pool, intensity 4: every solution)"

    def enumerate(self, form, settings: RunSettings, found) -> tuple[str, str]:
        """CPLEX's populate on `form` (no objective); the pool's points go to `found` once it has ended."""
        import cplex  # cplex: see availability

        session = MatrixSession(without_objective(form), settings,
                                persistent=True)
        problem = session._problem
        try:
            parameters = problem.parameters
            parameters.mip.pool.intensity.set(4)
            parameters.mip.limits.populate.set(2_100_000_000)
            parameters.mip.pool.capacity.set(2_100_000_000)
            with quiet_stdout():
                problem.populate_solution_pool()
                if problem.solution.get_status() == problem.solution.status.MIP_optimal:
                    # presolve solved it all: populate then does not say it enumerated everything
                    parameters.preprocessing.presolve.set(0)
                    problem.populate_solution_pool()
            for number in range(problem.solution.pool.get_num()):
                if not found(problem.solution.pool.get_values(number)):
                    return "stopped", ""
            return _populated(problem.solution)
        except cplex.exceptions.CplexError as error:
            message = licence_message(error)
            return ("licence_limit", message) if message else ("error", f"CPLEX: {first_line(error)}")
        finally:
            problem.end()

    def matrix_session(self, form: LinearForm, settings: RunSettings, persistent: bool = False) -> MatrixSession:
        return MatrixSession(form, settings, persistent)
