"""pyomo-puzzles: combinatorial puzzles as integer programs, solved and checked.

The Python API (`pyomo_puzzles.api`) is available from the package itself:
``import pyomo_puzzles as pp; pp.solve("packing/l_tromino_cube")``. It is imported when first
used, so ``import pyomo_puzzles`` stays cheap.
"""

from pyomo_puzzles.version import __version__

API = ("load", "from_data", "solve", "count", "check", "picture", "results", "model_statistics", "list_families",
       "list_instances", "list_solvers")
__all__ = ["__version__", *API]


def __getattr__(name: str):
    if name in API:
        from pyomo_puzzles import api  # on first use: `import pyomo_puzzles` alone stays cheap

        return getattr(api, name)
    raise AttributeError(f"module 'pyomo_puzzles' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API])
