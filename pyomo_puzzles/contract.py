"""The public contract a puzzle family is written against (described in `docs/contract.md`).

A plugin imports from here, never from `pyomo_puzzles.core`::

    from pyomo_puzzles.contract import DataError, Family, Formulation, register

and makes its `Family` known either by calling `register` when its module is imported, or
by exposing the `Family` object, through the entry-point group ``pyomo_puzzles.families``
of its distribution (see `pyomo-puzzles new-family`).
"""

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

__all__ = ["DataError", "ENTRY_POINT_GROUP", "Family", "Formulation", "PluginError", "ReferenceSolver",
           "Solution", "Stage", "UserError", "contract_problems", "register"]
