"""The solver adapter contract (part of the public contract, `docs/contract.md`; the rules
are in the docstring of `pyomo_puzzles.core.solver_contract`). A solver adapter, shipped or a plugin
of the entry-point group ``pyomo_puzzles.solvers``, imports from here::

    from pyomo_puzzles.contract.solvers import Adapter, Options, SolveOutcome, register_solver
"""

from pyomo_puzzles.core.linear_form import LinearForm, Rows, linear_form, load_values
from pyomo_puzzles.core.records import SOLVER_STATUSES, RunSettings
from pyomo_puzzles.core.solver_contract import (
    ENTRY_POINT_GROUP,
    Adapter,
    Kept,
    Native,
    Options,
    SolveOutcome,
    SolverSettings,
    finite,
    outcome_without_columns,
    record_progress,
    relative_gap,
    root_bound,
    worth_tracing,
)
from pyomo_puzzles.core.solvers import register as register_solver
from pyomo_puzzles.core.solvers import register_prefix as register_solver_prefix
from pyomo_puzzles.errors import SolverUnavailable, UserError

__all__ = ["ENTRY_POINT_GROUP", "SOLVER_STATUSES", "Adapter", "Kept", "LinearForm", "Native", "Options", "RunSettings", "SolveOutcome",
           "Rows", "SolverSettings", "SolverUnavailable", "UserError", "finite", "linear_form", "load_values",
           "outcome_without_columns", "record_progress", "register_solver", "register_solver_prefix", "relative_gap",
           "root_bound", "worth_tracing"]
