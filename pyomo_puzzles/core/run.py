"""One run: instance + formulation + solver -> checked run record.

The run itself: load the instance, choose what solves it (a formulation for a MIP solver, or
a family's reference solver), build the model, solve it (in stages where the formulation has
them, `core.parts`), decode and check the solution (`core.checking`). With ``isolate`` all of
it happens in a forked child process watched from outside (`core.isolation`).
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

from pyomo_puzzles.core import instances, parts, progress, registry, solvers
from pyomo_puzzles.core.checking import attach_checked_solution
from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core import isolation
from pyomo_puzzles.core.isolation import GRACE_SECONDS, Interrupted, Say
from pyomo_puzzles.core.models import abstract_model, build_model, choose_formulation, has_objective, objective_sense
from pyomo_puzzles.core.processes import cpu_seconds
from pyomo_puzzles.core.records import RunRecord, RunSettings, new_record
from pyomo_puzzles.core.solver_contract import relative_gap
from pyomo_puzzles.core.warmup import blas_threads, prepared_process
from pyomo_puzzles.errors import NotApplicable, UserError, failure_line

__all__ = ["GRACE_SECONDS", "Interrupted", "RunRequest", "run", "run_in_turn"]


def run(instance: Instance | str | Path, formulation: str | None = None, solver: str | None = None,
        time_limit: float | None = 60.0, threads: int | None = 1,
        isolate: bool = True, *, seed: int | None = None, permutation: int = 0,
        gap: float | None = None, memory_limit_mb: float | None = None,
        settings: RunSettings | None = None) -> RunRecord:
    """Load, build, solve, decode and check one instance; always returns a record.

    `instance` is an `Instance`, a shipped name or a data file. `settings` (a `RunSettings`)
    or the separate keywords say how the run is made. With ``isolate`` the run happens in a
    forked process, loading included, that is killed if it overruns the time limit by more
    than the grace period (the record then says ``time_limit``) or its resident memory
    exceeds the memory limit (``memory_limit``); its peak memory is recorded. Ctrl-C kills
    it at once and raises `Interrupted` carrying its record. Errors the user can fix (bad
    data file, unknown solver, solver missing, formulation that does not apply) raise
    `UserError` instead. A family's reference solver (e.g. ``dlx`` for packing) is run
    instead of the integer program when named as `solver`; no `solver` means
    `solvers.default_name()`.
    """
    if settings is None:
        settings = RunSettings(time_limit=time_limit, threads=threads, seed=seed, permutation=permutation,
                               gap=gap, memory_limit_mb=memory_limit_mb)
    solver = solver or solvers.default_name()
    if settings.memory_limit_mb is not None and not isolate:
        raise UserError("a memory limit needs an isolated run")
    blas = prepared_process()
    if isolate:
        startup, warmed = _before_fork(instance, formulation, solver)
        record = isolation.run_isolated(_isolated(instance, formulation, solver, settings), blas)
        if warmed:
            record.prepare_time = (record.prepare_time or 0.0) + warmed
    else:
        startup = _start_up(solver)
        with blas_threads(settings, blas):
            record = _load_and_run(instance, formulation, solver, settings, time.perf_counter())
    record.startup_time = startup
    return record


@dataclass(frozen=True)
class RunRequest:
    """One run for `run_in_turn`: as the arguments of `run` say it (`solver` None: the default)."""

    instance: Instance | str | Path
    formulation: str | None
    solver: str | None
    settings: RunSettings


def run_in_turn(requests: Sequence[RunRequest]) -> Iterator[RunRecord | UserError]:
    """The runs of `requests` made one after another in one forked process, a new one after a
    run that was killed or crashed (`core.isolation.run_in_turn`), each otherwise as `run`
    makes an isolated one: its record, or the `UserError` that `run` would raise, in order.
    Every run builds its own model and pays its own hand-over; what its process made before
    it is the record's ``runs_before_in_process``. Ctrl-C raises `Interrupted`."""
    solver_of = [request.solver or solvers.default_name() for request in requests]
    before: list[tuple[float | None, float]] = [(None, 0.0)] * len(requests)

    def before_fork(first: int) -> None:
        for index in range(first, len(requests)):
            before[index] = _before_fork(requests[index].instance, requests[index].formulation, solver_of[index])

    isolated = [_isolated(r.instance, r.formulation, solver, r.settings) for r, solver in zip(requests, solver_of)]
    for index, outcome in enumerate(isolation.run_in_turn(isolated, prepared_process(), before_fork)):
        if isinstance(outcome, RunRecord):
            outcome.startup_time, warmed = before[index]
            if warmed:
                outcome.prepare_time = (outcome.prepare_time or 0.0) + warmed
        yield outcome


def _start_up(solver: str) -> float | None:
    """The solver's one-off start-up in this process (`RunRecord.startup_time`)."""
    return solvers.start_up(solver) if solvers.is_known(solver) else reference_start_up(solver)


def _before_fork(instance, formulation: str | None, solver: str) -> tuple[float | None, float]:
    """What a run's process inherits, done here: the solver's start-up, and the formulation's
    warm-up where the instance is loaded. Their seconds (start-up, warm-up)."""
    startup = _start_up(solver)
    return startup, _warm_up_before_fork(instance, formulation, solver) if solvers.is_known(solver) else 0.0


def _isolated(instance, formulation: str | None, solver: str, settings: RunSettings) -> isolation.IsolatedRun:
    """The run as its forked process makes it."""
    known = solvers.is_known(solver)

    def work(say: Say) -> RunRecord:
        return _load_and_run(instance, formulation, solver, settings, time.perf_counter(), say)

    def placeholder(loaded: dict) -> RunRecord:
        return _placeholder(instance, loaded, formulation, solver, settings)

    return isolation.IsolatedRun(work, settings, placeholder, (lambda: solvers.helpers(solver)) if known else tuple,
                                 solver if known else None)


_WARMED: dict[tuple[int, int], object] = {}
"""The (formulation, instance spec) pairs whose `Formulation.warm_up` this process has done,
the spec kept alive with its key."""


def warm_up_formulation(instance: Instance, form: registry.Formulation) -> float:
    """Do the formulation's `warm_up` for the instance in this process, once (the processes it
    forks inherit it): the seconds it took now, 0.0 without one or when done before."""
    key = (id(form), id(instance.spec))
    if form.warm_up is None or key in _WARMED:
        return 0.0
    started = time.perf_counter()
    form.warm_up(instance.spec)
    _WARMED[key] = instance.spec
    return time.perf_counter() - started


def _warm_up_before_fork(instance, formulation: str | None, solver: str) -> float:
    """A loaded instance's formulation warmed up here, before its run is forked: what the
    formulation loads (Rubik's pattern tables) is loaded once by a batch and inherited by its
    runs. Anything that goes wrong here is left to the run, which meets it again and records it."""
    if not isinstance(instance, Instance) or solver in instance.family.reference_solvers:
        return 0.0
    try:
        return warm_up_formulation(instance, choose_formulation(instance, formulation))
    except Exception:  # noqa: BLE001 - the run reports it
        return 0.0


_REFERENCES_STARTED: set[str] = set()


def reference_start_up(name: str) -> float | None:
    """Pay the one-off start-up of the reference method `name` (`ReferenceSolver.warm_up`:
    dancing links import and compile their search) in this process, before any run's clock
    and before a run is forked (which would otherwise pay it inside its time limit): the
    seconds it took now, 0.0 when this process paid it before, None without a warm-up or for a
    method that is not available (the run says why)."""
    reference = next((fam.reference_solvers[name] for fam in registry.families().values()
                      if name in fam.reference_solvers), None)
    if reference is None or reference.warm_up is None or not reference.available()[0]:
        return None
    if name in _REFERENCES_STARTED:
        return 0.0
    started = time.perf_counter()
    reference.warm_up()
    _REFERENCES_STARTED.add(name)
    return time.perf_counter() - started


def _load_and_run(source: Instance | str | Path, formulation: str | None, solver: str, settings: RunSettings,
                  started: float, say: Say = lambda kind, facts: 0.0) -> RunRecord:
    instance, method = _prepare(source, formulation, solver, say)
    prepared = say("loaded", {"puzzle": instance.puzzle, "instance": instance.name, "formulation": _label(method)})
    if isinstance(method, registry.Formulation):
        prepared += warm_up_formulation(instance, method)  # nothing where the process that forked this one did it
    started += prepared  # the process's preparation is neither the run's loading nor within its limit
    if isinstance(method, registry.ReferenceSolver):
        left = _left(settings, started)
        load_time = time.perf_counter() - started
        record = method.run(instance, None if left is None else max(left, 0.01))
        record.load_time, record.host = load_time, record.host or socket.gethostname()
        record.time_limit = settings.time_limit  # the limit set, not what was left of it after loading
    else:
        record = _run_formulation(instance, method, solver, settings, started)
    record.prepare_time = prepared if prepared else None
    return record


def _prepare(source: Instance | str | Path, formulation: str | None, solver: str, say: Say):
    """The loaded instance and what solves it: a family's reference solver by that name,
    or the formulation (checked to apply) for the MIP solver `solver`."""
    instance = _load(source, solver, say)
    reference = instance.family.reference_solvers.get(solver)
    if reference is not None:
        ok, detail = reference.available()
        if not ok:
            raise UserError(f"solver '{solver}' is not available: {detail}")
        refuse_if_not_applicable(reference, instance)
        return instance, reference
    if not solvers.is_known(solver) and ":" not in solver:
        known = ", ".join(solvers.names() + tuple(instance.family.reference_solvers))
        raise UserError(f"unknown solver '{solver}' (choose from {known}, pyomo:NAME)")
    solvers.require(solver)
    return instance, choose_formulation(instance, formulation)


def refuse_if_not_applicable(reference: registry.ReferenceSolver, instance: Instance) -> None:
    """`NotApplicable` where the reference method's `applies_to` refuses the instance."""
    reason = reference.applies_to(instance.spec)
    if reason:
        raise NotApplicable(f"solver '{reference.name}' cannot answer {instance.name}: {reason}")


def _label(method: registry.Formulation | registry.ReferenceSolver) -> str:
    """The formulation a run's record names: a reference method's own label (dlx: exact_cover)."""
    if isinstance(method, registry.ReferenceSolver):
        return method.formulation or method.name
    return method.name


def _load(source: Instance | str | Path, solver: str, say: Say) -> Instance:
    """The instance; `say` hears its family and name, and the formulation the run will name
    (the family's default, or the reference method's label), as soon as the file is read
    (before the family's loader, which may be the slow part)."""
    if isinstance(source, Instance):
        return source
    shipped, path = instances.resolve(source)
    data = instances.read_data_file(path)
    puzzle = data.get("puzzle") if isinstance(data.get("puzzle"), str) else "?"
    say("read", {"puzzle": puzzle, "instance": shipped or f"{puzzle}/{path.stem}",
                 "formulation": _run_label(puzzle, solver)})
    return instances.from_data(data, path, shipped)


def _left(settings: RunSettings, started: float) -> float | None:
    """What is left of the run's time limit (None: no limit)."""
    return None if settings.time_limit is None else settings.time_limit - (time.perf_counter() - started)


class _OutOfTime(Exception):
    """The time limit ran out before the solver could be started."""


def _run_formulation(instance: Instance, form: registry.Formulation, solver: str,
                     settings: RunSettings, started: float) -> RunRecord:
    """The integer program of the run; the time limit counts from `started` (the start of
    loading) and covers building the model: the solver gets what is left."""
    record = new_record(instance.puzzle, instance.name, form.name, solver, settings)
    try:
        abstract_model(form)  # declared once per process: load_time holds it, not wall_time
    except Exception:  # noqa: BLE001 - raised again, and recorded, where the run builds its model
        pass
    cpu = cpu_seconds()  # read before the clock starts: a reading scans /proc (0.5 ms)
    began = time.perf_counter()
    record.load_time = began - started
    try:
        record.solver_version = solvers.require(solver)
        if form.stages is not None:
            parts.solve_in_stages(record, instance, form, _session_maker(solver, settings),
                                  lambda: _left(settings, started), settings.threads or 1)
        else:
            _solve_once(record, instance, form, solver, settings, started, began)
    except UserError:
        raise
    except _OutOfTime as why:
        record.status, record.message = "time_limit", str(why)
    except MemoryError:
        record.status = "memory_limit" if settings.memory_limit_mb else "error"
        record.message = "MemoryError: the run ran out of memory"
    except Exception as error:
        record.status = "error"
        record.message = failure_line(error)
    record.wall_time = time.perf_counter() - began
    record.cpu_time = cpu_seconds() - cpu
    record.gap = relative_gap(record.objective, record.bound)
    return record


def _solve_once(record: RunRecord, instance: Instance, form: registry.Formulation, solver: str,
                settings: RunSettings, started: float, began: float) -> None:
    model = build_model(instance, form)
    record.build_time = time.perf_counter() - began
    record.objective_sense = objective_sense(model)
    left = _left(settings, started)
    if left is not None and left <= 0:
        raise _OutOfTime("time limit reached while building the model")
    calling = time.perf_counter()
    outcome = solvers.solve_within(solver, model, settings, lambda: _left(settings, started))
    record.compile_time = outcome.compile_time
    record.call_time = time.perf_counter() - calling - outcome.compile_time
    record.models, record.matrix_digest = 1, outcome.matrix_digest
    if outcome.presolved_size is not None:
        record.presolved_variables, record.presolved_rows, record.presolved_nonzeros = outcome.presolved_size
    record.status, record.message = outcome.status, outcome.message
    record.objective, record.bound = outcome.objective, outcome.bound
    record.solver_time, record.nodes = outcome.solver_time, outcome.nodes
    record.solver_clock = outcome.solver_clock if outcome.solver_time is not None else None
    if has_objective(model) and outcome.status != "licence_limit":  # a refused model was never searched
        _record_progress(record, outcome)
    if outcome.has_solution:
        decoding = time.perf_counter()
        solution = form.decode(instance.spec, model)
        record.decode_time = time.perf_counter() - decoding
        attach_checked_solution(record, instance, solution)


def _record_progress(record: RunRecord, outcome: solvers.SolveOutcome) -> None:
    """The run's trace of incumbent and bound (`core.progress`): the solver's own reports where
    it made them, and the run's end; and its primal-dual integral."""
    end = record.solver_time if record.solver_time is not None else record.call_time
    if end is None:
        return
    record.progress = progress.trace(outcome.progress or [], end, record.objective, record.bound)
    record.progress_source = "solver" if outcome.progress else "final"
    record.root_bound = outcome.root_bound
    record.primal_dual_integral = progress.primal_dual_integral(record.progress)


def _session_maker(solver: str, settings: RunSettings) -> Callable:
    """`solve(model, time_left)` for the parts of a staged formulation (`time_left()`: what is
    left of the run's limit, compiling included): with several workers, each part's solver
    gets one thread (`core.parts`)."""
    per_part = settings if (settings.threads or 1) <= 1 else settings.replace(threads=1)
    return lambda model, time_left: solvers.solve_within(solver, model, per_part, time_left)


def _placeholder(source, loaded: dict, formulation: str | None, solver: str, settings: RunSettings) -> RunRecord:
    """The record of an isolated run that sent none (killed, crashed or interrupted)."""
    if isinstance(source, Instance):
        name, puzzle = source.name, source.puzzle
    else:
        name = loaded.get("instance") or str(source)
        puzzle = loaded.get("puzzle") or (name.split("/")[0] if "/" in name else "")
    version = solvers.availability(solver)[1] if solvers.is_known(solver) else None
    return new_record(puzzle, name, formulation or loaded.get("formulation") or "", solver, settings,
                      solver_version=version)


def _run_label(puzzle: str, solver: str) -> str:
    """The formulation a run of the family `puzzle` will name once its data file is read: the
    reference method's label, or the family's default formulation ("" for no known family)."""
    family = registry.find(puzzle) if puzzle else None
    if family is None:
        return ""
    reference = family.reference_solvers.get(solver)
    return _label(reference) if reference is not None else family.default_formulation
