"""The shipped solver adapters, one module per solver; each registers itself with
`pyomo_puzzles.core.solvers.register` (the contract is written down in that module).
Modules whose names start with an underscore are helpers shared by several adapters."""
