"""Any other solver Pyomo knows, by name: ``--solver pyomo:NAME`` (e.g. ``pyomo:xpress_direct``).

Uses only what Pyomo's classic interface reports (termination condition, bounds, the
solution); no solver option is passed, since option names differ from solver to solver: the
time limit is enforced by the framework's hard kill, and threads, seed and gap are the
solver's defaults. `list` marks such solvers as generic.
"""

from __future__ import annotations

from pyomo_puzzles.contract.solvers import Adapter, Options, RunSettings, UserError, register_solver_prefix
from pyomo_puzzles.solvers._legacy import LegacySession


class PyomoSolver(Adapter):
    kind = "mip"
    rank = 1000
    options = Options(time_limit=None, threads=None, seed=None, gap=None,
                      notes="generic: no option passed; the time limit is the framework's hard kill")

    def __init__(self, solver: str) -> None:
        import pyomo.environ as pyo  # Pyomo: adapters are imported by `list`, which solves nothing

        if solver not in pyo.SolverFactory:
            raise UserError(f"unknown solver 'pyomo:{solver}': Pyomo has no solver named {solver!r}")
        self.solver = solver
        self.name = f"pyomo:{solver}"
        self.summary = f"Pyomo's {solver} interface (generic adapter)"

    def availability(self) -> tuple[bool, str]:
        import pyomo.environ as pyo  # Pyomo: see __init__

        opt = pyo.SolverFactory(self.solver)
        try:
            available = opt.available(exception_flag=False)
        except Exception as error:  # noqa: BLE001 - some interfaces raise instead of answering
            return False, f"Pyomo's {self.solver} interface says: {str(error).splitlines()[0]}"
        if not available:
            return False, f"Pyomo's {self.solver} interface reports the solver as not available"
        version = opt.version() or ()
        return True, f"{self.solver} " + ".".join(map(str, version)) + " (generic)"

    @property
    def executable(self) -> str | None:
        """The program Pyomo's interface runs (``glpsol`` for ``pyomo:glpk``; None for an
        in-process interface), for the results folder's environment record."""
        import pyomo.environ as pyo  # Pyomo: see __init__

        find = getattr(pyo.SolverFactory(self.solver), "executable", None)
        try:
            return find() if callable(find) else None
        except Exception:  # noqa: BLE001 - an interface that cannot say names none
            return None

    def session(self, model, settings: RunSettings, persistent: bool = False) -> LegacySession:
        return LegacySession(self.name, self.solver, model, settings, lambda _: {})


register_solver_prefix("pyomo", PyomoSolver)
