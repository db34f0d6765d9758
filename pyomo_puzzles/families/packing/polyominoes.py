"""Sets of free polyominoes, and the checkerboard-colouring argument that proves a board
cannot be tiled by them.

`free_polyominoes(n)` grows every polyomino of n cells from those of n - 1 and keeps one
representative of each class under the 8 rotations and reflections of the square (1, 1, 2,
5, 12, 35, 108, ... classes: OEIS A000105).

`colouring_proof(board, pieces)`: colour the board like a checkerboard. A piece covers b
black and w white cells wherever it lies, up to swapping them, so it adds +-(b - w) to the
difference black - white of the cells it covers. If no choice of signs makes the pieces'
differences add up to the board's, no tiling exists (Golomb, "Polyominoes", 1965: the 35
hexominoes, 11 of them covering 4 + 2 cells and 24 covering 3 + 3, tile no rectangle).
"""

from __future__ import annotations

Cell = tuple[int, int]


def _normalised(cells) -> tuple[Cell, ...]:
    low_x, low_y = min(x for x, _ in cells), min(y for _, y in cells)
    return tuple(sorted((x - low_x, y - low_y) for x, y in cells))


def _images(cells) -> list[tuple[Cell, ...]]:
    """The 8 images of `cells` under the square's rotations and reflections, normalised."""
    images = []
    for mirrored in (False, True):
        shape = [(-x, y) if mirrored else (x, y) for x, y in cells]
        for _ in range(4):
            shape = [(-y, x) for x, y in shape]
            images.append(_normalised(shape))
    return images


def canonical(cells) -> tuple[Cell, ...]:
    """One representative of the class of `cells` under rotations and reflections."""
    return min(_images(cells))


def free_polyominoes(order: int) -> list[tuple[Cell, ...]]:
    """Every free polyomino of `order` cells, each once (canonical cells), in a fixed order."""
    if order < 1:
        raise ValueError("a polyomino has at least one cell")
    shapes = {((0, 0),)}
    for _ in range(order - 1):
        grown = set()
        for shape in shapes:
            taken = set(shape)
            for x, y in shape:
                for cell in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if cell not in taken:
                        grown.add(canonical([*shape, cell]))
        shapes = grown
    return sorted(shapes, key=lambda s: (max(x for x, _ in s) - min(x for x, _ in s), s))


def colour_difference(cells) -> int:
    """Black cells less white cells, on a checkerboard whose cell (0, 0) is black."""
    return sum(1 if (x + y) % 2 == 0 else -1 for x, y in cells)


def colouring_proof(board_cells, pieces: list) -> str | None:
    """Why `pieces` (cell lists, each used once) cannot tile `board_cells` by the
    checkerboard colouring, or None if the colouring does not forbid it."""
    differences = [abs(colour_difference(p)) for p in pieces]
    target = colour_difference(board_cells)
    reachable = {0}
    for d in differences:
        reachable = {s + d for s in reachable} | {s - d for s in reachable}
    if target in reachable:
        return None
    unbalanced = sum(1 for d in differences if d)
    return (f"checkerboard colouring: the board has {target:+d} more black than white cells, and the pieces' "
            f"differences (+-{', +-'.join(str(d) for d in sorted(set(differences)))}; {unbalanced} of "
            f"{len(pieces)} pieces unbalanced) can add up to no such sum (Golomb, Polyominoes, 1965)")
