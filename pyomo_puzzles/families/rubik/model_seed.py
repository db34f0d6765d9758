"""The published model (A. Furmanek, "ILP Part 41 - Rubik's cube", 2016), with the objective
of fewest real moves so that the answer is optimal.

The blog keeps an integer colour per sticker and step, chooses one of the 12 quarter turns
or a no-op at every step ("whichWall" in 0..12), applies the chosen turn by conditional
copies of the colours, takes God's number of steps (14 in the quarter-turn metric for the
2x2x2) and asks every face to be one colour at the end. As a MILP:

Sets
    T = {1..steps}   steps;  S  stickers;  K  the 12 quarter turns and the no-op
    dest_k(s)        where turn k takes sticker s (the no-op: s itself)
    W_f ⊆ S          the stickers of face f
Parameters
    c0_s ∈ {0..5}    the scrambled colours
Variables
    c[t,s] ∈ {0..5}  (integer) colour at sticker s after step t   (t = 0..steps)
    m[t,k] ∈ {0,1}   step t does turn k
Constraints
    c[0,s] = c0_s                                      the scramble
    Σ_k m[t,k] = 1                                     one turn (or the no-op) per step
    |c[t,dest_k(s)] - c[t-1,s]| ≤ 5 (1 - m[t,k])       the chosen turn moves the colours
                                                       (big-M form of the blog's condition)
    c[steps,s] = c[steps,s']   for s, s' in one W_f    every face one colour at the end
Objective
    min Σ_t Σ_{k ≠ no-op} m[t,k]                       fewest real moves
The model counts quarter turns only (a half turn is two steps): it models the quarter-turn
metric. The prototypes found its LP bound near 1 and proofs beyond depth 2 out of reach.
"""

from __future__ import annotations

import pyomo.environ as pyo

from pyomo_puzzles.contract.modelling import total
from pyomo_puzzles.families.rubik import cube
from pyomo_puzzles.families.rubik.spec import CubeState

NOOP = "-"
QUARTER_TURNS = tuple(f + s for f in cube.FACES for s in ("", "'"))


def build_model() -> pyo.AbstractModel:
    model = pyo.AbstractModel(name="rubik_seed")
    model.STEPS = pyo.Set(doc="steps 1..steps")
    model.STATES = pyo.Set(doc="states 0..steps")
    model.STICKERS = pyo.Set(doc="stickers")
    model.TURNS = pyo.Set(doc="the 12 quarter turns and the no-op")
    model.REAL_TURNS = pyo.Set(doc="the 12 quarter turns")
    model.FACE_PAIRS = pyo.Set(dimen=2, doc="(first sticker of a face, another sticker of that face)")
    model.dest = pyo.Param(model.TURNS, model.STICKERS, doc="where turn k takes sticker s")
    model.start = pyo.Param(model.STICKERS, doc="scrambled colour of sticker s")
    model.LAST = pyo.Param(doc="the last step")

    model.c = pyo.Var(model.STATES, model.STICKERS, domain=pyo.Integers, bounds=(0, 5),
                      doc="colour at sticker s after step t")
    model.m = pyo.Var(model.STEPS, model.TURNS, domain=pyo.Binary, doc="step t does turn k")

    @model.Constraint(model.STICKERS)
    def the_scramble(m, s):
        return m.c[0, s] == m.start[s]

    @model.Constraint(model.STEPS)
    def one_turn_per_step(m, t):
        return total(m.m[t, k] for k in m.TURNS) == 1

    @model.Constraint(model.STEPS, model.TURNS, model.STICKERS)
    def turn_moves_colours_up(m, t, k, s):
        return m.c[t, m.dest[k, s]] - m.c[t - 1, s] <= 5 * (1 - m.m[t, k])

    @model.Constraint(model.STEPS, model.TURNS, model.STICKERS)
    def turn_moves_colours_down(m, t, k, s):
        return m.c[t - 1, s] - m.c[t, m.dest[k, s]] <= 5 * (1 - m.m[t, k])

    @model.Constraint(model.FACE_PAIRS)
    def every_face_one_colour(m, s, other):
        return m.c[m.LAST, s] == m.c[m.LAST, other]

    @model.Objective(sense=pyo.minimize)
    def fewest_real_moves(m):
        return total(m.m[t, k] for t in m.STEPS for k in m.REAL_TURNS)

    return model


def applies_to(spec: CubeState) -> str | None:
    if spec.metric != "qtm":
        return "the published model has quarter turns only: it models the quarter-turn metric (metric: qtm)"
    return None


def model_data(spec: CubeState) -> dict:
    n = spec.size
    stickers = list(range(6 * n * n))
    dest = {(NOOP, s): s for s in stickers}
    for k in QUARTER_TURNS:
        for s, d in enumerate(cube.move(n, k)):
            dest[k, s] = d
    pairs = [(f * n * n, f * n * n + j) for f in range(6) for j in range(1, n * n)]
    return {None: {
        "STEPS": {None: list(range(1, spec.steps + 1))},
        "STATES": {None: list(range(spec.steps + 1))},
        "STICKERS": {None: stickers},
        "TURNS": {None: [*QUARTER_TURNS, NOOP]},
        "REAL_TURNS": {None: list(QUARTER_TURNS)},
        "FACE_PAIRS": {None: pairs},
        "dest": dest,
        "start": dict(enumerate(spec.state)),
        "LAST": {None: spec.steps},
    }}


def merged(moves: list[str]) -> list[str]:
    """X X -> X2 and X' X' -> X2 (the same turns, written as a half turn)."""
    out: list[str] = []
    for move in moves:
        if out and out[-1] == move and not move.endswith("2"):
            out[-1] = move[0] + "2"
        else:
            out.append(move)
    return out


def decode(spec: CubeState, model: pyo.ConcreteModel) -> dict:
    chosen = []
    for t in sorted(model.STEPS):
        k = max(model.TURNS, key=lambda k: model.m[t, k].value or 0)
        if k != NOOP:
            chosen.append(k)
    return {"moves": merged(chosen)}
