"""Helpers for writing formulations (part of the public contract, `docs/contract.md`):
linear sums Pyomo builds in one step, and the symmetries of boards and boxes."""

from pyomo_puzzles.core.expressions import difference, sum_over, total
from pyomo_puzzles.core.symmetry import AxisMap, Cell, axis_maps, box_symmetries

__all__ = ["AxisMap", "Cell", "axis_maps", "box_symmetries", "difference", "sum_over", "total"]
