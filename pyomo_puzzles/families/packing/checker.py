"""Independent checker for packing solutions: plain Python, no model, no solver.

It deliberately does not reuse the loader's orientation code: congruence is tested here
by its own brute force over signed axis permutations, so a bug in the placement
generator cannot hide itself.
"""

from __future__ import annotations

import itertools
from collections import Counter

from pyomo_puzzles.families.packing.spec import PackingSpec


def _shape(cells) -> frozenset:
    low = [min(c[i] for c in cells) for i in range(len(cells[0]))]
    return frozenset(tuple(v - m for v, m in zip(c, low)) for c in cells)


def _congruent(cells, reference, mirror_allowed: bool) -> bool:
    dim = len(reference[0])
    target = _shape([tuple(c) for c in reference])
    for perm in itertools.permutations(range(dim)):
        for signs in itertools.product((1, -1), repeat=dim):
            parity = sum(1 for i, j in itertools.combinations(range(dim), 2) if perm[i] > perm[j])
            proper = (parity + signs.count(-1)) % 2 == 0
            if not proper and not mirror_allowed:
                continue
            image = [tuple(s * c[p] for p, s in zip(perm, signs)) for c in cells]
            if _shape(image) == target:
                return True
    return False


def check(spec: PackingSpec, solution: dict) -> list[str]:
    """All the ways `solution` breaks the rules; an empty list means it is valid."""
    if not isinstance(solution, dict) or not isinstance(solution.get("pieces"), list):
        return ["solution must be a mapping with a list 'pieces'"]
    errors: list[str] = []
    board = set(spec.cells)
    shapes = {p.name: p for p in spec.pieces}
    covered: Counter = Counter()
    used: Counter = Counter()
    for i, entry in enumerate(solution["pieces"]):
        name, cells = entry.get("piece"), entry.get("cells")
        if name not in shapes:
            errors.append(f"pieces[{i}]: unknown piece {name!r}")
            continue
        if not isinstance(cells, list) or not all(isinstance(c, list) and len(c) == spec.dim for c in cells):
            errors.append(f"pieces[{i}]: cells must be a list of {spec.dim}-coordinate cells")
            continue
        cells = [tuple(c) for c in cells]
        used[name] += 1
        off = [c for c in cells if c not in board]
        if off:
            errors.append(f"pieces[{i}] ({name}): cell {list(off[0])} is not a free cell of the board")
        if len(set(cells)) != len(cells) or not _congruent(cells, shapes[name].cells, spec.allow_reflections):
            errors.append(f"pieces[{i}] ({name}): cells {[list(c) for c in cells]} are not the piece's shape")
        covered.update(cells)
    for name, piece in shapes.items():
        if used[name] != piece.count:
            errors.append(f"piece {name} used {used[name]} times, the instance has {piece.count}")
    twice = sorted(c for c, n in covered.items() if n > 1)
    if twice:
        errors.append(f"cell {list(twice[0])} is covered {covered[twice[0]]} times")
    missing = sorted(board - set(covered))
    if missing:
        errors.append(f"cell {list(missing[0])} is not covered ({len(missing)} uncovered)")
    return errors
