"""Seeded random grids with a planted completion: the benchmark library's larger Sudoku.

A complete grid is drawn from the pattern grid (row r, column c holds
(box·(r mod box) + ⌊r/box⌋ + c) mod n, counting from 0) by the transformations that keep a
grid valid: rows permuted within their band, bands permuted, the same for columns and
stacks, the digits relabelled and the grid transposed at random. Then `givens` cells, drawn
at random, keep their digit and the others are emptied. The grid is solvable by
construction (the planted grid completes it), not necessarily uniquely: this is the
quasigroup-with-holes construction of Achlioptas, Gomes, Kautz and Selman (AAAI 2000)
applied to Sudoku, whose hardest grids lie between few givens (many completions, easy to
find one) and many (the givens force the rest).
"""

from __future__ import annotations

import random

from pyomo_puzzles.contract import UserError

from pyomo_puzzles_sudoku.grid import symbol

BOXES = (2, 3, 4, 5, 6)


def complete_grid(box: int, rng: random.Random) -> list[list[int]]:
    """A random valid n x n grid (digits from 1), n = box²."""
    n = box * box
    rows = _shuffled_within_groups(box, rng)
    columns = _shuffled_within_groups(box, rng)
    relabel = rng.sample(range(1, n + 1), n)
    grid = [[relabel[(box * (r % box) + r // box + c) % n] for c in columns] for r in rows]
    if rng.random() < 0.5:
        grid = [list(column) for column in zip(*grid)]
    return grid


def _shuffled_within_groups(box: int, rng: random.Random) -> list[int]:
    """0..n-1 with the groups of `box` (bands or stacks) shuffled, and each group's members."""
    groups = rng.sample(range(box), box)
    return [g * box + k for g in groups for k in rng.sample(range(box), box)]


def sudoku(seed: int = 1, box: int = 3, givens: int | None = None, **_: object) -> dict:
    """A `box²` x `box²` grid keeping `givens` digits of a random complete grid (default: 40 %)."""
    if box not in BOXES:
        raise UserError(f"option box must be one of {', '.join(map(str, BOXES))}, not {box}")
    n = box * box
    if givens is None:
        givens = round(0.4 * n * n)
    if not 0 <= givens <= n * n:
        raise UserError(f"option givens must be between 0 and {n * n} for box {box}, not {givens}")
    rng = random.Random(seed)
    grid = complete_grid(box, rng)
    kept = set(rng.sample(range(n * n), givens))
    rows = ["".join(symbol(grid[r][c]) if r * n + c in kept else "." for c in range(n)) for r in range(n)]
    return {"puzzle": "sudoku",
            "name": f"random {n}x{n}, {givens} givens, seed {seed}",
            "source": f"generated: pyomo-puzzles generate sudoku --option box={box} --option givens={givens} "
                      f"--seed {seed} (a random complete grid with {n * n - givens} cells emptied)",
            "box": box,
            "grid": rows,
            "known": {"givens": givens, "solvable": True}}


GENERATORS = {"sudoku": sudoku}
