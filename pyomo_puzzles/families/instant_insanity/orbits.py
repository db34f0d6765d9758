"""Symmetry of towers: turning the whole tower about its vertical axis (a group of order 4).

Counting conventions (stated everywhere a count is reported):
- a *stack* is a choice of one of the 24 rotations for each cube (and, if the cube order
  is free, of the cube at each level); two stacks differ if some cube is turned
  differently, even when the long sides look the same;
- "up to turning the tower" counts orbits of stacks under the four quarter turns about
  the vertical axis (a turn changes every cube's rotation, so each orbit has 4 stacks).
Turning the tower upside down is not identified.
"""

from __future__ import annotations

import pyomo.environ as pyo

from pyomo_puzzles.families.instant_insanity import geometry
from pyomo_puzzles.families.instant_insanity.spec import CubeSet


def turned_stack(spec: CubeSet, solution: dict, quarter_turns: int) -> dict:
    stack = []
    for entry in solution["stack"]:
        rotation = geometry.turned(tuple(entry["faces"]), quarter_turns)
        stack.append({"cube": entry["cube"], "faces": list(rotation),
                      "sides": list(geometry.shown(spec.cubes[entry["cube"] - 1], rotation)[:4])})
    return {"stack": stack}


def symmetry_images(spec: CubeSet, solution: dict) -> list[dict]:
    """The stack turned by 0, 1, 2 and 3 quarter turns."""
    return [turned_stack(spec, solution, q) for q in range(4)]


def solution_key(solution: dict) -> tuple:
    return tuple((entry["cube"], tuple(entry["faces"])) for entry in solution["stack"])


def canonical(rotation: geometry.Rotation) -> bool:
    """True for the least rotation of its orbit under tower turns (6 of the 24)."""
    return rotation == min(geometry.turned(rotation, q) for q in range(4))


def prepare_enumeration(spec: CubeSet, model: pyo.ConcreteModel) -> None:
    """For a count through orbits (turning the tower): the bottom cube keeps only canonical
    rotations.

    The turns act freely on the bottom cube's 24 rotations (6 orbits of 4), so every orbit
    of stacks has exactly one member whose bottom rotation is canonical."""
    rotations = geometry.rotations()
    for (i, level, r), var in model.y.items():
        if level == 1 and not canonical(rotations[r - 1]):
            var.fix(0)
