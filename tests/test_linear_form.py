"""The fast reader of flat linear models against hand-computed matrices and Pyomo's compiler."""

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_puzzles.core import instances, models, run
from pyomo_puzzles.core.linear_form import read_linear_form
from pyomo_puzzles.core.linear_form import compiled_linear_form as _compiled_linear_form
from pyomo_puzzles.core.solvers import SolverSession


def hand_model() -> pyo.ConcreteModel:
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.Integers, bounds=(0, 10))
    m.y = pyo.Var(domain=pyo.Integers, bounds=(0, 10))
    m.z = pyo.Var(domain=pyo.NonNegativeReals, bounds=(0, 5))
    m.w = pyo.Var(initialize=2)
    m.w.fix()
    m.p = pyo.Param(initialize=2, mutable=True)
    m.c1 = pyo.Constraint(expr=2 * m.x + m.x - m.y + 3 <= 10)           # 3x - y <= 7
    m.c2 = pyo.Constraint(expr=-(m.x + 2 * m.z) + m.w >= -8)            # -x - 2z >= -10
    m.c3 = pyo.Constraint(expr=pyo.inequality(1, m.y + m.z, 4))         # 1 <= y + z <= 4
    m.c4 = pyo.Constraint(expr=m.p * m.x == 4)                          # 2x = 4
    m.obj = pyo.Objective(expr=m.x + 2 * m.y + 1 + m.w, sense=pyo.maximize)
    return m


def dense(form) -> np.ndarray:
    matrix = np.zeros((len(form.row_lower), len(form.columns)))
    for col in range(len(form.columns)):
        for k in range(form.start[col], form.start[col + 1]):
            matrix[form.index[k], col] += form.value[k]
    return matrix


def test_reads_the_hand_model_exactly():
    form = read_linear_form(hand_model())
    assert form is not None
    assert [v.name for v in form.columns] == ["x", "y", "z"]  # order of first use
    assert dense(form).tolist() == [[3, -1, 0], [-1, 0, -2], [0, 1, 1], [2, 0, 0]]
    assert form.row_lower.tolist() == [-np.inf, -10, 1, 4]
    assert form.row_upper.tolist() == [7, np.inf, 4, 4]
    assert form.cost.tolist() == [1, 2, 0] and form.offset == 3 and form.maximise
    assert form.col_lower.tolist() == [0, 0, 0] and form.col_upper.tolist() == [10, 10, 5]
    assert form.integer.tolist() == [True, True, False]


def test_hand_model_optimum_on_both_paths():
    # x = 2 (c4); y + z <= 4 with y, z >= 0: y = 4, z = 0; objective 2 + 8 + 1 + 2 = 13
    fast = hand_model()
    outcome = SolverSession("highs", fast).solve()
    assert outcome.status == "optimal" and outcome.objective == pytest.approx(13)
    assert (pyo.value(fast.x), pyo.value(fast.y), pyo.value(fast.z)) == pytest.approx((2, 4, 0))
    compiled = _compiled_linear_form(hand_model())
    assert compiled.maximise and compiled.cost.tolist() == [1, 2, 0] and compiled.offset == 3


def _same_rows(fast, compiled) -> None:
    """The two forms state the same rows (the compiler may order columns and drop empty rows)."""
    by_name = {v.name: i for i, v in enumerate(compiled.columns)}
    order = [by_name[v.name] for v in fast.columns]
    assert len(order) == len(compiled.columns)

    def rows(form, matrix):
        return sorted((tuple(r), lo, hi) for r, lo, hi in zip(matrix.tolist(), form.row_lower, form.row_upper)
                      if any(r))
    assert rows(fast, dense(fast)) == rows(compiled, dense(compiled)[:, order])
    assert fast.integer.tolist() == compiled.integer[order].tolist()


def test_named_expressions_products_and_quotients_are_read_as_the_compiler_reads_them():
    """Rows that are not flat sums: a named expression, a constant times a difference of
    differences, a quotient by a Param, and a product with a fixed variable (read by Pyomo's
    linear walker). Before issue 56 they went to Pyomo's compiler, whose first use imports
    scipy (0.5 s of the first run of every process)."""
    m = hand_model()
    m.e = pyo.Expression(expr=m.y + m.z)
    m.c3.deactivate()
    m.c5 = pyo.Constraint(expr=m.e <= 3)                                          # y + z <= 3
    m.c6 = pyo.Constraint(expr=(m.x - m.y) - (m.z - m.y) >= -m.p * (1 - m.x))   # x - z >= -2 + 2x
    m.c7 = pyo.Constraint(expr=(m.y + m.z) / m.p <= 2)                           # y + z <= 4
    m.c8 = pyo.Constraint(expr=m.w * m.y <= 7)                                   # 2y <= 7 (w fixed at 2)
    fast = read_linear_form(m)
    assert fast is not None
    _same_rows(fast, _compiled_linear_form(m))
    outcome = SolverSession("highs", m).solve()
    assert outcome.status == "optimal" and outcome.objective == pytest.approx(11)  # x = 2, y = 3


def test_a_nonlinear_row_is_left_to_the_compiler():
    m = hand_model()
    m.c9 = pyo.Constraint(expr=m.x * m.y <= 7)
    assert read_linear_form(m) is None


@pytest.mark.parametrize("name, formulation", [
    ("rubik/qtm_depth_01", "seed"),                # 5 * (1 - m): a constant times a sum
    ("instant_insanity_design/design_q2", "rlt"),
])
def test_shipped_rows_that_are_not_flat_sums_are_read_as_the_compiler_reads_them(name, formulation):
    instance = instances.load(name)
    model = models.build_model(instance, models.choose_formulation(instance, formulation))
    _same_rows(read_linear_form(model), _compiled_linear_form(model))


@pytest.mark.parametrize("name, formulation", [
    ("packing/l_tromino_cube", "cell_assignment"),
    ("packing/l_tromino_cube", "placement"),
    ("packing/iq_twist/challenge_30", "placement"),
    ("packing/iq_twist/challenge_30", "coordinates_tight"),
])
def test_same_matrix_as_pyomos_compiler(name, formulation):
    instance = instances.load(name)
    model = models.build_model(instance, models.choose_formulation(instance, formulation))
    fast, compiled = read_linear_form(model), _compiled_linear_form(model)
    assert fast is not None
    by_name = {v.name: i for i, v in enumerate(compiled.columns)}
    order = [by_name[v.name] for v in fast.columns]
    assert len(order) == len(compiled.columns)
    # the compiler may drop empty rows; compare the nonempty rows as sets of (row, bounds)
    def rows(form, matrix):
        return sorted((tuple(r), lo, hi) for r, lo, hi in zip(matrix.tolist(), form.row_lower, form.row_upper)
                      if any(r))
    assert rows(fast, dense(fast)) == rows(compiled, dense(compiled)[:, order])
    assert fast.integer.tolist() == compiled.integer[order].tolist()


def test_flow_rows_with_negative_terms_read_as_the_compiler_reads_them():
    """The projection model's rows `out - in = supply` (`expressions.difference`: variables and
    -1 monomials in one LinearExpression) take the reader's flat path; same matrix as Pyomo's."""
    from pyomo_puzzles.families.rubik import model_projections

    instance = instances.load("rubik/htm_depth_04")
    form = models.choose_formulation(instance, "projections")
    part = next(p for prefix in model_projections._prefixes(instance.spec, 1)
                if (p := model_projections.part(instance.spec, prefix, 3)) is not None)
    model = models.instantiate(form, part)
    fast, compiled = read_linear_form(model), _compiled_linear_form(model)
    assert fast is not None and -1.0 in fast.value.tolist()
    by_name = {v.name: i for i, v in enumerate(compiled.columns)}
    order = [by_name[v.name] for v in fast.columns]

    def rows(form, matrix):
        return sorted((tuple(r), lo, hi) for r, lo, hi in zip(matrix.tolist(), form.row_lower, form.row_upper)
                      if any(r))
    assert rows(fast, dense(fast)) == rows(compiled, dense(compiled)[:, order])


def test_missing_bounds_are_infinite_and_integrality_is_per_variable():
    m = pyo.ConcreteModel()
    m.free = pyo.Var()                                     # no bounds at all
    m.capped = pyo.Var(bounds=(None, 3))                   # upper bound only
    m.count = pyo.Var(domain=pyo.NonNegativeIntegers)      # lower bound from the domain
    m.flag = pyo.Var(domain=pyo.Binary)
    m.row = pyo.Constraint(expr=m.free + m.capped + m.count + m.flag >= 1)
    form = read_linear_form(m)
    assert form.col_lower.tolist() == [-np.inf, -np.inf, 0, 0]
    assert form.col_upper.tolist() == [np.inf, 3, np.inf, 1]
    assert form.integer.tolist() == [False, False, True, True]


def test_column_bounds_are_pyomos_bounds_for_every_kind_of_variable():
    """The fast path (bounds of the domain asked once) gives what `VarData.bounds` gives."""
    import math

    import pyomo.environ as pyo

    from pyomo_puzzles.core.linear_form import column_bounds

    m = pyo.ConcreteModel()
    m.p = pyo.Param(initialize=3, mutable=True)
    m.binary = pyo.Var(domain=pyo.Binary)
    m.unit = pyo.Var(bounds=(0, 1))
    m.clipped = pyo.Var(domain=pyo.NonNegativeIntegers, bounds=(-3, 7))
    m.narrowed = pyo.Var(domain=pyo.Binary, bounds=(0.5, 4))
    m.by_param = pyo.Var(bounds=(m.p, None))
    m.free = pyo.Var()
    m.integer = pyo.Var(domain=pyo.Integers)
    m.fixed = pyo.Var(domain=pyo.Binary)
    m.fixed.fix(1)
    columns = list(m.component_data_objects(pyo.Var))
    lower, upper = column_bounds(columns)
    for var, low, high in zip(columns, lower, upper):
        want = (var.value, var.value) if var.fixed else var.bounds
        assert (low, high) == (-math.inf if want[0] is None else want[0], math.inf if want[1] is None else want[1]), var


def test_column_bounds_of_plain_variables_are_pyomos_bounds():
    """The vectorised path (no fixed variable, every bound a number or none) gives what
    `VarData.bounds` gives, a domain's bounds narrowing a variable's own and the other way."""
    import math

    import pyomo.environ as pyo

    from pyomo_puzzles.core.linear_form import column_bounds

    m = pyo.ConcreteModel()
    m.binary = pyo.Var([1, 2], domain=pyo.Binary)
    m.unit = pyo.Var(bounds=(0, 1))
    m.clipped = pyo.Var(domain=pyo.NonNegativeIntegers, bounds=(-3, 7))
    m.narrowed = pyo.Var(domain=pyo.Binary, bounds=(0.5, 4))
    m.fraction = pyo.Var(domain=pyo.PercentFraction, bounds=(-1, 0.25))
    m.free = pyo.Var()
    m.integer = pyo.Var(domain=pyo.Integers, bounds=(None, -2))
    columns = list(m.component_data_objects(pyo.Var))
    lower, upper = column_bounds(columns)
    for var, low, high in zip(columns, lower, upper):
        want = var.bounds
        assert (low, high) == (-math.inf if want[0] is None else want[0], math.inf if want[1] is None else want[1]), var


def test_rows_are_the_active_constraints_in_pyomos_order():
    """Rows in `component_data_objects` order, with a deactivated row, a deactivated block and
    a sub-block declared between two constraints."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var([1, 2, 3], bounds=(0, 5))
    m.first = pyo.Constraint([1, 2, 3], rule=lambda m, i: m.x[i] <= i)
    m.first[2].deactivate()
    m.inner = pyo.Block()
    m.inner.row = pyo.Constraint(expr=m.x[1] + m.x[2] == 4)
    m.off = pyo.Block()
    m.off.row = pyo.Constraint(expr=m.x[3] >= 1)
    m.off.deactivate()
    m.last = pyo.Constraint(expr=m.x[1] + m.x[3] <= 7)
    form = read_linear_form(m)
    expected = [con.to_bounded_expression(evaluate_bounds=True)
                for con in m.component_data_objects(pyo.Constraint, active=True, descend_into=True)]
    assert len(expected) == 4
    assert [(lo, hi) for lo, hi in zip(form.row_lower, form.row_upper)] == [
        (-np.inf if lo is None else lo, np.inf if hi is None else hi) for lo, _, hi in expected]
    names = [var.name for var in form.columns]
    rows = [{names[j]: value for j, value in enumerate(row) if value} for row in dense(form).tolist()]
    # a block's own rows first, then its sub-blocks' (as Pyomo walks blocks)
    assert rows == [{"x[1]": 1}, {"x[3]": 1}, {"x[1]": 1, "x[3]": 1}, {"x[1]": 1, "x[2]": 1}]
