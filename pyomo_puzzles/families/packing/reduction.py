"""Placements that are in no covering, found before any solver runs.

Two rules, both sound (a placement they drop is used by no covering, so every covering,
every count and every uniqueness proof is unchanged):

Dead regions (`DeadPlacementTest`, applied when an instance's placements are derived).
    Every cell is covered exactly once and every piece is connected face to face, so each
    connected region of the cells a placement leaves free is covered exactly by some of
    the other pieces: the region's size is a sum of their sizes. A placement that leaves a
    region of any other size is dropped. On the IQ Twist board that is a corner or edge
    cell cut off from the rest (no piece has fewer than 3 cells); on a pentomino board,
    any region whose size is not a multiple of 5. It depends on the board and the pieces
    only, so the challenges of one puzzle share the work.

One-step lookahead (`lookahead`, applied by the placement formulation to its rows).
    The exact-cover rows say: exactly one placement of the row's set is used (a cell, a
    piece type with one copy, a peg, a pre-placed piece). If placement p is used, every
    placement sharing a row with p is not, so every row p does not meet must still have a
    placement that shares no row with p. A p for which some row has none is dropped, and
    the test is repeated on what is left until nothing changes. This is what a MIP
    solver's probing finds on the binary variables (fix x_p = 1, propagate once); done
    here with a few dense matrix products, it also spares Pyomo the columns. Pegs make
    it strong: on the IQ Twist booklet challenges it keeps about 4 placements in 10.
    Rows that ask for more than one placement (piece types with several copies) are left
    out of the test, which only makes it weaker. Skipped on large instances
    (`LOOKAHEAD_WORK_LIMIT`).

Regions are found by flood fill over the board as a bitboard (one bit per cell of the box,
holes left out), which grows a region by all its neighbours at once.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

import numpy as np

from pyomo_puzzles.contract.modelling import Cell

LOOKAHEAD_WORK_LIMIT = 1e8
"""Skip the lookahead when one round's products (columns^2 x rows multiply-adds) would
exceed this: it then costs more than it can save. The model is right without it. Every
IQ Twist board (832^2 x 45 = 3e7 on the empty one; a challenge round takes about 1 ms),
the Soma cube and the 3x3x3 cubes are under it; the 6x10 pentomino board (1,928^2 x 72
= 2.7e8, 28 ms for 16 placements dropped) and the 6x6x6 L-tromino cube of
`benchmarks/overhead.py` (28 ms for none) are over it."""

_CHUNK = 2048
"""Placements tested per matrix product: bounds the memory of one round."""


class Bitboard:
    """The cells of a box (minus holes) as the bits of one integer."""

    def __init__(self, size: Cell, cells) -> None:
        strides = [math.prod(size[:axis]) for axis in range(len(size))]
        self.bit = {cell: 1 << sum(v * s for v, s in zip(cell, strides)) for cell in cells}
        self.full = sum(self.bit.values())
        self._steps = []  # (stride, cells with a next cell on the axis, cells with a previous one)
        for axis, stride in enumerate(strides):
            has_next = sum(b for c, b in self.bit.items() if c[axis] < size[axis] - 1)
            has_previous = sum(b for c, b in self.bit.items() if c[axis] > 0)
            self._steps.append((stride, has_next, has_previous))

    def mask(self, cells) -> int:
        return sum(map(self.bit.__getitem__, cells))

    def region_sizes(self, free: int):
        """The sizes of the connected regions of the cells in `free`."""
        while free:
            region = free & -free
            while True:
                grown = region
                for stride, has_next, has_previous in self._steps:
                    grown |= ((region & has_next) << stride) | ((region & has_previous) >> stride)
                grown &= free
                if grown == region:
                    break
                region = grown
            free &= ~region
            yield region.bit_count()


def fillable_sizes(sizes: Counter) -> int:
    """The sums of sub-multisets of `sizes` (size -> how many pieces), as a bitset."""
    sums = 1
    for size, count in sizes.items():
        for _ in range(count):
            sums |= sums << size
    return sums


class DeadPlacementTest:
    """Whether a placement of a piece type leaves a region the other pieces cannot fill."""

    def __init__(self, size: Cell, board, piece_sizes: dict[str, tuple[int, int]]) -> None:
        """`piece_sizes`: piece type -> (cells per piece, copies)."""
        self.board = Bitboard(size, board)
        all_pieces: Counter = Counter()
        for cells, copies in piece_sizes.values():
            all_pieces[cells] += copies
        self._fillable = {}
        for name, (cells, _) in piece_sizes.items():
            others = all_pieces.copy()
            others[cells] -= 1
            self._fillable[name] = fillable_sizes(others)
        self._verdicts: dict = {}

    def is_dead(self, piece: str, cells) -> bool:
        taken = self.board.mask(cells)
        fillable = self._fillable[piece]
        verdict = self._verdicts.get((fillable, taken))
        if verdict is None:
            verdict = any(not (fillable >> size) & 1 for size in self.board.region_sizes(self.board.full & ~taken))
            self._verdicts[(fillable, taken)] = verdict
        return verdict


def lookahead(rows: list[list[int]], n_columns: int, work_limit: float = LOOKAHEAD_WORK_LIMIT) -> np.ndarray:
    """Which of the columns 0..n_columns-1 survive the one-step lookahead (a bool array;
    all of them when the work would exceed `work_limit`).

    `rows`: the exactly-one rows, each as the list of columns in it.
    """
    alive = np.ones(n_columns, dtype=bool)
    if not rows or n_columns == 0 or float(n_columns) ** 2 * len(rows) > work_limit:
        return alive
    lengths = [len(members) for members in rows]
    incidence = np.zeros((n_columns, len(rows)), dtype=np.float32)
    incidence[np.fromiter((c for members in rows for c in members), dtype=np.int64, count=sum(lengths)),
              np.repeat(np.arange(len(rows)), lengths)] = 1.0
    return _drop_until_stable(incidence, alive)  # an isolated run keeps BLAS to its threads


def _drop_until_stable(incidence: np.ndarray, alive: np.ndarray) -> np.ndarray:
    while True:
        columns = np.flatnonzero(alive)
        rows_of = incidence[columns]
        dropped = [columns[start + np.flatnonzero(~_each_row_reachable(rows_of, start))]
                   for start in range(0, len(columns), _CHUNK)]
        dropped = np.concatenate(dropped) if dropped else np.empty(0, dtype=np.int64)
        if len(dropped) == 0:
            return alive
        alive[dropped] = False


def _each_row_reachable(rows_of: np.ndarray, start: int) -> np.ndarray:
    """For the columns start..start+_CHUNK-1 of `rows_of` (columns x rows, 0/1): whether
    every row they do not meet has a column sharing no row with them."""
    block = rows_of[start:start + _CHUNK]
    disjoint = (block @ rows_of.T == 0).astype(np.float32)
    reachable = disjoint @ rows_of
    return ((reachable > 0) | (block > 0)).all(axis=1)
