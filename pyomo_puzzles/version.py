"""The version of pyomo-puzzles: one string, read by the package metadata (pyproject.toml)
and written into every run record. A module of its own, at the bottom of the layers, so
that any module may name the version without importing the package's top level."""

__version__ = "0.1.0"
