"""Independent checker for packing solutions: plain Python, no model, no solver.

It deliberately does not reuse the loader's orientation code: congruence (cells and
marks together) is tested here by its own brute force over signed axis permutations, so
a bug in the placement generator cannot hide itself.
"""

from __future__ import annotations

import itertools
from collections import Counter
from functools import lru_cache

from pyomo_puzzles.families.packing.spec import PackingSpec


def _normal_form(cells, marks: dict) -> tuple:
    """(cells, marks) shifted so that the smallest coordinate on each axis is 0."""
    low = [min(c[i] for c in cells) for i in range(len(cells[0]))]

    def shift(c):
        return tuple(v - m for v, m in zip(c, low))

    return (frozenset(shift(c) for c in cells),
            frozenset((name, frozenset(shift(c) for c in marked)) for name, marked in marks.items() if marked))


@lru_cache(maxsize=None)
def _signed_permutations(dim: int, mirror_allowed: bool) -> tuple:
    """(perm, signs) of every signed axis permutation; only the proper ones (determinant
    +1, i.e. rotations) unless mirror images are allowed."""
    maps = []
    for perm in itertools.permutations(range(dim)):
        parity = sum(1 for i, j in itertools.combinations(range(dim), 2) if perm[i] > perm[j])
        for signs in itertools.product((1, -1), repeat=dim):
            if mirror_allowed or (parity + signs.count(-1)) % 2 == 0:
                maps.append((perm, signs))
    return tuple(maps)


def _congruent(cells, marks: dict, shape, mirror_allowed: bool) -> bool:
    """Whether (cells, marks) is the piece's shape turned (or mirrored, if allowed) and moved."""
    return _normal_form(cells, marks) in _congruent_forms(shape, mirror_allowed)


@lru_cache(maxsize=256)
def _congruent_forms(shape, mirror_allowed: bool) -> frozenset:
    """Normal forms of every image of the shape under the signed axis permutations."""
    cells = [tuple(c) for c in shape.cells]
    marks = {name: [tuple(c) for c in marked] for name, marked in shape.marks}
    forms = set()
    for perm, signs in _signed_permutations(len(cells[0]), mirror_allowed):
        def turn(c):
            return tuple(s * c[p] for p, s in zip(perm, signs))

        forms.add(_normal_form([turn(c) for c in cells], {k: [turn(c) for c in v] for k, v in marks.items()}))
    return frozenset(forms)


def _is_cell_list(cells, dim: int) -> bool:
    """A list of cells, each a list of `dim` whole numbers."""
    return isinstance(cells, list) and all(
        isinstance(c, list) and len(c) == dim and all(isinstance(v, int) and not isinstance(v, bool) for v in c)
        for c in cells)


def _shown(value) -> str:
    """A value in an error line: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _unreadable(spec: PackingSpec, i: int, entry) -> str | None:
    """Why an entry cannot be checked further, or None."""
    piece = entry.get("piece") if isinstance(entry, dict) else None
    if not isinstance(piece, str) or piece not in {p.name for p in spec.pieces}:
        return f"pieces[{i}]: unknown piece {_shown(piece if isinstance(entry, dict) else entry)}"
    cells = entry.get("cells")
    if not cells or not _is_cell_list(cells, spec.dim):
        return f"pieces[{i}]: cells must be a non-empty list of {spec.dim}-coordinate cells"
    marks = entry.get("marks")
    if marks is not None and not (isinstance(marks, dict) and all(
            isinstance(name, str) and _is_cell_list(marked, spec.dim) for name, marked in marks.items())):
        return f"pieces[{i}]: marks must map mark names to lists of {spec.dim}-coordinate cells"
    return None


def _entry_errors(spec: PackingSpec, i: int, entry: dict, board: set) -> list[str]:
    shapes = {p.name: p for p in spec.pieces}
    name, cells, marks = entry["piece"], entry["cells"], entry.get("marks", {})
    errors = []
    cells = [tuple(c) for c in cells]
    marks = {k: [tuple(c) for c in v] for k, v in (marks or {}).items()}
    off = [c for c in cells if c not in board]
    if off:
        errors.append(f"pieces[{i}] ({name}): cell {list(off[0])} is not a free cell of the board")
    piece = shapes[name]
    if any(c not in cells for v in marks.values() for c in v):
        errors.append(f"pieces[{i}] ({name}): a marked cell is not one of its cells")
    elif len(set(cells)) != len(cells) or not _congruent(
            cells, marks, piece.shape, piece.flippable):
        errors.append(f"pieces[{i}] ({name}): cells {[list(c) for c in cells]} (with marks {marks}) "
                      "are not the piece's shape")
    return errors


def check(spec: PackingSpec, solution: dict) -> list[str]:
    """All the ways `solution` breaks the rules; an empty list means it is valid."""
    if not isinstance(solution, dict) or not isinstance(solution.get("pieces"), list):
        return ["solution must be a mapping with a list 'pieces'"]
    errors: list[str] = []
    board = set(spec.cells)
    owner: dict = {}
    covered: Counter = Counter()
    used: Counter = Counter()
    readable = []
    for i, entry in enumerate(solution["pieces"]):
        problem = _unreadable(spec, i, entry)
        if problem:
            errors.append(problem)
            continue
        readable.append(entry)
        errors += _entry_errors(spec, i, entry, board)
        used[entry["piece"]] += 1
        for c in entry["cells"]:
            covered[tuple(c)] += 1
            owner[tuple(c)] = entry
    for piece in spec.pieces:
        if used[piece.name] != piece.count:
            errors.append(f"piece {piece.name} used {used[piece.name]} times, the instance has {piece.count}")
    twice = sorted(c for c, n in covered.items() if n > 1)
    if twice:
        errors.append(f"cell {list(twice[0])} is covered {covered[twice[0]]} times")
    missing = sorted(board - set(covered))
    if missing:
        errors.append(f"cell {list(missing[0])} is not covered ({len(missing)} uncovered)")
    colours = {p.name: p.colour for p in spec.pieces}
    for req in spec.requirements:
        entry = owner.get(req.cell)
        if entry is None:
            continue
        if req.colour is not None and colours.get(entry["piece"]) != req.colour:
            errors.append(f"{req.source}: cell {list(req.cell)} needs colour {req.colour}, "
                          f"has {colours.get(entry['piece'])} ({entry['piece']})")
        if req.mark is not None and list(req.cell) not in [list(c) for c in (entry.get("marks") or {}).get(req.mark, [])]:
            errors.append(f"{req.source}: cell {list(req.cell)} needs a {req.mark} of {entry['piece']}")
    for fixed in spec.fixed:
        if not any(_is_placed_as(e, fixed) for e in readable):
            errors.append(f"{fixed.source}: piece {fixed.piece} is not where it was pre-placed")
    return errors


def _is_placed_as(entry: dict, fixed) -> bool:
    if entry.get("piece") != fixed.piece or sorted(map(tuple, entry.get("cells", []))) != list(fixed.cells):
        return False
    if fixed.marks is None:
        return True
    given = {name: sorted(map(tuple, cells)) for name, cells in (entry.get("marks") or {}).items() if cells}
    return given == {name: list(cells) for name, cells in fixed.marks}
