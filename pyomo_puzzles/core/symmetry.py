"""Rotation and reflection groups of grids and boxes, as maps on integer cells.

A symmetry of a d-dimensional box is a signed permutation of the axes: new coordinate i
is old coordinate perm[i], mirrored when flip[i] is set. Rotations are the ones with
determinant +1.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

Cell = tuple[int, ...]


@dataclass(frozen=True)
class AxisMap:
    perm: tuple[int, ...]
    flip: tuple[bool, ...]

    @property
    def is_rotation(self) -> bool:
        inversions = sum(1 for i, j in itertools.combinations(range(len(self.perm)), 2)
                         if self.perm[i] > self.perm[j])
        return (inversions + sum(self.flip)) % 2 == 0

    def apply_free(self, cell: Cell) -> Cell:
        """Apply as a linear map (for shapes; translate afterwards)."""
        return tuple(-cell[p] if f else cell[p] for p, f in zip(self.perm, self.flip))

    def apply_in_box(self, cell: Cell, size: Cell) -> Cell:
        """Apply as a symmetry of the box with the given size (mirroring inside the box)."""
        return tuple(size[i] - 1 - cell[p] if f else cell[p]
                     for i, (p, f) in enumerate(zip(self.perm, self.flip)))


def axis_maps(dim: int, rotations_only: bool = False) -> list[AxisMap]:
    """All 2^d d! signed axis permutations (8 in 2D, 48 in 3D), or the rotations only."""
    maps = [AxisMap(perm, flip)
            for perm in itertools.permutations(range(dim))
            for flip in itertools.product((False, True), repeat=dim)]
    return [m for m in maps if m.is_rotation] if rotations_only else maps


def box_symmetries(size: Cell, rotations_only: bool = False) -> list[AxisMap]:
    """Symmetries of a box: axis maps that only exchange axes of equal length."""
    return [m for m in axis_maps(len(size), rotations_only)
            if all(size[i] == size[p] for i, p in enumerate(m.perm))]


def normalise(cells) -> tuple[Cell, ...]:
    """Translate a shape so its minimum corner is the origin; sorted tuple of cells."""
    cells = list(cells)
    low = [min(c[i] for c in cells) for i in range(len(cells[0]))]
    return tuple(sorted(tuple(c[i] - low[i] for i in range(len(low))) for c in cells))


def orientations(cells, rotations_only: bool) -> list[tuple[Cell, ...]]:
    """Every distinct orientation of a shape, each normalised, in a fixed order."""
    dim = len(next(iter(cells)))
    seen = {normalise(m.apply_free(c) for c in cells) for m in axis_maps(dim, rotations_only)}
    return sorted(seen)
