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

With `changed` > 0, that many givens are then each given another digit, one that no other
given in its row, column or box holds (so no two givens clash on sight). The planted grid no
longer completes it: whether any grid does is the question, and where none does, a solver
must prove it by search. These are the library's grids to be proved infeasible; their
answer comes from the solvers and dancing links, never from the construction.
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


def sudoku(seed: int = 1, box: int = 3, givens: int | None = None, changed: int = 0, **_: object) -> dict:
    """A `box²` x `box²` grid keeping `givens` digits of a random complete grid (default: 40 %),
    `changed` of them then given another digit that clashes with no other given."""
    if box not in BOXES:
        raise UserError(f"option box must be one of {', '.join(map(str, BOXES))}, not {box}")
    n = box * box
    if givens is None:
        givens = round(0.4 * n * n)
    if not 0 <= givens <= n * n:
        raise UserError(f"option givens must be between 0 and {n * n} for box {box}, not {givens}")
    if not 0 <= changed <= givens:
        raise UserError(f"option changed must be between 0 and the givens ({givens}), not {changed}")
    rng = random.Random(seed)
    grid = complete_grid(box, rng)
    kept = sorted(rng.sample(range(n * n), givens))
    given = {divmod(cell, n): grid[cell // n][cell % n] for cell in kept}
    _change_givens(given, box, changed, rng)
    rows = ["".join(symbol(given[r, c]) if (r, c) in given else "." for c in range(n)) for r in range(n)]
    option_text = f"--option box={box} --option givens={givens}" + (f" --option changed={changed}" if changed else "")
    what = f"a random complete grid with {n * n - givens} cells emptied"
    if changed:
        what += f" and {changed} of its givens changed"
    return {"puzzle": "sudoku",
            "name": f"random {n}x{n}, {givens} givens" + (f", {changed} changed" if changed else "") + f", seed {seed}",
            "source": f"generated: pyomo-puzzles generate sudoku {option_text} --seed {seed} ({what})",
            "box": box,
            "grid": rows,
            "known": {"givens": givens} if changed else {"givens": givens, "solvable": True}}


def _change_givens(given: dict[tuple[int, int], int], box: int, changed: int, rng: random.Random) -> None:
    """Give `changed` distinct givens, drawn at random, a digit no other given in their units holds."""
    if not changed:
        return
    n = box * box
    cells = list(given)
    rng.shuffle(cells)
    done = 0
    for r, c in cells:
        if done == changed:
            return
        neighbours = {(r, k) for k in range(n)} | {(k, c) for k in range(n)} | {
            (r // box * box + i, c // box * box + j) for i in range(box) for j in range(box)}
        held = {given[cell] for cell in neighbours - {(r, c)} if cell in given} | {given[r, c]}
        free = [v for v in range(1, n + 1) if v not in held]
        if free:
            given[r, c] = rng.choice(free)
            done += 1
    if done < changed:
        raise UserError(f"option changed: only {done} givens have a digit left that clashes with no other given, "
                        f"not {changed}")


GENERATORS = {"sudoku": sudoku}
