"""The corner and edge cubies of a 2x2x2 or 3x3x3 and what the moves do to them, read off
the sticker geometry of `cube` (nothing typed in by hand).

A cubie *position* is the ordered list of its sticker positions: a corner's as in
`cube.corners` (the up- or down-facing sticker first), an edge's with the up- or
down-facing sticker first, else the front- or back-facing one. A cubie's *label* is where it
is and which way it is turned: 0 <= label < positions x stickers, label = slot + stickers *
position, `slot` being the place of its reference sticker (the one in slot 0 when it is
home) within the position's list. A move maps labels to labels: the cubie whose reference
sticker is at sticker position s goes where the move takes s.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from pyomo_puzzles.families.rubik import cube

HELD_CORNER = (-1, -1, -1)
"""The 2x2x2 has no centres: its D-B-L corner is held in place and only U, R and F turn."""


def moves(n: int, metric: str) -> tuple[str, ...]:
    faces = "URF" if n == 2 else cube.FACES
    powers = ("", "2", "'") if metric == "htm" else ("", "'")
    return tuple(f + p for f in faces for p in powers)


def wasteful(n: int, metric: str, first: str, then: str) -> bool:
    """Does move `then` right after `first` waste a move, or repeat a sequence in another
    order? Same face twice (in the quarter-turn metric only X X', since X X is a half turn),
    and on the 3x3x3 opposite faces, which commute, only in the order U D, R L, F B."""
    if first[0] == then[0]:
        return metric == "htm" or first != then
    opposite = {"D": "U", "L": "R", "B": "F"}
    return n == 3 and opposite.get(first[0]) == then[0]


@lru_cache(maxsize=None)
def positions(n: int, kind: str) -> tuple[tuple[int, ...], ...]:
    """Sticker lists of the cubie positions of `kind` ('corner' or 'edge') that can move."""
    if kind == "corner":
        held = {i for i, (p, _) in enumerate(cube.stickers(n)) if n == 2 and p == HELD_CORNER}
        return tuple(tuple(c) for c in cube.corners(n) if not set(c) & held)
    if n != 3:
        return ()
    by_cubie: dict = {}
    for i, (p, d) in enumerate(cube.stickers(n)):
        if sorted(abs(c) for c in p) == [0, n - 1, n - 1]:
            by_cubie.setdefault(p, []).append((d, i))
    out = []
    for _, found in sorted(by_cubie.items()):
        first = next((i for d, i in found if d[1] != 0), None)
        if first is None:
            first = next(i for d, i in found if d[2] != 0)
        out.append((first, next(i for _, i in found if i != first)))
    return tuple(out)


def label_count(n: int, kind: str) -> int:
    places = positions(n, kind)
    return len(places) * len(places[0]) if places else 0


@lru_cache(maxsize=None)
def label_moves(n: int, metric: str, kind: str) -> np.ndarray:
    """[move, label] -> label."""
    places = positions(n, kind)
    width = len(places[0])
    slot_of = {s: (p, j) for p, stickers in enumerate(places) for j, s in enumerate(stickers)}
    table = np.empty((len(moves(n, metric)), label_count(n, kind)), dtype=np.int64)
    for k, name in enumerate(moves(n, metric)):
        dest = cube.move(n, name)
        for p, stickers in enumerate(places):
            for j, s in enumerate(stickers):
                q, slot = slot_of[dest[s]]
                table[k, j + width * p] = slot + width * q
    return table


def labels(state: np.ndarray, n: int, kind: str) -> list[int]:
    """Each cubie's label in `state` (cubie i is the one whose home is position i)."""
    places = positions(n, kind)
    home = cube.solved(n)
    cubie_of = {frozenset(int(home[s]) for s in stickers): i for i, stickers in enumerate(places)}
    out = [0] * len(places)
    for p, stickers in enumerate(places):
        colours = [int(state[s]) for s in stickers]
        cubie = cubie_of[frozenset(colours)]
        out[cubie] = colours.index(int(home[places[cubie][0]])) + len(stickers) * p
    return out


def corner_parity(state: np.ndarray, n: int) -> int:
    """Parity of the corner permutation; every quarter turn changes it (a 4-cycle)."""
    width = len(positions(n, "corner")[0])
    where = [label // width for label in labels(state, n, "corner")]
    seen, parity = set(), 0
    for start in range(len(where)):
        length, i = 0, start
        while i not in seen:
            seen.add(i)
            i = where[i]
            length += 1
        if length:
            parity ^= (length - 1) & 1
    return parity
