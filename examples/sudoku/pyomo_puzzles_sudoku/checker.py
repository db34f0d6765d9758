"""The independent checker (plain Python, no solver, no model code) and the corruptions the
conformance kit tries on a solution.

The checker assumes nothing about `solution`: it returns what is wrong, empty when valid."""

from __future__ import annotations

import copy

from pyomo_puzzles_sudoku.grid import SYMBOLS


def _shape_problem(spec, solution) -> str | None:
    if not isinstance(solution, dict) or not isinstance(solution.get("grid"), list):
        return "solution must be a mapping with a list 'grid' of rows"
    rows = solution["grid"]
    if len(rows) != spec.n:
        return f"the grid has {len(rows)} rows, not {spec.n}"
    digits = set(SYMBOLS[:spec.n])
    for r, row in enumerate(rows, start=1):
        if not isinstance(row, str) or len(row) != spec.n or not set(row) <= digits:
            return f"row {r} is not {spec.n} digits from 1 to {spec.n}"
    return None


def check(spec, solution) -> list[str]:
    problem = _shape_problem(spec, solution)
    if problem:
        return [problem]
    value = {(r, c): SYMBOLS.index(solution["grid"][r - 1][c - 1]) + 1 for r, c in spec.cells}
    errors = [f"cell ({r}, {c}) holds {value[(r, c)]}, the given is {v}"
              for (r, c), v in spec.givens.items() if value[(r, c)] != v]
    for (kind, number), cells in spec.units.items():
        held = sorted(value[cell] for cell in cells)
        if held != list(spec.digits):
            errors.append(f"{kind} {number} does not hold each digit once: {''.join(SYMBOLS[v - 1] for v in held)}")
    return errors


def corruptions(spec, solution: dict) -> dict[str, dict]:
    """A valid solution made wrong three ways: two open cells of a row swapped ("moved": the
    row stays a permutation, two columns break), an open cell emptied ("dropped"), and an
    open cell given its neighbour's digit ("duplicated")."""
    rows = solution["grid"]
    open_row = next(r for r in spec.digits if sum((r, c) not in spec.givens for c in spec.digits) >= 2)
    first, second = [c for c in spec.digits if (open_row, c) not in spec.givens][:2]

    def edited(change) -> dict:
        grid = [list(row) for row in rows]
        change(grid[open_row - 1])
        return {**copy.deepcopy(solution), "grid": ["".join(row) for row in grid]}

    def swap(row):
        row[first - 1], row[second - 1] = row[second - 1], row[first - 1]

    def empty(row):
        row[first - 1] = "."

    def duplicate(row):
        row[first - 1] = row[second - 1]

    return {"moved": edited(swap), "dropped": edited(empty), "duplicated": edited(duplicate)}
