"""The loader: a validated data file to a `SudokuSpec` (grid size, givens, units)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from pyomo_puzzles.contract import DataError

Cell = tuple[int, int]
SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZa"  # digits 1-9, then A = 10 ... Z = 35, a = 36 (up to 36x36)
EMPTY = ".0"


def symbol(digit: int) -> str:
    return SYMBOLS[digit - 1]


def digit(char: str) -> int:
    return SYMBOLS.index(char) + 1


@dataclass(frozen=True)
class SudokuSpec:
    """An n x n grid (n = box^2) with its givens: (row, column) -> digit, rows and columns from 1."""

    box: int
    givens: dict[Cell, int]

    @property
    def n(self) -> int:
        return self.box * self.box

    @property
    def digits(self) -> range:
        return range(1, self.n + 1)

    @property
    def cells(self) -> list[Cell]:
        return [(r, c) for r in self.digits for c in self.digits]

    def box_of(self, cell: Cell) -> int:
        r, c = cell
        return (r - 1) // self.box * self.box + (c - 1) // self.box + 1

    @cached_property
    def units(self) -> dict[tuple[str, int], list[Cell]]:
        """Every row, column and box by (kind, number), with its cells."""
        units: dict[tuple[str, int], list[Cell]] = {}
        for cell in self.cells:
            for key in (("row", cell[0]), ("column", cell[1]), ("box", self.box_of(cell))):
                units.setdefault(key, []).append(cell)
        return units


def load(data: dict, path: Path) -> SudokuSpec:
    """The schema checked the types; here the sizes and digits, which depend on `box`."""
    box = data.get("box", 3)
    n = box * box
    rows = data["grid"]
    if len(rows) != n:
        raise DataError(path, "grid", f"has {len(rows)} rows; a grid with box {box} has {n}")
    givens = {}
    for r, row in enumerate(rows, start=1):
        if len(row) != n:
            raise DataError(path, f"grid[{r - 1}]", f"has {len(row)} cells, not {n}")
        for c, char in enumerate(row, start=1):
            if char in EMPTY:
                continue
            if char not in SYMBOLS[:n]:
                raise DataError(path, f"grid[{r - 1}]", f"digit {char} is not one of {SYMBOLS[:n]} (box {box})")
            givens[(r, c)] = digit(char)
    spec = SudokuSpec(box, givens)
    for (kind, number), cells in spec.units.items():
        seen: dict[int, Cell] = {}
        for cell in cells:
            given = givens.get(cell)
            if given in seen:
                raise DataError(path, f"grid[{cell[0] - 1}]", f"digit {symbol(given)} is given twice in {kind} {number}")
            if given is not None:
                seen[given] = cell
    return spec
