"""Exact cover over placements: the standard integer program for polyomino packing.

Formulation (Garey and Johnson's exact cover, as an integer program; e.g. Knuth,
"Dancing Links", 2000, for the cover matrix of polyomino puzzles):

Sets
    C         board cells;  T  piece types;  P  placements (a piece type in one
              orientation at one position, derived from the piece's cells)
    P_c ⊆ P   placements that cover cell c;  P_t ⊆ P  placements of piece type t
Parameters
    n_t       number of copies of piece type t
Variables
    x_p ∈ {0, 1}     placement p is used
Constraints
    Σ_{p ∈ P_c} x_p = 1     for every cell c      (each cell covered exactly once)
    Σ_{p ∈ P_t} x_p = n_t   for every type t      (each piece used as often as it exists)
Objective
    none: a feasibility problem (constant objective 0).
"""

from __future__ import annotations

import pyomo.environ as pyo

from pyomo_puzzles.families.packing.spec import PackingSpec


def build_model() -> pyo.AbstractModel:
    model = pyo.AbstractModel(name="packing_placement")
    model.CELLS = pyo.Set(dimen=None, doc="board cells")
    model.PIECE_TYPES = pyo.Set(doc="piece types")
    model.PLACEMENTS = pyo.Set(doc="placements of a piece type in one orientation and position")
    model.PLACEMENTS_COVERING = pyo.Set(model.CELLS, within=model.PLACEMENTS)
    model.PLACEMENTS_OF = pyo.Set(model.PIECE_TYPES, within=model.PLACEMENTS)
    model.COPIES = pyo.Param(model.PIECE_TYPES, domain=pyo.PositiveIntegers)

    model.x = pyo.Var(model.PLACEMENTS, domain=pyo.Binary, doc="placement is used")

    @model.Constraint(model.CELLS)
    def each_cell_covered_once(m, *cell):
        return sum(m.x[p] for p in m.PLACEMENTS_COVERING[cell]) == 1

    @model.Constraint(model.PIECE_TYPES)
    def each_piece_used_as_often_as_it_exists(m, t):
        return sum(m.x[p] for p in m.PLACEMENTS_OF[t]) == m.COPIES[t]

    model.feasibility = pyo.Objective(expr=0, sense=pyo.minimize)
    return model


def model_data(spec: PackingSpec) -> dict:
    covering: dict = {cell: [] for cell in spec.cells}
    of_type: dict = {piece.name: [] for piece in spec.pieces}
    for placement in spec.placements:
        of_type[placement.piece].append(placement.index)
        for cell in placement.cells:
            covering[cell].append(placement.index)
    return {None: {
        "CELLS": {None: list(spec.cells)},
        "PIECE_TYPES": {None: [piece.name for piece in spec.pieces]},
        "PLACEMENTS": {None: [p.index for p in spec.placements]},
        "PLACEMENTS_COVERING": covering,
        "PLACEMENTS_OF": of_type,
        "COPIES": {piece.name: piece.count for piece in spec.pieces},
    }}


def decode(spec: PackingSpec, model: pyo.ConcreteModel) -> dict:
    used = [p for p in model.PLACEMENTS if (model.x[p].value or 0) > 0.5]
    return {"pieces": [{"piece": spec.placements[p].piece,
                        "cells": [list(c) for c in spec.placements[p].cells]} for p in used]}


def solution_vars(spec: PackingSpec, model: pyo.ConcreteModel, solution: dict) -> list:
    """The placement variables that are one in `solution` (for no-good cuts)."""
    out = []
    for entry in solution["pieces"]:
        placement = spec.placement_of(entry["piece"], entry["cells"])
        if placement is None:
            raise ValueError(f"{entry} is not a placement of this instance")
        out.append(model.x[placement.index])
    return out
