"""The shipped solver adapters, one module per solver, written as plugins are: each imports
only `pyomo_puzzles.contract.solvers` and registers itself with `register_solver` (the
contract is written down in `pyomo_puzzles.core.solver_contract`); pyproject.toml declares each in
the entry-point group ``pyomo_puzzles.solvers``. Modules whose names start with an
underscore are helpers shared by several adapters."""
