"""One run: instance + formulation + solver -> checked run record."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from datetime import datetime, timezone
from functools import lru_cache

import pyomo.environ as pyo

from pyomo_puzzles import __version__
from pyomo_puzzles.core import registry, solvers
from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core.records import RunRecord
from pyomo_puzzles.errors import UserError

GRACE_SECONDS = 10.0
"""How long a run may overrun its time limit before its process group is killed (the
solver's own limit is soft, and Pyomo's build and hand-over are not covered by it)."""


def choose_formulation(instance: Instance, name: str | None) -> registry.Formulation:
    form = registry.formulation(instance.family, name)
    reason = form.applies_to(instance.spec)
    if reason:
        raise UserError(f"formulation '{form.name}' cannot model {instance.name}: {reason}")
    return form


@lru_cache(maxsize=None)
def abstract_model(form: registry.Formulation) -> pyo.AbstractModel:
    """The formulation's AbstractModel, declared once per process (`create_instance`
    works on a clone, so one declaration serves every instance)."""
    return form.build_model()


def instantiate(form: registry.Formulation, spec) -> pyo.ConcreteModel:
    """The formulation's AbstractModel instantiated from the data of `spec` (an instance's
    spec, or one part of a stage, see `registry.Stage`)."""
    return abstract_model(form).create_instance(data=form.model_data(spec))


def build_model(instance: Instance, form: registry.Formulation) -> pyo.ConcreteModel:
    """Instantiate the formulation's AbstractModel from the instance's data."""
    return instantiate(form, instance.spec)


def _new_record(instance: Instance, form: registry.Formulation, solver: str,
                time_limit: float | None, threads: int | None) -> RunRecord:
    return RunRecord(
        puzzle=instance.puzzle, instance=instance.name, formulation=form.name, solver=solver,
        time_limit=time_limit, threads=threads, framework_version=__version__,
        started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )


def check_solution(instance: Instance, solution: dict) -> list[str]:
    """Run the family's independent checker; a crash of the checker is a failed check."""
    try:
        return list(instance.family.check(instance.spec, solution))
    except Exception as error:  # a malformed solution must not crash the caller
        return [f"checker could not read the solution: {type(error).__name__}: {error}"]


def attach_checked_solution(record: RunRecord, instance: Instance, solution: dict) -> None:
    """Put `solution` on the record with the independent checker's verdict; a solution that
    fails the check turns the run into an error."""
    record.solution = solution
    record.check_errors = check_solution(instance, solution)
    record.checked = not record.check_errors
    if not record.checked:
        record.status = "error"
        record.message = "solution failed the independent check: " + record.check_errors[0]


def _run_in_process(instance: Instance, form: registry.Formulation, solver: str,
                    time_limit: float | None, threads: int | None) -> RunRecord:
    record = _new_record(instance, form, solver, time_limit, threads)
    started = time.perf_counter()
    try:
        record.solver_version = solvers.require(solver)
        if form.stages is not None:
            _solve_in_stages(record, instance, form, solver, time_limit, threads, started)
            record.wall_time = time.perf_counter() - started
            return record
        model = build_model(instance, form)
        record.build_time = time.perf_counter() - started
        outcome = solvers.SolverSession(solver, model, time_limit, threads).solve()
        record.status, record.message = outcome.status, outcome.message
        record.objective, record.bound = outcome.objective, outcome.bound
        record.solver_time, record.nodes = outcome.solver_time, outcome.nodes
        if outcome.has_solution:
            attach_checked_solution(record, instance, form.decode(instance.spec, model))
    except UserError:
        raise
    except Exception as error:
        record.status = "error"
        record.message = f"{type(error).__name__}: {error}".splitlines()[0]
    record.wall_time = time.perf_counter() - started
    return record


def _solve_in_stages(record: RunRecord, instance: Instance, form: registry.Formulation, solver: str,
                     time_limit: float | None, threads: int | None, started: float) -> None:
    """Solve the formulation's stages' parts in turn until one has a solution (see
    `registry.Stage`); the time limit covers all of them."""
    solver_time, build_time, nodes, models, settled, objectives = 0.0, 0.0, 0, 0, 0, []
    record.status, found = "infeasible", None
    for stage in form.stages(instance.spec):
        objectives.append(stage.objective)
        settled += stage.settled
        record.bound = stage.objective  # every earlier stage was proved to have no solution
        found = stage.solution
        for part in stage.parts if found is None else ():
            remaining = None if time_limit is None else time_limit - (time.perf_counter() - started)
            if remaining is not None and remaining <= 0:
                record.status, record.message = "time_limit", "time limit reached between models"
                break
            built = time.perf_counter()
            model = instantiate(form, part)
            build_time += time.perf_counter() - built
            outcome = solvers.SolverSession(solver, model, remaining, threads).solve()
            models += 1
            solver_time += outcome.solver_time or 0.0
            nodes += outcome.nodes or 0
            if outcome.has_solution:
                found = form.decode(part, model)
                break
            if outcome.status != "infeasible":
                record.status = outcome.status if outcome.status in ("time_limit", "error") else "error"
                record.message = outcome.message or f"a part ended {outcome.status}"
                break
        if found is not None:
            record.status, record.objective = "optimal", stage.objective
            break
        if record.status != "infeasible":
            break
    if record.status == "infeasible":
        record.bound = None
    record.solver_time, record.build_time, record.nodes = solver_time, build_time, nodes
    span = f"{objectives[0]:g}..{objectives[-1]:g}" if objectives else "none"
    summary = f"{len(objectives)} stages (objective {span}): {models} models solved, {settled} parts settled without a solver"
    record.message = summary + (f"; {record.message}" if record.message else "")
    if found is not None:
        attach_checked_solution(record, instance, found)


def _child(conn, instance, form, solver, time_limit, threads) -> None:
    os.setpgrp()  # so that a kill reaches the solver executables this run starts
    try:
        conn.send(_run_in_process(instance, form, solver, time_limit, threads).to_dict())
    except BaseException as error:  # report, never leave the parent without a record
        conn.send({"__error__": f"{type(error).__name__}: {error}"})
    finally:
        conn.close()


def _run_isolated(instance: Instance, form: registry.Formulation, solver: str,
                  time_limit: float | None, threads: int | None) -> RunRecord:
    """Run in a forked child; kill its whole process group past the hard deadline."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(sender, instance, form, solver, time_limit, threads))
    started = time.perf_counter()
    child.start()
    sender.close()
    deadline = None if time_limit is None else time_limit + GRACE_SECONDS
    ready = receiver.poll(deadline)
    try:
        payload = receiver.recv() if ready else None
    except EOFError:  # the child died without a word
        payload = None
    if not ready:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    child.join()
    if payload is not None and "__error__" not in payload:
        return RunRecord.from_dict(payload)
    record = _new_record(instance, form, solver, time_limit, threads)
    record.wall_time = time.perf_counter() - started
    record.solver_version = solvers.availability(solver)[1]
    if not ready:
        record.status, record.killed = "time_limit", True
        record.message = f"run killed after {deadline:g} s (time limit {time_limit:g} s + grace)"
    elif payload is not None:
        record.message = payload["__error__"].splitlines()[0]
    else:
        record.message = f"run crashed (exit code {child.exitcode})"
    return record


def run(instance: Instance, formulation: str | None = None, solver: str = "highs",
        time_limit: float | None = 60.0, threads: int | None = 1,
        isolate: bool = True) -> RunRecord:
    """Build, solve, decode and check one instance; always returns a record.

    With ``isolate`` the run happens in a forked process that is killed if it overruns
    ``time_limit`` by more than the grace period; the record then says ``time_limit``.
    Errors the user can fix (unknown solver, solver missing, formulation that does not
    apply) raise `UserError` instead. A family's reference solver (e.g. ``dlx`` for
    packing) is run instead of the integer program when named as `solver`.
    """
    reference = instance.family.reference_solvers.get(solver)
    if reference is not None:
        ok, detail = reference.available()
        if not ok:
            raise UserError(f"solver '{solver}' is not available: {detail}")
        return reference.run(instance, time_limit)
    if solver not in solvers.ALL_SOLVERS:
        known = ", ".join(solvers.ALL_SOLVERS + tuple(instance.family.reference_solvers))
        raise UserError(f"unknown solver '{solver}' (choose from {known})")
    solvers.require(solver)
    form = choose_formulation(instance, formulation)
    if isolate:
        return _run_isolated(instance, form, solver, time_limit, threads)
    return _run_in_process(instance, form, solver, time_limit, threads)
