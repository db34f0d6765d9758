"""The published zero-one model of the L-tromino cube, translated faithfully.

Source: A. Furmanek, "ILP Part 16 - Solving cube riddle" (blog series "ILP", 2015):
nine identical L-shaped elements of three unit cubes ("pieces") fill a 3x3x3 cube.

Sets
    E          elements (the identical L-trominoes), k = 1..9
    C          cells (x, y, z) of the box
    A          unordered pairs {c, d} of face-adjacent cells;  A_c  pairs containing c
    L          axis-parallel lines of cells through the box (along x, along y, along z)
Variables
    P[k,c] ∈ {0,1}        element k has a piece at cell c
    B[k,c,d] ∈ {0,1}      conjunction P[k,c] ∧ P[k,d] for {c, d} ∈ A, linearised as in
                          the series' Part 1 (Boolean algebra):
                          B ≤ P[k,c],  B ≤ P[k,d],  B ≥ P[k,c] + P[k,d] - 1
Constraints
    three pieces:   Σ_c P[k,c] = 3                                  for every k
    no tearing:     P[k,c] ≤ Σ_{{c,d} ∈ A_c} B[k,c,d]              for every k, c
                    (a piece of k needs a neighbouring piece of the same k)
    bending:        Σ_{c ∈ l} P[k,c] ≤ 2                          for every k, line l
                    (no element lies straight along one axis)
    one per cell:   Σ_k P[k,c] = 1                                  for every c
Objective
    none (the post: "we are not going to define any meaningful cost function").

Three cells in which every cell has a neighbour are connected, and a connected tromino
that is not straight is an L, so the constraints admit exactly the L-tromino tilings
(each labelled 9! times: the elements are interchangeable, as in the post).
"""

from __future__ import annotations

import itertools

import pyomo.environ as pyo

from pyomo_puzzles.families.packing.spec import PackingSpec


def build_model() -> pyo.AbstractModel:
    model = pyo.AbstractModel(name="l_tromino_cell_assignment")
    model.ELEMENTS = pyo.Set(doc="the identical L-shaped elements")
    model.CELLS = pyo.Set(dimen=3, doc="cells (x, y, z) of the box")
    model.ADJACENT = pyo.Set(dimen=6, doc="unordered pairs of face-adjacent cells")
    model.ADJACENT_AT = pyo.Set(model.CELLS, dimen=6, within=model.ADJACENT)
    model.LINES = pyo.Set(doc="axis-parallel lines of cells")
    model.LINE_CELLS = pyo.Set(model.LINES, dimen=3, within=model.CELLS)
    model.PIECES_PER_ELEMENT = pyo.Param(domain=pyo.PositiveIntegers, default=3)
    model.MAX_PIECES_ON_A_LINE = pyo.Param(domain=pyo.PositiveIntegers, default=2)

    model.P = pyo.Var(model.ELEMENTS, model.CELLS, domain=pyo.Binary,
                      doc="element k has a piece at cell c")
    model.B = pyo.Var(model.ELEMENTS, model.ADJACENT, domain=pyo.Binary,
                      doc="element k has pieces at both cells of an adjacent pair")

    @model.Constraint(model.ELEMENTS)
    def three_pieces_per_element(m, k):
        return sum(m.P[k, c] for c in m.CELLS) == m.PIECES_PER_ELEMENT

    @model.Constraint(model.ELEMENTS, model.ADJACENT)
    def conjunction_at_most_first(m, k, *pair):
        return m.B[k, pair] <= m.P[k, pair[:3]]

    @model.Constraint(model.ELEMENTS, model.ADJACENT)
    def conjunction_at_most_second(m, k, *pair):
        return m.B[k, pair] <= m.P[k, pair[3:]]

    @model.Constraint(model.ELEMENTS, model.ADJACENT)
    def conjunction_at_least_both(m, k, *pair):
        return m.B[k, pair] >= m.P[k, pair[:3]] + m.P[k, pair[3:]] - 1

    @model.Constraint(model.ELEMENTS, model.CELLS)
    def element_not_torn(m, k, *cell):
        return m.P[k, cell] <= sum(m.B[k, pair] for pair in m.ADJACENT_AT[cell])

    @model.Constraint(model.ELEMENTS, model.LINES)
    def element_bent(m, k, line):
        return sum(m.P[k, c] for c in m.LINE_CELLS[line]) <= m.MAX_PIECES_ON_A_LINE

    @model.Constraint(model.CELLS)
    def one_piece_per_cell(m, *cell):
        return sum(m.P[k, cell] for k in m.ELEMENTS) == 1

    model.feasibility = pyo.Objective(expr=0, sense=pyo.minimize)
    return model


def is_l_tromino(cells) -> bool:
    """Three face-connected cells that do not lie on one line."""
    if len(cells) != 3:
        return False
    adjacent = [sum(abs(a - b) for a, b in zip(c, d)) == 1 for c, d in itertools.combinations(cells, 2)]
    collinear = any(len({c[axis] for c in cells}) == 1 and len({c[other] for c in cells}) == 1
                    for axis in range(3) for other in range(3) if other != axis)
    return sum(adjacent) == 2 and not collinear


def applies_to(spec: PackingSpec) -> str | None:
    if spec.dim != 3 or spec.holes:
        return "the published model is for a full 3D box"
    if len(spec.pieces) != 1 or not is_l_tromino(spec.pieces[0].shape.cells):
        return "the published model is for one type of L-tromino piece only"
    if spec.requirements or spec.fixed or spec.has_marks:
        return "the published model has no pegs, clues, marks or pre-placed pieces"
    return None


def model_data(spec: PackingSpec) -> dict:
    cells = list(spec.cells)
    cellset = set(cells)
    adjacent = [c + d for c in cells for d in cells
                if c < d and sum(abs(a - b) for a, b in zip(c, d)) == 1]
    lines = []
    for axis in range(3):
        others = [i for i in range(3) if i != axis]
        for fixed in itertools.product(*(range(spec.size[i]) for i in others)):
            line = []
            for v in range(spec.size[axis]):
                cell = [0, 0, 0]
                cell[axis] = v
                for i, f in zip(others, fixed):
                    cell[i] = f
                if tuple(cell) in cellset:
                    line.append(tuple(cell))
            lines.append(line)
    n_elements = sum(piece.count for piece in spec.pieces)
    return {None: {
        "ELEMENTS": {None: list(range(1, n_elements + 1))},
        "CELLS": {None: cells},
        "ADJACENT": {None: adjacent},
        "ADJACENT_AT": {c: [pair for pair in adjacent if c in (pair[:3], pair[3:])] for c in cells},
        "LINES": {None: list(range(len(lines)))},
        "LINE_CELLS": dict(enumerate(lines)),
        "PIECES_PER_ELEMENT": {None: 3},
        "MAX_PIECES_ON_A_LINE": {None: 2},
    }}


def decode(spec: PackingSpec, model: pyo.ConcreteModel) -> dict:
    name = spec.pieces[0].name
    pieces = []
    for k in model.ELEMENTS:
        cells = [list(c) for c in model.CELLS if (model.P[k, c].value or 0) > 0.5]
        pieces.append({"piece": name, "cells": cells})
    return {"pieces": pieces}
