"""Symmetric images of packing solutions and the restriction used to count orbits."""

from __future__ import annotations

import pyomo.environ as pyo

from pyomo_puzzles.families.packing.spec import PackingSpec


def image(spec: PackingSpec, g, solution: dict) -> dict:
    return {"pieces": [{"piece": e["piece"],
                        "cells": sorted(list(g.apply_in_box(tuple(c), spec.size)) for c in e["cells"])}
                       for e in solution["pieces"]]}


def symmetry_images(spec: PackingSpec, solution: dict) -> list[dict]:
    """The images of a solution under every symmetry of the instance (identity included)."""
    return [image(spec, g, solution) for g in spec.symmetries]


def solution_key(solution: dict):
    """Identifies a solution regardless of the order of its pieces and cells."""
    return tuple(sorted((e["piece"], tuple(sorted(tuple(c) for c in e["cells"])))
                        for e in solution["pieces"]))


def anchor_cell(spec: PackingSpec):
    """The board cell whose stabiliser in the symmetry group is largest (first such cell)."""
    def stabiliser_order(cell):
        return sum(1 for g in spec.symmetries if g.apply_in_box(cell, spec.size) == cell)
    return max(spec.cells, key=lambda cell: (stabiliser_order(cell), [-v for v in cell]))


def non_canonical_anchor_placements(spec: PackingSpec) -> list[int]:
    """Placements on the anchor cell that are not the first of their orbit under its stabiliser.

    Every solution has a symmetric image whose anchor placement is canonical (map its
    anchor placement onto the first of its orbit), so forbidding the others keeps at
    least one member of every orbit of solutions.
    """
    anchor = anchor_cell(spec)
    stabiliser = [g for g in spec.symmetries if g.apply_in_box(anchor, spec.size) == anchor]
    forbidden = []
    for placement in spec.placements:
        if anchor not in placement.cells:
            continue
        orbit = {spec.placement_of(placement.piece, [g.apply_in_box(c, spec.size) for c in placement.cells]).index
                 for g in stabiliser}
        if placement.index != min(orbit):
            forbidden.append(placement.index)
    return forbidden


def prepare_enumeration(spec: PackingSpec, model: pyo.ConcreteModel, up_to_symmetry: bool) -> None:
    if up_to_symmetry:
        for index in non_canonical_anchor_placements(spec):
            model.x[index].fix(0)
