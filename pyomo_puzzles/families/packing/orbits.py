"""Symmetric images of packing solutions, and the restriction used to count orbits."""

from __future__ import annotations

import math

import pyomo.environ as pyo

from pyomo_puzzles.families.packing.spec import PackingSpec, Symmetry


def _map_cells(spec: PackingSpec, g: Symmetry, cells) -> list[list[int]]:
    return sorted(list(g.axis_map.apply_in_box(tuple(c), spec.size)) for c in cells)


def image(spec: PackingSpec, g: Symmetry, solution: dict) -> dict:
    """The solution moved by `g`: cells and marks mapped, mirror-image pieces renamed."""
    pieces = []
    for entry in solution["pieces"]:
        moved = {"piece": g.rename(entry["piece"]), "cells": _map_cells(spec, g, entry["cells"])}
        if entry.get("marks"):
            moved["marks"] = {name: _map_cells(spec, g, cells) for name, cells in entry["marks"].items()}
        pieces.append(moved)
    return {"pieces": pieces}


def symmetry_images(spec: PackingSpec, solution: dict) -> list[dict]:
    """The images of a solution under every symmetry of the instance (identity included)."""
    return [image(spec, g, solution) for g in spec.symmetries]


def solution_key(solution: dict):
    """Identifies a covering (its outlines) regardless of piece order, cell order and marks."""
    return tuple(sorted((e["piece"], tuple(sorted(tuple(c) for c in e["cells"])))
                        for e in solution["pieces"]))


def variants(spec: PackingSpec, solution: dict) -> int:
    """Solutions this covering stands for when mark (ring) variants are counted apart."""
    return math.prod(len(spec.variants_of(e["piece"], e["cells"])) for e in solution["pieces"])


def _outline_image(spec: PackingSpec, g: Symmetry, outline) -> tuple:
    piece, cells = outline
    return g.rename(piece), tuple(sorted(g.axis_map.apply_in_box(c, spec.size) for c in cells))


def _non_canonical(spec: PackingSpec, outlines, subgroup) -> set:
    """Outlines that are not the least of their orbit under `subgroup`."""
    return {o for o in outlines if min(_outline_image(spec, g, o) for g in subgroup) != o}


def anchor_restriction(spec: PackingSpec) -> tuple[str, list[int]]:
    """The strongest anchor and the placements it forbids.

    An anchor is a cell c (its stabiliser G_c acts on the outlines covering c) or a piece
    type t with one copy (the symmetries G_t that keep t act on its outlines). Every
    solution has a symmetric image whose anchor outline is the least of its orbit (map
    the anchor outline onto that least one), so forbidding every other outline on the
    anchor keeps at least one member of every orbit of solutions.
    """
    outlines = list(spec.outline_index)
    best: tuple[str, set] = ("none", set())
    for cell in spec.cells:
        subgroup = [g for g in spec.symmetries if g.axis_map.apply_in_box(cell, spec.size) == cell]
        forbidden = _non_canonical(spec, [o for o in outlines if cell in o[1]], subgroup)
        if len(forbidden) > len(best[1]):
            best = (f"cell {list(cell)}", forbidden)
    for piece in spec.pieces:
        if piece.count != 1:
            continue
        subgroup = [g for g in spec.symmetries if g.rename(piece.name) == piece.name]
        forbidden = _non_canonical(spec, [o for o in outlines if o[0] == piece.name], subgroup)
        if len(forbidden) > len(best[1]):
            best = (f"piece {piece.name}", forbidden)
    return best[0], sorted(p for o in best[1] for p in spec.outline_index[o])


def prepare_enumeration(spec: PackingSpec, model: pyo.ConcreteModel) -> None:
    """For a count through orbits: the non-canonical placements on the anchor fixed to zero."""
    for index in anchor_restriction(spec)[1]:
        if index in model.x:  # the model may leave out placements in no covering
            model.x[index].fix(0)
