"""Sudoku as an exact cover (Knuth, "Dancing Links", 2000): an option per cell and digit the
givens allow; items: each cell filled, each digit once in each row, column and box. Through
`pyomo_puzzles.contract.exact_cover` the family gets dancing links (``-s dlx``) to solve and
count with."""

from __future__ import annotations

from pyomo_puzzles_sudoku.grid import SYMBOLS, SudokuSpec


def options(spec: SudokuSpec) -> dict[tuple[int, int, int], list[tuple]]:
    """(row, column, digit) -> the items it covers; a given cell offers its given digit only."""
    return {(r, c, d): [("cell", r, c), ("row", r, d), ("column", c, d), ("box", spec.box_of((r, c)), d)]
            for r, c in spec.cells for d in ([spec.givens[(r, c)]] if (r, c) in spec.givens else spec.digits)}


def decode(spec: SudokuSpec, chosen: list[tuple[int, int, int]]) -> dict:
    value = {(r, c): d for r, c, d in chosen}
    return {"grid": ["".join(SYMBOLS[value[(r, c)] - 1] for c in spec.digits) for r in spec.digits]}
