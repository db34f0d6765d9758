"""Design question 2 of Loeffler, Liu and Hofstedt (ICAART 2020) as an integer program.

The paper asks for a set of four cubes, coloured with four colours and each showing every
colour, that stacks into both an all-different and an all-equal tower. As optimisation:
starting from a given set, repaint the fewest faces so that it does (with no set to start
from, the question itself, as feasibility). The colouring of a cube and its rotation in each
tower are both unknown, so the colour a tower shows is a product of two choices:

Sets
    I  cubes (= levels, the cube order fixed);  F  faces;  P  positions (1-4 the long sides S,
    5 bottom, 6 top);  K  colours;  R  the 24 rotations;  T  the towers asked for
    R_{p,f}     rotations that bring face f to position p
    T_≠, T_=    the all-different / all-equal tower, if asked for (T = T_≠ ∪ T_=)
    K_every     colours every cube must show (K, or ∅)
    G ⊆ I×F×K   the starting colours: (i, f, k) if face f of cube i starts as colour k
Variables
    x[i,f,k] ∈ {0,1}    face f of cube i is painted colour k
    a[t,i,r] ∈ {0,1}    in tower t, cube i stands in rotation r
    c[t,i,s,k] ∈ {0,1}  in tower t, side s of cube i shows colour k
    z[t,s,k] ∈ {0,1}    side s of the all-equal tower t is all colour k
Expression
    v[t,i,p,f] = Σ_{r ∈ R_{p,f}} a[t,i,r]     face f of cube i is at position p in tower t
Constraints
    Σ_k x[i,f,k] = 1  ∀ i,f;   Σ_f x[i,f,k] ≥ 1  ∀ i, k ∈ K_every;   Σ_r a[t,i,r] = 1  ∀ t,i
    link:  c[t,i,s,k] = Σ_f v[t,i,s,f] x[i,f,k], linearised one of two ways (below)
    Σ_i c[t,i,s,k] = 1                    ∀ t ∈ T_≠, s, k    every side shows every colour once
    c[t,i,s,k] = z[t,s,k]                 ∀ t ∈ T_=, i, s, k every side one colour ...
    Σ_k z[t,s,k] = 1,  Σ_s z[t,s,k] ≤ 1   ∀ t ∈ T_=          ... the four sides different
Objective
    min Σ_{(i,f,k) ∈ G} (1 − x[i,f,k])      faces repainted (0 with no starting set)

The two formulations differ only in the link:
- `mccormick`: McCormick's (1976) envelope of each product, its lower half
  c[t,i,s,k] ≥ v[t,i,s,f] + x[i,f,k] − 1 ∀ f, with Σ_k c[t,i,s,k] = 1 (which makes the upper
  half implied at integer points): 24 n² constraints per tower for n cubes and colours, no new
  variables.
- `rlt`: the reformulation-linearisation technique (Sherali and Adams 1990): multiply the
  assignment equations Σ_k x[i,f,k] = 1 by v[t,i,p,f], and Σ_p v[t,i,p,f] = 1 by x[i,f,k], and
  write w[t,i,p,f,k] ≥ 0 for each product v·x (36 n² more variables per tower): Σ_k w[t,i,p,f,k] = v[t,i,p,f],
  Σ_p w[t,i,p,f,k] = x[i,f,k], c[t,i,s,k] = Σ_f w[t,i,s,f,k]. More variables, a tighter
  relaxation.
"""

from __future__ import annotations

import pyomo.environ as pyo

from pyomo_puzzles.contract.modelling import total
from pyomo_puzzles.families.instant_insanity import geometry
from pyomo_puzzles.families.instant_insanity.designs.spec import DesignSpec


def _common_model(name: str) -> pyo.AbstractModel:
    model = pyo.AbstractModel(name=name)
    model.CUBES = pyo.Set(doc="cubes, one per level")
    model.FACES = pyo.Set(doc="faces of a cube")
    model.POSITIONS = pyo.Set(doc="positions in a tower: 1-4 the long sides, 5 bottom, 6 top")
    model.SIDES = pyo.Set(within=model.POSITIONS, doc="the four long sides")
    model.COLOURS = pyo.Set(doc="colours")
    model.ROTATIONS = pyo.Set(doc="the 24 rotations of a cube")
    model.TOWERS = pyo.Set(doc="the towers the set must have")
    model.TOWERS_DIFFERENT = pyo.Set(within=model.TOWERS, doc="the all-different tower, if asked for")
    model.TOWERS_EQUAL = pyo.Set(within=model.TOWERS, doc="the all-equal tower, if asked for")
    model.COLOURS_ON_EVERY_CUBE = pyo.Set(within=model.COLOURS, doc="colours every cube must show")
    model.STARTING_COLOURS = pyo.Set(dimen=3, doc="(cube, face, colour) the face starts as")
    model.ROTATIONS_PUTTING = pyo.Set(model.POSITIONS, model.FACES,
                                      doc="R_{p,f}: rotations that bring face f to position p")

    model.x = pyo.Var(model.CUBES, model.FACES, model.COLOURS, domain=pyo.Binary,
                      doc="face f of cube i is painted colour k")
    model.a = pyo.Var(model.TOWERS, model.CUBES, model.ROTATIONS, domain=pyo.Binary,
                      doc="in tower t, cube i stands in rotation r")
    model.c = pyo.Var(model.TOWERS, model.CUBES, model.SIDES, model.COLOURS, domain=pyo.Binary,
                      doc="in tower t, side s of cube i shows colour k")
    model.z = pyo.Var(model.TOWERS_EQUAL, model.SIDES, model.COLOURS, domain=pyo.Binary,
                      doc="side s of the all-equal tower is all colour k")

    @model.Constraint(model.CUBES, model.FACES)
    def each_face_has_one_colour(m, i, f):
        return total(m.x[i, f, k] for k in m.COLOURS) == 1

    @model.Constraint(model.CUBES, model.COLOURS_ON_EVERY_CUBE)
    def each_cube_shows_every_colour(m, i, k):
        return total(m.x[i, f, k] for f in m.FACES) >= 1

    @model.Constraint(model.TOWERS, model.CUBES)
    def each_cube_stands_in_one_rotation(m, t, i):
        return total(m.a[t, i, r] for r in m.ROTATIONS) == 1

    @model.Constraint(model.TOWERS_DIFFERENT, model.SIDES, model.COLOURS)
    def each_side_shows_every_colour_once(m, t, s, k):
        return total(m.c[t, i, s, k] for i in m.CUBES) == 1

    @model.Constraint(model.TOWERS_EQUAL, model.CUBES, model.SIDES, model.COLOURS)
    def each_cube_shows_its_sides_colour(m, t, i, s, k):
        return m.c[t, i, s, k] == m.z[t, s, k]

    @model.Constraint(model.TOWERS_EQUAL, model.SIDES)
    def each_side_is_one_colour(m, t, s):
        return total(m.z[t, s, k] for k in m.COLOURS) == 1

    @model.Constraint(model.TOWERS_EQUAL, model.COLOURS)
    def the_sides_are_different_colours(m, t, k):
        return total(m.z[t, s, k] for s in m.SIDES) <= 1

    @model.Objective(sense=pyo.minimize)
    def faces_repainted(m):
        return len(m.STARTING_COLOURS) - total(m.x[i, f, k] for i, f, k in m.STARTING_COLOURS)

    return model


def at_position(m, t, i, p, f):
    """v[t,i,p,f]: the rotations of cube i in tower t that bring face f to position p."""
    return total(m.a[t, i, r] for r in m.ROTATIONS_PUTTING[p, f])


def build_mccormick() -> pyo.AbstractModel:
    model = _common_model("instant_insanity_design_mccormick")

    @model.Constraint(model.TOWERS, model.CUBES, model.SIDES, model.FACES, model.COLOURS)
    def side_shows_the_colour_of_its_face(m, t, i, s, f, k):
        return m.c[t, i, s, k] >= at_position(m, t, i, s, f) + m.x[i, f, k] - 1

    @model.Constraint(model.TOWERS, model.CUBES, model.SIDES)
    def each_side_shows_one_colour(m, t, i, s):
        return total(m.c[t, i, s, k] for k in m.COLOURS) == 1

    return model


def build_rlt() -> pyo.AbstractModel:
    model = _common_model("instant_insanity_design_rlt")
    model.w = pyo.Var(model.TOWERS, model.CUBES, model.POSITIONS, model.FACES, model.COLOURS,
                      domain=pyo.NonNegativeReals, doc="w = v[t,i,p,f] x[i,f,k]: position p shows face f in colour k")

    @model.Constraint(model.TOWERS, model.CUBES, model.POSITIONS, model.FACES)
    def face_at_position_has_one_colour(m, t, i, p, f):
        return total(m.w[t, i, p, f, k] for k in m.COLOURS) == at_position(m, t, i, p, f)

    @model.Constraint(model.TOWERS, model.CUBES, model.FACES, model.COLOURS)
    def coloured_face_has_one_position(m, t, i, f, k):
        return total(m.w[t, i, p, f, k] for p in m.POSITIONS) == m.x[i, f, k]

    @model.Constraint(model.TOWERS, model.CUBES, model.SIDES, model.COLOURS)
    def side_shows_the_colour_of_its_face(m, t, i, s, k):
        return m.c[t, i, s, k] == total(m.w[t, i, s, f, k] for f in m.FACES)

    return model


def model_data(spec: DesignSpec) -> dict:
    rotations = geometry.rotations()
    cubes = list(range(1, spec.n + 1))
    starting = [(i, f, spec.start[i - 1][f - 1]) for i in cubes for f in geometry.FACES] if spec.repaint else []
    return {None: {
        "CUBES": {None: cubes},
        "FACES": {None: list(geometry.FACES)},
        "POSITIONS": {None: list(geometry.FACES)},
        "SIDES": {None: list(geometry.SIDES)},
        "COLOURS": {None: list(spec.colours)},
        "ROTATIONS": {None: list(range(1, len(rotations) + 1))},
        "TOWERS": {None: list(spec.towers)},
        "TOWERS_DIFFERENT": {None: [t for t in spec.towers if t == "all_different"]},
        "TOWERS_EQUAL": {None: [t for t in spec.towers if t == "all_equal"]},
        "COLOURS_ON_EVERY_CUBE": {None: list(spec.colours) if spec.every_colour else []},
        "STARTING_COLOURS": {None: starting},
        "ROTATIONS_PUTTING": {(p, f): [r for r, rot in enumerate(rotations, 1) if rot[p - 1] == f]
                              for p in geometry.FACES for f in geometry.FACES},
    }}


def decode(spec: DesignSpec, model: pyo.ConcreteModel) -> dict:
    rotations = geometry.rotations()
    painted = {(i, f): k for (i, f, k), var in model.x.items() if (var.value or 0) > 0.5}
    cubes = [[painted[i, f] for f in geometry.FACES] for i in range(1, spec.n + 1)]
    towers = {}
    for t in spec.towers:
        chosen = {i: r for (tower, i, r), var in model.a.items() if tower == t and (var.value or 0) > 0.5}
        towers[t] = [{"cube": i, "faces": list(rotations[chosen[i] - 1])} for i in sorted(chosen)]
    repainted = sum(cubes[i][f] != spec.start[i][f] for i in range(spec.n) for f in range(6)) if spec.repaint else 0
    return {"cubes": cubes, "towers": towers, "repainted": repainted}

