"""HiGHS, in-process (highspy): the compiled matrix in one `passModel` call; a persistent
session keeps the model and takes new rows and bounds. Why: docs/solver_bindings.md.
"""

from __future__ import annotations

import re

import numpy as np

from pyomo_puzzles.contract.solvers import (Adapter, LinearForm, Native, Options, SolveOutcome, RunSettings, finite,
                                            register_solver, record_progress, worth_tracing)


class MatrixSession:
    """The model's matrix as one highspy model (`passModel`), kept by a persistent session."""

    def __init__(self, form: LinearForm, settings: RunSettings) -> None:
        import highspy  # highspy: not when the adapters are merely imported (listing solvers)

        self.settings, self._clock = settings, 0.0  # HiGHS's clock is cumulative over a session
        self._highs = highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        for key, value in Highs.options.native(settings).items():
            highs.setOptionValue(key, value)
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
        self._traced, self._following = worth_tracing(form), False

    def add_rows(self, rows) -> None:
        self._highs.addRows(len(rows), rows.lower, rows.upper, len(rows.index), rows.start[:-1].astype(np.int32),
                            rows.index.astype(np.int32), rows.value)

    def set_bounds(self, columns, lower, upper) -> None:
        self._highs.changeColsBounds(len(columns), np.asarray(columns, dtype=np.int32), lower, upper)

    def solve(self) -> SolveOutcome:
        highs = self._highs
        for key, value in Highs.options.native(self.settings, "time_limit").items():  # lowered between solves
            highs.setOptionValue(key, value)
        events, log = self._follow_progress() if self._traced else (None, None)
        highs.run()
        clock = highs.getRunTime()
        outcome = _matrix_outcome(highs, clock - self._clock)
        if events is not None:
            record_progress(outcome, events)
            outcome.presolved_size = presolved_size(log)
        self._clock = clock
        return outcome

    def _follow_progress(self) -> tuple[list, list]:
        """The points [seconds, incumbent, bound, nodes] HiGHS reports during the coming solve (at
        each improving solution, MIP log line and interrupt check), and its presolve log lines."""
        import highspy  # see __init__

        events: list = []
        log: list = []
        since = self._clock
        logging = int(highspy.cb.HighsCallbackType.kCallbackLogging)

        def report(kind, message, out, into, user) -> None:
            if int(kind) == logging:
                if message.startswith("Presolve"):
                    log.append(message)
                return
            events.append([out.running_time - since, out.mip_primal_bound, out.mip_dual_bound, out.mip_node_count])

        highs = self._highs
        highs.setCallback(report, None)  # before startCallback, which refuses without one
        if not self._following:
            highs.setOptionValue("output_flag", True)
            highs.setOptionValue("log_to_console", False)
            highs.startCallback(highspy.cb.HighsCallbackType.kCallbackMipImprovingSolution)
            highs.startCallback(highspy.cb.HighsCallbackType.kCallbackMipLogging)
            highs.startCallback(highspy.cb.HighsCallbackType.kCallbackMipInterrupt)
            highs.startCallback(highspy.cb.HighsCallbackType.kCallbackLogging)
            self._following = True
        return events, log


_REDUCTIONS = re.compile(r"Presolve reductions: rows (\d+)\(-?\d+\); columns (\d+)\(-?\d+\); (?:nonzeros|elements) (\d+)")


def presolved_size(log: list[str]) -> tuple[int, int, int] | None:
    """(columns, rows, nonzeros) after HiGHS's presolve, from its log; None where nothing was reduced."""
    for found in filter(None, map(_REDUCTIONS.match, log)):
        rows, columns, nonzeros = map(int, found.groups())
        return columns, rows, nonzeros
    return None


def _matrix_outcome(highs, solver_time: float) -> SolveOutcome:
    import highspy  # see MatrixSession

    status = highs.getModelStatus()
    info = highs.getInfo()
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    kinds = {highspy.HighsModelStatus.kOptimal: "optimal",
             highspy.HighsModelStatus.kInfeasible: "infeasible",
             highspy.HighsModelStatus.kTimeLimit: "time_limit"}
    state = kinds.get(status, "feasible" if has_solution else "error")
    nodes = info.mip_node_count
    return SolveOutcome(
        status=state, has_solution=has_solution,
        objective=info.objective_function_value if has_solution else None,
        bound=finite(info.mip_dual_bound) if nodes >= 0 else finite(info.objective_function_value),
        solver_time=solver_time, nodes=int(nodes) if nodes >= 0 else None,
        message="" if state != "error" else f"HiGHS stopped with {highs.modelStatusToString(status)}",
        values=np.array(highs.getSolution().col_value) if has_solution else None,
    )


@register_solver
class Highs(Adapter):
    name = "highs"
    summary = "HiGHS, in-process (highspy): one-off solves as one matrix, enumeration persistent"
    rank = 10
    options = Options(time_limit=Native("time_limit", lambda seconds: max(float(seconds), 0.0), unset=float("inf")),
                      threads=Native("threads", int), seed=Native("random_seed", int), gap=Native("mip_rel_gap", float))

    def availability(self) -> tuple[bool, str]:
        try:
            import highspy  # see MatrixSession
        except ImportError as error:  # pragma: no cover - highspy is a dependency
            return False, f"highspy cannot be imported ({error})"
        return True, "HiGHS " + highspy.Highs().version()

    def matrix_session(self, form: LinearForm, settings: RunSettings, persistent: bool = False) -> MatrixSession:
        return MatrixSession(form, settings)
