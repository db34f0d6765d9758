"""The persistent-model route of a solve, and permutations: a model compiled once into a
`core.linear_form.LinearForm` and handed to an adapter's matrix session, followed between
solves (rows added, bounds changed); and a model rebuilt from its permuted matrix for an
adapter that takes Pyomo models only."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from pyomo_puzzles.core.records import RunSettings
from pyomo_puzzles.core.solver_contract import Adapter, SolveOutcome, outcome_without_columns


def takes_the_matrix(found: Adapter) -> bool:
    """Whether an adapter has a matrix session (`Adapter.matrix_session`); the others get Pyomo models."""
    return type(found).matrix_session is not Adapter.matrix_session


@dataclass
class PermutedModel:
    """A model rebuilt from its matrix with rows and columns permuted (see `core.linear_form`)."""

    form: Any
    model: Any


def permuted_model(model, number: int) -> PermutedModel:
    """A concrete model of the same problem: variables ``x[j]`` declared in the permuted
    column order, rows in the permuted row order, each row's terms in column order."""
    import pyomo.environ as pyo  # this module loads no Pyomo or numpy: `list` and `--help` stay fast
    from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression

    from pyomo_puzzles.core.linear_form import linear_form, permuted  # numpy, Pyomo: as above

    form, _, _ = permuted(linear_form(model), number)
    copy = pyo.ConcreteModel(name=f"{model.name} (permutation {number})")
    n_cols = len(form.columns)
    copy.x = pyo.Var(range(n_cols), domain=pyo.Reals)
    for j, var in enumerate(copy.x.values()):
        if form.integer[j]:
            var.domain = pyo.Integers
        var.setlb(None if math.isinf(form.col_lower[j]) else float(form.col_lower[j]))
        var.setub(None if math.isinf(form.col_upper[j]) else float(form.col_upper[j]))
    rows: list[list] = [[] for _ in range(len(form.row_lower))]
    for j in range(n_cols):
        for k in range(form.start[j], form.start[j + 1]):
            rows[form.index[k]].append(MonomialTermExpression((float(form.value[k]), copy.x[j])))

    def bound(value: float):
        return None if math.isinf(value) else float(value)

    copy.rows = pyo.Constraint(range(len(rows)), rule=lambda m, i: (
        bound(form.row_lower[i]), LinearExpression(rows[i]), bound(form.row_upper[i])))
    objective = LinearExpression([MonomialTermExpression((float(c), copy.x[j]))
                                  for j, c in enumerate(form.cost) if c]) + form.offset
    copy.objective = pyo.Objective(expr=objective, sense=pyo.maximize if form.maximise else pyo.minimize)
    return PermutedModel(form, copy)


class MatrixRoute:
    """A model compiled once into a `LinearForm` and handed to the adapter's matrix session;
    the solver's column values are loaded back into the model's variables. A persistent
    route follows the model between solves: constraints added since (no-good cuts) go to the
    solver as rows, changed variable bounds (fixing, unfixing) as bounds; anything else (a
    constraint removed, a new variable) compiles the model again into a new session."""

    def __init__(self, found: Adapter, model, settings: RunSettings, persistent: bool, form) -> None:
        self.found, self.model, self.persistent = found, model, persistent
        self._settings = settings
        self.compile_time = 0.0  # seconds compiling the model and digesting its matrix, not loading it
        self._open(form)

    @classmethod
    def open(cls, found: Adapter, model, settings: RunSettings, persistent: bool) -> "MatrixRoute | None":
        """The route, or None where the adapter takes Pyomo models only (or a persistent
        session meets a model that is not flat linear sums)."""
        if not takes_the_matrix(found):
            return None
        compiling = time.perf_counter()
        form = cls._compile(model, settings, persistent)
        if form is None:
            return None
        compiled = time.perf_counter() - compiling
        route = cls(found, model, settings, persistent, form)
        route.compile_time += compiled
        return route if route.session is not None or route.empty else None

    @staticmethod
    def _compile(model, settings: RunSettings, persistent: bool):
        from pyomo_puzzles.core.linear_form import linear_form, permuted, read_linear_form  # numpy, Pyomo: as above

        if persistent:
            return read_linear_form(model, keep_fixed=True)
        form = linear_form(model)
        return permuted(form, settings.permutation)[0] if settings.permutation else form

    def _open(self, form) -> None:
        import pyomo.environ as pyo  # see permuted_model

        from pyomo_puzzles.core.linear_form import form_digest  # numpy: as above

        digesting = time.perf_counter()
        self.form, self.digest = form, form_digest(form)
        self.compile_time += time.perf_counter() - digesting
        self.empty = not form.columns  # decided here: HiGHS calls such a model "Empty", others fail
        self.session = None if self.empty else self.found.matrix_session(form, self._settings, self.persistent)
        if self.persistent:
            self.column_of = {id(var): j for j, var in enumerate(form.columns)}
            self.compiled = {id(con) for con in self.model.component_data_objects(pyo.Constraint, active=True)}
            self.lower, self.upper = form.col_lower.copy(), form.col_upper.copy()

    @property
    def settings(self) -> RunSettings:
        return self._settings

    @settings.setter
    def settings(self, value: RunSettings) -> None:
        self._settings = value
        if self.session is not None:
            self.session.settings = value

    def solve(self) -> SolveOutcome:
        from pyomo_puzzles.core.linear_form import load_values  # numpy, Pyomo: see permuted_model

        if self.persistent:
            self._follow_the_model()
        if self.empty:
            outcome = outcome_without_columns(self.form)
        else:
            outcome = self.session.solve()
            if outcome.has_solution and outcome.values is not None:
                load_values(self.form, outcome.values)
        outcome.values, outcome.matrix_digest = None, self.digest
        return outcome

    def _follow_the_model(self) -> None:
        import pyomo.environ as pyo  # see permuted_model

        from pyomo_puzzles.core.linear_form import column_bounds, rows_of  # numpy: as above

        active = list(self.model.component_data_objects(pyo.Constraint, active=True))
        added = [con for con in active if id(con) not in self.compiled]
        rows = rows_of(added, self.column_of) if added else None
        if len(active) - len(added) != len(self.compiled) or (added and rows is None) or self.empty:
            self._reopen()
            return
        if rows is not None:
            self.session.add_rows(rows)
            self.compiled.update(id(con) for con in added)
        lower, upper = column_bounds(self.form.columns)
        changed = (lower != self.lower) | (upper != self.upper)
        if changed.any():
            where = changed.nonzero()[0]
            self.session.set_bounds(where, lower[where], upper[where])
            self.lower, self.upper = lower, upper

    def _reopen(self) -> None:
        form = self._compile(self.model, self._settings, True)
        if form is None:
            raise RuntimeError("the model is no longer flat linear sums: it cannot be handed over as a matrix")
        self._open(form)


