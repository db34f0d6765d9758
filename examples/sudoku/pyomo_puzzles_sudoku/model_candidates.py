"""Sudoku over candidates: binaries only for the digits the givens leave possible.

A formulation of this plugin, written to compare with the three-index model: the candidate
elimination a person does first (a digit cannot go where a given in the same row, column
or box has it; Simonis, "Sudoku as a constraint problem", CP 2005 workshop, calls this the
all-different's forward check) is done on the data, so the model has neither givens nor the
binaries and rows they settle. A 17-clue grid keeps about half the binaries.

Sets
    E                    empty cells;  K_e ⊆ V  the candidates of cell e (not given among its peers)
    U                    (unit, digit) pairs whose digit is not given in the unit (rows, columns, boxes)
    E_u ⊆ E              the empty cells of unit u that have u's digit as a candidate
    X = {(e, v) : e ∈ E, v ∈ K_e}
Variables
    x_ev ∈ {0, 1}        for (e, v) ∈ X: empty cell e holds digit v
Constraints
    Σ_{v ∈ K_e} x_ev = 1          for every e ∈ E      (each empty cell holds one candidate)
    Σ_{e ∈ E_u} x_{e v_u} = 1     for every u ∈ U      (each missing digit once per unit)
Objective
    none: a feasibility problem (constant objective 0).

If the elimination leaves a cell without candidates, or a missing digit without a cell,
every digit stays a candidate of every empty cell (the grid has no solution, and the solver
proves it from the same rows).
"""

from __future__ import annotations

import pyomo.environ as pyo

from pyomo_puzzles_sudoku.grid import digit as digit_of, symbol


def applies_to(spec) -> str | None:
    return None if len(spec.givens) < len(spec.cells) else "the grid has no empty cell"


def candidates(spec) -> dict[tuple[int, int], list[int]]:
    """Each empty cell's digits that no given among its peers (row, column, box) has."""
    taken = {cell: set() for cell in spec.cells}
    for cells in spec.units.values():
        given = {spec.givens[c] for c in cells if c in spec.givens}
        for cell in cells:
            taken[cell] |= given
    found = {cell: [v for v in spec.digits if v not in taken[cell]] for cell in spec.cells if cell not in spec.givens}
    if any(not digits for digits in found.values()) or _missing_digit_without_cell(spec, found):
        return {cell: list(spec.digits) for cell in found}
    return found


def _missing_digit_without_cell(spec, found) -> bool:
    return any(not _open_cells(spec, cells, digit, found) for cells, digit in _unit_digits(spec))


def _unit_digits(spec):
    for (kind, number), cells in spec.units.items():
        given = {spec.givens[c] for c in cells if c in spec.givens}
        for digit in spec.digits:
            if digit not in given:
                yield cells, digit


def _open_cells(spec, cells, digit, found) -> list[tuple[int, int]]:
    return [cell for cell in cells if digit in found.get(cell, ())]


def build_model() -> pyo.AbstractModel:
    model = pyo.AbstractModel(name="sudoku_candidates")
    model.EMPTY = pyo.Set(dimen=2, doc="E: empty cells")
    model.CANDIDATES_OF = pyo.Set(model.EMPTY, doc="K_e: the candidates of an empty cell")
    model.X = pyo.Set(dimen=3, doc="(row, column, digit) candidate pairs")
    model.UNIT_DIGITS = pyo.Set(dimen=3, doc="U: (unit kind, unit number, digit) with the digit missing")
    model.CELLS_FOR = pyo.Set(model.UNIT_DIGITS, dimen=2, doc="E_u: empty cells of the unit that take its digit")

    model.x = pyo.Var(model.X, domain=pyo.Binary, doc="empty cell holds digit")

    @model.Constraint(model.EMPTY)
    def each_empty_cell_holds_one_candidate(m, r, c):
        return sum(m.x[r, c, v] for v in m.CANDIDATES_OF[r, c]) == 1

    @model.Constraint(model.UNIT_DIGITS)
    def each_missing_digit_once_per_unit(m, kind, number, v):
        return sum(m.x[r, c, v] for r, c in m.CELLS_FOR[kind, number, v]) == 1

    model.feasibility = pyo.Objective(expr=0)
    return model


def model_data(spec) -> dict:
    found = candidates(spec)
    units = {(kind, number, digit): _open_cells(spec, cells, digit, found)
             for (kind, number), cells in spec.units.items()
             for digit in spec.digits if digit not in {spec.givens[c] for c in cells if c in spec.givens}}
    return {None: {"EMPTY": {None: list(found)}, "CANDIDATES_OF": found,
                   "X": {None: [(r, c, v) for (r, c), digits in found.items() for v in digits]},
                   "UNIT_DIGITS": {None: list(units)}, "CELLS_FOR": units}}


def decode(spec, model: pyo.ConcreteModel) -> dict:
    digit = dict(spec.givens)
    for r, c, v in model.X:
        if pyo.value(model.x[r, c, v]) > 0.5:
            digit[(r, c)] = v
    return {"grid": ["".join(symbol(digit[(r, c)]) for c in spec.digits) for r in spec.digits]}


def solution_vars(spec, model: pyo.ConcreteModel, solution: dict) -> list[list]:
    """One group per empty cell: the binary of the digit the solution puts there."""
    return [[model.x[r, c, digit_of(solution["grid"][r - 1][c - 1])]] for r, c in model.EMPTY]
