"""Projection flows: a cube as layered networks of cubie patterns that share one move sequence (own design).

A state of the 2x2x2 with the D-B-L corner held fixed (a scramble that moved it is turned
as a whole first, as in `model_pieces.oriented`) is where each of the other seven
corner cubies is, and how it is twisted. Forget some cubies and what remains is a
*pattern*: here the cubies {0, 1, 2, 3} (68,040 patterns) and {3, 4, 5, 6} (68,040). A move
acts on patterns as on states, so each pattern set, unrolled over the steps, is a layered
network, and a move sequence is one path through each network. The two patterns together
say where every cubie is and how it is twisted, so a move sequence that takes *both*
patterns from the scramble's to the solved one solves the cube: the two paths, tied to one
sequence of move variables, are an exact model.

Each network is pruned before the model is built, with the breadth-first distances of its
patterns to the solved pattern (a pattern database, 68,040 entries, computed here in plain
numpy once per machine and kept in the disk cache, `core.cache`): a pattern can be on step t of an h-move solution only if it is reached from the
scramble's pattern in t moves through patterns that could still be solved in time, and
only if it leads on to the solved pattern in the remaining h - t moves. What is left of each
network is small; it is the model.

The 3x3x3 is the same model over five patterns of five cubies (`cubies` reads its corners
and edges off the sticker geometry): corners {0..4} and {3..7} (1,632,960 patterns each),
edges {0..4}, {4..8} and {7..11} (3,041,280 each), all six faces turning, the centres
fixed. Moves act on a pattern's code digit by digit, so only its distances are stored
(8 MB a pattern); four-cubie patterns made networks ten times as large and pruned almost
no first moves (docs/pocket_cube.md).

Sets
    K                      the moves of the metric (U, R and F turns);  T = {0..h-1}  steps
    J                      the two patterns;  N_j  the nodes (t, s) of pattern j's pruned network
    A_j                    its arcs (t, s, k, s'): move k at step t takes pattern s to s'
    KT ⊆ T × K             the moves that some arc of every network makes at step t
    W ⊆ KT × KT            pairs of moves (t, k), (t+1, k') that waste a move (same face twice
                           in the half-turn metric; a quarter turn undone at once in the
                           quarter-turn metric)
Data
    start_j, solved_j      pattern j of the state the moves start from, and of the solved cube
Variables
    y[t,k] ∈ {0,1}         step t is move k
    f[j,a] ∈ [0,1]         pattern j's path uses arc a
Constraints
    Σ_k y[t,k] = 1                                   one move per step
    y[t,k] + y[t+1,k'] ≤ 1        ((t,k),(t+1,k')) ∈ W     no wasted pair
    Σ_{a out of n} f[j,a] - Σ_{a into n} f[j,a] = [n = (0, start_j)] - [n = (h, solved_j)]
                                                                   one path per pattern
    Σ_{a = (t,·,k,·) ∈ A_j} f[j,a] = y[t,k]          each path makes the chosen moves
Objective
    none: the model asks whether exactly h moves solve the cube.

Solved as a sequence of such models (`stages`): iterative deepening over h, from the
largest pattern distance of the scramble up to God's number (11 half turns, 14 quarter
turns; in the quarter-turn metric only h of the scramble's parity, since every quarter
turn is an odd permutation of the corners), each h split into parts by its first
`split_length` moves: `SPLIT_MOVES`, or more on the 3x3x3 so that a part has at most
`LONGEST_PART` moves left (one fewer past 12 moves, `FRONTIER`). Before any model is
built the prefixes are bounded with the same pattern distances (`live_prefixes`): a prefix
is dropped when, after it or after every continuation of it by two more moves, some
pattern is further from solved than the moves left. The networks of a part are then made consistent with one another: an arc
whose move at its step no other network makes there cannot be on a solution's path, so it
is dropped with every path through it, and again until nothing changes (no solution is
lost: a solution's moves are made by every network at every step). A part whose prefix is
dropped or whose networks are left without a path is settled without a solver (on
random distance-13 scrambles, all but a few dozen of about seven thousand parts); the
others are solved in turn until one has a solution. Every shorter h
has then been proved infeasible, so the first solution found is optimal.
"""

from __future__ import annotations

import inspect
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat

import numpy as np
import pyomo.environ as pyo

from pyomo_puzzles.contract import cached_arrays
from pyomo_puzzles.contract.modelling import difference, total
from pyomo_puzzles.contract import Stage
from pyomo_puzzles.families.rubik import cube, cubies, model_pieces
from pyomo_puzzles.families.rubik.spec import GODS_NUMBER, CubeState

PATTERNS = {
    2: (("corner", (0, 1, 2, 3)), ("corner", (3, 4, 5, 6))),
    3: (("corner", (0, 1, 2, 3, 4)), ("corner", (3, 4, 5, 6, 7)),
        ("edge", (0, 1, 2, 3, 4)), ("edge", (4, 5, 6, 7, 8)), ("edge", (7, 8, 9, 10, 11))),
}
"""Per cube size: (kind, cubies) of each pattern; together they cover every cubie that moves."""
SPLIT_MOVES = {(2, "htm"): 2, (2, "qtm"): 3, (3, "htm"): 2, (3, "qtm"): 3}
"""Each horizon is split into parts by at least this many first moves (see docs/pocket_cube.md)."""
LONGEST_PART = {(3, "htm"): 7, (3, "qtm"): 8}
"""At most this many moves are left to a part of the 3x3x3: longer horizons are split by
more first moves (see docs/pocket_cube.md)."""
FRONTIER = 12
"""Horizons longer than this (beyond what meeting in the middle gives exactly) leave one move
fewer to a part than `LONGEST_PART`: there the parts multiply about 13-fold per move and
building their networks was most of a proof, while the consistent networks of the shorter
parts settle all but the few that hold a solution (docs/pocket_cube.md, "The second rung")."""
LOOKAHEAD = 2
"""`live_prefixes` keeps a prefix only if a continuation by this many moves is in bounds."""


# Patterns ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pattern:
    """A pattern set: codes, how moves act on them, and distances to the solved pattern.

    A code is the cubies' labels as the digits of a number in base `labels`; most numbers
    are not patterns (two cubies in one place). Only the distances are stored per code: a
    table of next codes would be 18 times as large (half a gigabyte per five-cubie pattern).
    Moves act on the low and the high digits of a code apart, through two small tables
    (`halves`): a move's code is the sum of what it makes of each half."""

    kind: str
    cubies: tuple[int, ...]
    labels: int              # labels of one cubie (positions x stickers)
    label_moves: np.ndarray  # [move, label] -> label
    to_solved: np.ndarray    # [code] -> distance to the solved pattern (-1 if not a pattern)
    solved: int
    halves: tuple = ()       # (low base, [low digits, move] -> code part, [high digits, move] -> code part)
    mean_distance: float = 0.0  # over its patterns: the larger, the more sequences it drops

    @property
    def code_count(self) -> int:
        """How many codes there are (patterns or not): the base of the keys part * B + code."""
        return self.labels ** len(self.cubies)

    def code(self, state_labels: dict[str, list[int]]) -> int:
        """The pattern of a state given as its cubies' labels per kind."""
        return sum(state_labels[self.kind][c] * self.labels ** i for i, c in enumerate(self.cubies))

    def after(self, moves: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """The code of each pattern `codes[i]` after move `moves[i]`."""
        base, low, high = self.halves
        return low[codes % base, moves] + high[codes // base, moves]

    def after_each(self, codes: np.ndarray, moves: np.ndarray) -> np.ndarray:
        """The code of every pattern of `codes` after every move of `moves`, as
        `after(np.tile(moves, len(codes)), np.repeat(codes, len(moves)))`."""
        base, low, high = self.halves
        return (low[(codes % base)[:, None], moves] + high[(codes // base)[:, None], moves]).reshape(-1)


def _halves(label_moves: np.ndarray, size: int, m: int) -> tuple:
    """`Pattern.halves`: what every move makes of every value of a code's m // 2 low digits
    and of its other, high digits (each half's digits moved by `_moved`)."""
    low_digits = m // 2
    tables = []
    for digits, scale in ((low_digits, 1), (m - low_digits, size ** low_digits)):
        values = np.arange(size ** digits, dtype=np.int64)
        every_move = np.arange(len(label_moves))
        moved = _moved(label_moves, size, digits, np.repeat(every_move, len(values)), np.tile(values, len(every_move)))
        tables.append(np.ascontiguousarray(moved.reshape(len(every_move), len(values)).T) * scale)
    return (size ** low_digits, *tables)


def _moved(label_moves: np.ndarray, size: int, m: int, moves: np.ndarray, codes: np.ndarray) -> np.ndarray:
    out = np.zeros(len(codes), dtype=np.int64)
    for i in range(m):
        out += label_moves[moves, (codes // size ** i) % size] * size ** i
    return out


@lru_cache(maxsize=None)
def pattern(n: int, metric: str, kind: str, chosen: tuple[int, ...]) -> Pattern:
    """The breadth-first distances of a pattern set, from the disk cache (`core.cache`,
    keyed by the move table, the cubies and this code) or built there."""
    size, width = cubies.label_count(n, kind), len(cubies.positions(n, kind)[0])
    table = cubies.label_moves(n, metric, kind)
    solved = sum(width * c * size ** i for i, c in enumerate(chosen))
    key = (table, size, width, chosen, _table_code())
    tables = cached_arrays("rubik-pattern", key, lambda: {"to_solved": _distances(table, size, len(chosen), solved)})
    # a plain array over the cached file: numpy's memmap class costs 16 us an indexing
    to_solved = np.asarray(tables["to_solved"])
    return Pattern(kind, chosen, size, table, to_solved, int(solved), _halves(table, size, len(chosen)),
                   float(to_solved[to_solved >= 0].mean()))


@lru_cache(maxsize=1)
def _table_code() -> str:
    """The source of what computes the tables: part of the cache key, so an edit of it
    rebuilds them (and an edit of the model does not)."""
    return "".join(inspect.getsource(function) for function in (_distances, _moved))


def _distances(table: np.ndarray, size: int, m: int, solved: int) -> np.ndarray:
    """to_solved[code]: breadth-first distances from the solved pattern of `m` cubies whose
    labels move by `table` (plain numpy); -1 for codes that are not patterns. The moves are
    closed under inverses, so the distance from solved is the distance to it."""
    to_solved = np.full(size ** m, -1, dtype=np.int8)
    to_solved[solved] = 0
    frontier, depth = np.array([solved], dtype=np.int64), 0
    every_move = np.arange(len(table))
    while len(frontier):
        depth += 1
        for chunk in np.array_split(frontier, max(1, len(frontier) // 200_000)):
            reached = _moved(table, size, m, np.repeat(every_move, len(chunk)), np.tile(chunk, len(table)))
            reached = reached[to_solved[reached] < 0]
            to_solved[reached] = depth
        frontier = np.flatnonzero(to_solved == depth)
    return to_solved


def patterns(spec: CubeState) -> list[Pattern]:
    return [pattern(spec.size, spec.metric, kind, chosen) for kind, chosen in PATTERNS[spec.size]]


@lru_cache(maxsize=64)
def start_state(spec: CubeState) -> tuple[np.ndarray, dict[str, str]]:
    """The state the moves start from, and the renaming of the faces of the moves found:
    the 2x2x2 is first turned as a whole so that its held corner is home."""
    if spec.size == 2:
        return model_pieces.oriented(spec)
    return spec.array(), {f: f for f in cube.FACES}


def _labels(state: np.ndarray, n: int) -> dict[str, list[int]]:
    return {kind: cubies.labels(state, n, kind) for kind in ("corner", "edge") if cubies.positions(n, kind)}


# Parts: one horizon, one prefix ------------------------------------------------------------
@dataclass(frozen=True)
class Part:
    """What one model is built from: the moves still to make from the state after `prefix`."""

    spec: CubeState
    prefix: tuple[str, ...]
    horizon: int
    starts: tuple[int, ...]  # per pattern: its code after the prefix
    arcs: tuple              # per pattern: per step t, arrays (from, move, to) of the pruned network
    allowed: tuple           # per step: the moves every network makes there


def _most_pruning_first(pats: list[Pattern]) -> list[int]:
    """The patterns' indices, the one expected to drop most sequences (largest mean distance) first."""
    return sorted(range(len(pats)), key=lambda j: -pats[j].mean_distance)


PARTS_AT_ONCE = 2_000
"""`parts` prunes the networks of at most this many parts at once (memory)."""


def _pruned_networks(pat: Pattern, starts: np.ndarray, first_moves: np.ndarray, horizon: int,
                     candidates: np.ndarray) -> list:
    """Per step t, arrays (part, from, move, to) of the arcs on the paths from each candidate
    part's start `starts[part]` to solved in `horizon` moves whose first move is allowed by
    `first_moves[part, move]`: pruned forwards by the distance to solved and backwards by
    reachability, the networks of all parts at once (a node is the key part * B + code)."""
    base, every_move = pat.code_count, np.arange(len(pat.label_moves))
    owners = candidates[pat.to_solved[starts[candidates]] <= horizon]
    layer, arcs = owners * base + starts[owners], []
    for t in range(horizon):
        owner, code = np.divmod(layer, base)
        dst = pat.after_each(code, every_move)
        owner, src, mv = np.repeat(owner, len(every_move)), np.repeat(code, len(every_move)), np.tile(every_move, len(code))
        keep = pat.to_solved[dst] <= horizon - t - 1
        if t == 0:
            keep &= first_moves[owner, mv]
        arcs.append((owner[keep], src[keep], mv[keep], dst[keep]))
        layer = np.unique(owner[keep] * base + dst[keep])
    alive = layer[_members(layer, np.arange(len(starts)) * base + pat.solved)]
    for t in range(horizon - 1, -1, -1):
        owner, src, mv, dst = arcs[t]
        keep = _members(owner * base + dst, alive)
        arcs[t] = (owner[keep], src[keep], mv[keep], dst[keep])
        alive = np.unique(owner[keep] * base + src[keep])
    return arcs


def _members(values: np.ndarray, sorted_unique: np.ndarray) -> np.ndarray:
    """np.isin(values, sorted_unique) for a sorted array of distinct values, by binary search
    (np.isin sorts both again: a third of the time spent pruning the networks)."""
    if len(sorted_unique) == 0:
        return np.zeros(len(values), dtype=bool)
    found = np.searchsorted(sorted_unique, values)
    return sorted_unique[np.minimum(found, len(sorted_unique) - 1)] == values


def part(spec: CubeState, prefix: tuple[str, ...], horizon: int,
         starts: tuple[int, ...] | None = None) -> Part | None:
    """The part of horizon `prefix` + `horizon` moves that starts with `prefix`, or None
    if a pattern network shows that it has no solution. `starts`, the patterns after the
    prefix, are worked out from the stickers unless given."""
    if starts is None:
        labels = _labels(cube.apply(start_state(spec)[0], list(prefix), spec.size), spec.size)
        starts = tuple(pat.code(labels) for pat in patterns(spec))
    return parts(spec, [(prefix, starts)], horizon)[0]


def parts(spec: CubeState, prefixes: list[tuple[tuple[str, ...], tuple[int, ...]]], horizon: int) -> list[Part | None]:
    """`part(spec, prefix, horizon, starts)` of each (prefix, starts), in order; the networks
    of up to `PARTS_AT_ONCE` parts pruned together (one part at a time, the numpy calls
    on a few hundred codes each were most of the time spent generating a stage)."""
    found: list[Part | None] = []
    for begin in range(0, len(prefixes), PARTS_AT_ONCE):
        found += _parts_at_once(spec, prefixes[begin:begin + PARTS_AT_ONCE], horizon)
    return found


def _parts_at_once(spec: CubeState, prefixes: list, horizon: int) -> list[Part | None]:
    moves = cubies.moves(spec.size, spec.metric)
    number = {name: k for k, name in enumerate(moves)}
    follows = _follows(spec)
    first_moves = np.array([follows[number[prefix[-1]]] if prefix else np.ones(len(moves), dtype=bool)
                            for prefix, _ in prefixes]).reshape(len(prefixes), len(moves))
    made = np.ones((len(prefixes), horizon, len(moves)), dtype=bool)  # [part, t, k]: every network makes k at t
    networks = {}  # per pattern, per step: arrays (part, from, move, to)
    candidates = np.arange(len(prefixes))  # the parts every network so far has a path for
    pats = patterns(spec)
    for j in _most_pruning_first(pats):
        starts = np.array([codes[j] for _, codes in prefixes], dtype=np.int64)
        networks[j] = _pruned_networks(pats[j], starts, first_moves, horizon, candidates)
        _narrow(made, networks[j])
        candidates = np.unique(networks[j][0][0])
    _make_consistent(networks, made, {j: pat.code_count for j, pat in enumerate(pats)})
    bounds = {j: [np.searchsorted(owner, np.arange(len(prefixes) + 1)) for owner, *_ in steps]
              for j, steps in networks.items()}
    found: list[Part | None] = []
    for i, (prefix, starts) in enumerate(prefixes):
        if not made[i].any(axis=1).all():  # some step has no move every network makes (or no path)
            found.append(None)
            continue
        per_pattern = tuple([(src[b[i]:b[i + 1]], mv[b[i]:b[i + 1]], dst[b[i]:b[i + 1]])
                             for b, (_, src, mv, dst) in zip(bounds[j], networks[j])] for j in range(len(pats)))
        allowed = tuple(frozenset(np.flatnonzero(made[i, t]).tolist()) for t in range(horizon))
        found.append(Part(spec, prefix, horizon, tuple(starts), per_pattern, allowed))
    return found


def _narrow(made: np.ndarray, steps: list) -> None:
    """made[part, t, k] &= (the network of `steps` has an arc of move k at step t)."""
    for t, (owner, _, mv, _) in enumerate(steps):
        makes = np.zeros((made.shape[0], made.shape[2]), dtype=bool)
        makes[owner, mv] = True
        made[:, t] &= makes


def _make_consistent(networks: dict, made: np.ndarray, bases: dict) -> None:
    """The moves and the networks made consistent, in place: an arc whose move is not made
    at its step by every network is dropped, with every path through it, and what the
    networks make is narrowed to what is left, until nothing changes. No solution is lost
    (its moves are made by every network); most parts have no path left (a distance-12
    scramble: 431 of its last stage's 436 parts)."""
    while True:
        before = np.count_nonzero(made)
        for j in networks:
            networks[j] = _paths_making(networks[j], made, bases[j])
            _narrow(made, networks[j])
        if np.count_nonzero(made) == before:
            return


def _paths_making(steps: list, made: np.ndarray, base: int) -> list:
    """The arcs of `steps` whose move is in `made` at their step and that lie on a path from
    the start to solved made of such arcs (a node is the key part * base + code)."""
    steps = [tuple(a[keep] for a in arcs) for t, arcs in enumerate(steps)
             for keep in [made[arcs[0], t, arcs[2]]]]
    for t in range(1, len(steps)):  # forwards: an arc leaves a node an arc of the step before enters
        entered = np.unique(steps[t - 1][0] * base + steps[t - 1][3])
        keep = _members(steps[t][0] * base + steps[t][1], entered)
        steps[t] = tuple(a[keep] for a in steps[t])
    for t in range(len(steps) - 2, -1, -1):  # backwards: an arc enters a node an arc of the next step leaves
        left = np.unique(steps[t + 1][0] * base + steps[t + 1][1])
        keep = _members(steps[t][0] * base + steps[t][3], left)
        steps[t] = tuple(a[keep] for a in steps[t])
    return steps


def _horizons(spec: CubeState) -> list[int]:
    state = start_state(spec)[0]
    labels = _labels(state, spec.size)
    lower = max(int(pat.to_solved[pat.code(labels)]) for pat in patterns(spec))
    upper = min(spec.steps, GODS_NUMBER[(spec.size, spec.metric)])
    if spec.metric == "qtm":  # a quarter turn is a 4-cycle of corners: odd
        parity = cubies.corner_parity(state, spec.size)
        return [h for h in range(lower, upper + 1) if h % 2 == parity]
    return list(range(lower, upper + 1))


def _follows(spec: CubeState) -> np.ndarray:
    """[a, b]: may move b come right after move a (it wastes nothing)?"""
    return _follows_in(spec.size, spec.metric)


@lru_cache(maxsize=None)
def _follows_in(size: int, metric: str) -> np.ndarray:
    moves = cubies.moves(size, metric)
    follows = np.array([[not cubies.wasteful(size, metric, a, b) for b in moves] for a in moves])
    follows.flags.writeable = False  # shared by every caller
    return follows


def _prefixes(spec: CubeState, length: int) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = [()]
    for _ in range(length):
        out = [p + (k,) for p in out for k in cubies.moves(spec.size, spec.metric)
               if not (p and cubies.wasteful(spec.size, spec.metric, p[-1], k))]
    return out


def prefix_count(spec: CubeState, length: int) -> int:
    """How many prefixes of `length` moves waste none (as `_prefixes` lists them)."""
    if length == 0:
        return 1
    follows = _follows(spec)
    ending_with = [1] * len(follows)  # sequences so far that end with each move
    for _ in range(length - 1):
        ending_with = [sum(n for n, ok in zip(ending_with, follows[:, b]) if ok) for b in range(len(follows))]
    return sum(ending_with)


SEQUENCES_AT_ONCE = 1_000_000
"""`live_prefixes` grows at most about this many move sequences at once (memory)."""


def live_prefixes(spec: CubeState, horizon: int, length: int,
                  lookahead: int | None = None) -> list[tuple[tuple[str, ...], tuple[int, ...]]]:
    """The prefixes of `length` moves (in the order of `_prefixes`) that may start a
    solution of `horizon` moves, with the patterns they lead to.

    Sequences grow one move at a time, many at once (numpy), and one is dropped as soon as
    a pattern is further from solved than the moves left; a prefix is kept only if one of
    its continuations by `lookahead` (default `LOOKAHEAD`) more moves is left. It only
    bounds (a search of `lookahead` moves at most past the prefix): what it keeps goes to
    the integer program."""
    pats, moves = patterns(spec), cubies.moves(spec.size, spec.metric)
    labels = _labels(start_state(spec)[0], spec.size)
    grow = _Growth(pats, _follows(spec), horizon)
    lookahead = LOOKAHEAD if lookahead is None else lookahead
    codes = np.array([[pat.code(labels)] for pat in pats], dtype=np.int64)
    found = grow.live(codes, np.zeros((0, 1), dtype=np.int64), length, min(lookahead, horizon - length))
    return [(tuple(moves[k] for k in history), tuple(codes.tolist())) for history, codes in found]


@dataclass
class _Growth:
    """Move sequences grown a move at a time: codes[pattern, sequence], history[move, sequence]."""

    pats: list[Pattern]
    follows: np.ndarray
    horizon: int

    def step(self, codes: np.ndarray, history: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every sequence one move longer, those that can still be solved in time; and the
        sequence each came from."""
        if len(history) == 0:
            parent = np.repeat(np.arange(codes.shape[1]), len(self.follows))
            move = np.tile(np.arange(len(self.follows)), codes.shape[1])
        else:
            parent, move = np.nonzero(self.follows[history[-1]])
        left = self.horizon - len(history) - 1
        moved: dict[int, np.ndarray] = {}
        # one pattern at a time: a sequence one pattern drops is not moved in the others
        for j in _most_pruning_first(self.pats):
            after = self.pats[j].after(move, codes[j, parent])
            keep = self.pats[j].to_solved[after] <= left
            moved = {i: m[keep] for i, m in moved.items()} | {j: after[keep]}
            parent, move = parent[keep], move[keep]
        return np.stack([moved[j] for j in range(len(self.pats))]), np.vstack([history[:, parent], move]), parent

    def live(self, codes: np.ndarray, history: np.ndarray, length: int, lookahead: int) -> list:
        """(history, codes) of the prefixes of `length` moves, grown from these sequences in
        order, that have a continuation by `lookahead` moves."""
        if len(history) == length:
            alive = np.zeros(codes.shape[1], dtype=bool)
            for chunk in self._chunks(codes.shape[1], lookahead):
                alive[chunk[0] + self._continued(codes[:, chunk], history[:, chunk], lookahead)] = True
            return [(history[:, i], codes[:, i]) for i in np.flatnonzero(alive)]
        found = []
        for chunk in self._chunks(codes.shape[1], 1):
            longer, longer_history, _ = self.step(codes[:, chunk], history[:, chunk])
            found += self.live(longer, longer_history, length, lookahead)
        return found

    def _continued(self, codes: np.ndarray, history: np.ndarray, lookahead: int) -> np.ndarray:
        """The sequences (as indices) with a continuation by `lookahead` moves."""
        root = np.arange(codes.shape[1])
        for _ in range(lookahead):
            codes, history, parent = self.step(codes, history)
            root = root[parent]
        return np.unique(root)

    def _chunks(self, count: int, moves_ahead: int) -> list[np.ndarray]:
        per_chunk = max(1, SEQUENCES_AT_ONCE // len(self.follows) ** moves_ahead)
        return [np.arange(start, min(start + per_chunk, count)) for start in range(0, count, per_chunk)]


def split_length(spec: CubeState, horizon: int) -> int:
    """How many first moves split a horizon into parts: `SPLIT_MOVES`, or more so that no
    part has more than `LONGEST_PART` moves left to find."""
    key = (spec.size, spec.metric)
    longest = LONGEST_PART.get(key, horizon)
    if key in LONGEST_PART and horizon > FRONTIER:
        longest -= 1
    return min(max(SPLIT_MOVES[key], horizon - longest), horizon - 1)


def warm_up(spec: CubeState) -> None:
    """The pattern tables (from the disk cache, or built there), the move tables and which
    move may follow which, loaded once per process before any run's clock: a batch's forked
    runs inherit them instead of each reading and preparing them again."""
    patterns(spec)
    _follows(spec)


def stages(spec: CubeState):
    """Iterative deepening: one stage per horizon, its parts split by the first moves."""
    for horizon in _horizons(spec):
        if horizon == 0:  # solved already: no model to build
            yield Stage(objective=0, parts=[], settled=0, solution={"moves": []})
            return
        split = split_length(spec, horizon)
        live = [p for p in parts(spec, live_prefixes(spec, horizon, split), horizon - split) if p is not None]
        yield Stage(objective=horizon, parts=live, settled=prefix_count(spec, split) - len(live))


# The model ---------------------------------------------------------------------------------
def build_model() -> pyo.AbstractModel:
    model = pyo.AbstractModel(name="rubik_projections")
    model.STEPS = pyo.Set(doc="T: steps 0..h-1")
    model.MOVES_AT = pyo.Set(dimen=2, doc="KT: (t, k), the moves every network makes at step t")
    model.WASTED_PAIRS = pyo.Set(dimen=4, doc="W: (t, k, t+1, k') that waste a move")
    model.PATTERNS = pyo.Set(doc="J")
    model.NODES = pyo.Set(dimen=3, doc="N: (j, t, s) pattern j is s after step t")
    model.ARCS = pyo.Set(dimen=5, doc="A: (j, t, s, k, s'), move k at step t takes s to s'")
    model.start = pyo.Param(model.PATTERNS, doc="pattern j of the state the moves start from")
    model.solved = pyo.Param(model.PATTERNS, doc="pattern j of the solved cube")

    model.y = pyo.Var(model.MOVES_AT, domain=pyo.Binary, doc="step t is move k")
    model.f = pyo.Var(model.ARCS, bounds=(0, 1), doc="the pattern's path uses the arc")

    @model.BuildAction()
    def arcs_by_end_and_move(m):
        """OUT(n), IN(n): the arcs that leave and enter node n; MAKING(j, t, k): pattern j's
        arcs of move k at step t (read off A here rather than given as data: one Pyomo set
        per node would be most of the build time); h = |T|."""
        m.OUT, m.IN, m.MAKING = out, into, making = defaultdict(list), defaultdict(list), defaultdict(list)
        for (j, t, s, k, u), flow in zip(m.ARCS, m.f.values()):  # f is indexed by A, in its order
            out[j, t, s].append(flow)
            into[j, t + 1, u].append(flow)
            making[j, t, k].append(flow)
        m.h = len(m.STEPS)

    @model.Constraint(model.STEPS)
    def one_move_per_step(m, t):
        return total(m.y[t, k] for (tt, k) in m.MOVES_AT if tt == t) == 1

    @model.Constraint(model.WASTED_PAIRS)
    def no_wasted_pair(m, t, k, t2, k2):
        return m.y[t, k] + m.y[t2, k2] <= 1

    @model.Constraint(model.NODES)
    def one_path_per_pattern(m, j, t, s):
        supply = int(s == m.start[j]) if t == 0 else -int(s == m.solved[j]) if t == m.h else 0
        return difference(m.OUT[j, t, s], m.IN[j, t, s]) == supply

    @model.Constraint(model.PATTERNS, model.MOVES_AT)
    def paths_make_the_chosen_moves(m, j, t, k):
        return total(m.MAKING[j, t, k]) == m.y[t, k]

    model.feasibility = pyo.Objective(expr=0, sense=pyo.minimize)
    return model


def model_data(p: Part) -> dict:
    moves = cubies.moves(p.spec.size, p.spec.metric)
    moves_at = [(t, moves[k]) for t in range(p.horizon) for k in sorted(p.allowed[t])]
    follows = _follows(p.spec)
    wasted = [(t, moves[a], t + 1, moves[b]) for t in range(p.horizon - 1)
              for a in p.allowed[t] for b in p.allowed[t + 1] if not follows[a, b]]
    names = np.array(moves, dtype=object)
    arcs, nodes = [], []
    for j, network in enumerate(p.arcs):
        entering = np.zeros(0, dtype=np.int64)  # the patterns step t-1's arcs lead to
        for t, (src, mv, dst) in enumerate(network):
            allowed = np.zeros(len(moves), dtype=bool)
            allowed[list(p.allowed[t])] = True
            keep = allowed[mv]
            src, mv, dst = src[keep], mv[keep], dst[keep]
            arcs += zip(repeat(j), repeat(t), src.tolist(), names[mv].tolist(), dst.tolist())
            nodes += zip(repeat(j), repeat(t), np.union1d(entering, src).tolist())
            entering = dst
        nodes += zip(repeat(j), repeat(p.horizon), np.unique(entering).tolist())
    return {None: {
        "STEPS": {None: list(range(p.horizon))},
        "MOVES_AT": {None: moves_at},
        "WASTED_PAIRS": {None: wasted},
        "PATTERNS": {None: list(range(len(p.arcs)))},
        "NODES": {None: nodes},
        "ARCS": {None: arcs},
        "start": dict(enumerate(p.starts)),
        "solved": {j: pat.solved for j, pat in enumerate(patterns(p.spec))},
    }}


def decode(p: Part, model: pyo.ConcreteModel) -> dict:
    chosen = []
    for t in sorted(model.STEPS):
        chosen += [k for (tt, k) in model.MOVES_AT if tt == t and (model.y[tt, k].value or 0) > 0.5]
    return {"moves": cube.renamed(list(p.prefix) + chosen, start_state(p.spec)[1])}


def applies_to(spec: CubeState) -> str | None:
    return None if spec.size in PATTERNS else f"no patterns are defined for the {spec.size}x{spec.size}x{spec.size}"
