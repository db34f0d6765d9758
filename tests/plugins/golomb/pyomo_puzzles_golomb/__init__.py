"""Golomb rulers, an optimisation plugin family the tests install (PYTHONPATH=tests/plugins/golomb):
written from docs/contract.md alone, as a user outside pyomo-puzzles would write it.

A Golomb ruler with n marks is a set of n integers 0 = x_1 < ... < x_n whose pairwise
differences are all distinct; the problem asks for the shortest (minimise x_n). Known optima
(OEIS A003022) by number of marks: 2: 1, 3: 3, 4: 6, 5: 11, 6: 17, 7: 25, 8: 34; the number
of optimal rulers up to mirror image (OEIS A036501): 4 marks 1, 5: 2, 6: 4, 7: 5. No optimal
ruler of 4 to 7 marks is its own mirror image, so there are twice as many counting mirrors.

Two formulations of the literature's two kinds (Kocuk and van Hoeve, "A computational
comparison of optimization methods for the Golomb ruler problem", CPAIOR 2019):

* ``positions``: an integer position per mark; two differences differ by at least one, one
  big-M disjunction per pair of pairs. Its rows are not flat sums (a Param times a sum, a
  difference of differences), which is what the framework's compiler must read quickly.
* ``grid``: a binary per point of the ruler; at most one pair of marks at each distance;
  the length at least every chosen point (a constant times a binary). It can count.

Its hooks: a checker, an objective hook (the ruler's length, from the solution alone), the
mirror as its symmetry, a picture, a size hook (marks), and a catalogue.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pyomo.environ as pyo

from pyomo_puzzles.contract import DataError, Family, Formulation, register

SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["puzzle", "marks", "max_length"],
    "properties": {
        "puzzle": {"const": "golomb"},
        "title": {"type": "string"},
        "marks": {"type": "integer", "minimum": 2, "maximum": 12},
        "max_length": {"type": "integer", "minimum": 1, "maximum": 200},
        "known": {"type": "object", "additionalProperties": False, "properties": {
            "objective": {"type": "number"},
            "solvable": {"type": "boolean"},
            "solutions": {"type": "integer", "minimum": 0},
            "solutions_up_to_symmetry": {"type": "integer", "minimum": 0}}},
    },
}


class Ruler:
    def __init__(self, marks: int, max_length: int) -> None:
        self.marks, self.max_length = marks, max_length


def load(data: dict, path: Path) -> Ruler:
    marks, max_length = data["marks"], data["max_length"]
    if max_length < marks - 1:
        raise DataError(path, "max_length", f"{marks} marks need a ruler of length {marks - 1} at least")
    return Ruler(marks, max_length)


# --- positions: an integer per mark, big-M disjunctions -------------------------------------------

def positions_model() -> pyo.AbstractModel:
    """x_i: the position of mark i (x_1 = 0, increasing). For every two pairs (i, j) and (k, l)
    with neither the first nor the last mark in common, |(x_j - x_i) - (x_l - x_k)| >= 1, as two big-M rows on a binary y:
    (x_j - x_i) - (x_l - x_k) >= 1 - M y  and  (x_l - x_k) - (x_j - x_i) >= 1 - M (1 - y).
    Minimise x_n."""
    model = pyo.AbstractModel(name="golomb_positions")
    model.n = pyo.Param(within=pyo.PositiveIntegers)
    model.M = pyo.Param(within=pyo.PositiveIntegers)
    model.MARK = pyo.RangeSet(1, model.n)
    model.PAIR_PAIRS = pyo.Set(dimen=4)
    model.x = pyo.Var(model.MARK, domain=pyo.NonNegativeIntegers, bounds=lambda m, i: (0, m.M))
    model.y = pyo.Var(model.PAIR_PAIRS, domain=pyo.Binary)

    @model.Constraint()
    def first_mark_at_zero(m):
        return m.x[1] == 0

    @model.Constraint(model.MARK)
    def marks_in_order(m, i):
        return pyo.Constraint.Skip if i == 1 else m.x[i] >= m.x[i - 1] + 1

    @model.Constraint(model.PAIR_PAIRS)
    def first_difference_larger(m, i, j, k, l):
        return (m.x[j] - m.x[i]) - (m.x[l] - m.x[k]) >= 1 - m.M * m.y[i, j, k, l]

    @model.Constraint(model.PAIR_PAIRS)
    def second_difference_larger(m, i, j, k, l):
        return (m.x[l] - m.x[k]) - (m.x[j] - m.x[i]) >= 1 - m.M * (1 - m.y[i, j, k, l])

    @model.Objective(sense=pyo.minimize)
    def length(m):
        return m.x[m.n]

    return model


def pair_pairs(n: int) -> list[tuple[int, int, int, int]]:
    """Two pairs of marks (i < j, k < l, (i, j) before (k, l)) that could measure one distance:
    pairs with the same first mark or the same last mark never do, the marks being distinct."""
    pairs = list(combinations(range(1, n + 1), 2))
    return [(i, j, k, l) for (i, j), (k, l) in combinations(pairs, 2) if i != k and j != l]


def positions_data(ruler: Ruler) -> dict:
    return {None: {"n": {None: ruler.marks}, "M": {None: ruler.max_length},
                   "PAIR_PAIRS": {None: pair_pairs(ruler.marks)}}}


def positions_decode(ruler: Ruler, model) -> dict:
    return {"marks": sorted(round(pyo.value(model.x[i])) for i in model.MARK)}


# --- grid: a binary per point ---------------------------------------------------------------------

def grid_model() -> pyo.AbstractModel:
    """m_p = 1 iff a mark stands at point p (0 <= p <= L); z_pq >= m_p + m_q - 1 says both p and
    q are marks; at most one pair at each distance d: sum_p z_{p,p+d} <= 1. The length is at
    least p m_p for every point; minimise it."""
    model = pyo.AbstractModel(name="golomb_grid")
    model.n = pyo.Param(within=pyo.PositiveIntegers)
    model.POINTS = pyo.Set()
    model.DISTANCES = pyo.Set()
    model.PAIRS = pyo.Set(dimen=2)
    model.m = pyo.Var(model.POINTS, domain=pyo.Binary)
    model.z = pyo.Var(model.PAIRS, domain=pyo.NonNegativeReals, bounds=(0, 1))
    model.length = pyo.Var(domain=pyo.NonNegativeReals)

    @model.Constraint()
    def mark_at_zero(m):
        return m.m[0] == 1

    @model.Constraint()
    def n_marks(m):
        return sum(m.m[p] for p in m.POINTS) == m.n

    @model.Constraint(model.PAIRS)
    def both_marked(m, p, q):
        return m.z[p, q] >= m.m[p] + m.m[q] - 1

    @model.Constraint(model.DISTANCES)
    def each_distance_once(m, d):
        return sum(m.z[p, q] for p, q in m.PAIRS if q - p == d) <= 1

    @model.Constraint(model.POINTS)
    def length_covers_marks(m, p):
        return m.length >= p * m.m[p]

    @model.Objective(sense=pyo.minimize)
    def ruler_length(m):
        return m.length

    return model


def grid_data(ruler: Ruler) -> dict:
    points = list(range(ruler.max_length + 1))
    return {None: {"n": {None: ruler.marks}, "POINTS": {None: points},
                   "DISTANCES": {None: points[1:]}, "PAIRS": {None: list(combinations(points, 2))}}}


def grid_decode(ruler: Ruler, model) -> dict:
    return {"marks": sorted(p for p in model.POINTS if pyo.value(model.m[p]) > 0.5)}


def grid_solution_vars(ruler: Ruler, model, solution: dict) -> list[list]:
    return [[model.m[p]] for p in solution["marks"]]


# --- the checker, the objective and the symmetry: plain Python -----------------------------------

def check(ruler: Ruler, solution) -> list[str]:
    """n distinct marks from 0 to max_length, the first at 0, every difference once."""
    marks = solution.get("marks") if isinstance(solution, dict) else None
    if not isinstance(marks, list) or not all(type(x) is int for x in marks):
        return ["solution must be a mapping with 'marks': a list of integers"]
    problems = []
    if len(marks) != ruler.marks:
        problems.append(f"{len(marks)} marks, not {ruler.marks}")
    if len(set(marks)) != len(marks):
        problems.append("two marks stand at one point")
    if marks and min(marks) != 0:
        problems.append(f"the first mark is at {min(marks)}, not 0")
    if marks and max(marks) > ruler.max_length:
        problems.append(f"a mark at {max(marks)} is past the ruler's length {ruler.max_length}")
    seen: dict[int, tuple[int, int]] = {}
    for a, b in combinations(sorted(set(marks)), 2):
        if b - a in seen:
            problems.append(f"the distance {b - a} is measured twice: {seen[b - a]} and {(a, b)}")
        seen[b - a] = (a, b)
    return problems


def objective(ruler: Ruler, solution: dict) -> float:
    """The ruler's length: its last mark's distance from its first."""
    return max(solution["marks"]) - min(solution["marks"])


def symmetry_images(ruler: Ruler, solution: dict) -> list[dict]:
    """The ruler and its mirror image."""
    length = max(solution["marks"])
    return [{"marks": sorted(solution["marks"])}, {"marks": sorted(length - x for x in solution["marks"])}]


def draw(ruler: Ruler, solution: dict, path: Path) -> None:
    """The ruler: its marks on a line, each distance once."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # matplotlib: only when drawing
    from matplotlib.figure import Figure

    marks = sorted(solution["marks"])
    figure = Figure(figsize=(4, 1.1), layout="constrained")
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    ax.hlines(0, 0, marks[-1], color="0.3")
    ax.plot(marks, [0] * len(marks), "|", markersize=18, color="tab:blue")
    for mark in marks:
        ax.annotate(str(mark), (mark, 0), textcoords="offset points", xytext=(0, 10), ha="center", fontsize=8)
    ax.set_axis_off()
    ax.set_title(f"{ruler.marks} marks, length {marks[-1] - marks[0]}", fontsize=9)
    figure.savefig(path)


def solution_key(solution: dict) -> tuple:
    return tuple(sorted(solution["marks"]))


# The objective hook is part of the contract since issue 56; the benchmarks that compare with
# an earlier revision (`--compare REF`) load this plugin there too, where Family has no such field.
OBJECTIVE_HOOK = {"objective": objective} if "objective" in Family.__dataclass_fields__ else {}

FAMILY = register(Family(
    name="golomb",
    summary="Golomb rulers: the shortest ruler with n marks and distinct distances (a test plugin)",
    schema=SCHEMA,
    load=load,
    formulations={
        "positions": Formulation("positions", "an integer position per mark, big-M disjunctions", positions_model,
                                 positions_data, positions_decode),
        "grid": Formulation("grid", "a binary per point, each distance at most once", grid_model, grid_data,
                            grid_decode, solution_vars=grid_solution_vars),
    },
    check=check,
    **OBJECTIVE_HOOK,
    solution_key=solution_key,
    symmetry_images=symmetry_images,
    draw=draw,
    size=lambda ruler: (ruler.marks, "marks"),
    instances_dir=Path(__file__).parent / "instances",
    library=Path(__file__).parent / "library.yaml",  # named before it is written, as a new plugin's is
))
