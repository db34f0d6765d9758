"""Golomb rulers by positions, with a wrong objective: the length it minimises only has to
reach the marks of the first half of the ruler (a formulation bug a user could make). Its
solutions are feasible rulers; its objective is not their length."""

import pyomo.environ as pyo

from pyomo_puzzles_golomb import pair_pairs, positions_data, positions_decode, positions_model

FAMILY = "golomb"


def build_model() -> pyo.AbstractModel:
    model = positions_model()
    model.length.deactivate()
    model.half_length = pyo.Var(domain=pyo.NonNegativeReals)

    @model.Constraint(model.MARK)
    def covers_the_first_half(m, i):
        return m.half_length >= m.x[i] if 2 * i <= m.n else pyo.Constraint.Skip

    @model.Objective(sense=pyo.minimize)
    def wrong_length(m):
        return m.half_length

    return model


model_data = positions_data
decode = positions_decode
__all__ = ["build_model", "model_data", "decode", "pair_pairs"]
