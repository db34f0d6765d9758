"""A concrete model's rows as one sparse matrix, read straight from Pyomo's linear sums.

Pyomo's `LinearStandardFormCompiler` walks every expression with a general visitor; on the
small exact-cover models of this project that walk costs as much as the HiGHS solve
(IQ Twist challenge: 2.4 ms against 6 ms). Models built with
`pyomo_puzzles.core.expressions.total` hold each row as one `LinearExpression` whose
terms are variables or (coefficient, variable) monomials, which can be read directly.

`read_linear_form` does that (and reads nested sums, negations, constant multiples and
quotients, and named expressions directly); a row it cannot read so (a product with a
fixed variable, say) goes through Pyomo's linear walker (`pyomo.repn.linear`), one row at a
time. It returns None only for a model that is not linear (or has several objectives), so
that the caller falls back to Pyomo's standard-form compiler, which says what is wrong.
That compiler is not the route of a linear model because its first use in a process imports
scipy through Pyomo's deferred imports (scipy.stats and more: 0.5 s, charged to the first
run of every process; the Golomb test plugin's `positions` rows, differences of differences
and a Param times a sum, took that route). Columns come in the order the rows first use them
(see `first_use_column_order` for why); variables used only in the objective
follow; fixed variables are constants.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
import pyomo.environ as pyo
from pyomo.core.base.var import VarData
from pyomo.core.expr.numeric_expr import (DivisionExpression, LinearExpression, MonomialTermExpression,
                                          NegationExpression, ProductExpression, SumExpression)
from pyomo.core.expr.relational_expr import EqualityExpression, InequalityExpression
from pyomo.core.expr.numvalue import native_numeric_types
from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

INFINITY = float("inf")


@dataclass
class LinearForm:
    """min/max c·x + offset  s.t.  row_lower ≤ A x ≤ row_upper,  lower ≤ x ≤ upper."""

    columns: list            # VarData, in column order
    start: np.ndarray        # A in compressed-column form
    index: np.ndarray
    value: np.ndarray
    cost: np.ndarray
    offset: float
    maximise: bool
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    integer: np.ndarray      # bool per column
    eliminated: list = field(default_factory=list)  # (var, expression) the compiler solved for


class _Unsupported(Exception):
    """The expression is not a flat linear sum; use Pyomo's compiler instead."""


def _terms(expr, general: bool = True) -> tuple[float, list]:
    """(constant, [(coefficient, VarData), ...]) of a linear expression: nested sums,
    negations, monomials and products or quotients with constant factors are read directly;
    anything else, with `general`, by Pyomo's linear walker (a fixed variable is then a
    constant), and without it (a persistent session keeps fixed variables as columns) or
    where the walker finds a nonlinear term, it is unsupported."""
    terms: list = []
    try:
        return _collect(expr, 1.0, terms), terms
    except _Unsupported:
        if not general:
            raise
    return _walked_terms(expr)


def _walked_terms(expr) -> tuple[float, list]:
    """`_terms` by Pyomo's linear walker (`pyomo.repn.linear`); a fresh walker per
    expression, as its cache of named expressions is keyed by object ids."""
    from pyomo.repn.linear import LinearRepnVisitor  # loaded with pyomo.environ; only the rare row needs it
    from pyomo.repn.util import VarRecorder

    variables: dict = {}
    walked = LinearRepnVisitor({}, var_recorder=VarRecorder(variables, None)).walk_expression(expr)
    if walked.nonlinear is not None or walked.multiplier.__class__ not in native_numeric_types:
        raise _Unsupported
    multiplier = float(walked.multiplier)
    constant = pyo.value(walked.constant) * multiplier
    return constant, [(pyo.value(coefficient) * multiplier, variables[key])
                      for key, coefficient in walked.linear.items()]


def _collect(expr, multiplier: float, terms: list) -> float:
    """Append multiplier * (the terms of expr) to terms; return multiplier * its constant."""
    kind = expr.__class__
    if kind in native_numeric_types:
        return multiplier * expr
    if kind is LinearExpression or kind is SumExpression:
        return sum(_collect(arg, multiplier, terms) for arg in expr.args)
    if isinstance(expr, VarData):
        terms.append((multiplier, expr))
        return 0.0
    if kind is MonomialTermExpression:
        coefficient, var = expr.args
        if coefficient.__class__ not in native_numeric_types:
            if coefficient.is_potentially_variable():
                raise _Unsupported
            coefficient = pyo.value(coefficient)
        return _collect(var, multiplier * coefficient, terms)
    if kind is NegationExpression:
        return _collect(expr.args[0], -multiplier, terms)
    if not expr.is_potentially_variable():
        return multiplier * pyo.value(expr)
    if kind is ProductExpression:  # a constant times a sum: 24 * (1 - y)
        left, right = expr.args
        if not _is_constant(left):
            left, right = right, left
        if _is_constant(left):
            return _collect(right, multiplier * pyo.value(left), terms)
    elif kind is DivisionExpression:
        numerator, denominator = expr.args
        if _is_constant(denominator):
            return _collect(numerator, multiplier / pyo.value(denominator), terms)
    elif expr.is_named_expression_type():  # a Pyomo Expression component
        return _collect(expr.expr, multiplier, terms)
    raise _Unsupported


def _is_constant(expr) -> bool:
    return expr.__class__ in native_numeric_types or not expr.is_potentially_variable()


def read_linear_form(model: pyo.ConcreteModel, keep_fixed: bool = False) -> LinearForm | None:
    """The model as a `LinearForm`, or None if a row is not a flat linear sum. A fixed
    variable is a constant, or with `keep_fixed` a column whose bounds are its value (a
    persistent session unfixes it later)."""
    try:
        return _read(model, keep_fixed)
    except _Unsupported:
        return None


def _read(model: pyo.ConcreteModel, keep_fixed: bool = False) -> LinearForm:
    # Every term goes into two flat lists (variable, coefficient), each row's size into a third; the objective is
    # one more row after the constraints. Columns, duplicates and fixed variables are then
    # sorted out with numpy: a Python loop per term would cost as much as Pyomo's compiler.
    row_sizes, term_vars, term_coefs = [], [], []
    row_lower, row_upper = [], []
    for con in model.component_data_objects(pyo.Constraint, active=True, descend_into=True):
        expr = con.expr
        kind = expr.__class__
        # the common rows, `linear sum == number`, `<= number`, `== variable`, read here: Pyomo's general
        # to_bounded_expression took a sixth of the compilation of a network model
        if kind is EqualityExpression or kind is InequalityExpression:
            body, bound = expr.args
            if body.__class__ is LinearExpression:
                if bound.__class__ in native_numeric_types:
                    constant = _append_terms(body, row_sizes, term_vars, term_coefs, not keep_fixed)
                    row_lower.append(bound - constant if kind is EqualityExpression else -INFINITY)
                    row_upper.append(bound - constant)
                    continue
                if bound.__class__ is VarData:  # sum == y: y moved to the left
                    constant = _append_terms(body, row_sizes, term_vars, term_coefs, not keep_fixed)
                    term_vars.append(bound)
                    term_coefs.append(-1.0)
                    row_sizes[-1] += 1
                    row_lower.append(0.0 - constant if kind is EqualityExpression else -INFINITY)
                    row_upper.append(0.0 - constant)  # not -constant: -0.0 would change the digest
                    continue
        lower, body, upper = con.to_bounded_expression(evaluate_bounds=True)  # any other row
        constant = _append_terms(body, row_sizes, term_vars, term_coefs, general=not keep_fixed)
        row_lower.append(-INFINITY if lower is None else lower - constant)
        row_upper.append(INFINITY if upper is None else upper - constant)
    objectives = list(model.component_data_objects(pyo.Objective, active=True, descend_into=True))
    if len(objectives) > 1:
        raise _Unsupported
    offset, maximise = 0.0, False
    if objectives:
        offset = _append_terms(objectives[0].expr, row_sizes, term_vars, term_coefs, general=not keep_fixed)
        maximise = objectives[0].sense == pyo.maximize
    term_rows = np.repeat(np.arange(len(row_sizes)), row_sizes)  # the objective is row len(row_lower)
    return _assemble(term_rows, term_vars, term_coefs, np.asarray(row_lower, dtype=float),
                     np.asarray(row_upper, dtype=float), offset, maximise, keep_fixed)


_VARIABLES = {VarData}
_VARIABLES_AND_MONOMIALS = {VarData, MonomialTermExpression}


def _append_terms(expr, row_sizes: list, term_vars: list, term_coefs: list, general: bool = True) -> float:
    """Append the terms of `expr` as the next row (its size to `row_sizes`); return its
    constant (`general`: see `_terms`)."""
    if expr.__class__ is LinearExpression:
        args = expr.args
        kinds = set(map(type, args))
        if kinds == _VARIABLES:  # the common case: a sum of variables
            term_vars += args
            term_coefs += [1.0] * len(args)
            row_sizes.append(len(args))
            return 0.0
        if kinds <= _VARIABLES_AND_MONOMIALS and _append_monomials(args, term_vars, term_coefs):
            row_sizes.append(len(args))
            return 0.0
    constant, terms = _terms(expr, general)
    term_vars += [var for _, var in terms]
    term_coefs += [coefficient for coefficient, _ in terms]
    row_sizes.append(len(terms))
    return constant


def _append_monomials(args, term_vars: list, term_coefs: list) -> bool:
    """Append a flat sum of variables and constant-coefficient monomials (a flow's out minus
    in); False, appending nothing, if a coefficient is not a plain number."""
    variables, coefficients = [], []
    for arg in args:
        if arg.__class__ is VarData:
            variables.append(arg)
            coefficients.append(1.0)
            continue
        coefficient, var = arg.args
        if coefficient.__class__ not in native_numeric_types or var.__class__ is not VarData:
            return False
        variables.append(var)
        coefficients.append(coefficient)
    term_vars += variables
    term_coefs += coefficients
    return True


def first_use_numbering(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Number the distinct keys in order of first appearance.

    Returns (position of each distinct key's first appearance, in that order; the number
    of every key). Columns are numbered this way: see `first_use_column_order`.
    """
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    by_first_use = np.argsort(first, kind="stable")
    rank = np.empty_like(by_first_use)
    rank[by_first_use] = np.arange(len(by_first_use))
    return first[by_first_use], rank[inverse.reshape(-1)]


def _assemble(term_rows, term_vars, term_coefs, row_lower, row_upper, offset, maximise,
              keep_fixed: bool = False) -> LinearForm:
    n_rows = len(row_lower)
    rows = np.asarray(term_rows, dtype=np.int64)
    coefs = np.asarray(term_coefs, dtype=float)
    first_terms, cols = first_use_numbering(np.fromiter(map(id, term_vars), dtype=np.int64, count=len(term_vars)))
    columns = [term_vars[i] for i in first_terms]

    fixed = np.array([var._fixed for var in columns], dtype=bool)  # Pyomo's VarData.fixed, read directly
    if fixed.any() and not keep_fixed:  # a fixed variable is a constant: move it to the row bounds
        values = np.array([var.value if var.fixed else 0.0 for var in columns], dtype=float)
        moved = coefs * values[cols] * fixed[cols]
        shift = np.bincount(rows, weights=moved, minlength=n_rows + 1)
        row_lower, row_upper, offset = row_lower - shift[:n_rows], row_upper - shift[:n_rows], offset + shift[n_rows]
        keep = ~fixed[cols]
        kept_columns = np.flatnonzero(~fixed)
        renumber = np.full(len(columns), -1)
        renumber[kept_columns] = np.arange(len(kept_columns))
        rows, cols, coefs = rows[keep], renumber[cols[keep]], coefs[keep]
        columns = [columns[i] for i in kept_columns]

    # merge repeated (column, row) pairs; sorted keys are exactly compressed-column order
    keys, where = np.unique(cols * (n_rows + 1) + rows, return_inverse=True)
    values = np.bincount(where.reshape(-1), weights=coefs, minlength=len(keys))
    key_cols, key_rows = np.divmod(keys, n_rows + 1)
    cost = np.zeros(len(columns))
    in_objective = key_rows == n_rows
    cost[key_cols[in_objective]] = values[in_objective]
    entry = ~in_objective & (values != 0)
    start = np.zeros(len(columns) + 1, dtype=np.int64)
    np.cumsum(np.bincount(key_cols[entry], minlength=len(columns)), out=start[1:])
    domains = _domains(columns)
    col_lower, col_upper = column_bounds(columns, domains)
    return LinearForm(
        columns=columns, start=start, index=key_rows[entry], value=values[entry],
        cost=cost, offset=float(offset), maximise=maximise,
        row_lower=row_lower, row_upper=row_upper, col_lower=col_lower, col_upper=col_upper,
        integer=_integer(domains),
    )


def _domains(columns: list) -> tuple[list, dict]:
    """Each column's domain key, and one column of each distinct domain (a domain is asked once)."""
    keys = [id(var._domain) for var in columns]  # Pyomo's VarData._domain
    return keys, dict(zip(keys, columns))


def column_bounds(columns: list, domains: tuple[list, dict] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) of each variable, -inf/inf where it has none; a fixed variable's are its value.
    `domains`: `_domains(columns)` if the caller has it."""
    # Pyomo's VarData: its own bounds (numbers, None or expressions), domain and fixed flag
    lower, upper = [var._lb for var in columns], [var._ub for var in columns]
    if not (_plain_bounds(lower) and _plain_bounds(upper)) or any([var._fixed for var in columns]):
        domain_bounds: dict = {}
        bounds = np.array([_bounds(var, domain_bounds) for var in columns], dtype=float).reshape(-1, 2)  # None -> nan
        return np.nan_to_num(bounds[:, 0], nan=-INFINITY), np.nan_to_num(bounds[:, 1], nan=INFINITY)
    keys, one_of_each = domains or _domains(columns)
    per_domain = {key: var._domain.bounds() for key, var in one_of_each.items()}
    domain_lower = np.array([per_domain[key][0] for key in keys], dtype=float)  # None -> nan
    domain_upper = np.array([per_domain[key][1] for key in keys], dtype=float)
    low = np.fmax(np.array(lower, dtype=float), domain_lower)  # fmax, fmin: a nan (no bound) gives way
    high = np.fmin(np.array(upper, dtype=float), domain_upper)
    return np.nan_to_num(low, nan=-INFINITY), np.nan_to_num(high, nan=INFINITY)


_PLAIN_BOUND_TYPES = frozenset(native_numeric_types) | {type(None)}


def _plain_bounds(bounds: list) -> bool:
    return set(map(type, bounds)) <= _PLAIN_BOUND_TYPES


def _bounds(var, domain_bounds: dict) -> tuple:
    """The variable's bounds as `VarData.bounds` gives them, its domain's asked once per
    domain (for a model with a fixed variable or a bound that is an expression)."""
    if var.fixed:
        return var.value, var.value
    lower, upper = var._lb, var._ub  # Pyomo's VarData: its own bounds, numbers, None or expressions
    if not ((lower is None or lower.__class__ in native_numeric_types)
            and (upper is None or upper.__class__ in native_numeric_types)):
        return var.bounds
    domain = var._domain
    found = domain_bounds.get(id(domain))
    if found is None:
        found = domain_bounds[id(domain)] = domain.bounds()
    low, high = found
    if lower is not None:
        low = lower if low is None else max(lower, low)
    if upper is not None:
        high = upper if high is None else min(upper, high)
    return low, high


@dataclass
class Rows:
    """Rows to add to a form, over its columns, in compressed-row form."""

    start: np.ndarray
    index: np.ndarray
    value: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    def __len__(self) -> int:
        return len(self.lower)


def rows_of(constraints: list, column_of: dict) -> Rows | None:
    """The constraints as rows over the columns `column_of` (id(var) -> column), each row's
    repeated columns merged and fixed variables kept as columns; None if a row is not a flat
    linear sum or uses a variable that is not a column."""
    starts, index, value, lower, upper = [0], [], [], [], []
    try:
        for con in constraints:
            low, body, high = con.to_bounded_expression(evaluate_bounds=True)
            constant, terms = _terms(body, general=False)
            merged: dict[int, float] = {}
            for coefficient, var in terms:
                column = column_of.get(id(var))
                if column is None:
                    return None
                merged[column] = merged.get(column, 0.0) + coefficient
            for column, coefficient in sorted(merged.items()):
                if coefficient != 0:
                    index.append(column)
                    value.append(coefficient)
            starts.append(len(index))
            lower.append(-INFINITY if low is None else low - constant)
            upper.append(INFINITY if high is None else high - constant)
    except _Unsupported:
        return None
    return Rows(np.asarray(starts, dtype=np.int64), np.asarray(index, dtype=np.int64),
                np.asarray(value, dtype=float), np.asarray(lower, dtype=float), np.asarray(upper, dtype=float))


def _permuted_columns(form: LinearForm, rows: np.ndarray, cols: np.ndarray) -> tuple:
    """The form's matrix (compressed columns) with new row i the old row ``rows[i]`` and new
    column j the old column ``cols[j]``, row indices sorted within each column: numpy only
    (scipy.sparse would cost the first permuted run of a process a 0.5 s import)."""
    start = np.asarray(form.start, dtype=np.int64)
    lengths = np.diff(start)[cols]
    new_start = np.zeros(len(cols) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_start[1:])
    # the old position of every entry, column by column in the new order
    column_of_entry = np.repeat(np.arange(len(cols)), lengths)
    offsets = np.arange(new_start[-1]) - new_start[column_of_entry]
    taken = start[cols][column_of_entry] + offsets
    new_row_of_old = np.empty(len(rows), dtype=np.int64)
    new_row_of_old[rows] = np.arange(len(rows))
    index = new_row_of_old[np.asarray(form.index, dtype=np.int64)[taken]]
    order = np.lexsort((index, column_of_entry))
    return new_start, index[order], np.asarray(form.value, dtype=float)[taken][order]


def form_digest(form: LinearForm) -> str:
    """SHA-256 (16 hex digits) of the problem the form states, in its row and column order:
    sizes, the matrix, row and column bounds, integrality, objective, offset and sense. Two
    solvers given forms of one digest were given the identical model."""
    digest = hashlib.sha256()
    digest.update(np.array([len(form.row_lower), len(form.columns), int(form.maximise)], dtype=np.int64).tobytes())
    for array, kind in ((form.start, np.int64), (form.index, np.int64), (form.value, np.float64),
                        (form.row_lower, np.float64), (form.row_upper, np.float64),
                        (form.col_lower, np.float64), (form.col_upper, np.float64),
                        (form.integer, np.bool_), (form.cost, np.float64)):
        digest.update(np.ascontiguousarray(array, dtype=kind).tobytes())
    digest.update(np.float64(form.offset).tobytes())
    return digest.hexdigest()[:16]


def _integer(domains: tuple[list, dict]) -> np.ndarray:
    """Whether each column is integer, asked once per distinct domain (`_domains`)."""
    keys, one_of_each = domains
    per_domain = {key: var.is_integer() for key, var in one_of_each.items()}
    return np.array([per_domain[key] for key in keys], dtype=bool)


def first_use_column_order(form):
    """Columns in the order the rows first use them, as Pyomo's persistent interface adds them.

    The standard-form compiler orders columns by declaration; HiGHS's branch and bound is
    sensitive to column order, and on exact cover the first-use order is the good one (a
    6x6x6 L-tromino cube: 31 ms against 490 ms in declaration order, benchmarks/overhead.py).
    Returns (csc matrix, columns, cost) permuted alike.
    """
    matrix = form.A.tocsc()
    matrix.sort_indices()
    counts = np.diff(matrix.indptr)
    first_row = np.where(counts > 0, matrix.indices[np.minimum(matrix.indptr[:-1], max(len(matrix.indices) - 1, 0))],
                         np.iinfo(np.int64).max) if len(matrix.indices) else np.zeros(len(counts), dtype=np.int64)
    order = np.lexsort((np.arange(len(counts)), first_row))
    cost = form.c.toarray()[0] if form.c.shape[0] else np.zeros(len(counts))
    return matrix[:, order], [form.columns[i] for i in order], cost[order]


def compiled_linear_form(model: pyo.ConcreteModel) -> LinearForm:
    """The model through Pyomo's general standard-form compiler (any linear model), with
    eliminated variables recorded; slower than `read_linear_form` on flat sums."""
    form = LinearStandardFormCompiler().write(model, mixed_form=True)
    matrix, columns, cost = first_use_column_order(form)
    rhs = np.asarray(form.rhs, dtype=float)
    sense = np.array([s for _, s in form.rows])
    offset = float(form.c_offset[0]) if len(form.c_offset) else 0.0
    maximise = any(o.sense == pyo.maximize for o in model.component_data_objects(pyo.Objective, active=True))
    sign = -1.0 if maximise else 1.0  # the compiler turns a maximisation into a minimisation
    return LinearForm(
        columns=columns, start=matrix.indptr, index=matrix.indices, value=matrix.data,
        cost=sign * cost, offset=sign * offset, maximise=maximise,
        row_lower=np.where(sense == 1, -np.inf, rhs), row_upper=np.where(sense == -1, np.inf, rhs),
        col_lower=np.array([-np.inf if v.lb is None else v.lb for v in columns], dtype=float),
        col_upper=np.array([np.inf if v.ub is None else v.ub for v in columns], dtype=float),
        integer=np.array([v.is_integer() for v in columns], dtype=bool),
        eliminated=list(form.eliminated_vars),
    )


def linear_form(model: pyo.ConcreteModel) -> LinearForm:
    """Any linear model as a `LinearForm`: read directly where it can be, compiled otherwise."""
    return read_linear_form(model) or compiled_linear_form(model)


def model_digest(model: pyo.ConcreteModel) -> str:
    """`form_digest` of the model's linear form (what the framework hands a matrix solver)."""
    return form_digest(linear_form(model))


def load_values(form: LinearForm, values) -> None:
    """Put a solver's column values (in the form's column order) into the model's variables,
    and the values of the variables the compiler eliminated."""
    values = values.tolist() if isinstance(values, np.ndarray) else values  # Python floats, not numpy scalars
    for var, value in zip(form.columns, values):
        var.set_value(value, skip_validation=True)
    for var, expr in form.eliminated:
        var.set_value(pyo.value(expr), skip_validation=True)


def permuted(form: LinearForm, number: int) -> tuple[LinearForm, np.ndarray, np.ndarray]:
    """The same problem with rows and columns in a reproducible random order.

    Permutation `number` (>= 1) seeds numpy's PCG64 generator, which draws the row order and
    then the column order (MIPLIB's PERMUTE: the same model, a different order). Returns
    (permuted form, row order, column order): row i of the new form is row ``rows[i]`` of
    the old one, column j is column ``columns[j]``.
    """
    generator = np.random.default_rng(number)
    n_rows, n_cols = len(form.row_lower), len(form.columns)
    rows, cols = generator.permutation(n_rows), generator.permutation(n_cols)
    start, index, value = _permuted_columns(form, rows, cols)
    return LinearForm(
        columns=[form.columns[j] for j in cols], start=start, index=index, value=value,
        cost=form.cost[cols], offset=form.offset, maximise=form.maximise,
        row_lower=form.row_lower[rows], row_upper=form.row_upper[rows],
        col_lower=form.col_lower[cols], col_upper=form.col_upper[cols], integer=form.integer[cols],
        eliminated=form.eliminated,
    ), rows, cols
