"""Instant Insanity by opposite face pairs: the classic graph formulation.

(The folklore solution, e.g. Carteblanche 1947; Grecos and Gibberd 1971; Demaine et al.,
"Variations on Instant Insanity", 2013.) Each cube has three pairs of opposite faces; the
tower's front/back sides show one pair of each cube and its left/right sides another. Seen
as edges between colours, the chosen front/back pairs form a subgraph G_fb and the
left/right pairs a subgraph G_lr. A tower shows every colour once on each long side iff
G_fb and G_lr use different pairs of every cube and every colour has degree 2 in each:
then each is a union of cycles, and orienting every cycle puts each colour once in front
and once behind (and likewise left and right). Top and bottom never matter, nor does the
cube order.

Sets
    I   cubes;  P = {1, 2, 3}  the opposite pairs (faces 1-3, 2-4, 5-6);  K  colours
    G = {fb, lr}   the two subgraphs (front/back = sides 1 and 3, left/right = 2 and 4)
    Q   unordered pairs of distinct colours (all-equal only)
Parameters
    deg[i,p,k] ∈ {0,1,2}   faces of pair p of cube i that have colour k
    has[i,p,q] ∈ {0,1}     pair p of cube i has exactly the colours of q
Variables
    e[i,p,g] ∈ {0,1}   pair p of cube i is shown on the sides of subgraph g
    w[g,q]   ∈ {0,1}   (all-equal) the sides of g show the colour pair q
Constraints
    Σ_p e[i,p,g] = 1             ∀ i, g      one pair of each cube per subgraph
    Σ_g e[i,p,g] ≤ 1             ∀ i, p      the two subgraphs use different pairs
  all-different:
    Σ_i Σ_p deg[i,p,k] e[i,p,g] = 2     ∀ g, k      every colour has degree 2
  all-equal (each side one colour, the four different):
    Σ_q w[g,q] = 1               ∀ g
    Σ_p has[i,p,q] e[i,p,g] = w[g,q]    ∀ i, g, q   every cube shows the pair q on g
    Σ_g Σ_{q ∋ k} w[g,q] ≤ 1     ∀ k         the two pairs share no colour
Objective
    none (feasibility). A solution is a choice of pairs; `decode` orients the cycles into a
    stack (one of the several stacks it stands for), with cube i at level i. As one
    solution of this model stands for several stacks, it does not enumerate stacks:
    count with `rotations`.
"""

from __future__ import annotations

import itertools

import pyomo.environ as pyo

from pyomo_puzzles.contract.modelling import total
from pyomo_puzzles.families.instant_insanity import geometry
from pyomo_puzzles.families.instant_insanity.model_rotations import stack_entry
from pyomo_puzzles.families.instant_insanity.spec import CubeSet

SUBGRAPHS = ("fb", "lr")
"""fb: sides 1 and 3 (front/back); lr: sides 2 and 4 (left/right)."""


def build_model() -> pyo.AbstractModel:
    model = pyo.AbstractModel(name="instant_insanity_opposite_pairs")
    model.CUBES = pyo.Set(doc="cubes")
    model.PAIRS = pyo.Set(doc="opposite face pairs 1-3, 2-4, 5-6")
    model.COLOURS = pyo.Set(doc="colours")
    model.SUBGRAPHS = pyo.Set(doc="fb (sides 1, 3) and lr (sides 2, 4)")
    model.DEGREE_SUBGRAPHS = pyo.Set(doc="subgraphs with the degree-2 rule (all-different)")
    model.EQUAL_SUBGRAPHS = pyo.Set(doc="subgraphs showing one colour pair (all-equal)")
    model.COLOUR_PAIRS = pyo.Set(dimen=2, doc="unordered pairs of distinct colours")
    model.deg = pyo.Param(model.CUBES, model.PAIRS, model.COLOURS, default=0, domain=pyo.NonNegativeIntegers)
    model.CUBE_PAIRS_WITH = pyo.Set(model.CUBES, model.COLOUR_PAIRS,
                                    doc="pairs p of cube i whose colours are exactly q")

    model.e = pyo.Var(model.CUBES, model.PAIRS, model.SUBGRAPHS, domain=pyo.Binary,
                      doc="pair p of cube i is shown on the sides of subgraph g")
    model.w = pyo.Var(model.EQUAL_SUBGRAPHS, model.COLOUR_PAIRS, domain=pyo.Binary,
                      doc="the sides of g show colour pair q")

    @model.Constraint(model.CUBES, model.SUBGRAPHS)
    def one_pair_per_subgraph(m, i, g):
        return total(m.e[i, p, g] for p in m.PAIRS) == 1

    @model.Constraint(model.CUBES, model.PAIRS)
    def subgraphs_use_different_pairs(m, i, p):
        return total(m.e[i, p, g] for g in m.SUBGRAPHS) <= 1

    @model.Constraint(model.DEGREE_SUBGRAPHS, model.COLOURS)
    def every_colour_has_degree_two(m, g, k):
        return sum(m.deg[i, p, k] * m.e[i, p, g] for i in m.CUBES for p in m.PAIRS if m.deg[i, p, k]) == 2

    @model.Constraint(model.EQUAL_SUBGRAPHS)
    def one_colour_pair_per_subgraph(m, g):
        return total(m.w[g, q] for q in m.COLOUR_PAIRS) == 1

    @model.Constraint(model.CUBES, model.EQUAL_SUBGRAPHS, model.COLOUR_PAIRS)
    def every_cube_shows_the_pair(m, i, g, *q):
        return total(m.e[i, p, g] for p in m.CUBE_PAIRS_WITH[i, q]) == m.w[g, q]

    @model.Constraint(model.COLOURS)
    def subgraph_pairs_share_no_colour(m, k):
        return total(m.w[g, q] for g in m.EQUAL_SUBGRAPHS for q in m.COLOUR_PAIRS if k in q) <= 1

    model.feasibility = pyo.Objective(expr=0, sense=pyo.minimize)
    return model


def _pair_colours(spec: CubeSet, i: int, p: int) -> tuple[str, str]:
    a, b = geometry.OPPOSITE_PAIRS[p - 1]
    return spec.cubes[i - 1][a - 1], spec.cubes[i - 1][b - 1]


def model_data(spec: CubeSet) -> dict:
    cubes, pairs = list(range(1, spec.n + 1)), [1, 2, 3]
    degree = {}
    for i in cubes:
        for p in pairs:
            for colour in _pair_colours(spec, i, p):
                degree[i, p, colour] = degree.get((i, p, colour), 0) + 1
    equal = spec.question == "all_equal"
    colour_pairs = list(itertools.combinations(spec.colours, 2)) if equal else []
    with_pair = {(i, *q): [p for p in pairs if sorted(_pair_colours(spec, i, p)) == sorted(q)]
                 for i in cubes for q in colour_pairs}
    return {None: {
        "CUBES": {None: cubes},
        "PAIRS": {None: pairs},
        "COLOURS": {None: list(spec.colours)},
        "SUBGRAPHS": {None: list(SUBGRAPHS)},
        "DEGREE_SUBGRAPHS": {None: [] if equal else list(SUBGRAPHS)},
        "EQUAL_SUBGRAPHS": {None: list(SUBGRAPHS) if equal else []},
        "COLOUR_PAIRS": {None: colour_pairs},
        "deg": degree,
        "CUBE_PAIRS_WITH": with_pair,
    }}


def _orient(spec: CubeSet, chosen: dict[int, int], equal: bool) -> dict[int, tuple[int, int]]:
    """For each cube, (face shown first, face shown second) of its chosen pair, so that
    every colour is shown once first and once second (all-different: walk each cycle)
    or the first faces all have one colour (all-equal)."""
    faces = {i: geometry.OPPOSITE_PAIRS[p - 1] for i, p in chosen.items()}
    colour = {i: (spec.cubes[i - 1][a - 1], spec.cubes[i - 1][b - 1]) for i, (a, b) in faces.items()}
    oriented = {}
    if equal:
        first = min(colour[min(colour)])
        for i, (a, b) in faces.items():
            oriented[i] = (a, b) if colour[i][0] == first else (b, a)
        return oriented
    unused = set(faces)
    while unused:
        i = min(unused)
        start, at = colour[i][0], None
        while at != start:
            unused.discard(i)
            a, b = faces[i]
            ca, cb = colour[i]
            if at is None or ca == at:
                oriented[i], at = (a, b), cb
            else:
                oriented[i], at = (b, a), ca
            if at == start:
                break
            i = next(j for j in sorted(unused) if at in colour[j])
    return oriented


def decode(spec: CubeSet, model: pyo.ConcreteModel) -> dict:
    equal = spec.question == "all_equal"
    chosen = {g: {i: p for (i, p, g2), var in model.e.items() if g2 == g and (var.value or 0) > 0.5}
              for g in SUBGRAPHS}
    front, left = _orient(spec, chosen["fb"], equal), _orient(spec, chosen["lr"], equal)
    by_sides = {rot[:4]: rot for rot in geometry.rotations()}
    stack = []
    for i in range(1, spec.n + 1):
        (f1, f3), (f2, f4) = front[i], left[i]
        stack.append(stack_entry(spec, i, by_sides[(f1, f2, f3, f4)]))
    return {"stack": stack}
