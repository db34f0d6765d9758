"""The family's independent checker applied to a solution, and its verdict on a record."""

from __future__ import annotations

import time

from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core.records import RunRecord
from pyomo_puzzles.errors import failure_line


def check_solution(instance: Instance, solution: dict) -> list[str]:
    """Run the family's independent checker; a crash of the checker is a failed check (the
    solution is malformed, or the checker has a bug: `--traceback` shows which)."""
    try:
        return list(instance.family.check(instance.spec, solution))
    except Exception as error:  # a malformed solution must not crash the caller
        return [f"the checker raised {failure_line(error)} (a malformed solution, or a fault in the checker)"]


def attach_checked_solution(record: RunRecord, instance: Instance, solution: dict) -> None:
    """Put `solution` on the record with the independent checker's verdict; a solution that
    fails the check turns the run into an error. The check's time is `check_time`."""
    started = time.perf_counter()
    record.solution = solution
    record.check_errors = check_solution(instance, solution)
    record.check_time = time.perf_counter() - started
    record.checked = not record.check_errors
    if not record.checked:
        record.status = "error"
        record.message = "solution failed the independent check: " + record.check_errors[0]
