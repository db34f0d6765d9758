"""HiGHS, CBC and GLPK behind one call, with time limits, threads and uniform outcomes.

HiGHS runs in-process. A one-off solve reads the Pyomo model into one sparse matrix
(`core.linear_form` for flat linear sums, Pyomo's standard-form compiler otherwise) and
hands it to highspy in one call (several times faster than the persistent interface's
constraint-by-constraint hand-over); a persistent session
(used for enumeration) goes through Pyomo's new solver interface, which sends only what
changed (the new cuts) between solves. CBC and GLPK run as executables through Pyomo's
shell interfaces. Traps handled here (see the README's solver notes):
- CBC counts `sec` in CPU time over all threads unless `timeMode=elapsed`.
- GLPK stops at its time limit with termination `feasible` and infinite bounds.
- The solvers' own limits are soft; the hard kill past a grace period is done by
  `pyomo_puzzles.core.run`, which runs each solve in a process group it can kill.
"""

from __future__ import annotations

import atexit
import json
import logging
import math
import os
import shutil
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
from pyomo.opt import SolutionStatus as LegacySS
from pyomo.opt import TerminationCondition as LegacyTC

from pyomo_puzzles.core.linear_form import LinearForm, read_linear_form
from pyomo_puzzles.errors import SolverUnavailable, UserError

SOLVERS = ("highs", "cbc", "glpk")
PEER_SOLVERS = ("cpsat",)
"""Solvers of other kinds that take the same integer program: OR-Tools CP-SAT (via MPS, in
a process of its own). They run every formulation, as the MIP solvers do."""
ALL_SOLVERS = SOLVERS + PEER_SOLVERS
EXECUTABLES = {"cbc": "cbc", "glpk": "glpsol"}

# Solvers installed into the virtual environment (pip fallbacks) live beside python.
_VENV_BIN = str(Path(sys.executable).parent)
if _VENV_BIN not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _VENV_BIN + os.pathsep + os.environ.get("PATH", "")


@dataclass
class SolveOutcome:
    """What a solver said, in one vocabulary for all solvers."""

    status: str
    has_solution: bool
    objective: float | None
    bound: float | None
    solver_time: float
    nodes: int | None
    message: str = ""


def check_solver_name(name: str) -> str:
    if name not in ALL_SOLVERS:
        raise UserError(f"unknown solver '{name}' (choose from {', '.join(ALL_SOLVERS)})")
    return name


@lru_cache(maxsize=None)
def availability(name: str) -> tuple[bool, str]:
    """(available, version string or the reason it is not available)."""
    check_solver_name(name)
    if name == "highs":
        try:
            import highspy

            return True, "HiGHS " + highspy.Highs().version()
        except ImportError as error:  # pragma: no cover - highspy is a dependency
            return False, f"highspy cannot be imported ({error})"
    if name == "cpsat":
        import importlib.util
        from importlib.metadata import version

        if importlib.util.find_spec("ortools") is None:
            return False, "Python package 'ortools' not installed"
        return True, f"OR-Tools CP-SAT {version('ortools')}"
    executable = EXECUTABLES[name]
    if shutil.which(executable) is None:
        return False, f"executable '{executable}' not found on PATH (run 'bash bootstrap.sh setup')"
    version = pyo.SolverFactory(name).version()
    label = {"cbc": "CBC", "glpk": "GLPK"}[name]
    return True, f"{label} " + ".".join(str(v) for v in (version or ())[:3])


def require(name: str) -> str:
    """The solver's version string; raises SolverUnavailable with the reason if missing."""
    ok, detail = availability(check_solver_name(name))
    if not ok:
        raise SolverUnavailable(f"solver '{name}' is not available: {detail}")
    return detail


USABLE_SOLUTIONS = (LegacySS.optimal, LegacySS.feasible, LegacySS.bestSoFar,
                    LegacySS.globallyOptimal, LegacySS.locallyOptimal)
NO_VALUE = 1e30
"""Solvers print 1e50 or inf for 'no value'; anything this large is treated as none."""


def _finite(value) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) and abs(value) < NO_VALUE else None


def _first_use_column_order(form):
    """Columns in the order the rows first use them, as Pyomo's persistent interface adds them.

    The standard-form compiler orders columns by declaration; HiGHS's branch and bound is
    sensitive to column order, and on exact cover the first-use order is the good one (a
    6x6x6 L-tromino cube: 31 ms against 490 ms in declaration order, benchmarks/overhead.py).
    Returns (csc matrix, columns, cost) permuted alike.
    """

    matrix = form.A.tocsc()
    matrix.sort_indices()
    counts = np.diff(matrix.indptr)
    first_row = np.where(counts > 0, matrix.indices[np.minimum(matrix.indptr[:-1], max(len(matrix.indices) - 1, 0))],
                         np.iinfo(np.int64).max) if len(matrix.indices) else np.zeros(len(counts), dtype=np.int64)
    order = np.lexsort((np.arange(len(counts)), first_row))
    cost = form.c.toarray()[0] if form.c.shape[0] else np.zeros(len(counts))
    return matrix[:, order], [form.columns[i] for i in order], cost[order]


def _compiled_linear_form(model: pyo.ConcreteModel) -> LinearForm:
    """The model through Pyomo's general standard-form compiler (any linear model), with
    eliminated variables recorded; slower than `read_linear_form` on flat sums."""
    from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

    form = LinearStandardFormCompiler().write(model, mixed_form=True)
    matrix, columns, cost = _first_use_column_order(form)
    rhs = np.asarray(form.rhs, dtype=float)
    sense = np.array([s for _, s in form.rows])
    offset = float(form.c_offset[0]) if len(form.c_offset) else 0.0
    maximise = any(o.sense == pyo.maximize for o in model.component_data_objects(pyo.Objective, active=True))
    sign = -1.0 if maximise else 1.0  # the compiler turns a maximisation into a minimisation
    return LinearForm(
        columns=columns, start=matrix.indptr, index=matrix.indices, value=matrix.data,
        cost=sign * cost, offset=sign * offset, maximise=maximise,
        row_lower=np.where(sense == 1, -np.inf, rhs), row_upper=np.where(sense == -1, np.inf, rhs),
        col_lower=np.array([-np.inf if v.lb is None else v.lb for v in columns], dtype=float),
        col_upper=np.array([np.inf if v.ub is None else v.ub for v in columns], dtype=float),
        integer=np.array([v.is_integer() for v in columns], dtype=bool),
        eliminated=list(form.eliminated_vars),
    )


class _CpsatWorker:
    """The CP-SAT worker process (`core.cpsat_worker`) of this Python process.

    Started at the first CP-SAT solve and reused by the next ones: importing OR-Tools costs
    about half a second, more than most models take to solve. A process forked from this
    one starts its own worker (two processes must not share one worker's pipes). A worker
    that died is replaced at the next solve. It stops when this process closes its input,
    at the latest when this process ends; a run killed by `core.run` takes its worker along
    (same process group).
    """

    def __init__(self) -> None:
        self._process = None
        self._owner = None
        self._errors = None

    def solve(self, request: dict) -> str | None:
        """Send one request; None when the worker wrote the result, else the reason it did not."""
        process = self._running()
        try:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            reply = process.stdout.readline().strip()
        except (BrokenPipeError, OSError):
            reply = ""
        if reply == "done":
            return None
        if reply:
            return reply.removeprefix("error: ")
        process.wait()
        self._process = None
        return f"the worker died (exit code {process.returncode}): {self._last_error_line()}"

    def _running(self):
        import subprocess
        import tempfile

        if self._process is not None and self._owner == os.getpid() and self._process.poll() is None:
            return self._process
        self._errors = tempfile.TemporaryFile(mode="w+", prefix="pyomo-puzzles-cpsat-")
        self._process = subprocess.Popen(
            [sys.executable, "-m", "pyomo_puzzles.core.cpsat_worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errors, text=True)
        self._owner = os.getpid()
        atexit.register(self._stop, self._process)
        return self._process

    @staticmethod
    def _stop(process) -> None:
        """Close the worker's input (it then ends) and wait for it, briefly."""
        if process.poll() is None:
            process.stdin.close()
            try:
                process.wait(timeout=5)
            except Exception:
                process.kill()

    def _last_error_line(self) -> str:
        self._errors.seek(0)
        lines = self._errors.read().strip().splitlines()
        return lines[-1] if lines else "no message"


_CPSAT_WORKER = _CpsatWorker()


def _outcome_without_columns(form: LinearForm) -> SolveOutcome:
    """A model with no variables left: feasible exactly when every row admits 0."""
    feasible = bool(np.all(form.row_lower <= 1e-9) and np.all(form.row_upper >= -1e-9))
    if not feasible:
        return SolveOutcome("infeasible", False, None, None, 0.0, 0)
    return SolveOutcome("optimal", True, form.offset, form.offset, 0.0, 0)


class SolverSession:
    """Solves one concrete model repeatedly (constraints may be added in between)."""

    def __init__(self, name: str, model: pyo.ConcreteModel, time_limit: float | None = None,
                 threads: int | None = None, persistent: bool = False) -> None:
        self.name = check_solver_name(name)
        self.persistent = persistent
        self.version = require(name)
        self.model = model
        self.time_limit = time_limit
        self.threads = threads
        self._highs = None
        self._highs_clock = 0.0  # HiGHS's run-time clock is cumulative over a session

    def solve(self) -> SolveOutcome:
        if self.name == "highs":
            return self._solve_highs() if self.persistent else self._solve_highs_direct()
        if self.name == "cpsat":
            return self._solve_cpsat()
        return self._solve_shell()

    # OR-Tools CP-SAT: the model as MPS, solved in a worker process of its own --------------
    def _solve_cpsat(self) -> SolveOutcome:
        import tempfile

        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="pyomo-puzzles-cpsat-") as tmp:
            mps, result = os.path.join(tmp, "model.mps"), os.path.join(tmp, "result.json")
            quiet = logging.getLogger("pyomo")
            level, quiet.level = quiet.level, logging.ERROR  # "constant objective" warning of the writer
            try:
                _, symbol_map_id = self.model.write(mps, format="mps", io_options={"symbolic_solver_labels": True})
            finally:
                quiet.setLevel(level)
            symbols = self.model.solutions.symbol_map[symbol_map_id].bySymbol
            failure = _CPSAT_WORKER.solve({"mps": mps, "result": result, "time_limit": self.time_limit,
                                           "threads": self.threads or 1})
            if failure is not None or not os.path.exists(result):
                return SolveOutcome("error", False, None, None, time.perf_counter() - started, None,
                                    f"CP-SAT failed: {failure or 'no result file'}")
            with open(result, encoding="utf-8") as handle:
                answer = json.load(handle)
        has_solution = bool(answer["values"])
        for name, value in answer["values"].items():
            var = symbols.get(name)
            if var is not None:
                var.set_value(value, skip_validation=True)
        status = answer["status"]
        if status == "feasible" and self.time_limit is not None and answer["seconds"] >= 0.99 * self.time_limit:
            status = "time_limit"
        if status not in ("optimal", "feasible", "infeasible", "time_limit"):
            status = "time_limit" if self.time_limit and answer["seconds"] >= 0.99 * self.time_limit else "error"
        return SolveOutcome(status, has_solution, _finite(answer["objective"]), _finite(answer["bound"]),
                            answer["seconds"], None,
                            "" if status != "error" else f"CP-SAT stopped with {answer['status']}")

    # HiGHS, one-off: the model as one sparse matrix -> one highspy model -------------------------
    def _solve_highs_direct(self) -> SolveOutcome:
        import highspy

        form = read_linear_form(self.model) or _compiled_linear_form(self.model)
        if not form.columns:  # HiGHS calls this "Empty" and does not look at the rows
            return _outcome_without_columns(form)
        highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        if self.time_limit is not None:
            highs.setOptionValue("time_limit", float(self.time_limit))
        if self.threads:
            highs.setOptionValue("threads", int(self.threads))
        sense = highspy.ObjSense.kMaximize if form.maximise else highspy.ObjSense.kMinimize
        # the array overload of passModel: no HighsLp object to fill attribute by attribute
        passed = highs.passModel(
            len(form.columns), len(form.row_lower), len(form.index),
            int(highspy.MatrixFormat.kColwise), int(sense), form.offset,
            form.cost, form.col_lower, form.col_upper, form.row_lower, form.row_upper,
            form.start.astype(np.int32), form.index.astype(np.int32), form.value,
            form.integer.astype(np.int32))  # HighsVarType: 0 continuous, 1 integer
        if passed == highspy.HighsStatus.kError:
            raise RuntimeError("HiGHS rejected the model (passModel returned an error)")
        highs.run()
        return self._direct_outcome(highs, form)

    def _direct_outcome(self, highs, form: LinearForm) -> SolveOutcome:
        import highspy

        status = highs.getModelStatus()
        info = highs.getInfo()
        has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
        if has_solution:
            for var, value in zip(form.columns, highs.getSolution().col_value):
                var.set_value(value, skip_validation=True)
            for var, expr in form.eliminated:
                var.set_value(pyo.value(expr), skip_validation=True)
        kinds = {highspy.HighsModelStatus.kOptimal: "optimal",
                 highspy.HighsModelStatus.kInfeasible: "infeasible",
                 highspy.HighsModelStatus.kTimeLimit: "time_limit"}
        state = kinds.get(status, "feasible" if has_solution else "error")
        nodes = info.mip_node_count
        return SolveOutcome(
            status=state, has_solution=has_solution,
            objective=info.objective_function_value if has_solution else None,
            bound=_finite(info.mip_dual_bound) if nodes >= 0 else _finite(info.objective_function_value),
            solver_time=highs.getRunTime(), nodes=int(nodes) if nodes >= 0 else None,
            message="" if state != "error" else f"HiGHS stopped with {highs.modelStatusToString(status)}",
        )

    # HiGHS, in-process and persistent -------------------------------------------------
    def _solve_highs(self) -> SolveOutcome:
        from pyomo.contrib.solver.common.factory import SolverFactory
        from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition

        if self._highs is None:
            self._highs = SolverFactory("highs")
        options = {}
        if self.threads:
            options["threads"] = self.threads
        result = self._highs.solve(
            self.model, time_limit=self.time_limit, load_solutions=False,
            raise_exception_on_nonoptimal_result=False, solver_options=options,
        )
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
        highs_clock = _finite(getattr(result.timing_info, "highs_time", None))
        highs_time = None if highs_clock is None else highs_clock - self._highs_clock
        self._highs_clock = highs_clock or self._highs_clock
        nodes = _finite(getattr(result.extra_info, "mip_node_count", None))
        return SolveOutcome(
            status=status, has_solution=has_solution,
            objective=_finite(result.incumbent_objective),
            bound=_finite(result.objective_bound),
            solver_time=highs_time if highs_time is not None else float(result.timing_info.wall_time),
            nodes=int(nodes) if nodes is not None and nodes >= 0 else None,
            message="" if status != "error" else f"HiGHS stopped with {tc.name}",
        )

    # CBC and GLPK, as executables -----------------------------------------------------
    def _shell_options(self) -> dict:
        options: dict = {}
        if self.name == "cbc":
            if self.time_limit is not None:
                options.update(sec=self.time_limit, timeMode="elapsed")
            if self.threads:
                options["threads"] = self.threads
        elif self.time_limit is not None:
            options["tmlim"] = max(1, math.ceil(self.time_limit))
        return options

    def _solve_shell(self) -> SolveOutcome:
        opt = pyo.SolverFactory(self.name)
        opt.options.update(self._shell_options())
        started = time.perf_counter()
        try:
            # Pyomo's own `timelimit` argument is not used: it is passed on to the solver
            # as well (GLPK rejects a fractional --tmlim); the hard kill is `run`'s job.
            results = opt.solve(self.model, load_solutions=False)
        except Exception as error:  # a solver crash must still leave a record
            return SolveOutcome("error", False, None, None, time.perf_counter() - started, None,
                                f"{self.name} failed: {str(error).splitlines()[0] if str(error) else type(error).__name__}")
        elapsed = time.perf_counter() - started
        # CBC stopped early without an incumbent still returns a "solution" (status
        # 'other', objective 1e50): only solutions that claim feasibility count.
        claimed = results.solution[0].status if len(results.solution) else None
        has_solution = claimed in USABLE_SOLUTIONS or (
            claimed == LegacySS.stoppedByLimit and _finite(results.problem.upper_bound) is not None)
        if has_solution:
            self.model.solutions.load_from(results)
        tc = results.solver.termination_condition
        status = self._legacy_status(tc, has_solution, elapsed)
        incumbent = _finite(results.problem.upper_bound)
        bound = _finite(results.problem.lower_bound)
        if self._is_maximise():
            incumbent, bound = _finite(results.problem.lower_bound), _finite(results.problem.upper_bound)
        if not has_solution:
            incumbent = None
        nodes = None
        if self.name == "cbc":
            raw = results.solver.statistics.branch_and_bound.number_of_bounded_subproblems
            nodes = int(raw) if _finite(raw) is not None else None
        solver_time = _finite(getattr(results.solver, "wallclock_time", None)) or elapsed
        return SolveOutcome(status, has_solution, incumbent, bound, solver_time, nodes,
                            "" if status != "error" else f"{self.name} stopped with {tc}")

    def _legacy_status(self, tc, has_solution: bool, elapsed: float) -> str:
        if tc == LegacyTC.optimal:
            return "optimal"
        if tc in (LegacyTC.infeasible, LegacyTC.invalidProblem):
            return "infeasible"
        if tc in (LegacyTC.maxTimeLimit, LegacyTC.maxIterations, LegacyTC.maxEvaluations):
            return "time_limit"
        reached_limit = self.time_limit is not None and elapsed >= 0.95 * self.time_limit
        if reached_limit:
            return "time_limit"  # GLPK reports 'feasible' when its time limit stops it
        if has_solution and tc == LegacyTC.feasible:
            return "feasible"
        return "error"

    def _is_maximise(self) -> bool:
        objectives = list(self.model.component_data_objects(pyo.Objective, active=True))
        return bool(objectives) and objectives[0].sense == pyo.maximize
