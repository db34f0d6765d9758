"""Unit coordinates: the IQ Twist CSP of M. Ao's thesis, translated into a MILP.

Source: M. Ao, "CSP and LP models of IQ Twist and Cube Puzzler - Go", COMP8755 thesis,
ANU, 2020, section 2.1 (the CSP model). Every piece is split into unit squares, numbered
1..n "from left to right and bottom up" in the piece's reference orientation (sorted by
y, then x); each unit gets a position on the board. The thesis's variables and
constraints, and their translation:

    thesis                                           here
    V_units: a position (i, j) per unit              x[u], y[u] integer, and at[u,c]
    (1) all units on different cells                 Σ_u at[u,c] ≤ 1
    (3-10) per piece, a disjunction over its 8       orient[p,k], Σ_k orient[p,k] = 1,
        orientations of the offsets of units 2..n    x[u] - x[u1] = Σ_k DX[p,k,u] orient[p,k]
        relative to unit 1                           (same for y)
    V_pegs, (2), (11-17): each peg equals one of     Σ_{u ∈ U_r} at[u, c_r] = 1 for every
        the ring units of its colour, or is          peg r the challenge gives; a peg the
        unused (0, 0); used pegs differ              challenge does not give is "unused"
                                                     and has no constraint (so (2) holds)

The thesis types the 8 orientations by hand and some of its offsets are wrong; here they
are derived from the piece's cells: orientation k applies the k-th signed axis
permutation g_k (8 in 2D, the 4 rotations if the piece may not be flipped) to the
reference cells, keeping each unit's identity: DX/DY[p,k,u] = g_k(c_u) - g_k(c_1).

Formulation `coordinates` (faithful)
Sets
    C            board cells c = (X_c, Y_c)
    P            pieces (each piece type once: count 1)
    U            units u = (p, i), i = 1..n_p;  u1 = (p, 1) the first unit of p
    K_p          orientations of p: all 8 (or 4) axis maps, duplicates included, as in
                 the thesis (a symmetric piece has orientations that give the same cells)
    R            pegs (requirements: cell c_r, colour, mark "ring");  U_r ⊆ U the units
                 that may meet r: the ring units of the pieces of r's colour (in general,
                 the units of pieces of r's colour, if set, that carry r's mark, if set)
    G            given cells of pre-placed pieces (cell c_g, and the piece's units U_g, or
                 its ring units for a given ring)
Parameters
    DX[p,k,u], DY[p,k,u]   offset of unit u from unit u1 in orientation k
Variables
    x[u], y[u] ∈ Z       the unit's board coordinates (within the board's bounding box)
    orient[p,k] ∈ {0,1}  piece p lies in orientation k
    at[u,c] ∈ {0,1}      unit u is on cell c (the MILP encoding of a position with the
                         board as domain, and of all-different)
Constraints
    Σ_c at[u,c] = 1                                  each unit on one board cell
    x[u] = Σ_c X_c at[u,c],  y[u] = Σ_c Y_c at[u,c]  coordinates are the cell's
    Σ_u at[u,c] ≤ 1                                  (1) units on different cells
    Σ_k orient[p,k] = 1                              each piece in one orientation
    x[u] - x[u1] = Σ_k DX[p,k,u] orient[p,k]         (3-10) the piece's shape, in x
    y[u] - y[u1] = Σ_k DY[p,k,u] orient[p,k]                                  and y
    Σ_{u ∈ U_r} at[u, c_r] = 1                       (11-17) pegs under a ring of their colour
    Σ_{u ∈ U_g} at[u, c_g] = 1                       pre-placed pieces stay (not in the thesis)
Objective
    none: a feasibility problem (constant objective 0).

The board has as many cells as the pieces have units, so (1) leaves no cell uncovered.

Formulation `coordinates_tight` (the same variables; fewer orientations, more rows)
    Orientations: K_p keeps one orientation per distinct placed shape *with its rings*
    (two axis maps that give the same cells and the same ring cells differ only in which
    unit is called which; the labels are internal, so no decoded solution is lost).
    IQ Twist keeps 56 of the 64 orientations (yellow1 and blue2 have 4 each).
    Let D_k(u) = (DX, DY)[p,k,u] and A_k = {a ∈ C : a + D_k(u) ∈ C for every unit u of
    p}: the anchor cells at which orientation k fits on the board. Two row families are
    added to the faithful model:
      every cell covered:  Σ_u at[u,c] ≥ 1                        for every cell c
          Valid: each unit is on one cell, no cell holds two units, and there are as
          many units as cells (the loader checks this), so every cell holds one. The
          LP relaxation already implies it (sum the rows), but HiGHS does not find the
          implied equality, and with it the cell rows become set-partitioning rows.
      unit reaches unit:   at[u,c] ≤ Σ_{c' ∈ T(u,v,c)} at[v,c']   for units u ≠ v of
          T(u,v,c) = {c + D_k(v) - D_k(u) : k ∈ K_p, c - D_k(u) ∈ A_k}   one piece, cell c
          (a unit on c has each other unit of its piece at one of the cells that some
          fitting orientation puts it at, relative to c). Valid: in a solution with
          orientation k and anchor a ∈ A_k, u is on c = a + D_k(u) and v on
          a + D_k(v) = c + D_k(v) - D_k(u) ∈ T(u,v,c); the right-hand side sums distinct
          variables of which exactly that one is 1. With v = u1 this is "a unit lies
          within reach of its anchor", with u = u1 its converse; an empty T fixes at[u,c]
          to 0 (the unit cannot be there in any fitting orientation).
    Measured (HiGHS 1.15.1, one thread, 20 s limit, all 50 booklet challenges, solver time
    only; benchmarks/coordinates.py gives the end-to-end comparison):
      rows added to the faithful model               solved   median    max
      cover rows only (distinct orientations)         23/50    > 20 s
      cover rows only (all 8 orientations)            18/50    > 20 s
      reach rows, all pairs                           50/50    1.2 s    14 s
      reach rows, pairs with u1 only, + cover + fits  49/50    0.46 s   > 20 s
      reach rows, all pairs, + cover rows             50/50    0.23 s   3.5 s   <- kept
      the same with all 8 orientations                50/50    0.20 s   9.6 s
      the same + orientation and anchor fit rows      50/50    0.23 s   3.9 s
    The reach rows do most of the work; the cover rows alone do not help (the faithful
    model solves 20 of 50 within 20 s), but on top of the reach rows they cut the median
    five-fold and the maximum four-fold. End to
    end (benchmarks/coordinates.py, 30 s limit, all 50): `coordinates` solves 27 (median
    > 27 s), `coordinates_tight` all 50 (median 0.36 s, max 3.7 s), `placement` 0.02 s.
    Measured and not kept, as they gained nothing within the timing noise (valid, as
    each right-hand side holds the variable the solution sets to 1, or the conjunction's
    consequence):
      orientation fits:  orient[p,k] ≤ Σ_{a ∈ A_k} at[u1,a]
      anchor fits:       at[u1,a] ≤ Σ_{k : a ∈ A_k} orient[p,k]
      conjunctions:      at[u1,a] + Σ_{k : D_k(u) = d, a ∈ A_k} orient[p,k] - 1 ≤ at[u,a+d]
"""

from __future__ import annotations

import pyomo.environ as pyo

from pyomo_puzzles.contract.modelling import axis_maps
from pyomo_puzzles.families.packing.spec import PackingSpec, transformed

# --- the model ---------------------------------------------------------------------------

def _build(name: str, tight: bool) -> pyo.AbstractModel:
    model = pyo.AbstractModel(name=name)
    model.CELLS = pyo.Set(dimen=2, doc="board cells (X, Y)")
    model.PIECES = pyo.Set(doc="pieces")
    model.UNITS = pyo.Set(dimen=2, doc="units (piece, number), numbered by y then x from 1")
    model.UNITS_OF = pyo.Set(model.PIECES, dimen=2, within=model.UNITS)
    model.ORIENTATIONS = pyo.Set(dimen=2, doc="(piece, orientation number)")
    model.ORIENTATIONS_OF = pyo.Set(model.PIECES, doc="orientation numbers of a piece")
    model.OFFSET_INDEX = pyo.Set(dimen=3, doc="(piece, orientation, unit number)")
    model.DX = pyo.Param(model.OFFSET_INDEX, domain=pyo.Integers, doc="x offset from unit 1")
    model.DY = pyo.Param(model.OFFSET_INDEX, domain=pyo.Integers, doc="y offset from unit 1")
    model.PEGS = pyo.Set(dimen=3, doc="(peg number, X, Y) of each peg the instance gives")
    model.UNITS_MEETING = pyo.Set(model.PEGS, dimen=2, within=model.UNITS,
                                  doc="ring units of the pieces of the peg's colour")
    model.GIVEN = pyo.Set(dimen=3, doc="(number, X, Y): a given cell or ring of a pre-placed piece")
    model.UNITS_GIVEN = pyo.Set(model.GIVEN, dimen=2, within=model.UNITS,
                                doc="the pre-placed piece's units (or ring units) that may be there")
    model.X_MAX = pyo.Param(domain=pyo.NonNegativeIntegers)
    model.Y_MAX = pyo.Param(domain=pyo.NonNegativeIntegers)

    model.x = pyo.Var(model.UNITS, domain=pyo.Integers, bounds=lambda m, *u: (0, m.X_MAX),
                      doc="x coordinate of the unit")
    model.y = pyo.Var(model.UNITS, domain=pyo.Integers, bounds=lambda m, *u: (0, m.Y_MAX),
                      doc="y coordinate of the unit")
    model.orient = pyo.Var(model.ORIENTATIONS, domain=pyo.Binary, doc="piece lies in orientation")
    model.at = pyo.Var(model.UNITS, model.CELLS, domain=pyo.Binary, doc="unit is on cell")

    @model.Constraint(model.UNITS)
    def each_unit_on_one_cell(m, p, i):
        return sum(m.at[p, i, c] for c in m.CELLS) == 1

    @model.Constraint(model.UNITS)
    def x_is_the_cells_column(m, p, i):
        return m.x[p, i] == sum(cx * m.at[p, i, cx, cy] for cx, cy in m.CELLS)

    @model.Constraint(model.UNITS)
    def y_is_the_cells_row(m, p, i):
        return m.y[p, i] == sum(cy * m.at[p, i, cx, cy] for cx, cy in m.CELLS)

    @model.Constraint(model.CELLS)
    def units_on_different_cells(m, *c):
        return sum(m.at[u, c] for u in m.UNITS) <= 1

    @model.Constraint(model.PIECES)
    def each_piece_in_one_orientation(m, p):
        return sum(m.orient[p, k] for k in m.ORIENTATIONS_OF[p]) == 1

    @model.Constraint(model.UNITS)
    def units_keep_the_shape_in_x(m, p, i):
        if i == 1:
            return pyo.Constraint.Skip
        return m.x[p, i] - m.x[p, 1] == sum(m.DX[p, k, i] * m.orient[p, k] for k in m.ORIENTATIONS_OF[p])

    @model.Constraint(model.UNITS)
    def units_keep_the_shape_in_y(m, p, i):
        if i == 1:
            return pyo.Constraint.Skip
        return m.y[p, i] - m.y[p, 1] == sum(m.DY[p, k, i] * m.orient[p, k] for k in m.ORIENTATIONS_OF[p])

    @model.Constraint(model.PEGS)
    def each_peg_under_a_ring_of_its_colour(m, r, *c):
        return sum(m.at[u, c] for u in m.UNITS_MEETING[r, c]) == 1

    @model.Constraint(model.GIVEN)
    def pre_placed_pieces_stay(m, g, *c):
        return sum(m.at[u, c] for u in m.UNITS_GIVEN[g, c]) == 1

    if tight:
        _add_tightening_rows(model)
    model.feasibility = pyo.Objective(expr=0, sense=pyo.minimize)
    return model


def _add_tightening_rows(model: pyo.AbstractModel) -> None:
    """The valid rows of `coordinates_tight` (see the module docstring)."""

    def anchors(m, p, k):
        """A_k: cells where unit 1 may sit with the whole piece on the board."""
        cells = set(m.CELLS)
        offsets = [(m.DX[p, k, i], m.DY[p, k, i]) for _, i in m.UNITS_OF[p]]
        return [(ax, ay) for ax, ay in m.CELLS if all((ax + dx, ay + dy) in cells for dx, dy in offsets)]

    model.ANCHORS = pyo.Set(model.ORIENTATIONS, dimen=2, within=model.CELLS, initialize=anchors,
                            doc="cells where unit 1 may sit in the orientation")
    model.UNIT_PAIRS = pyo.Set(dimen=3, doc="(piece, unit number, other unit number)", initialize=lambda m: [
        (p, i, j) for p in m.PIECES for _, i in m.UNITS_OF[p] for _, j in m.UNITS_OF[p] if i != j])

    @model.Constraint(model.CELLS)
    def every_cell_covered(m, *c):
        return sum(m.at[u, c] for u in m.UNITS) >= 1

    @model.Constraint(model.UNIT_PAIRS, model.CELLS)
    def unit_reaches_every_unit_of_its_piece(m, p, i, j, cx, cy):
        targets = sorted({(cx + m.DX[p, k, j] - m.DX[p, k, i], cy + m.DY[p, k, j] - m.DY[p, k, i])
                          for k in m.ORIENTATIONS_OF[p]
                          if (cx - m.DX[p, k, i], cy - m.DY[p, k, i]) in m.ANCHORS[p, k]})
        return m.at[p, i, cx, cy] <= sum(m.at[p, j, c] for c in targets)


def build_model() -> pyo.AbstractModel:
    return _build("packing_coordinates", tight=False)


def build_model_tight() -> pyo.AbstractModel:
    return _build("packing_coordinates_tight", tight=True)


# --- data ----------------------------------------------------------------------------------

def applies_to(spec: PackingSpec) -> str | None:
    if spec.dim != 2:
        return "the thesis's model is for flat pieces on a 2D board"
    repeated = [p.name for p in spec.pieces if p.count != 1]
    if repeated:
        return f"the thesis's model has each piece once; {repeated[0]} has {spec.piece(repeated[0]).count} copies"
    return None


def units(piece) -> list[tuple[int, int]]:
    """The piece's reference cells in unit order: from left to right and bottom up."""
    return sorted(piece.shape.cells, key=lambda c: (c[1], c[0]))


def orientations(piece, distinct: bool) -> list[dict[int, tuple[int, int]]]:
    """Per orientation, unit number -> offset from unit 1.

    All axis maps in a fixed order (8, or the 4 rotations if the piece may not be
    flipped); with `distinct`, only the first map of each distinct placed shape with its
    marks (the others only relabel units).
    """
    cells = units(piece)
    found, seen = [], set()
    for g in axis_maps(2, rotations_only=not piece.flippable):
        if distinct:
            shape = transformed(piece.shape, g)
            if shape in seen:
                continue
            seen.add(shape)
        first = g.apply_free(cells[0])
        found.append({i: tuple(v - f for v, f in zip(g.apply_free(c), first))
                      for i, c in enumerate(cells, start=1)})
    return found


def _marked_units(piece, mark: str) -> list[int]:
    marked = set(piece.shape.mark_cells(mark))
    return [i for i, c in enumerate(units(piece), start=1) if c in marked]


def _meeting(spec: PackingSpec, requirement) -> list[tuple[str, int]]:
    """Units that meet a requirement on its cell: right colour, right mark."""
    out = []
    for piece in spec.pieces:
        if requirement.colour is not None and piece.colour != requirement.colour:
            continue
        numbers = (range(1, len(piece.shape.cells) + 1) if requirement.mark is None
                   else _marked_units(piece, requirement.mark))
        out += [(piece.name, i) for i in numbers]
    return out


def _data(spec: PackingSpec, distinct: bool) -> dict:
    unit_list, units_of, orients, orients_of, dx, dy = [], {}, [], {}, {}, {}
    for piece in spec.pieces:
        n = len(piece.shape.cells)
        units_of[piece.name] = [(piece.name, i) for i in range(1, n + 1)]
        unit_list += units_of[piece.name]
        orients_of[piece.name] = []
        for k, offsets in enumerate(orientations(piece, distinct), start=1):
            orients.append((piece.name, k))
            orients_of[piece.name].append(k)
            for i, (ox, oy) in offsets.items():
                dx[piece.name, k, i], dy[piece.name, k, i] = ox, oy
    pegs = [(r, *req.cell) for r, req in enumerate(spec.requirements)]
    meeting = {peg: _meeting(spec, spec.requirements[peg[0]]) for peg in pegs}
    given: dict = {}
    for f in spec.fixed:
        piece = spec.piece(f.piece)
        for c in f.cells:
            given[(len(given), *c)] = units_of[f.piece]
        for mark, cells in f.marks or ():
            for c in cells:
                given[(len(given), *c)] = [(f.piece, i) for i in _marked_units(piece, mark)]
    return {None: {
        "CELLS": {None: list(spec.cells)},
        "PIECES": {None: [p.name for p in spec.pieces]},
        "UNITS": {None: unit_list},
        "UNITS_OF": units_of,
        "ORIENTATIONS": {None: orients},
        "ORIENTATIONS_OF": orients_of,
        "OFFSET_INDEX": {None: list(dx)},
        "DX": dx,
        "DY": dy,
        "PEGS": {None: pegs},
        "UNITS_MEETING": meeting,
        "GIVEN": {None: list(given)},
        "UNITS_GIVEN": given,
        "X_MAX": {None: max(c[0] for c in spec.cells)},
        "Y_MAX": {None: max(c[1] for c in spec.cells)},
    }}


def model_data(spec: PackingSpec) -> dict:
    return _data(spec, distinct=False)


def model_data_tight(spec: PackingSpec) -> dict:
    return _data(spec, distinct=True)


def decode(spec: PackingSpec, model: pyo.ConcreteModel) -> dict:
    """Per piece, the cells of its units; its marks are the cells of its marked units."""
    pieces = []
    for piece in spec.pieces:
        where = {}
        for _, i in model.UNITS_OF[piece.name]:
            where[i] = next(list(c) for c in model.CELLS if (model.at[piece.name, i, c].value or 0) > 0.5)
        entry = {"piece": piece.name, "cells": [where[i] for i in sorted(where)]}
        if piece.shape.marks:
            entry["marks"] = {mark: [where[i] for i in _marked_units(piece, mark)]
                              for mark, _ in piece.shape.marks}
        pieces.append(entry)
    return {"pieces": pieces}
