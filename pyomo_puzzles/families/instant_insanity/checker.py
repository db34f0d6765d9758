"""Independent checker for Instant Insanity stacks: plain Python, no model, no solver.

It does not use the rotation table of `geometry`: a stack entry's `faces` (the face at
each position 1..6) is accepted as a rotation if the map from positions to faces, read
through the faces' outward normals, is a rotation matrix (a signed permutation with
determinant +1).
"""

from __future__ import annotations

from pyomo_puzzles.families.instant_insanity.spec import CubeSet

# outward normal of face f: sides 1..4 counter-clockwise about the vertical, 5 bottom, 6 top
_NORMAL = {1: (1, 0, 0), 2: (0, 1, 0), 3: (-1, 0, 0), 4: (0, -1, 0), 5: (0, 0, -1), 6: (0, 0, 1)}


def _det(a, b, c) -> int:
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))


def is_rotation(faces) -> bool:
    """True if putting face faces[p-1] at position p, for p = 1..6, is a proper rotation (the
    faces written as whole numbers: not True for 1, nor 1.0)."""
    if not all(_whole(f) for f in faces) or sorted(faces) != [1, 2, 3, 4, 5, 6]:
        return False
    # the linear map sends the normal of position p to the normal of the face placed there
    image = {_NORMAL[p]: _NORMAL[f] for p, f in zip(range(1, 7), faces)}
    x, y, z = image[(1, 0, 0)], image[(0, 1, 0)], image[(0, 0, 1)]
    linear = all(image[tuple(-v for v in axis)] == tuple(-v for v in image[axis])
                 for axis in ((1, 0, 0), (0, 1, 0), (0, 0, 1)))
    return linear and _det(x, y, z) == 1


def _whole(value) -> bool:
    """A whole number as written (not a bool, not 1.0)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value) -> str:
    """A value in an error line: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check(spec: CubeSet, solution: dict) -> list[str]:
    """All the ways `solution` breaks the rules; an empty list means it is valid."""
    if not isinstance(solution, dict) or not isinstance(solution.get("stack"), list):
        return ["solution must be a mapping with a list 'stack'"]
    stack = solution["stack"]
    if len(stack) != spec.n:
        return [f"the stack has {len(stack)} levels, the instance has {spec.n} cubes"]
    errors = []
    sides = []
    for level, entry in enumerate(stack, 1):
        cube, faces = (entry.get("cube"), entry.get("faces")) if isinstance(entry, dict) else (None, None)
        if not _whole(cube) or not 1 <= cube <= spec.n:
            return [f"stack[{level - 1}]: cube must be a number 1..{spec.n}"]
        if not isinstance(faces, list) or not is_rotation(faces):
            return [f"stack[{level - 1}]: faces {_shown(faces)} is not a rotation of a cube"]
        if spec.order == "fixed" and cube != level:
            errors.append(f"stack[{level - 1}]: cube {cube} at level {level}, but the cube order is fixed")
        colours = [spec.cubes[cube - 1][f - 1] for f in faces]
        sides_given = entry.get("sides", colours[:4])
        if not isinstance(sides_given, (list, tuple)) or list(sides_given) != colours[:4]:
            errors.append(f"stack[{level - 1}]: sides {_shown(entry['sides'])} are not what the faces show "
                          f"({colours[:4]})")
        sides.append(colours[:4])
    if sorted(e["cube"] for e in stack) != list(range(1, spec.n + 1)):
        errors.append("every cube must stand in the stack exactly once")
    return errors + side_problems(spec.colours, spec.question, sides)


def side_problems(colours, question: str, sides: list[list[str]]) -> list[str]:
    """How the four long sides of a tower (`sides`: per level, the colours shown on sides 1..4)
    break the rule `question` (all_different or all_equal) with these colours."""
    columns = [[row[s] for row in sides] for s in range(4)]
    if question == "all_different":
        return [f"side {s} shows {column}, not every colour once"
                for s, column in enumerate(columns, 1) if sorted(column) != sorted(colours)]
    errors = [f"side {s} shows {column}, not one colour" for s, column in enumerate(columns, 1)
              if len(set(column)) != 1]
    tops = [column[0] for column in columns]
    if len(set(tops)) != 4:
        errors.append(f"the four sides show {tops}, not four different colours")
    return errors
