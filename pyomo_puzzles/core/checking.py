"""The family's independent checker applied to a solution, and its verdict on a record: the
solution's feasibility (the `check` hook) and, where the family gives an `objective` hook,
the run's objective recomputed from the solution alone."""

from __future__ import annotations

import math
import time

from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core.records import RunRecord
from pyomo_puzzles.errors import failure_line

OBJECTIVE_CHECK_TOLERANCE = 1e-4
"""A solver's objective agrees with the objective hook's value v if they differ by at most
1e-4 * max(1, |v|): the default relative gap tolerance of HiGHS, CBC and SCIP, far above the
error of an incumbent's own objective (its variables are integral to about 1e-6), far below
any difference of a wrong objective on an integer-valued puzzle."""


def check_solution(instance: Instance, solution: dict) -> list[str]:
    """Run the family's independent checker; a crash of the checker is a failed check (the
    solution is malformed, or the checker has a bug: `--traceback` shows which)."""
    try:
        return list(instance.family.check(instance.spec, solution))
    except Exception as error:  # a malformed solution must not crash the caller
        return [f"the checker raised {failure_line(error)} (a malformed solution, or a fault in the checker)"]


def solution_objective(instance: Instance, solution: dict) -> float | None:
    """The objective of a checked solution by the family's `objective` hook (None: the family
    has none). A hook that raises or gives no finite number raises `ValueError` in one line."""
    hook = instance.family.objective
    if hook is None:
        return None
    try:
        value = hook(instance.spec, solution)
    except Exception as error:  # noqa: BLE001 - the family's own code: one line naming it
        raise ValueError(f"the family's objective hook raised {failure_line(error)}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"the family's objective hook gave {value!r}, not a finite number")
    return float(value)


def objectives_agree(claimed: float, checked: float) -> bool:
    """Whether a solver's objective is the checked one (`OBJECTIVE_CHECK_TOLERANCE`)."""
    return abs(claimed - checked) <= OBJECTIVE_CHECK_TOLERANCE * max(1.0, abs(checked))


def attach_checked_solution(record: RunRecord, instance: Instance, solution: dict) -> None:
    """Put `solution` on the record with the independent checker's verdict; a solution that
    fails the check turns the run into an error. Where the family gives an `objective` hook,
    the solution's objective is recomputed by it: a solver objective that differs is an error
    naming both values (`objective_checked` false), one that agrees is `objective_checked`
    (a record without an objective, a reference method's, takes the hook's value). The
    check's time is `check_time`."""
    started = time.perf_counter()
    record.solution = solution
    record.check_errors = check_solution(instance, solution)
    record.checked = not record.check_errors
    if record.checked:
        _check_objective(record, instance, solution)
    record.check_time = time.perf_counter() - started
    if not record.checked:
        record.status = "error"
        record.message = "solution failed the independent check: " + record.check_errors[0]


def _check_objective(record: RunRecord, instance: Instance, solution: dict) -> None:
    try:
        value = solution_objective(instance, solution)
    except ValueError as error:
        record.objective_checked, record.status, record.message = False, "error", str(error)
        return
    if value is None:
        return
    if record.objective is None:
        record.objective = value
    if objectives_agree(record.objective, value):
        record.objective_checked = True
        return
    record.objective_checked, record.status = False, "error"
    record.message = (f"the solver's objective {record.objective:g} is not the objective of its solution: "
                      f"the family's objective hook gives {value:g} for the checked solution")
