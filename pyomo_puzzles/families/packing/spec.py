"""Load a packing instance: board cells, piece types, rules, every placement, the symmetry group.

Orientations and placements are derived here from the pieces' cells and marks (never
typed in by hand): rotations always, reflections when the piece may be flipped. A
placement is a piece type in one orientation at one position; two placements with the
same cells but their marks (rings) on different cells are different placements
("variants" of one outline).

Coordinates are 0-based. In 2D a cell is (x, y): x to the right, y up. In 3D it is
(x, y, z): x to the right, y up, z away from the viewer (the front face is z = 0).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pyomo_puzzles.contract import merge_base
from pyomo_puzzles.contract.modelling import AxisMap, Cell, axis_maps, box_symmetries
from pyomo_puzzles.contract import DataError
from pyomo_puzzles.families.packing.reduction import DeadPlacementTest
from pyomo_puzzles.families.packing.schema import SCHEMA

Marks = tuple[tuple[str, tuple[Cell, ...]], ...]
"""Mark name -> marked cells, as a sorted tuple of pairs (hashable)."""


@dataclass(frozen=True, order=True)
class Shape:
    """Cells and marked cells of a piece in one orientation, normalised to the origin."""

    cells: tuple[Cell, ...]
    marks: Marks = ()

    def mark_cells(self, mark: str) -> tuple[Cell, ...]:
        return dict(self.marks).get(mark, ())


@dataclass(frozen=True)
class PieceType:
    name: str
    shape: Shape
    count: int
    colour: str | None
    flippable: bool
    orientations: tuple[Shape, ...]


@dataclass(frozen=True)
class Placement:
    index: int
    piece: str
    cells: tuple[Cell, ...]
    marks: Marks = ()

    @property
    def outline(self) -> tuple[str, tuple[Cell, ...]]:
        return self.piece, self.cells


@dataclass(frozen=True)
class Requirement:
    """Cell `cell` must be covered by a piece of `colour` (if set) with `mark` there (if set)."""

    cell: Cell
    colour: str | None
    mark: str | None
    source: str


@dataclass(frozen=True)
class Fixed:
    """A pre-placed piece: these cells (and, if given, these marks)."""

    piece: str
    cells: tuple[Cell, ...]
    marks: Marks | None
    source: str


@dataclass(frozen=True)
class Symmetry:
    """A symmetry of the instance: a box map and how it renames piece types."""

    axis_map: AxisMap
    piece_map: tuple[tuple[str, str], ...]

    def rename(self, piece: str) -> str:
        return dict(self.piece_map)[piece]


@dataclass
class PackingSpec:
    path: Path
    title: str
    size: Cell
    holes: frozenset[Cell]
    cells: tuple[Cell, ...]
    pieces: tuple[PieceType, ...]
    requirements: tuple[Requirement, ...]
    fixed: tuple[Fixed, ...]
    faces: dict
    placements: tuple[Placement, ...]
    """Every placement on the board that breaks no requirement on its cells and cuts off no
    region the other pieces cannot fill; `placements[i].index == i`."""
    symmetries: tuple[Symmetry, ...]
    known: dict = field(default_factory=dict)
    unfiltered_placements: int = 0
    placement_index: dict = field(default_factory=dict)
    outline_index: dict = field(default_factory=dict)

    @property
    def dim(self) -> int:
        return len(self.size)

    @property
    def has_marks(self) -> bool:
        return any(p.shape.marks for p in self.pieces)

    def piece(self, name: str) -> PieceType:
        return next(p for p in self.pieces if p.name == name)

    def placement_of(self, piece: str, cells, marks=None) -> Placement | None:
        """The placement with these cells (and marks); None if there is none."""
        cells = tuple(sorted(tuple(c) for c in cells))
        if marks is None:
            options = self.outline_index.get((piece, cells), [])
            return self.placements[options[0]] if options else None
        index = self.placement_index.get((piece, cells, marks_key(marks)))
        return None if index is None else self.placements[index]

    def variants_of(self, piece: str, cells) -> list[Placement]:
        """All placements (mark variants) with this outline."""
        cells = tuple(sorted(tuple(c) for c in cells))
        return [self.placements[i] for i in self.outline_index.get((piece, cells), [])]


# --- shapes ---------------------------------------------------------------------------

def marks_key(marks) -> Marks:
    """Normalise a {mark: cells} mapping (or pairs) into a hashable, sorted form."""
    items = marks.items() if isinstance(marks, dict) else marks
    return tuple(sorted((name, tuple(sorted(tuple(c) for c in cells))) for name, cells in items if cells))


def normalised(cells, marks: Marks) -> Shape:
    low = [min(c[i] for c in cells) for i in range(len(cells[0]))]

    def shift(c):
        return tuple(v - m for v, m in zip(c, low))

    return Shape(tuple(sorted(shift(c) for c in cells)),
                 marks_key((name, [shift(c) for c in marked]) for name, marked in marks))


def transformed(shape: Shape, g: AxisMap) -> Shape:
    return normalised([g.apply_free(c) for c in shape.cells],
                      tuple((name, [g.apply_free(c) for c in marked]) for name, marked in shape.marks))


@lru_cache(maxsize=256)
def shape_orientations(shape: Shape, flippable: bool) -> tuple[Shape, ...]:
    dim = len(shape.cells[0])
    return tuple(sorted({transformed(shape, g) for g in axis_maps(dim, rotations_only=not flippable)}))


# --- reading the file -----------------------------------------------------------------

def _in_box(cell: Cell, size: Cell) -> bool:
    return all(0 <= v < s for v, s in zip(cell, size))


def _cells(path: Path, where: str, cells: list, dim: int, unique: bool = True) -> tuple[Cell, ...]:
    out = []
    for j, cell in enumerate(cells):
        if len(cell) != dim:
            raise DataError(path, f"{where}[{j}]", f"has {len(cell)} coordinates, the board has {dim}")
        out.append(tuple(cell))
    if unique and len(set(out)) != len(out):
        raise DataError(path, where, "lists a cell twice")
    return tuple(out)


def _on_board(path: Path, where: str, cell: Cell, size: Cell, holes) -> None:
    if not _in_box(cell, size) or cell in holes:
        raise DataError(path, where, f"cell {list(cell)} is off the board of size {list(size)}")


def _connected(cells: tuple[Cell, ...]) -> bool:
    cellset, seen, todo = set(cells), {cells[0]}, [cells[0]]
    while todo:
        c = todo.pop()
        for axis, step in itertools.product(range(len(c)), (-1, 1)):
            n = c[:axis] + (c[axis] + step,) + c[axis + 1:]
            if n in cellset and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cells)


def _pieces(data: dict, path: Path, dim: int) -> list[PieceType]:
    allow = data.get("allow_reflections", True)
    pieces, names = [], set()
    for i, raw in enumerate(data["pieces"]):
        where = f"pieces[{i}]"
        if raw["name"] in names:
            raise DataError(path, f"{where}.name", f"piece name '{raw['name']}' is used twice")
        names.add(raw["name"])
        cells = _cells(path, f"{where}.cells", raw["cells"], dim)
        if not _connected(cells):
            raise DataError(path, f"{where}.cells", "the piece's cells are not connected face to face")
        marks = []
        for mark, marked in raw.get("marks", {}).items():
            marked = _cells(path, f"{where}.marks.{mark}", marked, dim)
            stray = [c for c in marked if c not in cells]
            if stray:
                raise DataError(path, f"{where}.marks.{mark}", f"cell {list(stray[0])} is not a cell of the piece")
            marks.append((mark, marked))
        shape = normalised(cells, tuple(marks))
        flippable = raw.get("flippable", allow)
        pieces.append(PieceType(raw["name"], shape, raw.get("count", 1), raw.get("colour"),
                                flippable, shape_orientations(shape, flippable)))
    return pieces


def face_cells(size: Cell, face: str, rows: int, cols: int) -> dict[tuple[int, int], Cell]:
    """(row, col) of a face as seen from outside (row 0 at the top) -> box cell."""
    X, Y, Z = size
    place = {
        "front": lambda r, c: (c, Y - 1 - r, 0),
        "back": lambda r, c: (X - 1 - c, Y - 1 - r, Z - 1),
        "left": lambda r, c: (0, Y - 1 - r, Z - 1 - c),
        "right": lambda r, c: (X - 1, Y - 1 - r, c),
        "top": lambda r, c: (c, Y - 1, Z - 1 - r),
        "bottom": lambda r, c: (c, 0, r),
    }[face]
    return {(r, c): place(r, c) for r in range(rows) for c in range(cols)}


FACE_SHAPE = {"front": (1, 0), "back": (1, 0), "left": (1, 2), "right": (1, 2), "top": (2, 0), "bottom": (2, 0)}
"""Face -> (axis giving its rows, axis giving its columns)."""


def _requirements(data: dict, path: Path, size: Cell, holes, pieces) -> list[Requirement]:
    colours = {p.colour for p in pieces if p.colour}
    marks = {name for p in pieces for name, _ in p.shape.marks}
    found: list[Requirement] = []

    def add(where: str, cell, colour, mark) -> None:
        cell = _cells(path, where, [cell], len(size))[0] if isinstance(cell, list) else cell
        _on_board(path, where, cell, size, holes)
        if colour is not None and colour not in colours:
            raise DataError(path, where, f"no piece has colour '{colour}' (colours: {', '.join(sorted(colours))})")
        if mark is not None and mark not in marks:
            raise DataError(path, where, f"no piece has mark '{mark}'")
        found.append(Requirement(cell, colour, mark, where))

    for i, peg in enumerate(data.get("pegs", [])):
        add(f"pegs[{i}].cell", peg["cell"], peg["colour"], peg.get("mark", "ring"))
    for i, req in enumerate(data.get("requirements", [])):
        add(f"requirements[{i}].cell", req["cell"], req.get("colour"), req.get("mark"))
    for face, grid in data.get("faces", {}).items():
        if len(size) != 3:
            raise DataError(path, f"faces.{face}", "face clues need a 3D box")
        row_axis, col_axis = FACE_SHAPE[face]
        rows, cols = size[row_axis], size[col_axis]
        if len(grid) != rows or any(len(row) != cols for row in grid):
            raise DataError(path, f"faces.{face}", f"must be {rows} rows of {cols} colours")
        for (r, c), cell in face_cells(size, face, rows, cols).items():
            if grid[r][c] != "?":
                add(f"faces.{face}[{r}][{c}]", cell, grid[r][c], None)
    seen: dict[Cell, Requirement] = {}
    for req in found:
        other = seen.setdefault(req.cell, req)
        if other.colour and req.colour and other.colour != req.colour:
            raise DataError(path, req.source, f"contradicts {other.source} (same cell, other colour)")
    return found


def _fixed(data: dict, path: Path, dim: int, pieces) -> list[Fixed]:
    names = {p.name for p in pieces}
    out = []
    for i, raw in enumerate(data.get("fixed", [])):
        where = f"fixed[{i}]"
        if raw["piece"] not in names:
            raise DataError(path, f"{where}.piece", f"no piece named '{raw['piece']}'")
        cells = tuple(sorted(_cells(path, f"{where}.cells", raw["cells"], dim)))
        marks = marks_key({k: _cells(path, f"{where}.marks.{k}", v, dim) for k, v in raw["marks"].items()}) \
            if "marks" in raw else None
        out.append(Fixed(raw["piece"], cells, marks, where))
    return out


# --- placements and symmetry ------------------------------------------------------------

def _satisfies(piece: PieceType, cells_marks: dict, req: Requirement) -> bool:
    if req.colour is not None and piece.colour != req.colour:
        return False
    return req.mark is None or req.cell in cells_marks.get(req.mark, ())


@lru_cache(maxsize=16)
def _board_placements(pieces: tuple[PieceType, ...], board: frozenset[Cell], size: Cell) -> tuple[tuple, dict, int]:
    """Every placement inside the board that leaves no region the other pieces cannot fill
    (`reduction.DeadPlacementTest`), as (piece, cells, marks); for each cell, the positions
    in that tuple of the placements covering it; and how many placements fit on the board
    in all.

    Cached: the challenges of one puzzle share their board and pieces."""
    dead = DeadPlacementTest(size, board, {p.name: (len(p.shape.cells), p.count) for p in pieces})
    found, on_board = [], 0
    for piece in pieces:
        for shape in piece.orientations:
            extent = [max(c[i] for c in shape.cells) for i in range(len(size))]
            for shift in itertools.product(*(range(size[i] - extent[i]) for i in range(len(size)))):
                def move(c):
                    return tuple(v + s for v, s in zip(c, shift))
                cells = tuple(sorted(move(c) for c in shape.cells))
                if not all(c in board for c in cells):
                    continue
                on_board += 1
                if not dead.is_dead(piece.name, cells):
                    marks = tuple((name, tuple(sorted(move(c) for c in marked))) for name, marked in shape.marks)
                    found.append((piece, cells, marks))
    covering: dict = {}
    for k, (_, cells, _) in enumerate(found):
        for cell in cells:
            covering.setdefault(cell, []).append(k)
    return tuple(found), covering, on_board


def _placements(pieces, board: frozenset[Cell], size: Cell, requirements) -> tuple[list[Placement], int]:
    """The placements of `_board_placements` that break no requirement; also how many
    placements fit on the board before any filtering."""
    by_cell: dict[Cell, list[Requirement]] = {}
    for r in requirements:
        by_cell.setdefault(r.cell, []).append(r)
    candidates, covering, on_board = _board_placements(tuple(pieces), board, size)
    breaking = set()
    for cell, reqs in by_cell.items():
        for k in covering.get(cell, ()):
            piece, _, marks = candidates[k]
            mark_sets = {name: set(marked) for name, marked in marks}
            if not all(_satisfies(piece, mark_sets, r) for r in reqs):
                breaking.add(k)
    found = []
    for k, (piece, cells, marks) in enumerate(candidates):
        if k not in breaking:
            found.append(Placement(len(found), piece.name, cells, marks))
    return found, on_board


def _piece_map(g: AxisMap, pieces) -> tuple[tuple[str, str], ...] | None:
    """How `g` renames piece types (mirror-image pieces swap); None if it does not map the set."""
    mapping = {}
    for piece in pieces:
        image = transformed(piece.shape, g)
        targets = [q.name for q in pieces
                   if image in q.orientations and (q.count, q.colour) == (piece.count, piece.colour)]
        if not targets:
            return None
        mapping[piece.name] = targets[0]
    if len(set(mapping.values())) != len(mapping):
        return None
    return tuple(sorted(mapping.items()))


def _instance_symmetries(size: Cell, holes, pieces, requirements, fixed) -> tuple[Symmetry, ...]:
    reqs = {(r.cell, r.colour, r.mark) for r in requirements}
    out = []
    for g in box_symmetries(size):
        if {g.apply_in_box(h, size) for h in holes} != set(holes):
            continue
        if {(g.apply_in_box(c, size), col, m) for c, col, m in reqs} != reqs:
            continue
        piece_map = _piece_map(g, pieces)
        if piece_map is None:
            continue
        if fixed and {(dict(piece_map)[f.piece], tuple(sorted(g.apply_in_box(c, size) for c in f.cells)))
                      for f in fixed} != {(f.piece, f.cells) for f in fixed}:
            continue
        out.append(Symmetry(g, piece_map))
    return tuple(out)


MAX_PLACEMENTS = 1_000_000
"""The most placements (of every piece in every orientation, holes ignored) an instance may
have: beyond it, deriving them and building the model would take minutes and gigabytes
(measured: about 10 KiB per placement at the solver's peak, and the dead-region test of
`_board_placements` about 0.5 ms per placement)."""


def _refuse_if_too_large(path: Path, size: Cell, pieces) -> None:
    """Refuse, before anything is built, an instance with more than `MAX_PLACEMENTS` or a
    board of more than `MAX_PLACEMENTS` cells."""
    cells = math.prod(size)
    if cells > MAX_PLACEMENTS:
        raise DataError(path, "board.size", f"board {'x'.join(map(str, size))} has {cells:,} cells, more than the "
                        f"{MAX_PLACEMENTS:,} this framework builds in reasonable time and memory")
    count = 0
    for piece in pieces:
        for shape in piece.orientations:
            extent = [max(c[i] for c in shape.cells) for i in range(len(size))]
            count += math.prod(max(0, size[i] - extent[i]) for i in range(len(size)))
    if count > MAX_PLACEMENTS:
        raise DataError(path, "board.size", f"board {'x'.join(map(str, size))} with these pieces has "
                        f"{count:,} placements, more than the {MAX_PLACEMENTS:,} this framework builds in "
                        "reasonable time and memory")


def load(data: dict, path: Path) -> PackingSpec:
    data = merge_base(data, path, SCHEMA)
    for required in ("board", "pieces"):
        if required not in data:
            raise DataError(path, required, "required field is missing (here or in the base)")
    size = tuple(data["board"]["size"])
    dim = len(size)
    pieces = _pieces(data, path, dim)
    _refuse_if_too_large(path, size, pieces)
    holes = _cells(path, "board.holes", data["board"].get("holes", []), dim)
    for j, hole in enumerate(holes):
        if not _in_box(hole, size):
            raise DataError(path, f"board.holes[{j}]", f"cell {list(hole)} is off the board of size {list(size)}")
    board = frozenset(itertools.product(*(range(s) for s in size))) - set(holes)
    piece_cells = sum(len(p.shape.cells) * p.count for p in pieces)
    if piece_cells != len(board):
        raise DataError(path, "pieces", f"the pieces have {piece_cells} cells in all but the board has "
                        f"{len(board)} free cells: every cell must be covered exactly once")
    requirements = _requirements(data, path, size, set(holes), pieces)
    fixed = _fixed(data, path, dim, pieces)
    placements, unfiltered = _placements(pieces, board, size, requirements)
    spec = PackingSpec(
        path=path, title=data.get("title", path.stem), size=size, holes=frozenset(holes),
        cells=tuple(sorted(board)), pieces=tuple(pieces), requirements=tuple(requirements),
        fixed=tuple(fixed), faces=dict(data.get("faces", {})), placements=tuple(placements),
        symmetries=_instance_symmetries(size, set(holes), pieces, requirements, fixed),
        known=dict(data.get("known", {})),
    )
    spec.placement_index = {(p.piece, p.cells, p.marks): p.index for p in placements}
    for p in placements:
        spec.outline_index.setdefault(p.outline, []).append(p.index)
    spec.unfiltered_placements = unfiltered
    for f in fixed:
        if not spec.variants_of(f.piece, f.cells) or (
                f.marks is not None and spec.placement_of(f.piece, f.cells, f.marks) is None):
            raise DataError(path, f"{f.source}.cells", f"is not a placement of piece {f.piece} on this board "
                            "that keeps the pegs and clues and leaves room for the other pieces")
    return spec
