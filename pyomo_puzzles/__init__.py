"""pyomo-puzzles: combinatorial puzzles as integer programs, solved and checked."""

__version__ = "0.1.0"
