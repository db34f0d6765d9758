"""The breadth-first distance table of the whole 2x2x2 group (plain numpy, no solver).

The corner D-B-L (cubie centre (-1, -1, -1)) is held fixed, so the moves are the turns of
U, R and F: 9 of them in the half-turn metric (X, X2, X'), 6 in the quarter-turn metric.
Every state is reached, 3,674,160 in all. A state is keyed by the colours of the 21
stickers that can move (3 bits each: 63 bits, one uint64).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pyomo_puzzles.contract import UserError
from pyomo_puzzles.families.rubik import cube, cubies, middle
from pyomo_puzzles.families.rubik.spec import GODS_NUMBER

N = 2
FIXED_CORNER = cubies.HELD_CORNER
METRICS = {metric: cubies.moves(N, metric) for metric in ("htm", "qtm")}
DEEPEST_3X3X3 = {"htm": 2 * middle.RADIUS + 2, "qtm": 2 * middle.RADIUS + 4}
"""The deepest 3x3x3 scramble `generate` makes, per metric: meeting in the middle gives
distances up to 2 x `middle.RADIUS` = 12 exactly and proves a state farther than up to 14
(`middle.farther_than`); a scramble of `depth` moves whose state is farther than
`depth` - 1 half turns is exactly `depth` from solved, and in the quarter-turn metric farther
than `depth` - 2 suffices (a state's distance has the parity of every sequence that makes it)."""
CERTIFIED_STEP = {"htm": 1, "qtm": 2}
"""A 3x3x3 scramble of `depth` moves is exactly `depth` from solved when its state is farther
than `depth` - this (see `DEEPEST_3X3X3`)."""


def deepest_generated(size: int, metric: str) -> int:
    """The deepest scramble `generate` makes: God's number on the 2x2x2 (whole table)."""
    return GODS_NUMBER[(N, metric)] if size == N else DEEPEST_3X3X3[metric]


@lru_cache(maxsize=None)
def moving_stickers() -> np.ndarray:
    """Positions of the 21 stickers that U, R and F can move."""
    return np.array([i for i, (p, _) in enumerate(cube.stickers(N)) if p != FIXED_CORNER])


def keys(states: np.ndarray) -> np.ndarray:
    """uint64 key of each state (rows of 24 colours)."""
    key = np.zeros(len(states), dtype=np.uint64)
    for shift, column in enumerate(moving_stickers()):  # one column at a time: little memory
        key |= states[:, column].astype(np.uint64) << np.uint64(3 * shift)
    return key


@dataclass
class Table:
    metric: str
    keys: np.ndarray        # sorted
    depth: np.ndarray       # distance of keys[i] from solved
    counts: list[int]       # states at each distance

    def distance(self, state: np.ndarray) -> int:
        key = keys(np.asarray(state, dtype=np.int8)[None, :])[0]
        i = int(np.searchsorted(self.keys, key))
        if i == len(self.keys) or self.keys[i] != key:
            raise ValueError("not a state of the 2x2x2 with the D-B-L corner in place")
        return int(self.depth[i])


@lru_cache(maxsize=None)
def table(metric: str) -> Table:
    """Breadth-first search from the solved state over all states."""
    dests = [np.array(cube.move(N, m)) for m in METRICS[metric]]
    frontier = cube.solved(N)[None, :].astype(np.int8)
    seen_keys, seen_depth = [keys(frontier)], [np.zeros(1, dtype=np.int8)]
    previous = np.zeros(0, dtype=np.uint64)
    counts = [1]
    depth = 0
    while True:
        depth += 1
        moved = np.empty((len(dests) * len(frontier), frontier.shape[1]), dtype=np.int8)
        for k, dest in enumerate(dests):
            moved[k * len(frontier):(k + 1) * len(frontier)][:, dest] = frontier
        new_keys, first = np.unique(keys(moved), return_index=True)
        # the moves are closed under inverses: a neighbour of depth d is at d - 1, d or d + 1
        fresh = ~(_member(new_keys, seen_keys[-1]) | _member(new_keys, previous))
        if not fresh.any():
            break
        previous = seen_keys[-1]
        frontier = moved[first[fresh]]
        seen_keys.append(new_keys[fresh])
        seen_depth.append(np.full(int(fresh.sum()), depth, dtype=np.int8))
        counts.append(int(fresh.sum()))
    all_keys = np.concatenate(seen_keys)
    order = np.argsort(all_keys)
    return Table(metric, all_keys[order], np.concatenate(seen_depth)[order], counts)


def _member(values: np.ndarray, sorted_pool: np.ndarray) -> np.ndarray:
    if not len(sorted_pool):
        return np.zeros(len(values), dtype=bool)
    i = np.searchsorted(sorted_pool, values)
    i[i == len(sorted_pool)] = 0
    return sorted_pool[i] == values


def scramble_at_depth(metric: str, depth: int, seed: int) -> list[str]:
    """A scramble (turns of U, R, F) whose state is exactly `depth` moves from solved in
    `metric`: a random walk that takes, at each step, a move that goes one step further."""
    rng = random.Random(seed)
    tab = table(metric)
    for _ in range(1000):
        state, moves = cube.solved(N), []
        for d in range(1, depth + 1):
            options = [m for m in METRICS[metric] if tab.distance(cube.apply(state, [m], N)) == d]
            if not options:
                break
            moves.append(rng.choice(options))
            state = cube.apply(state, [moves[-1]], N)
        else:
            return moves
    raise ValueError(f"no scramble of depth {depth} found")


def generate(seed: int = 1, depth: int = 5, metric: str = "htm", size: int = 2) -> dict:
    """A cube instance whose optimal solution has exactly `depth` moves in `metric`: on the
    2x2x2 from the whole table, on the 3x3x3 (depth 0-14 half turns, 0-16 quarter turns) by
    meeting in the middle (`middle`; past 12 it proves the state farther than `depth` -
    `CERTIFIED_STEP`, and the scramble of `depth` moves bounds it from above)."""
    if metric not in METRICS:
        raise UserError(f"--metric must be htm or qtm, not {metric!r}")
    if size not in (2, 3):
        raise UserError(f"--size must be 2 or 3, not {size}")
    deepest = deepest_generated(size, metric)
    if not 0 <= depth <= deepest:
        raise UserError(f"--depth must be 0..{deepest} for the {size}x{size}x{size} in the {metric} metric")
    if size == 2:
        moves, how = scramble_at_depth(metric, depth, seed), "the breadth-first table"
    else:
        moves, how = scramble_3x3x3(metric, depth, seed), "meeting in the middle"
        if depth > 2 * middle.RADIUS:
            how += f": more than {depth - CERTIFIED_STEP[metric]}; the scramble: at most {depth}"
    flag = "" if size == 2 else " --size 3"
    return {"puzzle": "rubik", "title": f"{size}x{size}x{size} at distance {depth} ({metric})",
            "source": f"generated: pyomo-puzzles generate rubik --depth {depth} --metric {metric} --seed {seed}{flag} "
                      f"(distance from {how})",
            "size": size, "scramble": " ".join(moves), "metric": metric, "known": {"distance": depth}}


def scramble_3x3x3(metric: str, depth: int, seed: int) -> list[str]:
    """Random 3x3x3 scrambles of `depth` moves (no face turned twice in a row) until one is
    `depth` moves from solved (`middle.distance`; past 12, farther than `depth` -
    `CERTIFIED_STEP` by `middle.farther_than`)."""
    rng = random.Random(seed)
    powers = ("", "2", "'") if metric == "htm" else ("", "'")
    for _ in range(1000):
        moves: list[str] = []
        while len(moves) < depth:
            move = rng.choice(cube.FACES) + rng.choice(powers)
            if not moves or move[0] != moves[-1][0]:
                moves.append(move)
        state = cube.apply(cube.solved(3), moves, 3)
        if depth > 2 * middle.RADIUS:
            if middle.farther_than(state, metric, depth - CERTIFIED_STEP[metric]):
                return moves
        elif middle.distance(state, metric) == depth:
            return moves
    raise ValueError(f"no scramble of depth {depth} found")
