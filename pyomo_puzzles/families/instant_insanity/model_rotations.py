"""Instant Insanity as in Loeffler, Liu and Hofstedt (ICAART 2020), as an integer program.

The paper's CSP gives each cube the colours of its six faces and a `table` constraint
(its Eq. 8-9): the colours are one row of T^i, the 24 rotations of cube i
(T^i_{r,f} = C_i[T_{r,f}]). The long sides are then `allDifferent` (Eq. 10) or
`allEqual` (Eq. 11). As a MILP, the table constraint becomes a choice of one row:

Sets
    I            cubes;  L  levels of the tower (bottom = 1);  R  the 24 rotations
    Π ⊆ I × L    where each cube may stand: {(i, i)} with the cube order fixed (the paper's
                 Remark 4), I × L when the order is free
    S            the four long sides (faces 1..4 in cyclic order);  K  colours
    R_{i,s,k}    rotations of cube i that show colour k on side s:  {r : C_i[T_{r,s}] = k}
    S_≠, S_=     the sides asked to be all-different / all-equal (S and ∅, or ∅ and S)
Variables
    y[i,l,r] ∈ {0,1}   cube i stands at level l in rotation r       ((i,l) ∈ Π, r ∈ R)
    z[s,k]   ∈ {0,1}   side s is all colour k                        (s ∈ S_=, k ∈ K)
Expression
    shows[l,s,k] = Σ_{i:(i,l)∈Π} Σ_{r ∈ R_{i,s,k}} y[i,l,r]   (level l shows k on side s)
Constraints
    Σ_{l:(i,l)∈Π} Σ_r y[i,l,r] = 1          ∀ i      each cube stands once, in one rotation
    Σ_{i:(i,l)∈Π} Σ_r y[i,l,r] = 1          ∀ l      each level holds one cube
    Σ_l shows[l,s,k] = 1                    ∀ s ∈ S_≠, k     allDifferent (Eq. 10)
    shows[l,s,k] = z[s,k]                   ∀ l, s ∈ S_=, k  allEqual (Eq. 11)
    Σ_k z[s,k] = 1   ∀ s ∈ S_=;   Σ_{s ∈ S_=} z[s,k] ≤ 1   ∀ k   (four different colours)
Objective
    none (feasibility).
"""

from __future__ import annotations

import pyomo.environ as pyo

from pyomo_puzzles.contract.modelling import total
from pyomo_puzzles.families.instant_insanity import geometry
from pyomo_puzzles.families.instant_insanity.spec import CubeSet


def build_model() -> pyo.AbstractModel:
    model = pyo.AbstractModel(name="instant_insanity_rotations")
    model.CUBES = pyo.Set(doc="cubes")
    model.LEVELS = pyo.Set(doc="levels of the tower, bottom first")
    model.PLACES = pyo.Set(dimen=2, doc="(cube, level) pairs allowed by the cube order")
    model.ROTATIONS = pyo.Set(doc="the 24 rotations of a cube")
    model.SIDES = pyo.Set(doc="the four long sides")
    model.COLOURS = pyo.Set(doc="colours")
    model.SIDES_DIFFERENT = pyo.Set(doc="sides that must show every colour once")
    model.SIDES_EQUAL = pyo.Set(doc="sides that must be one colour each, all four different")
    model.ROTATIONS_SHOWING = pyo.Set(model.CUBES, model.SIDES, model.COLOURS,
                                      doc="R_{i,s,k}: rotations of cube i showing colour k on side s")
    model.LEVELS_OF = pyo.Set(model.CUBES, doc="levels cube i may stand at")
    model.CUBES_AT = pyo.Set(model.LEVELS, doc="cubes that may stand at level l")

    model.y = pyo.Var(model.PLACES, model.ROTATIONS, domain=pyo.Binary,
                      doc="cube i stands at level l in rotation r")
    model.z = pyo.Var(model.SIDES_EQUAL, model.COLOURS, domain=pyo.Binary, doc="side s is all colour k")

    def showing(m, level, side, colour):
        """The variables of shows[l,s,k] (a sum of them is built once, flat)."""
        return [m.y[i, level, r] for i in m.CUBES_AT[level] for r in m.ROTATIONS_SHOWING[i, side, colour]]

    @model.Constraint(model.CUBES)
    def each_cube_stands_once(m, i):
        return total(m.y[i, level, r] for level in m.LEVELS_OF[i] for r in m.ROTATIONS) == 1

    @model.Constraint(model.LEVELS)
    def each_level_holds_one_cube(m, level):
        return total(m.y[i, level, r] for i in m.CUBES_AT[level] for r in m.ROTATIONS) == 1

    @model.Constraint(model.SIDES_DIFFERENT, model.COLOURS)
    def each_side_shows_every_colour_once(m, side, colour):
        return total(y for level in m.LEVELS for y in showing(m, level, side, colour)) == 1

    @model.Constraint(model.LEVELS, model.SIDES_EQUAL, model.COLOURS)
    def each_level_shows_its_sides_colour(m, level, side, colour):
        return total(showing(m, level, side, colour)) == m.z[side, colour]

    @model.Constraint(model.SIDES_EQUAL)
    def each_side_has_one_colour(m, side):
        return total(m.z[side, k] for k in m.COLOURS) == 1

    @model.Constraint(model.COLOURS)
    def the_sides_have_different_colours(m, colour):
        return total(m.z[s, colour] for s in m.SIDES_EQUAL) <= 1

    model.feasibility = pyo.Objective(expr=0, sense=pyo.minimize)
    return model


def places(spec: CubeSet) -> list[tuple[int, int]]:
    cubes = range(1, spec.n + 1)
    if spec.order == "fixed":
        return [(i, i) for i in cubes]
    return [(i, level) for i in cubes for level in cubes]


def model_data(spec: CubeSet) -> dict:
    rotations = geometry.rotations()
    cubes = list(range(1, spec.n + 1))
    allowed = places(spec)
    showing = {(i, s, k): [r for r, rot in enumerate(rotations, 1) if spec.cubes[i - 1][rot[s - 1] - 1] == k]
               for i in cubes for s in geometry.SIDES for k in spec.colours}
    all_different = spec.question == "all_different"
    return {None: {
        "CUBES": {None: cubes},
        "LEVELS": {None: cubes},
        "PLACES": {None: allowed},
        "ROTATIONS": {None: list(range(1, len(rotations) + 1))},
        "SIDES": {None: list(geometry.SIDES)},
        "COLOURS": {None: list(spec.colours)},
        "SIDES_DIFFERENT": {None: list(geometry.SIDES) if all_different else []},
        "SIDES_EQUAL": {None: [] if all_different else list(geometry.SIDES)},
        "ROTATIONS_SHOWING": showing,
        "LEVELS_OF": {i: [lv for c, lv in allowed if c == i] for i in cubes},
        "CUBES_AT": {lv: [c for c, lv2 in allowed if lv2 == lv] for lv in cubes},
    }}


def stack_entry(spec: CubeSet, cube: int, rotation: geometry.Rotation) -> dict:
    """One level of a solution: the cube, the face at each position, the side colours."""
    return {"cube": cube, "faces": list(rotation),
            "sides": list(geometry.shown(spec.cubes[cube - 1], rotation)[:4])}


def decode(spec: CubeSet, model: pyo.ConcreteModel) -> dict:
    rotations = geometry.rotations()
    at = {}
    for (i, level, r), var in model.y.items():
        if (var.value or 0) > 0.5:
            at[level] = (i, rotations[r - 1])
    return {"stack": [stack_entry(spec, *at[level]) for level in sorted(at)]}


def solution_vars(spec: CubeSet, model: pyo.ConcreteModel, solution: dict) -> list[list]:
    """One group per level: the variable of the cube and rotation standing there."""
    index = {rot: r for r, rot in enumerate(geometry.rotations(), 1)}
    groups = []
    for level, entry in enumerate(solution["stack"], 1):
        key = (entry["cube"], level, index[tuple(entry["faces"])])
        if key not in model.y:
            raise ValueError(f"{entry} cannot stand at level {level} in this instance")
        groups.append([model.y[key]])
    return groups


def partitions(spec: CubeSet, model: pyo.ConcreteModel) -> list[list]:
    """Per cube, its place-and-rotation variables: exactly one is one."""
    return [[model.y[i, level, r] for level in model.LEVELS_OF[i] for r in model.ROTATIONS]
            for i in model.CUBES]
