"""Independent checker for Instant Insanity designs: plain Python, no model, no solver.

A solution states the painted cubes (`cubes`, faces 1..6 per cube), a tower of each kind
asked for (`towers`: per level the cube and the face at each position, as in an Instant
Insanity stack) and the number of faces `repainted`. A tower's rotations are accepted by the
Instant Insanity checker's test of the map from positions to faces (a proper rotation), not
by the rotation table the models use.
"""

from __future__ import annotations

from pyomo_puzzles.families.instant_insanity.checker import is_rotation, side_problems
from pyomo_puzzles.families.instant_insanity.designs.spec import DesignSpec


def _cube_problems(spec: DesignSpec, cubes) -> list[str]:
    if not isinstance(cubes, list) or len(cubes) != spec.n:
        return [f"cubes must be a list of {spec.n} cubes"]
    errors = []
    for i, cube in enumerate(cubes, 1):
        if not isinstance(cube, list) or len(cube) != 6:
            errors.append(f"cube {i} must list the colours of its 6 faces")
            continue
        strange = [colour for colour in cube if colour not in spec.colours]
        if strange:
            errors.append(f"cube {i} has faces of no colour of the instance: {strange}")
        elif spec.every_colour and set(cube) != set(spec.colours):
            missing = sorted(set(spec.colours) - set(cube))
            errors.append(f"cube {i} does not show every colour (missing {', '.join(missing)})")
    return errors


def _tower_sides(spec: DesignSpec, cubes, kind: str, tower) -> tuple[list[str], list[list[str]]]:
    """Problems with a tower's shape, and the colours of its four long sides, level by level."""
    if not isinstance(tower, list) or len(tower) != spec.n:
        return [f"the {kind} tower must have {spec.n} levels"], []
    errors, sides = [], []
    for level, entry in enumerate(tower, 1):
        faces = entry.get("faces") if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or entry.get("cube") != level:
            errors.append(f"the {kind} tower: level {level} must hold cube {level} (the cube order is fixed)")
        elif not isinstance(faces, list) or not is_rotation(faces):
            errors.append(f"the {kind} tower: level {level}: faces {faces} are not a rotation of the cube")
        else:
            sides.append([cubes[level - 1][face - 1] for face in faces[:4]])
    return errors, sides


def check(spec: DesignSpec, solution: dict) -> list[str]:
    if not (isinstance(solution, dict) and isinstance(solution.get("cubes"), list)
            and isinstance(solution.get("towers"), dict)):
        return ["solution must be a mapping with a list 'cubes' and a mapping 'towers' (each kind of tower "
                "asked for: its levels)"]
    cubes, towers = solution["cubes"], solution["towers"]
    errors = _cube_problems(spec, cubes)
    if errors:
        return errors
    for kind in spec.towers:
        if kind not in towers:
            errors.append(f"no {kind} tower, which the instance asks for")
            continue
        shape, sides = _tower_sides(spec, cubes, kind, towers[kind])
        errors += shape or [f"the {kind} tower: {problem}" for problem in side_problems(spec.colours, kind, sides)]
    if spec.repaint:
        repainted = faces_repainted(spec, solution)
        if solution.get("repainted") != repainted:
            errors.append(f"repainted is {solution.get('repainted')!r}, but {repainted} faces differ "
                          "from the starting set")
    return errors


def faces_repainted(spec: DesignSpec, solution: dict) -> int:
    """The objective of a checked solution (the family's objective hook): the faces whose colour
    differs from the starting set's (0 when the set is designed from nothing)."""
    if not spec.repaint:
        return 0
    return sum(a != b for cube, given in zip(solution["cubes"], spec.start) for a, b in zip(cube, given))
