"""Helpers for a family's pictures (part of the public contract, `docs/contract.md`): a
figure with its own canvas, and the framework's colour-blind-safe colours. Importing this
module imports matplotlib's colour module."""

from pyomo_puzzles.core.drawing import new_figure
from pyomo_puzzles.core.palette import colour_of, palette

__all__ = ["colour_of", "new_figure", "palette"]
