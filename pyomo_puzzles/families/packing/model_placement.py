"""Exact cover over placements: the standard integer program for polyomino packing.

Formulation (exact cover as an integer program; the cover matrix of polyomino puzzles as
in Knuth, "Dancing Links", 2000), with the side constraints of IQ Twist and Cube Puzzler:

Sets
    C         board cells;  T  piece types;  P  placements (a piece type in one
              orientation, marks (rings) included, at one position; derived from the
              piece's cells)
    P_c ⊆ P   placements that cover cell c;  P_t ⊆ P  placements of piece type t
    R         requirements: pegs (a peg of colour k at cell c needs a ring of a piece of
              colour k there) and face clues (cell c shows colour k)
    P_r ⊆ P   placements that meet requirement r (cover its cell with the right colour/mark)
    F         pre-placed pieces;  P_f ⊆ P  placements that put piece f where it is given
Parameters
    n_t       number of copies of piece type t
Variables
    x_p ∈ {0, 1}     placement p is used
Constraints
    Σ_{p ∈ P_c} x_p = 1     for every cell c          (each cell covered exactly once)
    Σ_{p ∈ P_t} x_p = n_t   for every type t          (each piece used as often as it exists)
    Σ_{p ∈ P_r} x_p = 1     for every requirement r   (pegs under matching rings, clues met)
    Σ_{p ∈ P_f} x_p = 1     for every pre-placed f    (pre-placed pieces stay)
Objective
    none: a feasibility problem (constant objective 0).

P holds only placements that can be in a covering; this is the data, not the model:
- placements that would break a requirement on one of their own cells are not generated
  (the requirement rows would fix them to zero anyway), nor are placements that cut off
  a region of the board no other pieces can fill (`reduction.DeadPlacementTest`);
- `model_data` then keeps the placements that survive a one-step lookahead over the
  exactly-one rows (`reduction.lookahead`: if x_p = 1, every row p does not meet must
  still have a placement sharing no row with p). The solver's presolve would find these
  too, by probing; finding them first spares Pyomo and the solver the columns.
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

from pyomo_puzzles.contract.modelling import sum_over
from pyomo_puzzles.families.packing import reduction
from pyomo_puzzles.families.packing.spec import PackingSpec


def build_model() -> pyo.AbstractModel:
    model = pyo.AbstractModel(name="packing_placement")
    model.CELLS = pyo.Set(dimen=None, doc="board cells")
    model.PIECE_TYPES = pyo.Set(doc="piece types")
    model.PLACEMENTS = pyo.Set(doc="placements of a piece type in one orientation and position")
    model.REQUIREMENTS = pyo.Set(doc="pegs and face clues")
    model.PRE_PLACED = pyo.Set(doc="pre-placed pieces")
    # Subsets of PLACEMENTS. No `within=`: Pyomo would check every member against
    # PLACEMENTS, a third of the build time of an IQ Twist challenge; the loader derives
    # these sets from the placements, and the x[p] index check still catches a stray one.
    model.PLACEMENTS_COVERING = pyo.Set(model.CELLS, doc="P_c: placements covering cell c")
    model.PLACEMENTS_OF = pyo.Set(model.PIECE_TYPES, doc="P_t: placements of piece type t")
    model.PLACEMENTS_MEETING = pyo.Set(model.REQUIREMENTS, doc="P_r: placements meeting requirement r")
    model.PLACEMENTS_AS_GIVEN = pyo.Set(model.PRE_PLACED, doc="P_f: placements of pre-placed piece f")
    model.COPIES = pyo.Param(model.PIECE_TYPES, domain=pyo.PositiveIntegers)

    model.x = pyo.Var(model.PLACEMENTS, domain=pyo.Binary, doc="placement is used")

    @model.Constraint(model.CELLS)
    def each_cell_covered_once(m, *cell):
        return sum_over(m.x, m.PLACEMENTS_COVERING[cell]) == 1

    @model.Constraint(model.PIECE_TYPES)
    def each_piece_used_as_often_as_it_exists(m, t):
        return sum_over(m.x, m.PLACEMENTS_OF[t]) == m.COPIES[t]

    @model.Constraint(model.REQUIREMENTS)
    def each_peg_and_clue_met(m, r):
        return sum_over(m.x, m.PLACEMENTS_MEETING[r]) == 1

    @model.Constraint(model.PRE_PLACED)
    def pre_placed_pieces_stay(m, f):
        return sum_over(m.x, m.PLACEMENTS_AS_GIVEN[f]) == 1

    model.feasibility = pyo.Objective(expr=0, sense=pyo.minimize)
    return model


def model_data(spec: PackingSpec, reduce: bool = True) -> dict:
    """The sets of the model for `spec`; with `reduce`, only the placements that survive
    the one-step lookahead (`reduction.lookahead`) over the exactly-one rows."""
    covering: dict = {cell: [] for cell in spec.cells}
    of_type: dict = {piece.name: [] for piece in spec.pieces}
    for placement in spec.placements:
        of_type[placement.piece].append(placement.index)
        for cell in placement.cells:
            covering[cell].append(placement.index)
    # the loader derives no placement that breaks a requirement on its cells, so P_r is
    # every placement covering the requirement's cell
    meeting = {r: list(covering[req.cell]) for r, req in enumerate(spec.requirements)}
    as_given = {f: [p.index for p in spec.variants_of(fixed.piece, fixed.cells)
                    if fixed.marks is None or p.marks == fixed.marks]
                for f, fixed in enumerate(spec.fixed)}
    copies = {piece.name: piece.count for piece in spec.pieces}
    placements = [p.index for p in spec.placements]
    if reduce:
        single_copy = [members for t, members in of_type.items() if copies[t] == 1]
        alive = reduction.lookahead([*covering.values(), *single_copy, *meeting.values(), *as_given.values()],
                                    len(spec.placements))
        if not alive.all():
            placements = np.flatnonzero(alive).tolist()
            covering, of_type, meeting, as_given = (
                {key: [p for p in members if alive[p]] for key, members in subsets.items()}
                for subsets in (covering, of_type, meeting, as_given))
    return {None: {
        "CELLS": {None: list(spec.cells)},
        "PIECE_TYPES": {None: list(of_type)},
        "PLACEMENTS": {None: placements},
        "REQUIREMENTS": {None: list(meeting)},
        "PRE_PLACED": {None: list(as_given)},
        "PLACEMENTS_COVERING": covering,
        "PLACEMENTS_OF": of_type,
        "PLACEMENTS_MEETING": meeting,
        "PLACEMENTS_AS_GIVEN": as_given,
        "COPIES": copies,
    }}


def model_data_unreduced(spec: PackingSpec) -> dict:
    """`model_data` without the lookahead: every placement of the spec is a column (the
    `placement_unreduced` formulation, to measure what the lookahead buys)."""
    return model_data(spec, reduce=False)


def placement_entry(placement) -> dict:
    """A placement in the solution format: piece, cells and (if any) marks."""
    entry = {"piece": placement.piece, "cells": [list(c) for c in placement.cells]}
    if placement.marks:
        entry["marks"] = {name: [list(c) for c in cells] for name, cells in placement.marks}
    return entry


def decode(spec: PackingSpec, model: pyo.ConcreteModel) -> dict:
    used = [p for p, x_p in model.x.items() if (x_p.value or 0) > 0.5]
    return {"pieces": [placement_entry(spec.placements[p]) for p in used]}


def solution_vars(spec: PackingSpec, model: pyo.ConcreteModel, solution: dict) -> list[list]:
    """For each piece of `solution`, the variables of all variants of its outline.

    A no-good cut over these groups cuts off the outline, whatever the marks.
    """
    groups = []
    for entry in solution["pieces"]:
        variants = spec.variants_of(entry["piece"], entry["cells"])
        if not variants:
            raise ValueError(f"{entry} is not a placement of this instance")
        groups.append([model.x[p.index] for p in variants if p.index in model.x])
    return groups


def partitions(spec: PackingSpec, model: pyo.ConcreteModel) -> list[list]:
    """For each cell, the placement variables covering it: exactly one is one."""
    return [[model.x[p] for p in model.PLACEMENTS_COVERING[cell]] for cell in model.CELLS]
