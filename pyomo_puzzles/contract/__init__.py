"""The public contract a puzzle family (or a solver) is written against, described in
`docs/contract.md`. A plugin, and every shipped family and solver adapter, imports from here
(and from `pyomo_puzzles.api`), never from `pyomo_puzzles.core`::

    from pyomo_puzzles.contract import DataError, Family, Formulation, register

and makes its `Family` known either by calling `register` when its module is imported, or
by exposing the `Family` object, through the entry-point group ``pyomo_puzzles.families``
of its distribution (see `pyomo-puzzles new-family`).

The helpers families use are here too, in three modules so that each costs only what it
needs: `pyomo_puzzles.contract.modelling` (Pyomo expressions, cell symmetries),
`pyomo_puzzles.contract.pictures` (figures and colours, matplotlib) and
`pyomo_puzzles.contract.solvers` (the solver adapter contract); and
`pyomo_puzzles.contract.exact_cover`: dancing links as a family's reference method, for a
puzzle that is an exact cover (it solves and counts).
"""

from pyomo_puzzles.core.cache import arrays as cached_arrays
from pyomo_puzzles.core.checking import attach_checked_solution, check_solution
from pyomo_puzzles.core.instances import Instance, merge_base
from pyomo_puzzles.core.processes import cpu_seconds
from pyomo_puzzles.core.records import RunRecord, RunSettings, new_record
from pyomo_puzzles.core.registry import (
    ENTRY_POINT_GROUP,
    Family,
    Formulation,
    PluginError,
    ReferenceSolver,
    Solution,
    Stage,
    contract_problems,
    register,
)
from pyomo_puzzles.errors import DataError, UserError

__all__ = ["DataError", "ENTRY_POINT_GROUP", "Family", "Formulation", "Instance", "PluginError", "ReferenceSolver",
           "RunRecord", "RunSettings", "Solution", "Stage", "UserError", "attach_checked_solution",
           "cached_arrays", "check_solution", "contract_problems", "cpu_seconds", "merge_base", "new_record", "register"]
