"""From a loaded instance to a concrete Pyomo model: choosing the formulation, declaring its
AbstractModel once per process, and instantiating it from the instance's data."""

from __future__ import annotations

import contextlib
import logging
from functools import lru_cache

import pyomo.environ as pyo
from pyomo.core.expr.numvalue import is_fixed

from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core.registry import Formulation, formulation
from pyomo_puzzles.errors import NotApplicable, UserError


def choose_formulation(instance: Instance, name: str | None) -> Formulation:
    """The formulation `name` of the instance's family (None: the family's default; or
    ``FILE.py:NAME``), refused in one line when it cannot model the instance."""
    form = formulation(instance.family, name)
    reason = form.applies_to(instance.spec)
    if reason:
        raise NotApplicable(f"formulation '{form.name}' cannot model {instance.name}: {reason}")
    return form


@lru_cache(maxsize=None)
def abstract_model(form: Formulation) -> pyo.AbstractModel:
    """The formulation's AbstractModel, declared once per process (`create_instance`
    works on a clone, so one declaration serves every instance)."""
    return form.build_model()


def instantiate(form: Formulation, spec) -> pyo.ConcreteModel:
    """The formulation's AbstractModel instantiated from the data of `spec` (an instance's
    spec, or one part of a stage, see `registry.Stage`). A rule that fails raises, and the
    caller reports it in one line: Pyomo's own multi-line log of it is held back."""
    with pyomo_build_log_held():
        return abstract_model(form).create_instance(data=form.model_data(spec))


def build_model(instance: Instance, form: Formulation) -> pyo.ConcreteModel:
    """Instantiate the formulation's AbstractModel from the instance's data."""
    return instantiate(form, instance.spec)


def release(model: pyo.ConcreteModel) -> None:
    """Let a model nothing uses any more be freed at once, by reference counting.

    A Pyomo block is its own data (``{None: block}``), so every model is a reference cycle
    that only the cyclic garbage collector frees, and collecting the thousands of objects of
    each small model of a staged formulation took about a quarter of its build. With that one
    self-reference dropped, the model and all it holds go when its last reference does. The
    model cannot be used afterwards."""
    data = getattr(model, "_data", None)
    if isinstance(data, dict) and len(data) == 1 and data.get(None) is model:
        data.clear()


def objective_sense(model: pyo.ConcreteModel) -> str | None:
    """"minimize" or "maximize": the sense of the model's active objective (None: it has none)."""
    for objective in model.component_data_objects(pyo.Objective, active=True):
        return "maximize" if objective.sense == pyo.maximize else "minimize"
    return None


def has_objective(model: pyo.ConcreteModel) -> bool:
    """Whether the model's active objective depends on a variable (a feasibility model's
    constant objective does not)."""
    return any(not is_fixed(objective.expr)
               for objective in model.component_data_objects(pyo.Objective, active=True))


def _below_error(record: logging.LogRecord) -> bool:
    return record.levelno < logging.ERROR


@contextlib.contextmanager
def pyomo_build_log_held():
    """Pyomo's ERROR log of a failing rule (several lines, with the rule's source) off while
    a model is built: the exception it comes with is reported instead. Warnings stay."""
    pyomo_log = logging.getLogger("pyomo.core")
    pyomo_log.addFilter(_below_error)
    try:
        yield
    finally:
        pyomo_log.removeFilter(_below_error)
