"""The solver adapter contract (part of the public contract, `docs/contract.md`; the rules
are in the docstring of `pyomo_puzzles.core.solver_contract`). A solver adapter, shipped or a plugin
of the entry-point group ``pyomo_puzzles.solvers``, imports from here::

    from pyomo_puzzles.contract.solvers import Adapter, Options, SolveOutcome, register_solver

and, for an adapter that hands the compiled matrix to a library, the shared rules of that
hand-over and of binding a C library (`pyomo_puzzles.core.binding`), and `running` (whether a
helper process it started still runs).
"""

from pyomo_puzzles.core.binding import (UntestedVersion, by_rows, c_pointer, check_form, check_rows, clipped, declare,
                                        first_line, library_availability, missing_package, quiet_stdout, ran_to_limit,
                                        require_tested, row_senses, time_left, timed, without_objective)
from pyomo_puzzles.core.linear_form import LinearForm, Rows, linear_form, load_values
from pyomo_puzzles.core.processes import running
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

__all__ = ["ENTRY_POINT_GROUP", "SOLVER_STATUSES", "Adapter", "Kept", "LinearForm", "Native", "Options", "RunSettings",
           "SolveOutcome", "Rows", "SolverSettings", "SolverUnavailable", "UntestedVersion", "UserError", "by_rows",
           "c_pointer", "check_form", "check_rows", "clipped", "declare", "finite", "first_line", "library_availability",
           "linear_form", "load_values", "missing_package", "outcome_without_columns", "quiet_stdout", "ran_to_limit",
           "record_progress", "register_solver", "register_solver_prefix", "relative_gap", "require_tested",
           "root_bound", "row_senses", "running", "time_left", "timed", "without_objective", "worth_tracing"]
