"""A pieces model of the 2x2x2 with disaggregated steps (own design, after the prototypes).

Differences from the published model (`model_seed`): the D-B-L corner is held fixed (a
scramble that moved it is first turned as a whole so that it is home, and the moves found
are renamed back: `oriented`), so only U, R and F turn (9 moves in the half-turn metric, 6 in the quarter-turn metric); the
state is a binary assignment of the other 7 corner cubies, with twist, to the 7 corner
positions; each step is split into one copy of the state per move, the copies summing to
the state before and, moved, to the state after (a much stronger LP than big-M links);
no-ops only at the end; the same face never turns twice in a row (half-turn metric), and
a quarter turn is never undone at once (quarter-turn metric).

Sets
    P  the 7 corner positions;  C  the 7 corner cubies;  O = {0, 1, 2}  twists
    K  the moves of the metric;  T = {1..steps}
    π_k(p), τ_k(p)   where move k takes position p, and how much it twists the cubie there
    F_k              moves that may not follow move k
Parameters
    s0[p,c,o] = 1    iff the scramble has cubie c at p with twist o
Variables
    x[t,p,c,o] ∈ {0,1}    after step t, position p holds cubie c with twist o
    y[t,k] ∈ {0,1}        step t is move k;  idle[t] ∈ {0,1}  step t is a no-op
    z[t,k,p,c,o] ≥ 0      the copy of the state before step t routed through move k
Constraints
    x[0,p,c,o] = s0[p,c,o];  x[steps,p,c,o] = [c is p's cubie and o = 0]   (start, solved)
    Σ_{c,o} x[t,p,c,o] = 1 ∀p;   Σ_{p,o} x[t,p,c,o] = 1 ∀c                (a state)
    Σ_k y[t,k] + idle[t] = 1;   idle[t] ≤ idle[t+1]                           (one move; no-ops last)
    Σ_k z[t,k,p,c,o] + zidle[t,p,c,o] = x[t-1,p,c,o]                          (split the state)
    Σ_{c,o} z[t,k,p,c,o] = y[t,k] ∀p;  Σ_{c,o} zidle[t,p,c,o] = idle[t] ∀p    (a copy per move)
    x[t,π_k(p),c,(o+τ_k(p)) mod 3] = Σ_k z[t,k,p,c,o] + zidle[t,p,c,o]       (move the copies)
    y[t,k] + y[t+1,k'] ≤ 1   for k' ∈ F_k                                     (no wasted pairs)
Objective
    min Σ_t Σ_k y[t,k]
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pyomo.environ as pyo

from pyomo_puzzles.contract.modelling import total
from pyomo_puzzles.families.rubik import cube, cubies
from pyomo_puzzles.families.rubik.spec import CubeState

N = 2
TWISTS = (0, 1, 2)


def pieces(state: np.ndarray) -> dict[int, tuple[int, int]]:
    """position -> (cubie, twist): cubie = the position where it belongs when solved."""
    return {label // 3: (cubie, label % 3) for cubie, label in enumerate(cubies.labels(state, N, "corner"))}


def move_actions(metric: str) -> dict[str, dict[int, tuple[int, int]]]:
    """move -> position -> (new position, added twist): where the cubie at p, untwisted, goes."""
    table = cubies.label_moves(N, metric, "corner")
    return {name: {p: divmod(int(table[k, 3 * p]), 3) for p in range(7)}
            for k, name in enumerate(cubies.moves(N, metric))}


def build_model() -> pyo.AbstractModel:
    model = pyo.AbstractModel(name="rubik_pieces")
    model.STEPS = pyo.Set(doc="steps 1..steps")
    model.STATES = pyo.Set(doc="states 0..steps")
    model.POSITIONS = pyo.Set(doc="the 7 movable corner positions")
    model.CUBIES = pyo.Set(doc="the 7 movable corner cubies")
    model.TWISTS = pyo.Set(doc="twists 0, 1, 2")
    model.MOVES = pyo.Set(doc="the moves of the metric")
    model.PAIRS_FORBIDDEN = pyo.Set(dimen=2, doc="(move, move that may not follow it)")
    model.to_position = pyo.Param(model.MOVES, model.POSITIONS, doc="π_k(p)")
    model.twist_by = pyo.Param(model.MOVES, model.POSITIONS, doc="τ_k(p)")
    model.start = pyo.Param(model.POSITIONS, model.CUBIES, model.TWISTS, default=0)
    model.LAST = pyo.Param(doc="the last step")

    model.x = pyo.Var(model.STATES, model.POSITIONS, model.CUBIES, model.TWISTS, domain=pyo.Binary)
    model.y = pyo.Var(model.STEPS, model.MOVES, domain=pyo.Binary, doc="step t is move k")
    model.idle = pyo.Var(model.STEPS, domain=pyo.Binary, doc="step t is a no-op")
    model.z = pyo.Var(model.STEPS, model.MOVES, model.POSITIONS, model.CUBIES, model.TWISTS, bounds=(0, 1))
    model.zidle = pyo.Var(model.STEPS, model.POSITIONS, model.CUBIES, model.TWISTS, bounds=(0, 1))

    @model.Constraint(model.POSITIONS, model.CUBIES, model.TWISTS)
    def starts_scrambled(m, p, c, o):
        return m.x[0, p, c, o] == m.start[p, c, o]

    @model.Constraint(model.POSITIONS, model.CUBIES, model.TWISTS)
    def ends_solved(m, p, c, o):
        return m.x[m.LAST, p, c, o] == (1 if (c == p and o == 0) else 0)

    @model.Constraint(model.STATES, model.POSITIONS)
    def each_position_holds_one_cubie(m, t, p):
        return total(m.x[t, p, c, o] for c in m.CUBIES for o in m.TWISTS) == 1

    @model.Constraint(model.STATES, model.CUBIES)
    def each_cubie_is_somewhere(m, t, c):
        return total(m.x[t, p, c, o] for p in m.POSITIONS for o in m.TWISTS) == 1

    @model.Constraint(model.STEPS)
    def one_move_or_idle(m, t):
        return total([*(m.y[t, k] for k in m.MOVES), m.idle[t]]) == 1

    @model.Constraint(model.STEPS)
    def idle_steps_come_last(m, t):
        return pyo.Constraint.Skip if t == m.LAST else m.idle[t] <= m.idle[t + 1]

    @model.Constraint(model.STEPS, model.POSITIONS, model.CUBIES, model.TWISTS)
    def copies_split_the_state(m, t, p, c, o):
        return total([*(m.z[t, k, p, c, o] for k in m.MOVES), m.zidle[t, p, c, o]]) == m.x[t - 1, p, c, o]

    @model.Constraint(model.STEPS, model.MOVES, model.POSITIONS)
    def a_copy_per_chosen_move(m, t, k, p):
        return total(m.z[t, k, p, c, o] for c in m.CUBIES for o in m.TWISTS) == m.y[t, k]

    @model.Constraint(model.STEPS, model.POSITIONS)
    def a_copy_for_idle(m, t, p):
        return total(m.zidle[t, p, c, o] for c in m.CUBIES for o in m.TWISTS) == m.idle[t]

    @model.Constraint(model.STEPS, model.POSITIONS, model.CUBIES, model.TWISTS)
    def moved_copies_make_the_next_state(m, t, q, c, o):
        incoming = [m.z[t, k, p, c, (o - m.twist_by[k, p]) % 3]
                    for k in m.MOVES for p in m.POSITIONS if m.to_position[k, p] == q]
        return m.x[t, q, c, o] == total([*incoming, m.zidle[t, q, c, o]])

    @model.Constraint(model.STEPS, model.PAIRS_FORBIDDEN)
    def no_wasted_pair(m, t, k, follower):
        return pyo.Constraint.Skip if t == m.LAST else m.y[t, k] + m.y[t + 1, follower] <= 1

    @model.Objective(sense=pyo.minimize)
    def fewest_moves(m):
        return total(m.y[t, k] for t in m.STEPS for k in m.MOVES)

    return model


def applies_to(spec: CubeState) -> str | None:
    return None if spec.size == 2 else "the model is written for the 2x2x2"


@lru_cache(maxsize=64)
def oriented(spec: CubeState) -> tuple[np.ndarray, dict[str, str]]:
    """The scramble turned as a whole so that the D-B-L corner is home (a state the U, R
    and F turns reach), and for each face of the turned cube the face it is on the given
    one; moves found for the turned cube are renamed with it."""
    return cube.held_corner_home(spec.array(), cubies.HELD_CORNER, N)


def model_data(spec: CubeState) -> dict:
    moves = list(cubies.moves(N, spec.metric))
    positions = list(range(7))
    actions = move_actions(spec.metric)
    start = {(p, c, o): 1 for p, (c, o) in pieces(oriented(spec)[0]).items()}
    forbidden = [(k, f) for k in moves for f in moves if cubies.wasteful(N, spec.metric, k, f)]
    return {None: {
        "STEPS": {None: list(range(1, spec.steps + 1))},
        "STATES": {None: list(range(spec.steps + 1))},
        "POSITIONS": {None: positions},
        "CUBIES": {None: positions},
        "TWISTS": {None: list(TWISTS)},
        "MOVES": {None: moves},
        "PAIRS_FORBIDDEN": {None: forbidden},
        "to_position": {(k, p): actions[k][p][0] for k in moves for p in positions},
        "twist_by": {(k, p): actions[k][p][1] for k in moves for p in positions},
        "start": start,
        "LAST": {None: spec.steps},
    }}


def decode(spec: CubeState, model: pyo.ConcreteModel) -> dict:
    chosen = []
    for t in sorted(model.STEPS):
        for k in model.MOVES:
            if (model.y[t, k].value or 0) > 0.5:
                chosen.append(k)
    return {"moves": cube.renamed(chosen, oriented(spec)[1])}
