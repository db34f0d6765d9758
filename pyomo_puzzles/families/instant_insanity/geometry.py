"""The 24 rotations of a cube, derived from its geometry (not typed in).

Face numbering of Loeffler, Liu and Hofstedt (ICAART 2020): faces 1..4 are the long sides
of the tower in cyclic order, 5 the bottom, 6 the top. Each face is given its outward
normal: side k points at angle 90°(k-1) about the vertical axis (1 = +x, 2 = +y, 3 = -x,
4 = -y), 5 = -z, 6 = +z.

A rotation is written as the paper's 6-tuple: entry p is the face of the cube (as
labelled in the data) that the rotation brings to position p. The 24 tuples are the
images of the identity under the closure of two quarter turns (about the vertical axis
and about the axis through faces 1 and 3).
"""

from __future__ import annotations

from functools import lru_cache

FACES = (1, 2, 3, 4, 5, 6)
SIDES = (1, 2, 3, 4)
"""The long sides of the tower, in cyclic order."""
OPPOSITE = {1: 3, 3: 1, 2: 4, 4: 2, 5: 6, 6: 5}
OPPOSITE_PAIRS = ((1, 3), (2, 4), (5, 6))
"""Front/back, left/right, bottom/top."""

NORMALS = {1: (1, 0, 0), 2: (0, 1, 0), 3: (-1, 0, 0), 4: (0, -1, 0), 5: (0, 0, -1), 6: (0, 0, 1)}
_FACE_OF = {v: k for k, v in NORMALS.items()}

Rotation = tuple[int, int, int, int, int, int]


def _turn(axis: int, vector: tuple[int, int, int]) -> tuple[int, int, int]:
    """A quarter turn (right-handed, +90°) about coordinate axis 0, 1 or 2."""
    x, y, z = vector
    return {0: (x, -z, y), 1: (z, y, -x), 2: (-y, x, z)}[axis]


def _as_tuple(moved: dict[int, int]) -> Rotation:
    """{face: position it moves to} -> the face at each position 1..6."""
    at = {position: face for face, position in moved.items()}
    return tuple(at[p] for p in FACES)


def _generator(axis: int) -> Rotation:
    return _as_tuple({f: _FACE_OF[_turn(axis, NORMALS[f])] for f in FACES})


def compose(first: Rotation, then: Rotation) -> Rotation:
    """The rotation `first` followed by `then` (both as face-at-position tuples)."""
    return tuple(first[then[p - 1] - 1] for p in FACES)


@lru_cache(maxsize=None)
def rotations() -> tuple[Rotation, ...]:
    """All 24 rotations, identity first, then in breadth-first order of the closure."""
    identity: Rotation = FACES
    found = [identity]
    seen = {identity}
    generators = (_generator(2), _generator(0))
    for rotation in found:  # grows while iterating: a breadth-first closure
        for g in generators:
            nxt = compose(rotation, g)
            if nxt not in seen:
                seen.add(nxt)
                found.append(nxt)
    return tuple(found)


TOWER_TURN: Rotation = _generator(2)
"""A quarter turn of the whole tower about its vertical axis: side k moves to side k+1."""


def turned(rotation: Rotation, quarter_turns: int) -> Rotation:
    """A cube's rotation after the tower is turned by `quarter_turns` quarter turns."""
    for _ in range(quarter_turns % 4):
        rotation = compose(rotation, TOWER_TURN)
    return rotation


def shown(colours: tuple[str, ...], rotation: Rotation) -> tuple[str, ...]:
    """The colour at each position 1..6 of a cube with face colours `colours` (faces 1..6)."""
    return tuple(colours[face - 1] for face in rotation)
