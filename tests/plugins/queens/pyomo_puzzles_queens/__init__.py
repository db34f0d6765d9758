"""n queens, a plugin family the tests install (PYTHONPATH=tests/plugins/queens): written from
docs/contract.md alone, as a user outside pyomo-puzzles would write it.

Place n queens on an n x n board so that no two share a row, a column or a diagonal; with
`weights`, place them so that the queens' cells weigh as much as possible (a maximum).
Known figures (OEIS A000170 and A002562): 4 queens 2 solutions (1 up to the square's 8
symmetries), 5: 10 (2), 6: 4 (1), 8: 92 (12).

Its hooks take every route a plugin author can take: a formulation, a `prepare_enumeration`
hook written to the contract's sentence (it keeps one solution per orbit: the first row's
queen in the left half of the board), the square's symmetries, a dancing-links reference
method whose diagonals are secondary items and that refuses weighted boards, a generator
with the contract's signature, an objective hook (the queens' weight), a size hook that has no size for weighted boards (one of which
is in its benchmark-library catalogue), and an indexed parameter that is empty on an
unweighted board.
"""

from __future__ import annotations

import random
from pathlib import Path

import pyomo.environ as pyo

from pyomo_puzzles.contract import DataError, Family, Formulation, exact_cover, register

SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["puzzle", "n"],
    "properties": {
        "puzzle": {"const": "queens"},
        "title": {"type": "string"},
        "n": {"type": "integer", "minimum": 1, "maximum": 12},
        "weights": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}, "minItems": 3,
                                               "maxItems": 3}},
        "known": {"type": "object", "additionalProperties": False, "properties": {
            "solutions": {"type": "integer", "minimum": 0},
            "solutions_up_to_symmetry": {"type": "integer", "minimum": 0},
            "solvable": {"type": "boolean"},
            "objective": {"type": "number"}}},
    },
}


class Board:
    def __init__(self, n: int, weights: dict[tuple[int, int], int]) -> None:
        self.n, self.weights = n, weights
        self.cells = [(r, c) for r in range(n) for c in range(n)]


def load(data: dict, path: Path) -> Board:
    n = data["n"]
    weights = {}
    for i, (r, c, w) in enumerate(data.get("weights", [])):
        if not (0 <= r < n and 0 <= c < n):
            raise DataError(path, f"weights[{i}]", f"cell ({r}, {c}) is not on the {n} x {n} board")
        weights[(r, c)] = w
    return Board(n, weights)


def build_model() -> pyo.AbstractModel:
    """x[r,c] = 1 iff a queen stands on (r, c); one queen in every row and every column, at most
    one on every diagonal and anti-diagonal; maximise the weight of the queens' cells."""
    model = pyo.AbstractModel(name="queens")
    model.ROWS = pyo.Set()
    model.COLUMNS = pyo.Set()
    model.DIAGONALS = pyo.Set()  # r - c
    model.ANTI_DIAGONALS = pyo.Set()  # r + c
    model.WEIGHTED = pyo.Set(dimen=2)
    model.weight = pyo.Param(model.WEIGHTED)
    model.x = pyo.Var(model.ROWS, model.COLUMNS, domain=pyo.Binary)

    @model.Constraint(model.ROWS)
    def one_queen_per_row(m, r):
        return sum(m.x[r, c] for c in m.COLUMNS) == 1

    @model.Constraint(model.COLUMNS)
    def one_queen_per_column(m, c):
        return sum(m.x[r, c] for r in m.ROWS) == 1

    @model.Constraint(model.DIAGONALS)
    def at_most_one_per_diagonal(m, d):
        return sum(m.x[r, r - d] for r in m.ROWS if r - d in m.COLUMNS) <= 1

    @model.Constraint(model.ANTI_DIAGONALS)
    def at_most_one_per_anti_diagonal(m, s):
        return sum(m.x[r, s - r] for r in m.ROWS if s - r in m.COLUMNS) <= 1

    @model.Objective(sense=pyo.maximize)
    def weight_of_the_queens(m):
        return sum(m.weight[r, c] * m.x[r, c] for r, c in m.WEIGHTED)

    return model


def model_data(board: Board) -> dict:
    n = board.n
    return {None: {"ROWS": {None: list(range(n))}, "COLUMNS": {None: list(range(n))},
                   "DIAGONALS": {None: list(range(-n + 1, n))}, "ANTI_DIAGONALS": {None: list(range(2 * n - 1))},
                   "WEIGHTED": {None: sorted(board.weights)},
                   "weight": dict(board.weights)}}


def decode(board: Board, model) -> dict:
    return {"queens": sorted([r, c] for r, c in board.cells if pyo.value(model.x[r, c]) > 0.5)}


def solution_vars(board: Board, model, solution: dict) -> list[list]:
    return [[model.x[r, c]] for r, c in solution["queens"]]


def partitions(board: Board, model) -> list[list]:
    return [[model.x[r, c] for c in range(board.n)] for r in range(board.n)]


def prepare_enumeration(board: Board, model, up_to_symmetry: bool) -> None:
    """Keeps one solution per orbit: the mirror image puts the first row's queen in the left half
    (an unweighted board: the weights of a weighted one need not be mirror images)."""
    if board.weights:
        return
    for c in range((board.n + 1) // 2, board.n):
        model.x[0, c].fix(0)


def check(board: Board, solution) -> list[str]:
    """Plain Python: n queens on the board, no two in one row, column or diagonal."""
    queens = solution.get("queens") if isinstance(solution, dict) else None
    if not isinstance(queens, list) or not all(
            isinstance(q, list) and len(q) == 2 and all(type(v) is int for v in q) for q in queens):
        return ["solution must be a mapping with 'queens': a list of [row, column]"]
    problems = [f"queen {q} is off the board" for q in queens if not all(0 <= v < board.n for v in q)]
    if len(queens) != board.n:
        problems.append(f"{len(queens)} queens, not {board.n}")
    for i, (r1, c1) in enumerate(queens):
        for r2, c2 in queens[i + 1:]:
            if r1 == r2 or c1 == c2 or abs(r1 - r2) == abs(c1 - c2):
                problems.append(f"queens ({r1}, {c1}) and ({r2}, {c2}) attack each other")
    return problems


def weight(board: Board, solution: dict) -> int:
    """The objective of a checked placement: the weights of the queens' cells (0 unweighted)."""
    return sum(board.weights.get((r, c), 0) for r, c in solution["queens"])


def symmetry_images(board: Board, solution: dict) -> list[dict]:
    """The images under the square's 8 symmetries (4 rotations, each also mirrored) that keep
    the board's weights (all 8 on an unweighted board)."""
    last = board.n - 1
    maps = [lambda r, c: (r, c), lambda r, c: (c, last - r), lambda r, c: (last - r, last - c),
            lambda r, c: (last - c, r), lambda r, c: (r, last - c), lambda r, c: (c, r),
            lambda r, c: (last - r, c), lambda r, c: (last - c, last - r)]
    keep = [f for f in maps if {f(r, c): w for (r, c), w in board.weights.items()} == board.weights]
    return [{"queens": sorted(list(f(r, c)) for r, c in solution["queens"])} for f in keep]


def solution_key(solution: dict) -> tuple:
    return tuple(tuple(q) for q in sorted(solution["queens"]))


def cover_options(board: Board) -> dict:
    """Each cell covers its row and column (primary) and its two diagonals (secondary)."""
    return {(r, c): [("row", r), ("column", c), ("diagonal", r - c), ("anti", r + c)] for r, c in board.cells}


def diagonals(board: Board) -> list:
    n = board.n
    return [("diagonal", d) for d in range(-n + 1, n)] + [("anti", s) for s in range(2 * n - 1)]


def cover_decode(board: Board, chosen: list) -> dict:
    return {"queens": sorted([r, c] for r, c in chosen)}


def unweighted_only(board: Board) -> str | None:
    return "weighted boards ask for a maximum, which an exact cover cannot weigh" if board.weights else None


def generate(seed: int, n: int = 8, weighted: bool = False) -> dict:
    """A board of side n with its known count, or with random weights from 1 to 9 on every cell
    (the contract's generator signature)."""
    counts = {1: 1, 2: 0, 3: 0, 4: 2, 5: 10, 6: 4, 7: 40, 8: 92}
    data = {"puzzle": "queens", "title": f"{n} queens (seed {seed})", "n": n}
    if weighted:
        draw = random.Random(seed)
        data["weights"] = [[r, c, draw.randint(1, 9)] for r in range(n) for c in range(n)]
    elif n in counts:
        data["known"] = {"solutions": counts[n]}
    return data


FAMILY = register(Family(
    name="queens",
    summary="n queens: no two in one row, column or diagonal (a test plugin)",
    schema=SCHEMA,
    load=load,
    formulations={"rows": Formulation("rows", "a binary per cell", build_model, model_data, decode,
                                      solution_vars=solution_vars, partitions=partitions,
                                      prepare_enumeration=prepare_enumeration)},
    check=check,
    objective=weight,
    solution_key=solution_key,
    symmetry_images=symmetry_images,
    reference_solvers={"dlx": exact_cover.reference_solver(cover_options, cover_decode, secondary=diagonals,
                                                           applies_to=unweighted_only)},
    generators={"queens": generate},
    size=lambda board: None if board.weights else (board.n, "board side"),
    instances_dir=Path(__file__).parent / "instances",
    library=Path(__file__).parent / "library.yaml",
))
