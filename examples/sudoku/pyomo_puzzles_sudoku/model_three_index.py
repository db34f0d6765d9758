"""The classic Sudoku integer program: one binary per cell and digit.

Bartlett, Chartier, Langville and Rankin, "An integer programming model for the Sudoku
problem", Journal of Online Mathematics and its Applications 8 (2008); the same model is the
Sudoku example of the Pyomo book (Hart et al., Pyomo — Optimization Modeling in Python).

Sets
    R = C = V = {1, ..., n}        rows, columns, digits (n = b², b the box side)
    B = {1, ..., n}                boxes;  CELLS_IN_b ⊆ R × C  the cells of box b
    G ⊆ R × C × V                  the givens
Variables
    y_rcv ∈ {0, 1}                 cell (r, c) holds digit v
Constraints
    Σ_v y_rcv = 1                  for every cell (r, c)        (each cell holds one digit)
    Σ_c y_rcv = 1                  for every row r, digit v     (each digit once per row)
    Σ_r y_rcv = 1                  for every column c, digit v  (each digit once per column)
    Σ_{(r,c) ∈ CELLS_IN_b} y_rcv = 1   for every box b, digit v (each digit once per box)
    y_rcv = 1                      for every (r, c, v) ∈ G      (the givens)
Objective
    none: a feasibility problem (constant objective 0).
"""

from __future__ import annotations

import pyomo.environ as pyo

from pyomo_puzzles_sudoku.grid import digit as digit_of, symbol


def build_model() -> pyo.AbstractModel:
    model = pyo.AbstractModel(name="sudoku_three_index")
    model.ROWS = pyo.Set(doc="rows")
    model.COLUMNS = pyo.Set(doc="columns")
    model.DIGITS = pyo.Set(doc="digits")
    model.BOXES = pyo.Set(doc="boxes")
    model.CELLS_IN = pyo.Set(model.BOXES, dimen=2, doc="the cells of a box")
    model.GIVENS = pyo.Set(dimen=3, doc="(row, column, digit) given")

    model.y = pyo.Var(model.ROWS, model.COLUMNS, model.DIGITS, domain=pyo.Binary, doc="cell holds digit")

    @model.Constraint(model.ROWS, model.COLUMNS)
    def each_cell_holds_one_digit(m, r, c):
        return sum(m.y[r, c, v] for v in m.DIGITS) == 1

    @model.Constraint(model.ROWS, model.DIGITS)
    def each_digit_once_per_row(m, r, v):
        return sum(m.y[r, c, v] for c in m.COLUMNS) == 1

    @model.Constraint(model.COLUMNS, model.DIGITS)
    def each_digit_once_per_column(m, c, v):
        return sum(m.y[r, c, v] for r in m.ROWS) == 1

    @model.Constraint(model.BOXES, model.DIGITS)
    def each_digit_once_per_box(m, b, v):
        return sum(m.y[r, c, v] for r, c in m.CELLS_IN[b]) == 1

    @model.Constraint(model.GIVENS)
    def givens_stay(m, r, c, v):
        return m.y[r, c, v] == 1

    model.feasibility = pyo.Objective(expr=0)
    return model


def model_data(spec) -> dict:
    digits = list(spec.digits)
    boxes = {b: [cell for cell in spec.cells if spec.box_of(cell) == b] for b in digits}
    return {None: {"ROWS": {None: digits}, "COLUMNS": {None: digits}, "DIGITS": {None: digits},
                   "BOXES": {None: digits}, "CELLS_IN": boxes,
                   "GIVENS": {None: [(r, c, v) for (r, c), v in spec.givens.items()]}}}


def decode(spec, model: pyo.ConcreteModel) -> dict:
    return {"grid": ["".join(symbol(next(v for v in model.DIGITS if pyo.value(model.y[r, c, v]) > 0.5))
                             for c in model.COLUMNS) for r in model.ROWS]}


def solution_vars(spec, model: pyo.ConcreteModel, solution: dict) -> list[list]:
    """One group per empty cell: the binary of the digit the solution puts there."""
    return [[model.y[r, c, digit_of(solution["grid"][r - 1][c - 1])]] for r, c in spec.cells if (r, c) not in spec.givens]
