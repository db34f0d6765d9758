"""Load a packing instance: board cells, piece types, every placement, the symmetry group.

Orientations and placements are derived here from the pieces' cells (never typed in by
hand): rotations always, reflections when the instance allows them.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

from pyomo_puzzles.core.symmetry import AxisMap, Cell, box_symmetries, normalise, orientations
from pyomo_puzzles.errors import DataError


@dataclass(frozen=True)
class PieceType:
    name: str
    cells: tuple[Cell, ...]
    count: int
    orientations: tuple[tuple[Cell, ...], ...]


@dataclass(frozen=True)
class Placement:
    index: int
    piece: str
    cells: tuple[Cell, ...]


@dataclass
class PackingSpec:
    path: Path
    title: str
    size: Cell
    holes: frozenset[Cell]
    cells: tuple[Cell, ...]
    pieces: tuple[PieceType, ...]
    allow_reflections: bool
    placements: tuple[Placement, ...]
    symmetries: tuple[AxisMap, ...]
    known: dict = field(default_factory=dict)
    placement_index: dict = field(default_factory=dict)

    @property
    def dim(self) -> int:
        return len(self.size)

    def piece(self, name: str) -> PieceType:
        return next(p for p in self.pieces if p.name == name)

    def placement_of(self, piece: str, cells) -> Placement | None:
        key = (piece, tuple(sorted(tuple(c) for c in cells)))
        index = self.placement_index.get(key)
        return None if index is None else self.placements[index]


def _in_box(cell: Cell, size: Cell) -> bool:
    return all(0 <= v < s for v, s in zip(cell, size))


def _check_cells(path: Path, where: str, cells: list, dim: int) -> tuple[Cell, ...]:
    out = []
    for j, cell in enumerate(cells):
        if len(cell) != dim:
            raise DataError(path, f"{where}[{j}]", f"has {len(cell)} coordinates, the board has {dim}")
        out.append(tuple(cell))
    if len(set(out)) != len(out):
        raise DataError(path, where, "lists a cell twice")
    return tuple(out)


def _connected(cells: tuple[Cell, ...]) -> bool:
    todo, seen = [cells[0]], {cells[0]}
    cellset = set(cells)
    while todo:
        c = todo.pop()
        for axis in range(len(c)):
            for step in (-1, 1):
                n = c[:axis] + (c[axis] + step,) + c[axis + 1:]
                if n in cellset and n not in seen:
                    seen.add(n)
                    todo.append(n)
    return len(seen) == len(cells)


def _placements(pieces, board: set[Cell], size: Cell) -> list[Placement]:
    found = []
    for piece in pieces:
        for shape in piece.orientations:
            extent = [max(c[i] for c in shape) for i in range(len(size))]
            offsets = [range(size[i] - extent[i]) for i in range(len(size))]
            for shift in itertools.product(*offsets):
                cells = tuple(tuple(c[i] + shift[i] for i in range(len(size))) for c in shape)
                if all(c in board for c in cells):
                    found.append(Placement(len(found), piece.name, tuple(sorted(cells))))
    return found


def _mirror_closed(piece: PieceType) -> bool:
    """True if the piece's orientations include its mirror images (achiral or flippable)."""
    return set(orientations(piece.cells, rotations_only=False)) == set(piece.orientations)


def _instance_symmetries(size: Cell, holes: frozenset[Cell], pieces) -> tuple[AxisMap, ...]:
    with_reflections = all(_mirror_closed(p) for p in pieces)
    group = box_symmetries(size, rotations_only=not with_reflections)
    return tuple(g for g in group if {g.apply_in_box(h, size) for h in holes} == set(holes))


def load(data: dict, path: Path) -> PackingSpec:
    size = tuple(data["board"]["size"])
    dim = len(size)
    holes = _check_cells(path, "board.holes", data["board"].get("holes", []), dim)
    for j, hole in enumerate(holes):
        if not _in_box(hole, size):
            raise DataError(path, f"board.holes[{j}]", f"cell {list(hole)} is off the board of size {list(size)}")
    board = set(itertools.product(*(range(s) for s in size))) - set(holes)
    allow_reflections = data.get("allow_reflections", True)
    pieces, names = [], set()
    for i, raw in enumerate(data["pieces"]):
        where = f"pieces[{i}]"
        if raw["name"] in names:
            raise DataError(path, f"{where}.name", f"piece name '{raw['name']}' is used twice")
        names.add(raw["name"])
        cells = normalise(_check_cells(path, f"{where}.cells", raw["cells"], dim))
        if not _connected(cells):
            raise DataError(path, f"{where}.cells", "the piece's cells are not connected face to face")
        pieces.append(PieceType(raw["name"], cells, raw.get("count", 1),
                                tuple(orientations(cells, rotations_only=not allow_reflections))))
    piece_cells = sum(len(p.cells) * p.count for p in pieces)
    if piece_cells != len(board):
        raise DataError(path, "pieces", f"the pieces have {piece_cells} cells in all but the board has "
                        f"{len(board)} free cells: every cell must be covered exactly once")
    placements = _placements(pieces, board, size)
    spec = PackingSpec(
        path=path, title=data.get("title", path.stem), size=size, holes=frozenset(holes),
        cells=tuple(sorted(board)), pieces=tuple(pieces), allow_reflections=allow_reflections,
        placements=tuple(placements), symmetries=_instance_symmetries(size, frozenset(holes), pieces),
        known=dict(data.get("known", {})),
    )
    spec.placement_index = {(p.piece, p.cells): p.index for p in placements}
    return spec
