"""Exact distances of 3x3x3 states up to 12 moves, by meeting in the middle (plain numpy, no solver).

Independent of the formulations: the cubie move tables here are read off the sticker
geometry of `cube` (which sticker goes where under each face turn), not taken from
`cubies`, and the tests hold them to the published numbers of states at each distance.

A state is, for each of the 20 places of a corner or an edge cubie, which of the 24 corner
(or edge) stickers is on the place's reference sticker: that says which cubie is there and
how it is turned. Its key is two integers: the 7 first corners and 4 first edges (5 bits
each, 55 bits) and the next 7 edges (35 bits); the last corner and edge follow from the rest.

The ball: every state within `RADIUS` = 6 moves of solved and its distance (8,240,087 states
in the half-turn metric, 983,926 in the quarter-turn metric), sorted for `searchsorted` and
built once per machine into the disk cache (`core.cache`). A state's first key is stored as
its rank among the first keys that occur in the ball, so one 64-bit key per state suffices.

The distance of a state at most 2 x `RADIUS` moves from solved is then found by a
breadth-first search from the state: if the first layer r (moves from the state) that
meets the ball meets it at least at ball distance b, the distance is r + b. (A shortest
path of length D enters the ball at layer D - 6, at ball distance 6; no layer before that
can meet the ball, as that would give a shorter path.)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from pyomo_puzzles.contract import cached_arrays
from pyomo_puzzles.families.rubik import cube

N = 3
RADIUS = 6
"""Distances up to 2 x RADIUS are exact."""
MOVES = {"htm": tuple(f + p for f in cube.FACES for p in ("", "2", "'")),
         "qtm": tuple(f + p for f in cube.FACES for p in ("", "'"))}
BALL_COUNTS = {"htm": (1, 18, 243, 3240, 43239, 574908, 7618438),
               "qtm": (1, 12, 114, 1068, 10011, 93840, 878880)}
"""Published numbers of states at distance 0..6 (OEIS A080601; A080583, whose terms
Jerry Bryan lists at jerrybryan.com/math/rubikresults.html): the tests compare the ball with them."""
CORNERS, EDGES = 8, 12
BITS = 5
FIRST_EDGES = 4  # edges in the first key, with the 7 first corners
SECOND_EDGES = 7


# Places and move tables, from the sticker geometry --------------------------------------
def _det(a, b, c) -> int:
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))


@lru_cache(maxsize=None)
def places() -> tuple[tuple[int, ...], ...]:
    """Sticker positions of each corner place (8) then each edge place (12). A corner's
    stickers start at the one facing up or down and go round so that their normals are
    right-handed; an edge's start at the one facing up or down, else front or back. Turns
    keep these orders, so the sticker on a place's first position says where the others are."""
    by_cubie: dict = {}
    for i, (p, d) in enumerate(cube.stickers(N)):
        by_cubie.setdefault(p, []).append((d, i))
    corners, edges = [], []
    for centre, stickers in sorted(by_cubie.items()):
        stickers.sort(key=lambda s: (s[0][1] == 0, s[0][2] == 0))  # up/down first, then front/back
        if len(stickers) == 3:
            (n0, i0), (n1, i1), (n2, i2) = stickers
            corners.append((i0, i1, i2) if _det(n0, n1, n2) > 0 else (i0, i2, i1))
        elif len(stickers) == 2:
            edges.append(tuple(i for _, i in stickers))
    assert len(corners) == CORNERS and len(edges) == EDGES
    return tuple(corners + edges)


def _turned(value: np.ndarray, shift: int, width: int) -> np.ndarray:
    """The sticker `shift` steps round its cubie from sticker `value` (values: width * cubie + k)."""
    return value - value % width + (value % width + shift) % width


@lru_cache(maxsize=None)
def move_tables(metric: str) -> tuple[np.ndarray, np.ndarray]:
    """(source[move, place], table[move, place, value]): after a move, the value at a place
    is table[move, place, value at source[move, place]]."""
    where = {}
    for k, positions in enumerate(places()):
        for shift, position in enumerate(positions):
            where[position] = (k, shift)
    source = np.zeros((len(MOVES[metric]), len(places())), dtype=np.intp)
    table = np.zeros((len(MOVES[metric]), len(places()), 24), dtype=np.int8)
    for m, name in enumerate(MOVES[metric]):
        dest = cube.move(N, name)
        comes_from = {d: i for i, d in enumerate(dest)}
        for k, positions in enumerate(places()):
            k_from, shift = where[comes_from[positions[0]]]
            source[m, k] = k_from
            table[m, k] = _turned(np.arange(24), shift, 3 if k < CORNERS else 2)
    return source, table


def solved() -> np.ndarray:
    """The solved state: the sticker of each place's own cubie, not turned."""
    return np.array([3 * k for k in range(CORNERS)] + [2 * k for k in range(EDGES)], dtype=np.int8)


def from_colours(colours: np.ndarray) -> np.ndarray:
    """The state of a sticker colouring (54 colours, `cube` order); ValueError if it is not one."""
    home = cube.solved(N)
    value_of = {}
    for k, positions in enumerate(places()):
        width = len(positions)
        for shift in range(width):
            stickers = positions[shift:] + positions[:shift]
            value_of[tuple(int(home[s]) for s in stickers)] = width * (k if k < CORNERS else k - CORNERS) + shift
    state = []
    for positions in places():
        found = value_of.get(tuple(int(colours[s]) for s in positions))
        if found is None:
            raise ValueError("not a 3x3x3 sticker state: a cubie shows colours no cubie has")
        state.append(found)
    return np.array(state, dtype=np.int8)


def expand(states: np.ndarray, metric: str) -> np.ndarray:
    """Every state one move from each row of `states` (move-major: all rows after move 0, ...)."""
    source, table = move_tables(metric)
    columns = np.arange(len(places()))
    out = np.empty((len(source) * len(states), len(places())), dtype=np.int8)
    for m in range(len(source)):
        out[m * len(states):(m + 1) * len(states)] = table[m, columns, states[:, source[m]]]
    return out


def keys(states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, second) key of each state: see the module's docstring."""
    first = np.zeros(len(states), dtype=np.uint64)
    second = np.zeros(len(states), dtype=np.uint64)
    first_places = list(range(CORNERS - 1)) + list(range(CORNERS, CORNERS + FIRST_EDGES))
    for i, k in enumerate(first_places):
        first |= states[:, k].astype(np.uint64) << np.uint64(BITS * i)
    for i, k in enumerate(range(CORNERS + FIRST_EDGES, CORNERS + FIRST_EDGES + SECOND_EDGES)):
        second |= states[:, k].astype(np.uint64) << np.uint64(BITS * i)
    return first, second


def _joined(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """One key per state for a batch: the rank of its first key in the batch, then its second."""
    _, rank = np.unique(first, return_inverse=True)
    return (rank.reshape(-1).astype(np.uint64) << np.uint64(BITS * SECOND_EDGES)) | second


def fresh(states: np.ndarray, seen: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Indices of the distinct rows of `states` whose keys are in none of `seen`'s key pairs."""
    first, second = keys(states)
    first = np.concatenate([first, *(f for f, _ in seen)])
    second = np.concatenate([second, *(s for _, s in seen)])
    joined = _joined(first, second)
    mine, old = joined[:len(states)], np.sort(joined[len(states):])
    distinct, index = np.unique(mine, return_index=True)
    if len(old):
        at = np.minimum(np.searchsorted(old, distinct), len(old) - 1)
        index = index[old[at] != distinct]
    return np.sort(index)


# The ball ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ball:
    """Every state within RADIUS of solved: `firsts` (sorted distinct first keys), `joined`
    (sorted: rank of the first key in `firsts`, then the second key) and `depth`."""

    metric: str
    firsts: np.ndarray
    joined: np.ndarray
    depth: np.ndarray

    def distances(self, states: np.ndarray) -> np.ndarray:
        """Each state's distance from solved if it is in the ball, else -1."""
        first, second = keys(states)
        # searched in sorted order (binary searches of sorted keys hit the cache: 10x quicker on
        # millions), and the second key only for the few whose first key is in the ball
        order = np.argsort(first)
        rank = np.minimum(np.searchsorted(self.firsts, first[order]), len(self.firsts) - 1)
        hit = self.firsts[rank] == first[order]
        candidates, rank = order[hit], rank[hit]
        joined = (rank.astype(np.uint64) << np.uint64(BITS * SECOND_EDGES)) | second[candidates]
        at = np.minimum(np.searchsorted(self.joined, joined), len(self.joined) - 1)
        inside = self.joined[at] == joined
        found = np.full(len(states), -1, dtype=self.depth.dtype)
        found[candidates[inside]] = self.depth[at[inside]]
        return found

    def counts(self) -> list[int]:
        return np.bincount(self.depth, minlength=RADIUS + 1).tolist()


def _layers(start: np.ndarray, metric: str, radius: int):
    """Breadth-first layers from `start`: (distance, states) for 0..radius; the last layer's
    rows are every neighbour of the one before, not only the new ones (it is not expanded)."""
    layer, seen = start[None, :], [keys(start[None, :])]
    yield 0, layer
    for r in range(1, radius + 1):
        moved = expand(layer, metric)
        if r == radius:
            yield r, moved
            return
        layer = moved[fresh(moved, seen[-2:])]
        seen.append(keys(layer))
        yield r, layer


def _build_ball(metric: str) -> dict[str, np.ndarray]:
    firsts, seconds, depths = [], [], []
    previous = []
    for r, layer in _layers(solved(), metric, RADIUS):
        if r == RADIUS:  # the last layer is not deduplicated by `_layers`
            layer = layer[fresh(layer, previous[-2:])]
        first, second = keys(layer)
        previous.append((first, second))
        firsts.append(first)
        seconds.append(second)
        depths.append(np.full(len(layer), r, dtype=np.int8))
    first, second, depth = np.concatenate(firsts), np.concatenate(seconds), np.concatenate(depths)
    distinct, rank = np.unique(first, return_inverse=True)
    joined = (rank.reshape(-1).astype(np.uint64) << np.uint64(BITS * SECOND_EDGES)) | second
    order = np.argsort(joined)
    return {"firsts": distinct, "joined": joined[order], "depth": depth[order]}


@lru_cache(maxsize=None)
def ball(metric: str) -> Ball:
    """The ball of `metric`, from the disk cache or built there (about a minute, once)."""
    source, table = move_tables(metric)
    key = (metric, RADIUS, source, table, Path(__file__).read_bytes())
    tables = cached_arrays(f"rubik-ball-{metric}", key, lambda: _build_ball(metric))
    return Ball(metric, tables["firsts"], tables["joined"], tables["depth"])


def distance(colours: np.ndarray, metric: str) -> int | None:
    """The distance of a 3x3x3 sticker state from solved if it is at most 2 x RADIUS, else None.

    Faces count as solved in the given colours (the 3x3x3's centres never move).
    """
    the_ball = ball(metric)
    for r, layer in _layers(from_colours(np.asarray(colours)), metric, RADIUS):
        met = the_ball.distances(layer)
        met = met[met >= 0]
        if len(met):
            return r + int(met.min())
    return None


CHUNK_STATES = 500_000
"""`farther_than` expands at most this many states at once into its last layer (memory)."""


def farther_than(colours: np.ndarray, metric: str, bound: int) -> bool:
    """Whether a 3x3x3 sticker state is more than `bound` moves from solved (any bound up to
    2 x RADIUS + 2 on this machine: at 13 half turns, a minute or two).

    Past 2 x RADIUS the distance itself is out of reach, but a bound is not: a state within
    `bound` >= RADIUS moves meets the ball on some layer r <= bound - RADIUS of the search
    from it (a shortest path enters the ball by then, and any state of such a layer in the
    ball is within r + RADIUS), so if none of those layers meets the ball, the state is
    farther. The layers need no deduplication for that; the last one is looked at
    `CHUNK_STATES` states at a time (about 140 million states for a bound of 13 half turns)."""
    the_ball, start = ball(metric), from_colours(np.asarray(colours))
    if bound < RADIUS:
        found = int(the_ball.distances(start[None, :])[0])
        return found < 0 or found > bound
    layer = start[None, :]
    for _, layer in _layers(start, metric, max(bound - RADIUS - 1, 0)):
        if (the_ball.distances(layer) >= 0).any():
            return False
    if bound == RADIUS:
        return True
    for begin in range(0, len(layer), CHUNK_STATES):
        if (the_ball.distances(expand(layer[begin:begin + CHUNK_STATES], metric)) >= 0).any():
            return False
    return True
