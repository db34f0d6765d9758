"""Independent checker for cube solutions: plain Python, no model, no solver.

It does not use `cube`'s permutation tables: it keeps each sticker as a 3D point on the
cube's surface and turns the points of the turned layer with an integer rotation matrix,
then asks whether every face shows one colour.
"""

from __future__ import annotations

import re

FACE_AXES = {"U": (1, 1), "D": (1, -1), "R": (0, 1), "L": (0, -1), "F": (2, 1), "B": (2, -1)}
ORDER = "URFDLB"
READ = {"U": ((0, 1), (2, 1)), "R": ((2, -1), (1, -1)), "F": ((0, 1), (1, -1)),
        "D": ((0, 1), (2, -1)), "L": ((2, 1), (1, -1)), "B": ((0, -1), (1, -1))}
TOKEN = re.compile(r"^([URFDLB])(2|'|)$")


def _points(n: int) -> list[tuple[int, int, int]]:
    """Sticker points (doubled coordinates, the surface at ±n) in facelet-string order."""
    points = []
    for face in ORDER:
        axis, sign = FACE_AXES[face]
        (ra, rs), (da, ds) = READ[face]
        cells = []
        for row in range(n):
            for col in range(n):
                point = [0, 0, 0]
                point[axis] = sign * n
                point[da] = ds * (2 * row - (n - 1))
                point[ra] = rs * (2 * col - (n - 1))
                cells.append(tuple(point))
        points += cells
    return points


def _turn(point, axis: int, sign: int):
    """Clockwise quarter turn seen from the tip of axis `sign`·e_axis."""
    x = list(point)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]  # (i, j, axis) is right-handed
    # rotation by -90° about +e_axis sends e_i -> -e_j... applied with the sign of the face
    a, b = x[i], x[j]
    if sign > 0:
        x[i], x[j] = b, -a
    else:
        x[i], x[j] = -b, a
    return tuple(x)


def simulate(colours: list[int], moves: list[str], n: int) -> list[int]:
    points = _points(n)
    colour_at = dict(zip(points, colours))
    for token in moves:
        face, suffix = TOKEN.match(token).groups()
        axis, sign = FACE_AXES[face]
        for _ in range({"": 1, "2": 2, "'": 3}[suffix]):
            moved = {}
            for point, colour in colour_at.items():
                in_layer = point[axis] * sign >= n - 1  # the outer layer (and its face)
                moved[_turn(point, axis, sign) if in_layer else point] = colour
            colour_at = moved
    return [colour_at[p] for p in points]


def length(moves: list[str], metric: str) -> int:
    return sum(2 if metric == "qtm" and m.endswith("2") else 1 for m in moves)


def moves_made(spec, solution: dict) -> int:
    """The objective of a checked solution (the family's objective hook): its moves counted in
    the instance's metric (a half turn is two quarter turns in the quarter-turn metric)."""
    return length(solution["moves"], spec.metric)


def check(spec, solution: dict) -> list[str]:
    if not isinstance(solution, dict) or not isinstance(solution.get("moves"), list):
        return ["solution must be a mapping with a list 'moves'"]
    moves = solution["moves"]
    bad = [m for m in moves if not isinstance(m, str) or not TOKEN.fullmatch(m)]
    if bad:
        return [f"unknown move {repr(bad[0])[:40]}"]
    n = spec.size
    final = simulate(list(spec.state), moves, n)
    errors = []
    for f, face in enumerate(ORDER):
        shown = set(final[f * n * n:(f + 1) * n * n])
        if len(shown) != 1:
            errors.append(f"face {face} shows {len(shown)} colours after the moves")
    if length(moves, spec.metric) > spec.steps:
        errors.append(f"{length(moves, spec.metric)} moves, more than the step bound {spec.steps}")
    return errors
