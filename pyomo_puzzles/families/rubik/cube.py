"""An n x n x n cube's stickers and face turns, derived from its geometry.

Coordinates: x to the right, y up, z towards the viewer (right-handed). Cubie centres
have coordinates in {-(n-1), -(n-3), ..., n-1}; a sticker is (cubie centre p, outward
normal d) with p·d = n - 1. Faces: U (+y), R (+x), F (+z), D (-y), L (-x), B (-z).

Sticker order (the facelet string): faces in the order U R F D L B, each face's n² stickers
in reading order as the face is usually drawn in a net: U seen from above with F at the
bottom; R, F, L, B seen from outside with U at the top; D seen from below with F at the
top.

A face turn X is a clockwise quarter turn of the outer layer of face X as seen from
outside that face (a rotation by -90° about the face's normal); X' is the inverse and X2
the half turn. A move is a permutation `dest` of sticker positions: the sticker at
position i goes to position dest[i].
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

import numpy as np

FACES = "URFDLB"
NORMAL = {"U": (0, 1, 0), "R": (1, 0, 0), "F": (0, 0, 1), "D": (0, -1, 0), "L": (-1, 0, 0), "B": (0, 0, -1)}
# reading order of each face: (right, down) unit vectors as the face is drawn
READING = {"U": ((1, 0, 0), (0, 0, 1)), "R": ((0, 0, -1), (0, -1, 0)), "F": ((1, 0, 0), (0, -1, 0)),
           "D": ((1, 0, 0), (0, 0, -1)), "L": ((0, 0, 1), (0, -1, 0)), "B": ((-1, 0, 0), (0, -1, 0))}
MOVE_PATTERN = re.compile(r"([URFDLB])(2|'|)$")

Vector = tuple[int, int, int]


def _dot(a: Vector, b: Vector) -> int:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _clockwise(axis: Vector, v: Vector) -> Vector:
    """Rotate v by -90° about the unit axis (clockwise seen from the axis's tip)."""
    ax, ay, az = axis
    # v cos(-90) + (axis x v) sin(-90) + axis (axis.v)(1 - cos(-90)) = -(axis x v) + axis (axis.v)
    cross = (ay * v[2] - az * v[1], az * v[0] - ax * v[2], ax * v[1] - ay * v[0])
    k = _dot(axis, v)
    return (-cross[0] + ax * k, -cross[1] + ay * k, -cross[2] + az * k)


@lru_cache(maxsize=None)
def stickers(n: int) -> tuple[tuple[Vector, Vector], ...]:
    """(cubie centre, normal) of every sticker, in facelet-string order."""
    coords = range(-(n - 1), n, 2)
    out = []
    for face in FACES:
        normal = NORMAL[face]
        right, down = READING[face]
        on_face = [p for p in itertools.product(coords, repeat=3) if _dot(p, normal) == n - 1]
        on_face.sort(key=lambda p: (_dot(p, down), _dot(p, right)))
        out += [(p, normal) for p in on_face]
    return tuple(out)


@lru_cache(maxsize=None)
def _position(n: int) -> dict:
    return {s: i for i, s in enumerate(stickers(n))}


@lru_cache(maxsize=None)
def quarter_turn(n: int, face: str) -> tuple[int, ...]:
    """dest[i] for a clockwise quarter turn of `face`'s outer layer."""
    axis = NORMAL[face]
    where = _position(n)
    dest = []
    for p, d in stickers(n):
        if _dot(p, axis) == n - 1:
            dest.append(where[(_clockwise(axis, p), _clockwise(axis, d))])
        else:
            dest.append(where[(p, d)])
    return tuple(dest)


def compose(first: tuple[int, ...], then: tuple[int, ...]) -> tuple[int, ...]:
    """The permutation `first` followed by `then`."""
    return tuple(then[first[i]] for i in range(len(first)))


@lru_cache(maxsize=None)
def move(n: int, name: str) -> tuple[int, ...]:
    """A move in standard notation (U, U', U2, ...) as dest permutation."""
    match = MOVE_PATTERN.match(name)
    if not match:
        raise ValueError(f"unknown move {name!r} (moves are U R F D L B, optionally followed by ' or 2)")
    quarter = quarter_turn(n, match.group(1))
    turns = {"": 1, "2": 2, "'": 3}[match.group(2)]
    result = tuple(range(len(quarter)))
    for _ in range(turns):
        result = compose(result, quarter)
    return result


def parse(sequence: str) -> list[str]:
    """'R U2 F'' -> ['R', 'U2', "F'"]; raises ValueError naming an unknown move."""
    moves = sequence.replace(",", " ").split()
    for token in moves:
        if not MOVE_PATTERN.match(token):
            raise ValueError(f"unknown move {token!r} (moves are U R F D L B, optionally followed by ' or 2)")
    return moves


def solved(n: int) -> np.ndarray:
    """The solved state: sticker i shows the colour (face index) of its face."""
    return np.repeat(np.arange(6, dtype=np.int8), n * n)


def apply(state: np.ndarray, moves: list[str], n: int) -> np.ndarray:
    """The state after the moves: new[dest[i]] = old[i]."""
    state = np.asarray(state).copy()
    for name in moves:
        dest = np.array(move(n, name))
        new = np.empty_like(state)
        new[dest] = state
        state = new
    return state


def _det(a: Vector, b: Vector, c: Vector) -> int:
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))


def corners(n: int) -> list[list[int]]:
    """Sticker positions of each corner cubie: the one facing up or down first, then the
    other two in the cyclic order that makes the three normals right-handed."""
    by_cubie: dict = {}
    for i, (p, d) in enumerate(stickers(n)):
        if all(abs(c) == n - 1 for c in p):
            by_cubie.setdefault(p, {})[d] = i
    out = []
    for _, normals in sorted(by_cubie.items()):
        ud = next(d for d in normals if d[1] != 0)
        a, b = [d for d in normals if d != ud]
        if _det(ud, a, b) < 0:
            a, b = b, a
        out.append([normals[ud], normals[a], normals[b]])
    return out


def impossible(state: np.ndarray, n: int) -> str | None:
    """Why a sticker state cannot come from the solved cube by face turns (corner checks:
    every corner a real corner, each once, twists summing to 0 mod 3), or None."""
    up, down = FACES.index("U"), FACES.index("D")
    solved_corners = {frozenset(int(c) for c in solved(n)[group]) for group in corners(n)}
    twist, seen = 0, set()
    for group in corners(n):
        colours = [int(state[i]) for i in group]
        key = frozenset(colours)
        if key not in solved_corners or len(key) != 3:
            return f"a corner shows {''.join(sorted(FACES[c] for c in colours))}, which no corner has"
        if key in seen:
            return "a corner appears twice"
        seen.add(key)
        twist += next(k for k, c in enumerate(colours) if c in (up, down))
    if twist % 3:
        return "the corner twists do not add up (a corner is turned in place)"
    return None


@lru_cache(maxsize=None)
def rotations() -> tuple[tuple[Vector, Vector, Vector], ...]:
    """The 24 rotations of the cube as integer matrices (rows), closed under two quarter turns."""
    def apply_to_rows(turn, matrix):
        columns = list(zip(*matrix))
        return tuple(zip(*[turn(c) for c in columns]))
    identity = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    found, frontier = {identity}, [identity]
    while frontier:
        matrix = frontier.pop()
        for axis in (NORMAL["U"], NORMAL["R"]):
            turned = apply_to_rows(lambda v, a=axis: _clockwise(a, v), matrix)
            if turned not in found:
                found.add(turned)
                frontier.append(turned)
    return tuple(sorted(found))


def _times(matrix, v: Vector) -> Vector:
    return tuple(_dot(row, v) for row in matrix)


def rotate_whole_cube(state: np.ndarray, matrix, n: int) -> np.ndarray:
    """The state after turning the whole cube by `matrix` (a sticker at (p, d) goes to (Mp, Md))."""
    where = _position(n)
    new = np.empty_like(np.asarray(state))
    for i, (p, d) in enumerate(stickers(n)):
        new[where[(_times(matrix, p), _times(matrix, d))]] = state[i]
    return new


def face_of(normal: Vector) -> str:
    return next(f for f, v in NORMAL.items() if v == normal)


def held_corner_home(state: np.ndarray, corner: Vector, n: int = 2) -> tuple[np.ndarray, dict[str, str]]:
    """Turn the whole cube so that the cubie that belongs at `corner` is there, untwisted.

    Returns the turned state and, for each face letter of the turned cube, the face of
    the given cube that it is: a move sequence that solves the turned cube solves the
    given one with its faces renamed so (the count is the same in both metrics). Exactly
    one of the 24 rotations does it: they act on a corner's places and twists regularly.
    """
    home = solved(n)
    corner_stickers = [i for i, (p, _) in enumerate(stickers(n)) if p == corner]
    for matrix in rotations():
        turned = rotate_whole_cube(state, matrix, n)
        if all(turned[i] == home[i] for i in corner_stickers):
            inverse = tuple(zip(*matrix))  # a rotation's inverse is its transpose
            return turned, {f: face_of(_times(inverse, NORMAL[f])) for f in FACES}
    raise ValueError("no rotation brings the corner home: not a cube state")


def renamed(moves: list[str], faces: dict[str, str]) -> list[str]:
    return [faces[m[0]] + m[1:] for m in moves]
