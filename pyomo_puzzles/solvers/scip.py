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

    def session(self, model, settings: RunSettings, persistent: bool = False) -> ScipSession:
        return ScipSession(model, settings, persistent)
